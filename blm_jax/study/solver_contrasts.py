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
rather than a lead.
"""

from __future__ import annotations

import numpy as np

from blm_jax.study import judge, statistics

COLUMNS = ("dataset", "best", "other", "difference (mean F1)",
           "95% interval", "p", "verdict", "verdict (Holm)")


def _verdict(direction: str, p: float, best: str) -> str:
  # The difference is never below 0 (`best` has the highest mean), so
  # the test can only say 'ahead' or leave it inside the noise.
  if statistics.adjusted_verdict(direction, p) == statistics.HOLDS:
    return f"{best} ahead"
  return "inside the noise"


def rows(runs: dict[str, dict[str, dict]], models: list[str],
         preds: dict[str, dict] | None = None) -> list[list[str]]:
  """The table's rows, in `models` order per dataset."""
  found = []
  for ds, by_model in runs.items():
    names = [m for m in models if m in by_model]
    if len(names) < 2:
      continue
    data = {m: judge.model_data(by_model[m], (preds or {}).get(ds, {}).get(m),
                                group=ds) for m in names}
    cells = [(t, u) for t in data[names[0]].trains
             for u in data[names[0]].tests
             if all(t in data[m].trains and u in data[m].tests
                    for m in names)]
    if not cells:
      continue
    w = 1.0 / len(cells)
    mean = {m: float(np.mean([d.f1[:, d.trains.index(t), d.tests.index(u)]
                              for t, u in cells]))
            for m, d in data.items()}
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
                _verdict(test.direction(), test.p_value(), best),
                _verdict(test.direction(), p_holm, best)])
  return out
