"""The two figures of a grid run: the F1 heatmap and the chosen-answer bars."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # Files only; no display.
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def heatmap(summary: dict, train_types, test_types, path: str,
            title: str = "") -> None:
  """Mean F1, train type (rows) x test type (columns), like 000 Fig. 15/24."""
  m = np.array([[summary[t][u]["f1_mean"] for u in test_types]
                for t in train_types])
  s = np.array([[summary[t][u]["f1_std"] for u in test_types]
                for t in train_types])
  fig, ax = plt.subplots(figsize=(1.4 * len(test_types) + 2,
                                  1.1 * len(train_types) + 1.5))
  im = ax.imshow(m, vmin=0.0, vmax=1.0, cmap="viridis")
  for i in range(m.shape[0]):
    for j in range(m.shape[1]):
      ax.text(j, i, f"{m[i, j]:.3f}\n±{s[i, j]:.3f}", ha="center",
              va="center", color="white" if m[i, j] < 0.6 else "black",
              fontsize=9)
  ax.set_xticks(range(len(test_types)), [f"test {u}" for u in test_types])
  ax.set_yticks(range(len(train_types)), [f"train {t}" for t in train_types])
  ax.set_title(title or "F1 (mean over seeds)")
  fig.colorbar(im, ax=ax, fraction=0.046)
  fig.tight_layout()
  fig.savefig(path, dpi=120)
  plt.close(fig)


def error_bars(summary: dict, train_types, test_types,
               label_names: tuple[str, ...], path: str,
               title: str = "") -> None:
  """Stacked bars of chosen answer types per (train, test) pair."""
  pairs = [(t, u) for t in train_types for u in test_types]
  fractions = np.zeros((len(pairs), len(label_names)))
  for k, (t, u) in enumerate(pairs):
    chosen = summary[t][u]["chosen_total"]
    total = max(1, sum(chosen.values()))
    fractions[k] = [chosen.get(name, 0) / total for name in label_names]
  fig, ax = plt.subplots(figsize=(0.6 * len(pairs) + 3, 4.5))
  bottom = np.zeros(len(pairs))
  colors = plt.get_cmap("tab20")(np.linspace(0, 1, max(2, len(label_names))))
  for i, name in enumerate(label_names):
    ax.bar(range(len(pairs)), fractions[:, i], bottom=bottom, label=name,
           color=colors[i])
    bottom += fractions[:, i]
  ax.set_xticks(range(len(pairs)), [f"{t}→{u}" for t, u in pairs],
                rotation=45, ha="right")
  ax.set_ylabel("fraction of chosen answers")
  ax.set_xlabel("train type → test type")
  ax.set_title(title or "Chosen answer types")
  ax.legend(bbox_to_anchor=(1.02, 1), loc="upper left", fontsize=8)
  fig.tight_layout()
  fig.savefig(path, dpi=120)
  plt.close(fig)
