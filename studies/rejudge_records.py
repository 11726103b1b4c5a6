"""Re-judges a reproduction record's verdicts from its per-seed values.

  python studies/rejudge_records.py studies/records/reproduce_designs_paper_scale.json
  python studies/rejudge_records.py studies/records/paper000_minilm.json

A record made from a report that kept each grid's per-seed F1 (`seed_f1`)
is re-judged by today's claims (`blm_jax.study.claims`): every claim on
the F1 heatmaps, t over seeds (the record holds no predictions, so the
test-instance part is 0), Holm over those verdicts; claims on the shares
of the answers need each seed's answer counts, which such a record does
not keep, and are left out. The table sets each verdict beside the one
recorded for the same claim and dataset ('-' where the claim's wording
is new).

Records made before blm_jax/study/statistics.py keep, per verdict, the
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

from blm_jax.study import claims, judge, statistics

SEED_F1_COLUMNS = (*judge.VERDICT_COLUMNS, "recorded verdict")


def runs_of_seed_f1(seed_f1: dict) -> dict:
  """{dataset: {model: results}} with each grid's per-seed cells, from a
  report's `seed_f1`."""
  runs = {}
  for ds, by_model in seed_f1.items():
    for m, g in by_model.items():
      f1 = g["f1"]
      cells = [{"seed": s, "train_type": t,
                "test": {u: {"f1": f1[i][j][k]}
                         for k, u in enumerate(g["test_types"])}}
               for i, s in enumerate(g["seeds"])
               for j, t in enumerate(g["train_types"])]
      summary = {t: {u: {"f1_mean": sum(f1[i][j][k] for i in range(
          len(g["seeds"]))) / len(g["seeds"])}
                     for k, u in enumerate(g["test_types"])}
                 for j, t in enumerate(g["train_types"])}
      runs.setdefault(ds, {})[m] = {"summary": summary, "cells": cells,
                                    "grid": {"seeds": g["seeds"]}}
  return runs


def rejudge_seed_f1(record: dict) -> list[list[str]]:
  """Today's F1 claims on the record's `seed_f1`, each beside the verdict
  recorded for the same claim and dataset."""
  table = record["tables"]["claims"]
  at = {c: i for i, c in enumerate(table["columns"])}
  recorded = {(r[at["claim"]], r[at["dataset"]]): r[at["verdict"]]
              for r in table["rows"]}
  shares = {c.text for c in claims.CLAIMS if c.reads_shares or c.labels}
  verdicts = judge.adjust(
      [v for v in judge.evaluate_claims(runs_of_seed_f1(record["seed_f1"]))
       if v["verdict"] != "not run" and v["claim"] not in shares])
  return [[*judge.verdict_cells(v),
           recorded.get((v["claim"], v["dataset"]), "-")] for v in verdicts]


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
  if "seed_f1" in record:
    record["tables"]["claims_rejudged"] = {
        "columns": list(SEED_F1_COLUMNS), "rows": rejudge_seed_f1(record)}
    record["rejudged_by"] = (
        "python studies/rejudge_records.py " + path + " (today's claims "
        "on the F1 heatmaps from seed_f1, t over seeds only)")
    _write(path, record)
    for row in record["tables"]["claims_rejudged"]["rows"]:
      print(" | ".join(row))
    return
  record["tables"]["claims_rejudged"] = {
      "columns": ["source", "dataset", "claim", "recorded verdict (bootstrap)",
                  "95% t interval over the seeds (t(n-1))",
                  "verdict", "p", "after Holm over the record"],
      "rows": rejudge(record)}
  record["rejudged_by"] = ("python studies/rejudge_records.py " + path
                           + " (blm_jax/study/statistics.py, seeds only)")
  _write(path, record)
  for row in record["tables"]["claims_rejudged"]["rows"]:
    print(" | ".join(row))


def _write(path: str, record: dict) -> None:
  with open(path, "w", encoding="utf-8") as f:  # the record's own layout
    json.dump(record, f, indent=1, sort_keys=True)


if __name__ == "__main__":
  main(sys.argv)
