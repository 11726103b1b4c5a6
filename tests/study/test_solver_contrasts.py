"""The best solver against each other one: ahead only outside the noise."""

import numpy as np

from blm_jax.results import predictions
from blm_jax.study import solver_contrasts

TYPES = ("I", "II", "III")


def _grid(f1_by_seed):
  """A results dict whose cell (seed s, train t) tests F1 f1_by_seed[s] on
  every test type."""
  cells = [{"seed": s, "train_type": t,
            "test": {u: {"f1": f} for u in TYPES}}
           for s, f in enumerate(f1_by_seed) for t in TYPES]
  mean = float(np.mean(f1_by_seed))
  return {"summary": {t: {u: {"f1_mean": mean} for u in TYPES}
                      for t in TYPES}, "cells": cells}


def _hits(rate, n_seeds=3, n=300, seed=0):
  """Each instance right or wrong in every seed alike (its difficulty):
  the instances' share of the variance, which the seeds do not show."""
  rng = np.random.default_rng(seed)
  ids = tuple(str(i) for i in range(n))
  pattern = rng.random(n) < rate
  hits = np.broadcast_to(pattern, (n_seeds, len(TYPES), n))
  return predictions.CellPredictions(
      tuple(range(n_seeds)), TYPES,
      {u: predictions.TestPredictions(hits, ids) for u in TYPES})


def test_a_clear_lead_is_ahead_and_a_tie_is_inside_the_noise():
  runs = {"clear": {"a": _grid([0.90, 0.91, 0.89]),
                    "b": _grid([0.50, 0.52, 0.49])},
          "tie": {"a": _grid([0.70, 0.74, 0.69]),
                  "b": _grid([0.72, 0.69, 0.71])}}
  rows = solver_contrasts.rows(runs, ["b", "a"])
  assert [r[:3] for r in rows] == [["clear", "a", "b"], ["tie", "a", "b"]]
  clear, tie = rows
  assert clear[3] == "+0.397"
  assert clear[6] == clear[7] == "a ahead"
  lo, hi = (float(x) for x in clear[4].strip("[]").split(", "))
  assert 0 < lo < 0.397 < hi
  assert tie[6] == tie[7] == "inside the noise"
  assert float(tie[5]) > 0.05


def test_holm_over_the_rows_can_undo_a_raw_lead():
  # Paired seed differences 0.02, 0.015, 0.025 with t(2) tails: p about
  # 0.02 alone, not under 0.05 after Holm over five such rows.
  runs = {f"d{k}": {"a": _grid([0.62, 0.60, 0.61]),
                    "b": _grid([0.60, 0.585, 0.585])} for k in range(5)}
  rows = solver_contrasts.rows(runs, ["a", "b"])
  assert all(r[6] == "a ahead" and 0.01 < float(r[5]) < 0.05 for r in rows)
  assert all(r[7] == "inside the noise" for r in rows)


def test_test_instances_widen_the_interval_when_predictions_are_given():
  runs = {"d": {"a": _grid([0.80, 0.81, 0.79]), "b": _grid([0.60] * 3)}}
  without = solver_contrasts.rows(runs, ["a", "b"])[0]
  preds = {"d": {"a": _hits(0.8, seed=1), "b": _hits(0.6, seed=2)}}
  with_preds = solver_contrasts.rows(runs, ["a", "b"], preds)[0]
  width = lambda r: float(r[4].strip("[]").split(", ")[1]) - float(
      r[4].strip("[]").split(", ")[0])
  assert width(with_preds) > width(without)
  assert with_preds[3] == without[3]


def test_one_solver_per_dataset_has_no_rows():
  assert solver_contrasts.rows({"d": {"a": _grid([0.5, 0.6, 0.7])}},
                               ["a", "b"]) == []


def _grid_by_cell(f1):
  """A results dict whose cell (seed s, train t) tests F1 f1[t][u][s]."""
  cells = [{"seed": s, "train_type": t,
            "test": {u: {"f1": f1[t][u][s]} for u in TYPES}}
           for s in range(3) for t in TYPES]
  return {"summary": {t: {u: {"f1_mean": float(np.mean(f1[t][u]))}
                          for u in TYPES} for t in TYPES}, "cells": cells}


def test_cells_against_the_best_other_solver_either_way_round():
  lead = {t: {u: [0.40, 0.42, 0.41] for u in TYPES} for t in TYPES}
  lead["III"] = {u: [0.05, 0.06, 0.04] for u in TYPES}  # behind on III
  lead["II"]["II"] = [0.21, 0.19, 0.20]  # a tie with the best other
  best_other = {t: {u: [0.20, 0.21, 0.19] for u in TYPES} for t in TYPES}
  weak = {t: {u: [0.10, 0.11, 0.09] for u in TYPES} for t in TYPES}
  runs = {"d": {"new": _grid_by_cell(lead), "b": _grid_by_cell(best_other),
                "c": _grid_by_cell(weak)}}
  rows = solver_contrasts.cell_rows(runs, ["c", "b", "new"], "new")
  assert len(rows) == 9
  by_cell = {r[1]: r for r in rows}
  assert all(r[2] == "new" and r[3] == "b" for r in rows)  # not "c"
  assert by_cell["I -> I"][4] == "+0.210"
  assert by_cell["I -> I"][7] == by_cell["I -> I"][8] == "new ahead"
  assert by_cell["III -> II"][7] == "b ahead"
  assert float(by_cell["III -> II"][4]) < 0
  assert by_cell["II -> II"][7] == "inside the noise"
  lo, hi = (float(x) for x in by_cell["II -> II"][5].strip("[]").split(", "))
  assert lo < 0 < hi


def test_cells_need_the_solver_and_another():
  grid = _grid_by_cell({t: {u: [0.5, 0.6, 0.7] for u in TYPES}
                        for t in TYPES})
  assert solver_contrasts.cell_rows({"d": {"a": grid}}, ["a", "b"], "a") == []
  assert solver_contrasts.cell_rows({"d": {"b": grid}}, ["a", "b"], "a") == []
