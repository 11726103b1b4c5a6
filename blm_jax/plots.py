"""The two figures of a grid run: the F1 heatmap and the chosen-answer bars.

Titles name the dataset without the `_type_{}` placeholder of the config's
TFDS template, and the encoder when given; both figures mark chance
(1 / number of answers) when it is given; the legend lists only the answer
labels that occur (an English CoS run does not list the Italian-only SI
labels).
"""

from __future__ import annotations

import re
import textwrap

import matplotlib

matplotlib.use("Agg")  # Files only; no display.
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

_TYPE_PLACEHOLDER = re.compile(r"[_/-]?type_\{\}|\{\}")


def dataset_title(name: str) -> str:
  """'blm_spray_load/ALT-ATL_type_{}' -> 'blm_spray_load/ALT-ATL'."""
  return _TYPE_PLACEHOLDER.sub("", name)


def _title(title: str, encoder: str, num_answers: int, width: int) -> str:
  parts = [dataset_title(title)]
  if encoder:
    parts.append(f"encoder {encoder}")
  if num_answers:
    parts.append(f"chance 1/{num_answers} = {1 / num_answers:.3f}")
  return "\n".join(textwrap.fill(p, width, break_on_hyphens=False,
                                 break_long_words=False) for p in parts)


def heatmap(summary: dict, train_types, test_types, path: str,
            title: str = "", *, encoder: str = "",
            num_answers: int = 0) -> None:
  """Mean F1, train type (rows) x test type (columns), like 000 Fig. 15/24.

  With `num_answers`, chance (1/num_answers) is drawn on the colour bar.
  """
  m = np.array([[summary[t][u]["f1_mean"] for u in test_types]
                for t in train_types])
  s = np.array([[summary[t][u]["f1_std"] for u in test_types]
                for t in train_types])
  # At least 5 x 3.8 inches, so one cell still fits its title and colour bar.
  fig, ax = plt.subplots(
      figsize=(max(5.0, 1.4 * len(test_types) + 2.5),
               max(3.8, 1.1 * len(train_types) + 2.2)),
      layout="constrained")
  im = ax.imshow(m, vmin=0.0, vmax=1.0, cmap="viridis")
  for i in range(m.shape[0]):
    for j in range(m.shape[1]):
      ax.text(j, i, f"{m[i, j]:.3f}\n±{s[i, j]:.3f}", ha="center",
              va="center", color="white" if m[i, j] < 0.6 else "black",
              fontsize=9)
  ax.set_xticks(range(len(test_types)), [f"test {u}" for u in test_types])
  ax.set_yticks(range(len(train_types)), [f"train {t}" for t in train_types])
  ax.set_title(_title(title or "F1 (mean over seeds)", encoder, num_answers,
                      width=40), fontsize=10)
  bar = fig.colorbar(im, ax=ax, fraction=0.046)
  if num_answers:
    bar.ax.axhline(1 / num_answers, color="red", linewidth=2)
    bar.ax.text(1.6, 1 / num_answers, "chance", color="red", fontsize=8,
                va="center", transform=bar.ax.get_yaxis_transform())
  fig.savefig(path, dpi=120)
  plt.close(fig)


def occurring_labels(summary: dict, label_names) -> list[str]:
  """The labels chosen at least once in some (train, test) pair."""
  seen = set()
  for row in summary.values():
    for cell in row.values():
      seen |= {k for k, v in cell["chosen_total"].items() if v}
  return [name for name in label_names if name in seen]


def error_bars(summary: dict, train_types, test_types,
               label_names: tuple[str, ...], path: str,
               title: str = "", *, encoder: str = "",
               num_answers: int = 0) -> None:
  """Stacked bars of chosen answer types per (train, test) pair.

  With `num_answers`, a dashed line marks chance for the correct answer.
  """
  label_names = occurring_labels(summary, label_names)
  pairs = [(t, u) for t in train_types for u in test_types]
  fractions = np.zeros((len(pairs), len(label_names)))
  for k, (t, u) in enumerate(pairs):
    chosen = summary[t][u]["chosen_total"]
    total = max(1, sum(chosen.values()))
    fractions[k] = [chosen.get(name, 0) / total for name in label_names]
  fig, ax = plt.subplots(figsize=(max(5.5, 0.6 * len(pairs) + 4), 4.8),
                         layout="constrained")
  bottom = np.zeros(len(pairs))
  colors = plt.get_cmap("tab20")(np.linspace(0, 1, max(2, len(label_names))))
  for i, name in enumerate(label_names):
    ax.bar(range(len(pairs)), fractions[:, i], bottom=bottom, label=name,
           color=colors[i])
    bottom += fractions[:, i]
  if num_answers:
    ax.axhline(1 / num_answers, color="red", linestyle="--", linewidth=1,
               label=f"chance (1/{num_answers})")
  ax.set_xticks(range(len(pairs)), [f"{t}→{u}" for t, u in pairs],
                rotation=45, ha="right")
  ax.set_ylabel("fraction of chosen answers")
  ax.set_xlabel("train type → test type")
  ax.set_title(_title(title or "Chosen answer types", encoder, num_answers,
                      width=50), fontsize=10)
  ax.legend(bbox_to_anchor=(1.02, 1), loc="upper left", fontsize=8)
  fig.savefig(path, dpi=120)
  plt.close(fig)
