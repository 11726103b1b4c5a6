"""The probe's figures: confusion matrices, traversal grids, projections.

matplotlib's object API only (no pyplot, no global state), so figures can
be drawn from several threads and tests can count what is saved.
"""

from __future__ import annotations

import textwrap

import matplotlib
import numpy as np
from matplotlib.figure import Figure


def _suptitle(fig, title: str) -> None:
  """A title wrapped to the figure's width (about 13 characters per inch)."""
  width = max(30, int(13 * fig.get_figwidth()))
  fig.suptitle(textwrap.fill(title, width, break_long_words=False),
               fontsize=8)


def _matrix(ax, m, names, title, labels=True):
  """Row-normalised; rows no instance has (every label but the correct
  one, at the label level) are left out."""
  keep = np.flatnonzero(m.sum(axis=1) > 0)
  m = m[keep]
  frac = m / np.maximum(m.sum(axis=1, keepdims=True), 1)
  ax.imshow(frac, vmin=0, vmax=1, cmap="viridis", aspect="auto")
  ax.set_title(title, fontsize=7)
  if labels:
    short = [str(n)[:40] for n in names]
    ax.set_xticks(np.arange(len(names)), short, rotation=90, fontsize=5)
    ax.set_yticks(np.arange(len(keep)), [short[i] for i in keep], fontsize=5)
    ax.set_xlabel("chosen", fontsize=6)
    ax.set_ylabel("true", fontsize=6)
    if frac.size <= 400:  # Each cell: its row fraction and its count.
      for i in range(frac.shape[0]):
        for j in range(frac.shape[1]):
          if m[i, j]:
            ax.text(j, i, f"{frac[i, j]:.2f}\n{int(m[i, j])}", ha="center",
                    va="center", fontsize=4,
                    color="black" if frac[i, j] > 0.6 else "white")
  else:
    ax.set_xticks([])
    ax.set_yticks([])


def plot_confusions(panels: list[tuple[str, list, np.ndarray]], path: str,
                    title: str) -> None:
  """One row-normalised matrix per (title, names, counts) panel."""
  cols = min(3, len(panels))
  rows = -(-len(panels) // cols)
  size = 2.0 + 0.35 * max(len(p[1]) for p in panels)
  height = 2.0 + 0.35 * max(int((p[2].sum(axis=1) > 0).sum()) for p in panels)
  fig = Figure(figsize=(cols * size + 1, rows * height + 1),
               layout="constrained")
  axes = fig.subplots(rows, cols, squeeze=False)
  for ax in axes.flat[len(panels):]:
    ax.axis("off")
  for ax, (t, names, m) in zip(axes.flat, panels):
    _matrix(ax, m, names, t)
  _suptitle(fig, title)
  fig.savefig(path, dpi=120)


def plot_traversal(names, matrices: np.ndarray, values: np.ndarray,
                   accuracy: np.ndarray, path: str, title: str) -> None:
  """matrices [L, steps, K, K]: one row of panels per unit."""
  units, steps = matrices.shape[:2]
  fig = Figure(figsize=(1.3 * steps + 1, 1.4 * units + 1),
               layout="constrained")
  axes = fig.subplots(units, steps, squeeze=False)
  for u in range(units):
    for j in range(steps):
      _matrix(axes[u, j], matrices[u, j], names,
              f"u{u} {values[u, j]:+.2f}\nacc {accuracy[u, j]:.2f}",
              labels=False)
  _suptitle(fig, title)
  fig.savefig(path, dpi=110)


def plot_projections(panels: list[dict], path: str, title: str,
                     cols: int = 1) -> None:
  """Scatter plots, `cols` panels per row (one row per train type)."""
  rows = -(-len(panels) // cols)
  fig = Figure(figsize=(4.6 * cols, 4 * rows), layout="constrained")
  axes = fig.subplots(rows, cols, squeeze=False).flat
  # One colour per group across every panel (a label keeps its colour).
  every = sorted({str(g) for p in panels for g in p["groups"]})
  cmap = matplotlib.colormaps["tab20"]
  color = {g: cmap(i % 20) for i, g in enumerate(every)}
  for ax, p in zip(axes, panels):
    groups = np.asarray([str(g) for g in p["groups"]], dtype=object)
    for g in sorted(set(groups)):
      pts = p["points"][groups == g]
      ax.scatter(pts[:, 0], pts[:, 1], s=4, label=g[:30], color=color[g])
    how = (f"PCA {p['explained'][0]:.2f}+{p['explained'][1]:.2f} var"
           if "explained" in p else p["method"])
    ax.set_title(f"{p['title']}\n{how}, nearest-centroid "
                 f"{p['nearest_centroid_accuracy']:.2f}", fontsize=7)
    if len(set(groups)) <= 16:
      ax.legend(fontsize=5, markerscale=2)
  _suptitle(fig, title)
  fig.savefig(path, dpi=120)


def plot_attribute_ladder(result: dict, path: str, title: str,
                          chance: float | None = None) -> None:
  """The diagnose figure (`attribute_probes.diagnose_layers`'s result):
  left, each attribute's held-out probe accuracy by layer (linear solid,
  MLP dashed); right, by layer, probe-then-solve (linear, MLP) and the
  compounding, under the gold ceiling (and chance, if given)."""
  layers = list(result["layers"])
  x = np.arange(len(layers))
  fig = Figure(figsize=(9, 3.6))
  left, right = fig.subplots(1, 2)
  colours = matplotlib.colormaps["tab10"]
  for i, name in enumerate(result["attributes"]):
    for kind, style in (("linear", "-"), ("mlp", "--")):
      left.plot(x, [result["layers"][k][kind]["accuracy"][name]
                    for k in layers], style, color=colours(i % 10),
                label=name if kind == "linear" else None)
  left.set_title("probe accuracy on held-out frames (-- MLP)", fontsize=7)
  right.set_title("what the probed attributes allow", fontsize=7)
  for kind, style in (("linear", "-"), ("mlp", "--")):
    right.plot(x, [result["layers"][k][kind]["probe_then_solve"]["probed"]
                   for k in layers], style, color="C0",
               label=f"probe-then-solve ({kind})")
    right.plot(x, [result["layers"][k][kind]["compounding"] for k in layers],
               style, color="C1", label=f"compounding ({kind})")
  gold = result["layers"][layers[0]]["linear"]["probe_then_solve"]["gold"]
  right.axhline(gold, color="k", lw=1, label=f"gold ceiling {gold:.3f}")
  if chance is not None:
    right.axhline(chance, color="grey", lw=1, ls=":",
                  label=f"chance {chance:.3f}")
  for ax in (left, right):
    ax.set_xticks(x, [k.replace("layer=", "") for k in layers], fontsize=6)
    ax.set_xlabel("encoder hidden state (0 = embeddings)", fontsize=6)
    ax.set_ylim(-0.02, 1.02)
    ax.tick_params(labelsize=6)
    ax.legend(fontsize=5)
  _suptitle(fig, title)
  fig.tight_layout()
  fig.savefig(path, dpi=120)
