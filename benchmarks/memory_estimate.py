"""Peak memory of a run against the memory check's estimate (on CPU).

  python benchmarks/memory_estimate.py --workdir=/tmp/mem -- \
      --config=configs/ffnn.py:cpu --config.encoder.layer_sweep=0,6 \
      --config.train.epochs=2 --config.train.checkpoint_every_epochs=1

Runs `launch.py` with the flags after `--` under `/usr/bin/time -v` and
reads the estimate from the run's log.txt: the epoch's memory (the grid
form the check chose) plus the host copy of the state a checkpoint save
makes. Appends {command, estimate, peak RSS, within} to
studies/records/memory_estimate.json (table `runs`). The peak RSS is the
whole process's: Python, jax and the libraries, the data and the
embedding table on the host as well as what the estimate counts. The
budget is the memory available when the check runs, after the process
already holds its data: the estimate is compared with the growth of RSS
from then (`rss_at_check`, sampled when log.txt has the estimate) to the
peak.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from blm_jax.base import files  # noqa: E402
from blm_jax.study import records as study_records  # noqa: E402

RECORD = os.path.join(ROOT, "studies", "records", "memory_estimate.json")


def estimate(log: str) -> dict:
  """The memory check's lines of a log.txt, in GiB."""
  epoch = re.search(r"epoch memory \((\w+), (\d+) cells\): ([\d.]+) GiB of "
                    r"([\d.]+) GiB", log)
  save = re.search(r"checkpoint saves: ([\d.]+) GiB", log)
  if epoch is None:
    raise SystemExit("no 'epoch memory' line in log.txt")
  return {"form": epoch.group(1), "cells": int(epoch.group(2)),
          "epoch_gib": float(epoch.group(3)),
          "budget_gib": float(epoch.group(4)),
          "save_gib": float(save.group(1)) if save else 0.0}


def table(runs: list[dict]) -> dict:
  return {
      "columns": ["command", "commit", "cells", "grid form", "epoch (GiB)",
                  "save (GiB)", "estimate (GiB)", "RSS at the check (GiB)",
                  "peak RSS (GiB)", "growth (GiB)", "within"],
      "rows": [[f"`{r['command']}`", r["commit"], r["cells"], r["form"],
                r["epoch_gib"], r["save_gib"], r["estimate_gib"],
                r["rss_at_check_gib"], r["peak_rss_gib"], r["growth_gib"],
                "yes" if r["within"] else "no"] for r in runs]}


def rss_at_check(proc: subprocess.Popen, log_path: str) -> float:
  """The run's RSS (GiB) when the memory check has logged its estimate:
  what the process holds already (Python, the libraries, the data and
  embeddings on the host), which the budget, the memory available then,
  does not include."""
  import psutil

  while proc.poll() is None:
    try:
      children = psutil.Process(proc.pid).children()
      if children and os.path.exists(log_path) and (
          "epoch memory" in open(log_path).read()):
        return children[0].memory_info().rss / 2**30
    except (psutil.Error, OSError):
      pass
    time.sleep(0.05)
  raise SystemExit("the run ended before its memory check was logged")


def main() -> None:
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("--workdir", required=True)
  p.add_argument("--out", default="", help="the record (default: "
                 "workdirs/memory_estimate.json; with --record " + RECORD + ")")
  p.add_argument("--record", action="store_true",
                 help="replace the committed record")
  p.add_argument("flags", nargs="+", help="launch.py's flags, after --")
  a = p.parse_args()
  a.out = a.out or (RECORD if a.record else os.path.join(
      ROOT, "workdirs", "memory_estimate.json"))
  argv = [sys.executable, "launch.py", f"--workdir={a.workdir}", *a.flags]
  with tempfile.TemporaryFile("w+") as err:
    proc = subprocess.Popen(["/usr/bin/time", "-v", *argv], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=err, text=True,
                            env=dict(os.environ, JAX_PLATFORMS="cpu"))
    at_check = rss_at_check(proc, os.path.join(a.workdir, "log.txt"))
    proc.wait()
    err.seek(0)
    stderr = err.read()
  if proc.returncode != 0:
    raise SystemExit(f"launch.py failed:\n{stderr[-3000:]}")
  peak_kib = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)",
                           stderr).group(1))
  with open(os.path.join(a.workdir, "log.txt")) as f:
    est = estimate(f.read())
  total = est["epoch_gib"] + est["save_gib"]
  peak = peak_kib / 2**20
  growth = peak - at_check
  row = {"command": "python launch.py " + " ".join(a.flags),
         "date": datetime.date.today().isoformat(),
         "commit": study_records.head_commit(),
         **est, "estimate_gib": round(total, 2),
         "rss_at_check_gib": round(at_check, 2),
         "peak_rss_gib": round(peak, 2),
         "growth_gib": round(growth, 2), "within": growth <= total}
  record = {"study": "peak RSS of a run against the memory check's "
                     "estimate (CPU)",
            "command": "python benchmarks/memory_estimate.py --workdir=W -- "
                       "FLAGS", "config": None, "runs": []}
  if os.path.exists(a.out):
    with open(a.out) as f:
      record = json.load(f)
  record["runs"].append(row)
  # The record's provenance is its newest run's (each row keeps its own).
  record.update(date=row["date"], commit=row["commit"],
                source="/usr/bin/time -v's peak RSS of the run and the "
                       "memory check's lines in its log.txt")
  record["tables"] = {"runs": table(record["runs"])}
  files.write_json(a.out, record, indent=1)
  print(json.dumps(row, indent=1))


if __name__ == "__main__":
  main()
