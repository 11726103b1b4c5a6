"""The two figures of a grid run: the F1 heatmap and the chosen-answer bars.

Titles name the dataset without the `_type_{}` placeholder of the config's
TFDS template, and the encoder when given; both figures mark chance
(1 / number of answers) when it is given; the legend lists only the answer
labels that occur (an English CoS run does not list the Italian-only SI
labels).
"""

from __future__ import annotations

import os
import re
import textwrap

import matplotlib
import numpy as np
# The object API renders to files with no global backend (pyplot would pick
# one, and matplotlib.use() at import changed it for the importing program).
from matplotlib.figure import Figure

def save(fig: Figure, path: str, formats=("png",), dpi: int = 120) -> list[str]:
  """Writes `fig` once per format beside `path` (its extension replaced):
  PNG to view, SVG or PDF (vector) for a paper. Returns the paths."""
  stem = os.path.splitext(path)[0]
  out = []
  for fmt in formats:
    target = f"{stem}.{fmt}"
    fig.savefig(target, dpi=dpi, format=fmt)
    out.append(target)
  return out


CF_NOTE = ("cf: the best context-free score (a scorer given the candidates "
           "alone); F1 means the context helped only where it exceeds cf")
GOLD_NOTE = ("gold: the attribute-relations reference model on gold "
             "attributes, the ceiling of perfect features; own: this solver "
             "on one-hot gold attributes (the gold_attributes control)")


_TYPE_PLACEHOLDER = re.compile(r"[_/-]?type_\{\}|\{\}")


def dataset_title(name: str) -> str:
  """'blm_spray_load/ALT-ATL_type_{}' -> 'blm_spray_load/ALT-ATL'."""
  return _TYPE_PLACEHOLDER.sub("", name)


# Builders of the user's own data, and what a title calls them: their
# TFDS names say nothing of the data ('blm_published/folder').
OWN_DATA = {"blm_published/folder": "own release files",
            "blm_published/type_{}": "own release files",
            "blm_jsonl/folder": "own JSONL",
            "blm_jsonl/type_{}": "own JSONL"}


def run_dataset_title(name: str, manual_dir: str = "") -> str:
  """What a figure calls a run's dataset: `dataset_title(name)`, or for
  the user's own data its folder ('mydata (own JSONL)')."""
  if name in OWN_DATA and manual_dir:
    folder = os.path.basename(os.path.normpath(manual_dir))
    return f"{folder} ({OWN_DATA[name]})"
  return dataset_title(name)


def _title(title: str, encoder: str, num_answers: int, width: int,
           n_seeds: int = 0) -> str:
  parts = [dataset_title(title)]
  if encoder:
    parts.append(f"encoder {encoder}")
  facts = []
  if n_seeds:
    facts.append(f"mean ± sd over n = {n_seeds} seed"
                 + ("s" if n_seeds > 1 else ""))
  if num_answers:
    facts.append(f"chance 1/{num_answers} = {1 / num_answers:.3f}")
  if facts:
    parts.append("; ".join(facts))
  return "\n".join(textwrap.fill(p, width, break_on_hyphens=False,
                                 break_long_words=False) for p in parts)


def _test_ticks(test_types, test_sizes: dict | None) -> list[str]:
  """'test I' per column, with its test instances ('n=300') when known:
  an F1 over 10 instances moves by 0.1 per answer."""
  sizes = test_sizes or {}
  return [f"test {u}" + (f"\nn={sizes[u]}" if u in sizes else "")
          for u in test_types]


def _matrix(by_type: dict, train_types, test_types, key: str) -> np.ndarray:
  """by_type[train][test][key] as a train x test matrix (a summary's or
  results.json's `context_free`)."""
  return np.array([[by_type[t][u][key] for u in test_types]
                   for t in train_types])


def _one_panel_figure(train_types, test_types) -> Figure:
  """A figure for one train x test heatmap: at least 5 x 3.8 inches, so one
  cell still fits its title and colour bar."""
  return Figure(figsize=(max(5.0, 1.4 * len(test_types) + 2.5),
                         max(3.8, 1.1 * len(train_types) + 2.2)),
                layout="constrained")


def _best_context_free(context_free: dict | None, train_types, test_types
                       ) -> np.ndarray | None:
  """The `best` of results.json's `context_free` as a matrix, or None."""
  if not context_free:
    return None
  return _matrix(context_free, train_types, test_types, "best")


def _gold_lines(gold_ceiling: dict | None, train_types, test_types
                ) -> list[list[str]] | None:
  """Per cell 'gold 1.000' (the reference model), with '\nown 0.886' (the
  solver on one-hot gold attributes) when the run has it, from
  results.json's `gold_ceiling`; None without one (skipped, or data
  without attributes)."""
  ref = (gold_ceiling or {}).get("reference")
  if not ref:
    return None
  solver = gold_ceiling.get("solver") or {}
  out = []
  for t in train_types:
    row = []
    for u in test_types:
      c = ref.get(t, {}).get(u)
      s = solver.get(t, {}).get(u)
      row.append("" if c is None else f"gold {c['f1_mean']:.3f}"
                 + ("" if s is None else f"\nown {s['f1_mean']:.3f}"))
    out.append(row)
  return out


def _notes(cf, gold, width: int = 56) -> str:
  """The x label under a heatmap: what 'cf' and 'gold' in its cells are."""
  notes = [n for n, shown in ((CF_NOTE, cf is not None),
                              (GOLD_NOTE, gold is not None)) if shown]
  return "\n".join(textwrap.fill(n, width) for n in notes)


def heatmap(summary: dict, train_types, test_types, path: str,
            title: str = "", *, encoder: str = "",
            num_answers: int = 0, context_free: dict | None = None,
            n_seeds: int = 0, formats=("png",),
            test_sizes: dict | None = None,
            gold_ceiling: dict | None = None) -> None:
  """Mean F1, train type (rows) x test type (columns), like 000 Fig. 15/24.

  With `num_answers`, chance (1/num_answers) is drawn on the colour bar;
  with `context_free` (results.json's section), each cell also shows the
  best context-free score ('cf'), what the F1 has to beat; with
  `gold_ceiling` (results.json's section), the gold-attribute ceiling
  ('gold'), what perfect features allow.
  """
  cf = _best_context_free(context_free, train_types, test_types)
  gold = _gold_lines(gold_ceiling, train_types, test_types)
  m = _matrix(summary, train_types, test_types, "f1_mean")
  s = _matrix(summary, train_types, test_types, "f1_std")
  fig = _one_panel_figure(train_types, test_types)
  ax = fig.subplots()
  im = ax.imshow(m, vmin=0.0, vmax=1.0, cmap="viridis")
  for i in range(m.shape[0]):
    for j in range(m.shape[1]):
      text = f"{m[i, j]:.3f}\n±{s[i, j]:.3f}"
      if cf is not None:
        text += f"\ncf {cf[i, j]:.3f}"
      if gold is not None and gold[i][j]:
        text += f"\n{gold[i][j]}"
      ax.text(j, i, text, ha="center", va="center",
              color="white" if m[i, j] < 0.6 else "black", fontsize=9)
  ax.set_xticks(range(len(test_types)), _test_ticks(test_types, test_sizes))
  ax.set_yticks(range(len(train_types)), [f"train {t}" for t in train_types])
  ax.set_title(_title(title or "F1 (mean over seeds)", encoder, num_answers,
                      width=40, n_seeds=n_seeds), fontsize=10)
  if cf is not None or gold is not None:
    ax.set_xlabel(_notes(cf, gold), fontsize=7)
  bar = fig.colorbar(im, ax=ax, fraction=0.046)
  if num_answers:
    bar.ax.axhline(1 / num_answers, color="red", linewidth=2)
    bar.ax.text(1.6, 1 / num_answers, "chance", color="red", fontsize=8,
                va="center", transform=bar.ax.get_yaxis_transform())
  save(fig, path, formats)


def _panel(ax, m: np.ndarray, train_types, test_types, title: str, *,
           diverging: bool, fig, cf: np.ndarray | None = None,
           test_sizes: dict | None = None,
           gold: list[list[str]] | None = None):
  """One annotated train x test matrix; F1 on [0, 1] or a difference on
  [-1, 1] (red: the control is better, blue: the real run is); `cf` adds
  the best context-free score to each cell, `gold` its gold line."""
  if diverging:
    im = ax.imshow(m, vmin=-1.0, vmax=1.0, cmap="RdBu")
    dark = lambda v: abs(v) > 0.5
    fmt = lambda v: f"{v:+.3f}"
  else:
    im = ax.imshow(m, vmin=0.0, vmax=1.0, cmap="viridis")
    dark = lambda v: v < 0.6
    fmt = lambda v: f"{v:.3f}"
  for i in range(m.shape[0]):
    for j in range(m.shape[1]):
      text = fmt(m[i, j]) + (f"\ncf {cf[i, j]:.3f}" if cf is not None
                             else "")
      if gold is not None and gold[i][j]:
        text += f"\n{gold[i][j]}"
      ax.text(j, i, text, ha="center", va="center", fontsize=8,
              color="white" if dark(m[i, j]) else "black")
  ax.set_xticks(range(len(test_types)), _test_ticks(test_types, test_sizes),
                fontsize=8)
  ax.set_yticks(range(len(train_types)), [f"train {t}" for t in train_types],
                fontsize=8)
  ax.set_title(title, fontsize=9)
  return fig.colorbar(im, ax=ax, fraction=0.046)


def heatmap_with_controls(summary: dict, controls: dict, train_types,
                          test_types, path: str, title: str = "", *,
                          encoder: str = "", num_answers: int = 0,
                          context_free: dict | None = None,
                          n_seeds: int = 0, formats=("png",),
                          test_sizes: dict | None = None,
                          gold_ceiling: dict | None = None) -> None:
  """The real F1 heatmap beside, per control, its F1 and the selectivity
  (real minus control F1): one row per control, the real heatmap first
  (its cells with the best context-free score and the gold ceiling, as
  `heatmap`'s).

  `controls`: {name: {'summary': ..., 'selectivity': {t: {u: float}}}}
  (the `controls` section of results.json).
  """
  mat = lambda f: np.array([[f(t, u) for u in test_types]
                            for t in train_types])
  rows = len(controls)
  w = max(3.2, 0.9 * len(test_types) + 1.8)
  h = max(2.6, 0.6 * len(train_types) + 1.6)
  fig = Figure(figsize=(3 * w, rows * h + 1.2), layout="constrained")
  axes = fig.subplots(rows, 3, squeeze=False)
  real = mat(lambda t, u: summary[t][u]["f1_mean"])
  gold = _gold_lines(gold_ceiling, train_types, test_types)
  for r, (name, c) in enumerate(controls.items()):
    if r:  # The real heatmap once, top left.
      axes[r, 0].axis("off")
    else:
      bar = _panel(axes[r, 0], real, train_types, test_types, "real F1",
                   diverging=False, fig=fig, cf=_best_context_free(
                       context_free, train_types, test_types),
                   test_sizes=test_sizes, gold=gold)
      if num_answers:
        bar.ax.axhline(1 / num_answers, color="red", linewidth=2)
    _panel(axes[r, 1], mat(lambda t, u: c["summary"][t][u]["f1_mean"]),
           train_types, test_types, f"control {name}: F1", diverging=False,
           fig=fig, test_sizes=test_sizes)
    _panel(axes[r, 2], mat(lambda t, u: c["selectivity"][t][u]),
           train_types, test_types, f"selectivity vs {name}\n(real - "
           "control F1)", diverging=True, fig=fig, test_sizes=test_sizes)
  fig.suptitle(_title(title or "F1 (mean over seeds)", encoder, num_answers,
                      width=90, n_seeds=n_seeds), fontsize=10)
  if context_free or gold is not None:
    fig.supxlabel(_notes(context_free or None, gold, width=120),
                  fontsize=7)
  save(fig, path, formats)


def context_gain(context_free: dict, train_types, test_types, path: str,
                 title: str = "", *, encoder: str = "",
                 num_answers: int = 0, n_seeds: int = 0,
                 formats=("png",), test_sizes: dict | None = None) -> None:
  """The context gain (F1 mean minus the best context-free score), train
  type x test type, on [-1, 1]: blue where the solver used the context,
  near 0 or red where the candidates alone do as well.

  `context_free`: results.json's `context_free` section.
  """
  m = _matrix(context_free, train_types, test_types, "context_gain")
  best = _matrix(context_free, train_types, test_types, "best_baseline")
  fig = _one_panel_figure(train_types, test_types)
  ax = fig.subplots()
  im = ax.imshow(m, vmin=-1.0, vmax=1.0, cmap="RdBu")
  for i in range(m.shape[0]):
    for j in range(m.shape[1]):
      ax.text(j, i, f"{m[i, j]:+.3f}\nvs {best[i, j]}", ha="center",
              va="center", fontsize=8,
              color="white" if abs(m[i, j]) > 0.5 else "black")
  ax.set_xticks(range(len(test_types)), _test_ticks(test_types, test_sizes))
  ax.set_yticks(range(len(train_types)), [f"train {t}" for t in train_types])
  ax.set_title(_title(title or "Context gain", encoder, num_answers,
                      width=40), fontsize=10)
  fig.colorbar(im, ax=ax, fraction=0.046)
  save(fig, path, formats)


def layer_sweep(sweep: dict, train_types, test_types, path: str,
                title: str = "", *, encoder: str = "",
                num_answers: int = 0, n_seeds: int = 0,
                formats=("png",)) -> None:
  """Mean F1 (± std over seeds) by encoder layer: one panel per train type,
  one line per test type; the run's own layer is marked.

  `sweep`: the `layer_sweep` section of results.json.
  """
  layers = sweep["layers"]
  fig = Figure(figsize=(max(4.5, 3.6 * len(train_types)), 3.8),
               layout="constrained")
  axes = fig.subplots(1, len(train_types), squeeze=False, sharey=True)
  for ax, t in zip(axes[0], train_types):
    for u in test_types:
      m = np.array(sweep["f1_mean"][t][u])
      s = np.array(sweep["f1_std"][t][u])
      ax.errorbar(layers, m, yerr=s, marker="o", markersize=3, capsize=2,
                  label=f"test {u}")
    if num_answers:
      ax.axhline(1 / num_answers, color="red", linestyle="--", linewidth=1,
                 label="chance")
    if sweep.get("main_layer") is not None:
      ax.axvline(sweep["main_layer"], color="gray", linestyle=":",
                 linewidth=1, label="config layer")
    ax.set_xticks(layers)
    ax.set_xlabel("hidden state (0 = embeddings)")
    ax.set_title(f"train {t}", fontsize=9)
    ax.set_ylim(0, 1)
  axes[0, 0].set_ylabel("F1")
  axes[0, -1].legend(fontsize=7, loc="best")
  fig.suptitle(_title(title or "F1 by layer", encoder, num_answers,
                      width=80, n_seeds=n_seeds), fontsize=10)
  save(fig, path, formats)


def occurring_labels(summary: dict, label_names) -> list[str]:
  """The labels chosen at least once in some (train, test) pair."""
  seen = set()
  for row in summary.values():
    for cell in row.values():
      seen |= {k for k, v in cell["chosen_total"].items() if v}
  return [name for name in label_names if name in seen]


PALETTE = "tab20"
PALETTE_SIZE = 20
# The folded labels' segment: a grey that tab20 lacks (its greys are 0.50
# and 0.78), so it repeats no label's colour.
OTHER_COLOR = "0.25"


def label_colors(label_names) -> dict:
  """One colour per label by its place in the family's full inventory, so a
  label keeps its colour in every figure and panel of a family (up to
  PALETTE_SIZE labels; past that, colours repeat)."""
  cmap = matplotlib.colormaps[PALETTE]
  return {name: cmap(i % PALETTE_SIZE) for i, name in enumerate(label_names)}


def fold_labels(names: list[str], fractions: np.ndarray, correct: str
                ) -> tuple[list[str], np.ndarray, np.ndarray, int]:
  """(kept names, their fractions, the folded labels' summed fractions per
  bar, how many were folded): past PALETTE_SIZE labels, the correct label
  and the most chosen others (summed over the bars) fill PALETTE_SIZE - 1
  colours and the rest become one segment. Kept names stay in inventory
  order; nothing is folded when every label fits."""
  if len(names) <= PALETTE_SIZE:
    return names, fractions, np.zeros(len(fractions)), 0
  totals = fractions.sum(axis=0)
  # The correct label first, then by total, ties in inventory order.
  order = sorted(range(len(names)),
                 key=lambda i: (names[i] != correct, -totals[i], i))
  keep = sorted(order[:PALETTE_SIZE - 1])
  fold = sorted(order[PALETTE_SIZE - 1:])
  return ([names[i] for i in keep], fractions[:, keep],
          fractions[:, fold].sum(axis=1), len(fold))


def error_bars(summary: dict, train_types, test_types,
               label_names: tuple[str, ...], path: str,
               title: str = "", *, encoder: str = "",
               num_answers: int = 0, n_seeds: int = 0,
               formats=("png",), correct: str | None = None) -> None:
  """Stacked bars of chosen answer types per (train, test) pair.

  The correct answers' label (`correct`, from the data's `correct` index:
  `metrics.correct_label`; the inventory's first when not given) is the
  bottom segment;
  with `num_answers`, chance for it (1/num_answers) is marked on each bar's
  bottom segment, not across the other labels' fractions. Past
  PALETTE_SIZE occurring labels (the `_seq` datasets' compound labels) the
  least chosen are folded into one 'other (N labels)' segment on top
  (`fold_labels`); results.json keeps every label's count.
  """
  colors = label_colors(label_names)
  if correct is None:
    correct = label_names[0] if label_names else ""
  many = len(label_names) > PALETTE_SIZE
  label_names = occurring_labels(summary, label_names)
  # The correct label is the bottom segment, wherever the inventory has it.
  label_names = sorted(label_names, key=lambda k: k != correct)
  pairs = [(t, u) for t in train_types for u in test_types]
  fractions = np.zeros((len(pairs), len(label_names)))
  for k, (t, u) in enumerate(pairs):
    chosen = summary[t][u]["chosen_total"]
    total = max(1, sum(chosen.values()))
    fractions[k] = [chosen.get(name, 0) / total for name in label_names]
  label_names, fractions, other, n_other = fold_labels(label_names, fractions,
                                                       correct)
  if many:  # Inventory colours would repeat: one per shown label instead.
    colors = label_colors(label_names)
  fig = Figure(figsize=(max(5.5, 0.6 * len(pairs) + 4), 4.8),
               layout="constrained")
  ax = fig.subplots()
  bottom = np.zeros(len(pairs))
  x = np.arange(len(pairs))
  for i, name in enumerate(label_names):
    ax.bar(x, fractions[:, i], bottom=bottom, label=name, color=colors[name])
    bottom += fractions[:, i]
  if n_other:
    ax.bar(x, other, bottom=bottom, label=f"other ({n_other} labels)",
           color=OTHER_COLOR)
  if num_answers:
    ax.hlines(np.full(len(pairs), 1 / num_answers), x - 0.45, x + 0.45,
              color="red", linestyles="--", linewidth=1.2,
              label=f"chance for {correct} (1/{num_answers})")
  ax.set_xticks(x, [f"{t}\n↓\n{u}" for t, u in pairs], fontsize=8)
  ax.set_ylabel("fraction of chosen answers")
  ax.set_xlabel("train type (top) → test type (bottom)")
  ax.set_ylim(0, 1)
  ax.set_title(_title(title or "Chosen answer types", encoder, num_answers,
                      width=50, n_seeds=n_seeds), fontsize=10)
  ax.legend(bbox_to_anchor=(1.02, 1), loc="upper left", fontsize=8)
  save(fig, path, formats)
