"""Where a device call's grids spent their time: the stage times of the
kept grid records a `rest` step brought back, per grid and summed, as a
JSON record and a Markdown table.

  python benchmarks/device/stage_table.py --keep=docs/records/paper000_h100 \\
      --suite=paper000 --call_seconds=590 --note="one H200, 10 processes" \\
      --out=benchmarks/results/device_paper000_h200.json
"""
import argparse
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
from blm_jax.base import files  # noqa: E402
from blm_jax.cli import suites  # noqa: E402
from blm_jax.results import grid_records, records  # noqa: E402


def collect(keep: str, suite: str) -> dict:
  """{grid key: {stage: seconds}} of the suite's grids kept in `keep`
  (None for a grid kept without stage times), and the grids not kept."""
  from configs import common
  grids = suites.grids(suite, tuple(common.DATASETS), common.NEEDS_MANUAL_DIR)
  out, missing = {}, []
  for g in grids:
    try:
      record = grid_records.read(keep, g.name, g.model)
    except records.RecordError as e:
      raise SystemExit(f"error: {e}")
    if record is None:
      missing.append(g.key)
    else:
      out[g.key] = record.get("stage_seconds") or None
  return {"grids": out, "missing": missing}


def table(grids: dict) -> list[str]:
  """A Markdown table: one row per grid, one column per stage (minutes
  would hide the short stages: seconds)."""
  stages = list(dict.fromkeys(s for v in grids.values() if v for s in v))
  rows = [f"| grid | {' | '.join(stages)} | total |",
          "| --- |" + " --- |" * (len(stages) + 1)]
  sums = dict.fromkeys(stages, 0.0)
  for key, v in grids.items():
    if not v:
      rows.append(f"| {key} |" + " |" * len(stages) + " (not timed) |")
      continue
    for s in stages:
      sums[s] += v.get(s, 0.0)
    rows.append(f"| {key} | " + " | ".join(
        f"{v.get(s, 0.0):.1f}" for s in stages) + f" | {sum(v.values()):.1f} |")
  rows.append("| **sum** | " + " | ".join(f"{sums[s]:.1f}" for s in stages)
              + f" | {sum(sums.values()):.1f} |")
  return rows


def main(argv=None) -> None:
  p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  p.add_argument("--keep", required=True)
  p.add_argument("--suite", required=True)
  p.add_argument("--call_seconds", type=float, default=None,
                 help="the device call's wall time, as its log says")
  p.add_argument("--note", default="")
  p.add_argument("--out", required=True)
  a = p.parse_args(argv)
  got = collect(a.keep, a.suite)
  stages: dict = {}
  for v in got["grids"].values():
    for s, sec in (v or {}).items():
      stages[s] = round(stages.get(s, 0.0) + sec, 1)
  record = {"study": f"stage times of {a.suite} on a device",
            "command": "python benchmarks/device/stage_table.py "
                       + " ".join(sys.argv[1:] if argv is None else argv),
            "keep": a.keep, "note": a.note, "call_seconds": a.call_seconds,
            "grids_kept": len(got["grids"]), "missing": got["missing"],
            "stage_seconds_summed": stages, "grids": got["grids"]}
  files.write_json(a.out, record, indent=1)
  print("\n".join(table(got["grids"])))
  print(f"{len(got['grids'])} grids kept, {len(got['missing'])} missing; "
        f"wrote {a.out}")


if __name__ == "__main__":
  main()
