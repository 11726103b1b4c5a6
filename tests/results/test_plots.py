"""The figures: dataset named without the '{}' placeholder, encoder and chance
shown, nothing clipped for one cell, legends only of labels that occur."""

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.text import Text

from blm_jax.results import plots


def _summary(types, chosen):
  return {t: {u: {"f1_mean": 0.5, "f1_std": 0.01, "chosen_total": chosen}
              for u in types} for t in types}


def _texts_inside(fig):
  canvas = FigureCanvasAgg(fig)
  canvas.draw()
  renderer = canvas.get_renderer()
  box = fig.bbox
  for text in fig.findobj(Text):
    if not text.get_visible() or not text.get_text():
      continue
    ext = text.get_window_extent(renderer)
    assert (ext.x0 >= box.x0 - 1 and ext.x1 <= box.x1 + 1
            and ext.y0 >= box.y0 - 1 and ext.y1 <= box.y1 + 1), (
                f"{text.get_text()!r} is clipped: {ext} outside {box}")


def test_heatmap_title_encoder_chance_and_one_cell_fits(
    tmp_path, saved_figures):
  plots.heatmap(_summary(("I",), {"Corr": 5}), ("I",), ("I",),
                str(tmp_path / "h.png"),
                title="vae2 on blm_spray_load/ALT-ATL_type_{}",
                encoder="google/electra-base-discriminator", num_answers=9)
  (fig,) = saved_figures
  title = " ".join(fig.axes[0].get_title().split())
  assert "{}" not in title
  assert "vae2 on blm_spray_load/ALT-ATL" in title
  assert "encoder google/electra-base-discriminator" in title
  assert "chance 1/9 = 0.111" in title
  colorbar = fig.axes[1]
  assert [round(l.get_ydata()[0], 4) for l in colorbar.lines] == [0.1111]
  _texts_inside(fig)
  assert (tmp_path / "h.png").stat().st_size > 0


def test_error_bars_list_only_occurring_labels(tmp_path, saved_figures):
  cos_labels = ("Corr", "WrongAux", "WrongPass", "SI-1", "SI-2", "WrongNoArg")
  chosen = {"Corr": 40, "WrongAux": 7, "WrongPass": 3, "SI-1": 0,
            "WrongNoArg": 2}
  plots.error_bars(_summary(("I",), chosen), ("I",), ("I",), cos_labels,
                   str(tmp_path / "e.png"),
                   title="ffnn on blm_cos_od/cos_en_type_{}", encoder="minilm",
                   num_answers=7)
  (fig,) = saved_figures
  ax = fig.axes[0]
  legend = [t.get_text() for t in ax.get_legend().get_texts()]
  assert legend == ["chance for Corr (1/7)", "Corr", "WrongAux", "WrongPass",
                    "WrongNoArg"]
  assert "{}" not in ax.get_title() and "blm_cos_od/cos_en" in ax.get_title()
  _texts_inside(fig)


def test_dataset_title():
  assert plots.dataset_title("blm_agreement/fr_mixed_type_{}") == (
      "blm_agreement/fr_mixed")
  assert plots.dataset_title("blm_chunks/agreement_en") == (
      "blm_chunks/agreement_en")


def _bars(ax) -> dict:
  """{legend label: (heights, face colour)} of the stacked bars."""
  return {c.get_label(): ([p.get_height() for p in c.patches],
                          c.patches[0].get_facecolor())
          for c in ax.containers}


def test_error_bars_colour_a_small_inventory_by_place(tmp_path,
                                                      saved_figures):
  """Up to 20 labels nothing is folded and each label has its inventory
  colour, the same in every figure of the family."""
  labels = tuple(f"L{i}" for i in range(20))
  chosen = {name: i + 1 for i, name in enumerate(labels) if i % 3}
  plots.error_bars(_summary(("I",), chosen), ("I",), ("I",), labels,
                   str(tmp_path / "e.png"))
  (fig,) = saved_figures
  bars = _bars(fig.axes[0])
  assert list(bars) == [n for n in labels if n in chosen]
  colors = plots.label_colors(labels)
  assert all(c == colors[n] for n, (_, c) in bars.items())


def test_error_bars_fold_the_least_chosen_of_many_labels(tmp_path,
                                                         saved_figures):
  """84 compound labels (agreement _seq): the correct label and the 18
  most chosen others keep a colour each, the rest are one segment."""
  labels = ("Corr",) + tuple(f"WN{i}+WPOL" for i in range(83))
  # Label i chosen i + 1 times in the first cell and once in the second.
  first = {name: i + 1 for i, name in enumerate(labels)}
  summary = {"I": {"I": {"chosen_total": first},
                   "II": {"chosen_total": dict.fromkeys(labels, 1)}}}
  plots.error_bars(summary, ("I",), ("I", "II"), labels,
                   str(tmp_path / "e.png"), num_answers=9)
  (fig,) = saved_figures
  ax = fig.axes[0]
  legend = [t.get_text() for t in ax.get_legend().get_texts()]
  assert legend[0] == "chance for Corr (1/9)"
  assert len(legend) - 1 <= plots.PALETTE_SIZE
  bars = _bars(ax)
  assert list(bars) == ["Corr", *labels[-18:], "other (65 labels)"]
  faces = [c for _, c in bars.values()]
  assert len(set(faces)) == len(faces)  # no colour repeats
  # The folded segment is the folded labels' sum, in each cell.
  totals = (sum(first.values()), len(labels))
  folded = labels[1:66]
  want = [sum(first[n] for n in folded) / totals[0],
          len(folded) / totals[1]]
  np.testing.assert_allclose(bars["other (65 labels)"][0], want)
  # Stacked on top: every bar still sums to 1.
  np.testing.assert_allclose(
      np.sum([h for h, _ in bars.values()], axis=0), [1.0, 1.0])
  _texts_inside(fig)


def test_errors_figure_takes_the_correct_label_from_the_data(
    tmp_path, saved_figures):
  """Own JSONL data whose first label name met is an error: the correct
  answers' label comes from the `correct` index, so errors.png marks
  chance for it and stacks it at the bottom, and the tables count the
  first-met label as an error."""
  import json
  from blm_jax.data.sentence_table import build_sentence_table
  from blm_jax.results import metrics, report
  from blm_jax.study import judge
  from data_builders.blm_jsonl import own_format
  lines = [{"id": f"i{i}", "context": [f"a {i}.", f"b {i}."],
            "answers": [f"x {i}.", f"y {i}.", f"z {i}."], "correct": 2,
            "labels": ["N2_alter", "WN1", "Corr"]} for i in range(1, 13)]
  path = tmp_path / "own.jsonl"
  path.write_text("".join(json.dumps(r) + "\n" for r in lines))
  table = build_sentence_table(own_format.read(str(path)))
  assert table.label_names[0] == "N2_alter"  # the case under test
  correct = metrics.correct_labels([table], table.label_names)
  assert correct == ["Corr"]
  # 9 right, 3 wrong (the first label met) of 12.
  pred = table.correct.copy()
  wrong = table.labels[:3] == table.label_names.index(table.label_names[0])
  pred[:3] = wrong.argmax(axis=1)
  cell = metrics.cell_metrics(pred, table.correct, table.labels,
                              table.label_names)
  summary = {"own": {"own": {"f1_mean": cell["f1"], "f1_std": 0.0,
                             "chosen_total": cell["chosen"]}}}
  results = {"grid": {"train_types": ["own"], "test_types": ["own"],
                      "seeds": [0]},
             "config": {"model": "ffnn", "dataset": "blm_jsonl/own",
                        "encoder": "minilm"},
             "summary": summary, "label_names": list(table.label_names),
             "correct_labels": correct, "data": {"num_answers": 3}}
  report.write_plots(results, str(tmp_path))
  errors = saved_figures[-1]
  ax = errors.axes[0]
  legend = [t.get_text() for t in ax.get_legend().get_texts()]
  assert legend[0] == "chance for Corr (1/3)"
  bars = _bars(ax)
  assert list(bars)[0] == "Corr"
  assert bars["Corr"][0] == [0.75]
  assert bars[table.label_names[0]][0] == [0.25]
  assert "Corr" not in judge.error_labels(results)
  assert table.label_names[0] in judge.error_labels(results)


def test_heatmap_names_the_users_data_and_counts_its_test_instances(
    tmp_path, saved_figures):
  """Own data: the title names its folder, not the builder
  ('blm_published'); each test column says how many instances it holds."""
  from blm_jax.results import report
  summary = {"type": {"type": {"f1_mean": 0.5, "f1_std": 0.1,
                               "chosen_total": {"Correct": 5, "Wrong": 5}}}}
  results = {"grid": {"train_types": ["type"], "test_types": ["type"],
                      "seeds": [0, 1]},
             "config": {"model": "ffnn", "dataset": "blm_published/folder",
                        "encoder": "minilm"},
             "summary": summary, "label_names": ["Correct", "Wrong"],
             "data": {"num_answers": 8, "test_sizes": {"type": 10}},
             "run": {"config": {"data.manual_dir": "/home/me/BLMagr4dev/"}}}
  report.write_plots(results, str(tmp_path))
  heat = saved_figures[0]
  title = " ".join(heat.axes[0].get_title().split())
  assert title.startswith("F1: ffnn on BLMagr4dev (own release files)")
  assert "blm_published" not in title
  ticks = [t.get_text() for t in heat.axes[0].get_xticklabels()]
  assert ticks == ["test type\nn=10"]
  assert plots.run_dataset_title("blm_spray_load/ALT-ATL_type_{}", "x") == (
      "blm_spray_load/ALT-ATL")
