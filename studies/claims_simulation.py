"""Coverage and false-verdict rates of the claims' statistics, by simulation.

  python studies/claims_simulation.py --reps=2000 --out=studies/records/claims_simulation.json

Draws synthetic grids with a known truth (tests/claims_simulation.py) for
each scenario of the issue (paired gain at 0; one seed-dominated cell at
its threshold; a 4-way tie at the bottom; the diagonal check at its
tolerance), at 3 and 5 seeds, runs them through
`blm_jax.study.judge.check` and records the coverage of the 95%
interval (single-contrast claims) and the rate of the wrong verdict,
with its Monte Carlo standard error. Also the family-wise rate of a wrong
verdict over 10 independent null claims, raw and after Holm.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import time

import numpy as np

from blm_jax.study import records as study_records
from blm_jax.study import claims, judge
from tests import claims_simulation as sim


def family(reps: int, size: int, seeds: int, seed: int = 1) -> dict:
  """Rate of >= 1 wrong verdict among `size` null paired gains, raw and
  Holm-adjusted."""
  text, _, _, draw = sim.scenarios(seeds)[
      "paired gain, truth 0 (instance noise dominates)"]
  c = sim.claim(text)
  rng = np.random.default_rng(seed)
  raw = adj = 0
  for _ in range(reps):
    vs = []
    for _ in range(size):
      runs, preds = draw(rng)
      vs.append({"dataset": "x", **judge.check(c, runs, preds)})
    judge.adjust(vs)
    raw += any(v["verdict"] != "inconclusive" for v in vs)
    adj += any(v["verdict_holm"] != "inconclusive" for v in vs)
  return {"raw": raw / reps, "holm": adj / reps, "reps": reps}


def _se(p: float, n: int) -> float:
  return math.sqrt(max(p * (1 - p), 1e-9) / n)


def main() -> None:
  ap = argparse.ArgumentParser()
  ap.add_argument("--reps", type=int, default=2000)
  ap.add_argument("--family_reps", type=int, default=300)
  ap.add_argument("--out", default="")
  args = ap.parse_args()
  rows = []
  start = time.time()
  for seeds in (3, 5):
    for name, sc in sim.scenarios(seeds).items():
      r = sim.run(sc, args.reps, seed=seeds)
      cov = (f"{r['coverage']:.3f} ± {_se(r['coverage'], r['reps']):.3f}"
             if r["coverage"] is not None else "-")
      rows.append([name, str(seeds), sc[0], f"false '{sc[2]}'",
                   f"{r['wrong']:.3f} ± {_se(r['wrong'], r['reps']):.3f}",
                   cov, str(r["reps"])])
      print(rows[-1], flush=True)
  fam = []
  for seeds in (3, 5):
    f = family(args.family_reps, 10, seeds)
    fam.append([str(seeds), "10 null paired gains",
                f"{f['raw']:.3f} ± {_se(f['raw'], f['reps']):.3f}",
                f"{f['holm']:.3f} ± {_se(f['holm'], f['reps']):.3f}",
                str(f["reps"])])
    print(fam[-1], flush=True)
  commit = study_records.head_commit()
  record = {
      "study": "coverage and false-verdict rates of the claims' statistics",
      "date": datetime.date.today().isoformat(), "commit": commit,
      "command": f"python studies/claims_simulation.py --reps="
                 f"{args.reps} --family_reps={args.family_reps}",
      "config": None,
      "source": "simulated (tests/claims_simulation.py); "
                f"{time.time() - start:.0f} s on the 2-core CPU",
      "tables": {
          "scenarios": {"columns": [
              "scenario", "seeds", "claim", "wrong verdict",
              "rate (nominal <= 0.025) ± MC se",
              "95% coverage ± MC se", "datasets"], "rows": rows},
          "family": {"columns": [
              "seeds", "family", "P(>= 1 wrong verdict), raw",
              "after Holm (nominal <= 0.05)", "families"], "rows": fam}}}
  if args.out:
    with open(args.out, "w") as f:
      json.dump(record, f, indent=1, ensure_ascii=False)
      f.write("\n")


if __name__ == "__main__":
  main()
