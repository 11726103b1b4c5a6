"""Is the best solver on a dataset ahead of each other one, or inside the
noise?

Per dataset with two or more solvers: the one with the highest mean F1
over the cells they all have, minus each other one, on those cells, with
the claims' statistics (`statistics.estimate`: the seeds' variance with
t(n-1) tails, plus the test instances' where both grids have predictions;
paired by seed and instance when they share seeds and test sets, as grids
of one suite do). 'ahead' needs the difference above 0 at the one-sided
2.5% level; Holm's correction runs over the table's rows. The best is
chosen on the same test sets, so a near tie reads 'inside the noise'
rather than a lead. `alpha` lowers the level for a question looked at
more than once (a second look with more seeds: ALPHA / 2).

`cell_rows`: one named solver against the best of the others, cell by
cell, either way round (a new solver's heatmap beside the field's best).
"""

from __future__ import annotations

import numpy as np

from blm_jax.study import judge, statistics

COLUMNS = ("dataset", "best", "other", "difference (mean F1)",
           "95% interval", "p", "verdict", "verdict (Holm)")
CELL_COLUMNS = ("dataset", "train -> test", "solver", "best other",
                "difference (F1)", "95% interval", "p", "verdict",
                "verdict (Holm)")


def _verdict(direction: str, p: float, best: str,
             alpha: float = statistics.ALPHA) -> str:
  # The difference is never below 0 (`best` has the highest mean), so
  # the test can only say 'ahead' or leave it inside the noise.
  if statistics.adjusted_verdict(direction, p, alpha) == statistics.HOLDS:
    return f"{best} ahead"
  return "inside the noise"


def _shared(by_model: dict[str, dict], models: list[str],
            preds_of: dict, group: str):
  """The models of `models` found in `by_model`, their `ModelData`, the
  (train, test) cells they all have and each one's mean F1 over those."""
  names = [m for m in models if m in by_model]
  data = {m: judge.model_data(by_model[m], preds_of.get(m), group=group)
          for m in names}
  cells = [(t, u) for t in data[names[0]].trains
           for u in data[names[0]].tests
           if all(t in data[m].trains and u in data[m].tests
                  for m in names)] if names else []
  mean = {m: float(np.mean([d.f1[:, d.trains.index(t), d.tests.index(u)]
                            for t, u in cells])) if cells else 0.0
          for m, d in data.items()}
  return names, data, cells, mean


def rows(runs: dict[str, dict[str, dict]], models: list[str],
         preds: dict[str, dict] | None = None,
         alpha: float = statistics.ALPHA) -> list[list[str]]:
  """The table's rows, in `models` order per dataset."""
  found = []
  for ds, by_model in runs.items():
    names, data, cells, mean = _shared(by_model, models,
                                       (preds or {}).get(ds, {}), ds)
    if len(names) < 2 or not cells:
      continue
    w = 1.0 / len(cells)
    best = max(names, key=lambda m: mean[m])
    for m in names:
      if m == best:
        continue
      contrast = {**{(best, t, u): w for t, u in cells},
                  **{(m, t, u): -w for t, u in cells}}
      test = statistics.Test((statistics.estimate(contrast, data),), ("",),
                             "all", 0.0)
      found.append((ds, best, m, test))
  adjusted = statistics.holm([t.p_value() for *_, t in found])
  out = []
  for (ds, best, m, test), p_holm in zip(found, adjusted):
    e = test.estimates[0]
    lo, hi = e.interval()
    out.append([ds, best, m, f"{e.value:+.3f}", f"[{lo:+.3f}, {hi:+.3f}]",
                f"{test.p_value():.3g}",
                _verdict(test.direction(), test.p_value(), best, alpha),
                _verdict(test.direction(), p_holm, best, alpha)])
  return out


def cell_rows(runs: dict[str, dict[str, dict]], models: list[str],
              solver: str, preds: dict[str, dict] | None = None,
              alpha: float = statistics.ALPHA) -> list[list[str]]:
  """`solver` against the best other solver (the highest mean F1 over the
  cells they all have), cell by cell: the difference, its interval and a
  two-sided verdict ('<solver> ahead', '<other> ahead' or inside the
  noise), Holm's correction over the table's rows."""
  found = []
  for ds, by_model in runs.items():
    names, data, cells, mean = _shared(by_model, models,
                                       (preds or {}).get(ds, {}), ds)
    others = [m for m in names if m != solver]
    if solver not in names or not others or not cells:
      continue
    other = max(others, key=lambda m: mean[m])
    for t, u in cells:
      test = statistics.Test(
          (statistics.estimate({(solver, t, u): 1.0, (other, t, u): -1.0},
                               data),), ("",), "all", 0.0)
      found.append((ds, f"{t} -> {u}", other, test))
  adjusted = statistics.holm([t.p_value() for *_, t in found])

  def verdict(test, p, other):
    found = statistics.adjusted_verdict(test.direction(), p, alpha)
    if found == statistics.INCONCLUSIVE:
      return "inside the noise"
    return f"{solver} ahead" if found == statistics.HOLDS else f"{other} ahead"

  out = []
  for (ds, cell, other, test), p_holm in zip(found, adjusted):
    e = test.estimates[0]
    lo, hi = e.interval()
    out.append([ds, cell, solver, other, f"{e.value:+.3f}",
                f"[{lo:+.3f}, {hi:+.3f}]", f"{test.p_value():.3g}",
                verdict(test, test.p_value(), other),
                verdict(test, p_holm, other)])
  return out


def joined(earlier: list[list[str]], new: list[list[str]],
           alpha: float = statistics.ALPHA) -> list[list[str]]:
  """An earlier table's `rows` and new rows of the same question (a solver
  run later, against the same best on the same dataset) as one Holm
  family: every row keeps its numbers and its verdict, and the Holm
  verdicts are taken again over all the rows' p-values (as the tables
  print them, to three significant figures), so that adding a solver
  cannot make the earlier verdicts look stronger than the family allows.
  ValueError naming the dataset when the question is not the same."""
  best_of = {}
  for row in earlier:
    best_of.setdefault(row[0], row[1])
  judged = {(r[0], r[2]) for r in earlier}
  for row in new:
    ds, best, other = row[:3]
    if ds not in best_of:
      raise ValueError(f"{ds}: not a dataset of the earlier table "
                       f"({', '.join(best_of)})")
    if best != best_of[ds]:
      raise ValueError(f"{ds}: the best is {best} here and {best_of[ds]} "
                       "in the earlier table; a new best changes every "
                       "row, so contrast all the models again")
    if (ds, other) in judged:
      raise ValueError(f"{ds}: {other} is in the earlier table already")
  rows = [list(r) for r in earlier + new]
  adjusted = statistics.holm([float(r[5]) for r in rows])
  for row, p_holm in zip(rows, adjusted):
    direction = (statistics.HOLDS if float(row[3]) >= 0
                 else statistics.DOES_NOT_HOLD)
    row[7] = _verdict(direction, p_holm, row[1], alpha)
  return rows
