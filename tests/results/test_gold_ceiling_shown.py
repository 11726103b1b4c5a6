"""The gold ceiling where researchers look: under each heatmap cell (the
plain heatmap and the real panel beside the controls, drawn from
results.json) and as columns of the battery table."""

import numpy as np
from matplotlib.text import Text

from blm_jax.results import plots, report
from blm_jax.study import battery

TYPES = ("I", "II")


def _cells(value):
  return {t: {u: {"f1_mean": value + 0.01 * i + 0.001 * j, "f1_std": 0.0}
              for j, u in enumerate(TYPES)} for i, t in enumerate(TYPES)}


def _gold(with_solver=True):
  out = {"attributes": ["form"], "reference": _cells(0.97)}
  if with_solver:
    out["solver"] = _cells(0.5)
  return out


def _texts(fig):
  return [t.get_text() for t in fig.findobj(Text) if t.get_text()]


def _cell_text(fig, train_row: int, test_col: int) -> str:
  """The annotation drawn at (column, row) of the first panel."""
  for t in fig.axes[0].texts:
    if tuple(np.round(t.get_position()).astype(int)) == (test_col,
                                                         train_row):
      return t.get_text()
  raise AssertionError(f"no text at cell ({train_row}, {test_col})")


def test_the_heatmap_shows_the_reference_and_the_solver_on_gold_per_cell(
    tmp_path, saved_figures):
  plots.heatmap(_cells(0.1), TYPES, TYPES, str(tmp_path / "h.png"),
                gold_ceiling=_gold(), num_answers=24)
  (fig,) = saved_figures
  # Train II (row 1), test I (column 0): reference 0.980, solver 0.510.
  assert _cell_text(fig, 1, 0).splitlines()[-2:] == ["gold 0.980",
                                                     "own 0.510"]
  assert _cell_text(fig, 0, 1).splitlines()[-2:] == ["gold 0.971",
                                                     "own 0.501"]
  label = " ".join(fig.axes[0].get_xlabel().split())
  assert "gold: the attribute-relations reference model" in label
  assert "own: this solver on one-hot gold attributes" in label


def test_without_the_solver_on_gold_the_cell_has_the_reference_alone(
    tmp_path, saved_figures):
  plots.heatmap(_cells(0.1), TYPES, TYPES, str(tmp_path / "h.png"),
                gold_ceiling=_gold(with_solver=False))
  (fig,) = saved_figures
  assert _cell_text(fig, 1, 1).splitlines()[-1] == "gold 0.981"
  assert not any("own " in t for t in _texts(fig))


def test_a_skipped_ceiling_draws_no_gold_line(tmp_path, saved_figures):
  plots.heatmap(_cells(0.1), TYPES, TYPES, str(tmp_path / "h.png"),
                gold_ceiling={"skipped": "gold-attribute ceiling and "
                              "encoder probes skipped: no patterns"})
  (fig,) = saved_figures
  assert not any("gold" in t for t in _texts(fig))


def _results(controls: bool) -> dict:
  results = {
      "grid": {"train_types": list(TYPES), "test_types": list(TYPES),
               "seeds": [0, 1]},
      "config": {"model": "ffnn", "dataset": "spray_load_seq",
                 "encoder": "minilm"},
      "summary": _cells(0.1), "data": {"num_answers": 24},
      "label_names": ["Corr", "Wrong"], "gold_ceiling": _gold()}
  for row in results["summary"].values():
    for c in row.values():
      c["chosen_total"] = {"Corr": 3, "Wrong": 7}
  if controls:
    results["controls"] = {"gold_attributes": {
        "summary": _cells(0.5),
        "selectivity": {t: {u: -0.4 for u in TYPES} for t in TYPES}}}
  return results


def test_the_report_draws_the_ceiling_on_both_heatmaps(tmp_path,
                                                       saved_figures):
  for name, controls in (("a", False), ("b", True)):
    (tmp_path / name).mkdir()
    report.write_plots(_results(controls), str(tmp_path / name))
  plain, _, controlled, _ = saved_figures
  assert _cell_text(plain, 0, 0).splitlines()[-2:] == ["gold 0.970",
                                                       "own 0.500"]
  # Beside the controls the real panel (top left) carries it.
  assert _cell_text(controlled, 1, 1).splitlines()[-2:] == ["gold 0.981",
                                                            "own 0.511"]
  assert "gold: the attribute-relations" in " ".join(
      controlled._supxlabel.get_text().split())


def _run(summary, gold=None):
  r = {"summary": summary, "grid": {"seeds": [0, 1, 2]},
       "config": {"encoder": "minilm"}}
  if gold is not None:
    r["gold_ceiling"] = gold
  return {"ffnn": r}


def test_the_battery_has_the_gold_ceiling_beside_the_context_free_columns():
  table = battery.rows({"spray_load_seq": _run(_cells(0.1), _gold()),
                        "spray_load": _run(_cells(0.9))})
  columns = list(battery.COLUMNS)
  assert columns.index("gold reference") == columns.index("context gain") + 1
  assert columns.index("solver on gold") == columns.index("gold reference") + 1
  by_name = {r[0]: dict(zip(columns, r)) for r in table}
  # The mean over the four cells: 0.97 + (0 + 0.001 + 0.01 + 0.011) / 4.
  assert by_name["spray_load_seq"]["gold reference"] == "0.975"
  assert by_name["spray_load_seq"]["solver on gold"] == "0.505"
  # Data without attributes (or a run without the ceiling): '-'.
  assert by_name["spray_load"]["gold reference"] == "-"
  assert by_name["spray_load"]["solver on gold"] == "-"


def test_the_battery_files_carry_the_gold_columns(tmp_path):
  runs = {"spray_load_seq": _run(_cells(0.1), _gold(with_solver=False))}
  battery.write(runs, str(tmp_path))
  header, row = (tmp_path / "battery.csv").read_text().splitlines()
  assert header.split(",")[6:8] == ["gold reference", "solver on gold"]
  assert row.split(",")[6:8] == ["0.975", "-"]
  tex = (tmp_path / "battery.tex").read_text()
  assert "gold reference & solver on gold" in tex
  assert "| gold reference | solver on gold |" in (
      tmp_path / "battery.md").read_text()
