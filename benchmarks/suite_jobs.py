"""Wall time of a toy suite run one grid after another against N at a time.

Writes a configs folder of tiny real grids (tests/tiny_suite.py: the
released format, a tiny BERT, every dataset name the same small release),
warms the data build, the embedding cache and XLA's compilation cache with
one grid, then runs the same suite of `--grids` grids with each `--jobs`
value into a fresh --out, in one process of this script (so the ratio is
measured at one load), and records each run's wall time, its children's
CPU seconds and the load average before and after.

  python benchmarks/suite_jobs.py --jobs=1,2 --record
"""
import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from blm_jax.base import files  # noqa: E402
from tests import tiny_suite  # noqa: E402

# Not spray/load: the report reads its FFNN's I->III cell, which a
# two-type toy grid has not.
DATASETS = ("cos_en", "od_en", "agreement_en", "agreement_fr", "cos_it",
            "od_it")
RECORD = os.path.join(ROOT, "benchmarks", "results", "suite_jobs_cpu.json")


def reproduce(suite: str, configs: str, out: str, jobs: int) -> dict:
  """One run of the command; its wall time, CPU seconds, load."""
  before = resource.getrusage(resource.RUSAGE_CHILDREN)
  load = os.getloadavg()[0]
  t0 = time.monotonic()
  proc = subprocess.run(
      [sys.executable, "-m", "blm_jax.cli.reproduce", f"--suite={suite}",
       f"--jobs={jobs}", "--seeds=0", "--noseed_follows_grid", "--timings=",
       f"--configs_dir={configs}", f"--out={out}"], cwd=ROOT,
      capture_output=True, text=True, env=dict(os.environ,
                                               JAX_PLATFORMS="cpu"))
  wall = time.monotonic() - t0
  if proc.returncode:
    raise SystemExit(f"error: --jobs={jobs} exited {proc.returncode}:\n"
                     + proc.stderr[-2000:])
  after = resource.getrusage(resource.RUSAGE_CHILDREN)
  return {"jobs": jobs, "wall_s": round(wall, 1),
          "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime
                         - before.ru_stime, 1),
          "load_before": round(load, 2),
          "load_after": round(os.getloadavg()[0], 2)}


def main(argv=None) -> None:
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("--jobs", default="1,2", help="comma-separated")
  p.add_argument("--grids", type=int, default=4)
  p.add_argument("--epochs", type=int, default=5)
  p.add_argument("--rows", type=int, default=60,
                 help="release rows per type")
  p.add_argument("--root", default=os.path.join(
      ROOT, "workdirs", "benchmarks", "suite_jobs"))
  p.add_argument("--record", action="store_true",
                 help=f"write the record to {os.path.relpath(RECORD, ROOT)}")
  p.add_argument("--out", default="", help="the record's path instead")
  args = p.parse_args(argv)
  if not 1 <= args.grids <= len(DATASETS):
    raise SystemExit(f"error: --grids={args.grids}: 1 to {len(DATASETS)}")
  shutil.rmtree(args.root, ignore_errors=True)
  configs = tiny_suite.write(args.root, rows=args.rows, epochs=args.epochs)
  suite = ",".join(f"{d}/ffnn" for d in DATASETS[:args.grids])
  warm = reproduce("cos_en/ffnn", configs, os.path.join(args.root, "warm"),
                   1)
  print(f"warm-up (one grid: data, embeddings, compiled programs): "
        f"{warm['wall_s']} s")
  runs = []
  for jobs in (int(j) for j in args.jobs.split(",")):
    runs.append(reproduce(suite, configs,
                          os.path.join(args.root, f"jobs{jobs}"), jobs))
    r = runs[-1]
    print(f"--jobs={jobs}: {r['wall_s']} s wall, {r['cpu_s']} s CPU, load "
          f"{r['load_before']} -> {r['load_after']}")
  base = runs[0]["wall_s"]
  for r in runs:
    r["wall_over_first"] = round(r["wall_s"] / base, 3)
  record = {
      "what": __doc__.splitlines()[0],
      "command": "python benchmarks/suite_jobs.py " + " ".join(
          sys.argv[1:] if argv is None else argv),
      "suite": suite, "epochs": args.epochs, "rows_per_type": args.rows,
      "machine": platform.machine(), "cpus": os.cpu_count(),
      "recorded_at_commit": subprocess.run(
          ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
          capture_output=True, text=True).stdout.strip(),
      "warm_up_s": warm["wall_s"], "runs": runs}
  out = args.out or (RECORD if args.record else os.path.join(
      ROOT, "workdirs", "benchmarks", "suite_jobs_cpu.json"))
  files.write_json(out, record)
  print(json.dumps(runs))
  print(f"wrote {os.path.relpath(out, ROOT)}")


if __name__ == "__main__":
  main()
