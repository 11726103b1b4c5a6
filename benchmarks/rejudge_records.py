"""Re-judges a reproduction record's verdicts from its per-seed values.

  python benchmarks/rejudge_records.py docs/records/reproduce_designs_paper_scale.json

Records made before blm_jax/results/statistics.py keep, per verdict, the
claim's statistic on each seed ('per seed' column) but not the per-seed
F1 of every cell nor the per-instance hits. From those values alone this
adds a `claims_rejudged` table to the record: the t(n-1) interval over
seeds, its verdict, its p-value and the Holm-adjusted verdict over the
record's verdicts. It cannot apply the tie-robust rule (that needs each
cell's per-seed F1) nor the test-instance variance: a rerun of the suite
does both.
"""

from __future__ import annotations

import json
import sys

from blm_jax.results import statistics


def rejudge(record: dict) -> list[list[str]]:
  table = record["tables"]["claims"]
  cols = table["columns"]
  at = {c: i for i, c in enumerate(cols)}
  rows, tests = [], []
  for row in table["rows"]:
    seeds = [float(x) for x in row[at["per seed"]].split(",")]
    threshold = float(row[at["statistic vs threshold"]].split(" vs ")[1])
    e = statistics.seeds_only(seeds)
    test = statistics.Test((e,), ("statistic",), "all", threshold)
    tests.append(test)
    rows.append(row)
  adjusted = statistics.holm([t.p_value() for t in tests])
  out = []
  for row, test, p in zip(rows, tests, adjusted):
    lo, hi = test.estimates[0].interval()
    out.append([row[at["source"]], row[at["dataset"]], row[at["claim"]],
                row[at["verdict"]], f"[{lo:+.3f}, {hi:+.3f}]",
                test.verdict(), f"{test.p_value():.3g}",
                f"{statistics.adjusted_verdict(test.direction(), p)} "
                f"(p {p:.3g})"])
  return out


def main(argv) -> None:
  path = argv[1]
  with open(path, encoding="utf-8") as f:
    record = json.load(f)
  record["tables"]["claims_rejudged"] = {
      "columns": ["source", "dataset", "claim", "recorded verdict (bootstrap)",
                  "95% t interval over the seeds (t(n-1))",
                  "verdict", "p", "after Holm over the record"],
      "rows": rejudge(record)}
  record["rejudged_by"] = ("python benchmarks/rejudge_records.py " + path
                           + " (blm_jax/results/statistics.py, seeds only)")
  with open(path, "w", encoding="utf-8") as f:  # the record's own layout
    json.dump(record, f, indent=1, sort_keys=True)
  for row in record["tables"]["claims_rejudged"]["rows"]:
    print(" | ".join(row))


if __name__ == "__main__":
  main(sys.argv)
