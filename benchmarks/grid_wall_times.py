"""How long did each grid of a suite take? Read from the grids' log.txt:
every run of a grid (the first and each resume) logs its `data:` line with
the seconds data and embedding took, so a run's span is from that line
less those seconds to its last line; a grid's wall time is the sum over
its runs (the time a stopped grid waited before resuming is not counted,
nor the epoch a stop threw away). Grids are read from `--workdirs`
(`<workdirs>/<dataset>/<model>/`, a reproduce --out; several, comma
separated, the first holding a finished grid counting, each entry naming
the one it was read from); those already in `--out` and not finished
there keep their entry, so a suite run over several sessions, on
checkouts that do not keep their workdirs, is timed as its grids land,
and grids that ran elsewhere (a device) can be timed by a rerun here.

  python benchmarks/grid_wall_times.py --workdirs=workdirs/paper_rest \\
      --suite=paper000_ctx,paper000_seq,battery \\
      --out=benchmarks/results/grid_wall_times_paper_rest.json
"""
import argparse
import datetime
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
from blm_jax.base import files  # noqa: E402
from blm_jax.study import records as study_records  # noqa: E402
from blm_jax.study import reproduce  # noqa: E402
from blm_jax.study import suites  # noqa: E402

LINE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) (.*)$")
DATA = re.compile(r"^data: .*\((\d+(?:\.\d+)?)s\)$")


def _time(stamp: str) -> datetime.datetime:
  return datetime.datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f")


def runs(log_path: str) -> list[tuple[datetime.datetime, datetime.datetime]]:
  """(start, end) of each run of the grid whose log this is. Lines a run
  writes before its `data:` line (taking over a dead process's lock) are
  dated after the previous run's end, so they do not stretch it."""
  out, start, times = [], None, []
  with open(log_path, encoding="utf-8", errors="replace") as f:
    for line in f:
      m = LINE.match(line.rstrip("\n"))
      if not m:
        continue
      when, text = _time(m.group(1)), m.group(2)
      d = DATA.match(text)
      if not d:
        times.append(when)
        continue
      begin = when - datetime.timedelta(seconds=float(d.group(1)))
      if start is not None:
        out.append((start, max([t for t in times if t < begin] or [start])))
      start, times = begin, [when]
  if start is None:
    raise SystemExit(f"error: {log_path}: no 'data:' line (not a grid's "
                     "log)")
  out.append((start, max(times)))
  return out


def grid_entry(workdir: str) -> dict:
  """The grid's wall time from its log, and its stage times (seconds per
  stage of its last run, from results.json) where the run timed them."""
  spans = runs(os.path.join(workdir, "log.txt"))
  seconds = sum((b - a).total_seconds() for a, b in spans)
  iso = lambda t: t.strftime("%Y-%m-%d %H:%M:%S")
  entry = {"minutes": round(seconds / 60, 2), "runs": len(spans),
           "start": iso(spans[0][0]), "end": iso(spans[-1][1])}
  try:
    with open(os.path.join(workdir, "results.json"), encoding="utf-8") as f:
      stages = json.load(f).get("stage_seconds")
  except (OSError, ValueError) as e:
    raise SystemExit(f"error: {workdir}/results.json: {e}")
  if stages:
    entry["stage_seconds"] = stages
  return entry


def collect(workdirs: list[str], keys: list[str], old: dict) -> dict:
  """{grid key: entry} for the finished grids of `keys` under the first
  of `workdirs` that has them, and the entries of `old` for the others."""
  out = {}
  for key in keys:
    for root in workdirs:
      workdir = os.path.join(root, key)
      if os.path.isfile(os.path.join(workdir, "results.json")):
        out[key] = {**grid_entry(workdir), "workdirs": root}
        break
    else:
      if key in old:
        out[key] = old[key]
  return out


def totals(grids: dict, suite_keys: dict[str, list[str]],
           every: list[str]) -> dict:
  """Per item of --suite, and for `every` grid of them: its grids, those
  timed, and the sum of their minutes."""
  out = {}
  for suite, keys in {**suite_keys, "all": every}.items():
    timed = [grids[k]["minutes"] for k in keys if k in grids]
    out[suite] = {"grids": len(keys), "timed": len(timed),
                  "minutes": round(sum(timed), 1)}
    staged = [grids[k]["stage_seconds"] for k in keys
              if "stage_seconds" in grids.get(k, {})]
    if staged:  # Where the time of the grids that timed their stages went.
      out[suite]["stage_minutes"] = {
          stage: round(sum(s.get(stage, 0.0) for s in staged) / 60, 2)
          for stage in dict.fromkeys(k for s in staged for k in s)}
      out[suite]["staged_grids"] = len(staged)
  return out


def main(argv=None) -> None:
  p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  p.add_argument("--workdirs", required=True,
                 help="reproduce --out folders, comma separated")
  p.add_argument("--suite", required=True)
  p.add_argument("--out", required=True)
  p.add_argument("--note", default="")
  a = p.parse_args(argv)
  datasets, needs = reproduce.known_datasets()
  try:
    suite_keys = {s: [g.key for g in suites.grids(s, datasets, needs)]
                  for s in a.suite.split(",")}
  except suites.SuiteError as e:
    raise SystemExit(f"error: {e}")
  keys = list(dict.fromkeys(k for ks in suite_keys.values() for k in ks))
  old = {}
  if os.path.isfile(a.out):
    try:
      with open(a.out, encoding="utf-8") as f:
        old = json.load(f)["grids"]
    except (ValueError, KeyError, TypeError) as e:
      raise SystemExit(f"error: {a.out}: not a grid wall time record ({e})")
  grids = collect(a.workdirs.split(","), keys, old)
  record = {
      "study": "grid_wall_times", "commit": study_records.head_commit(),
      "date": datetime.date.today().isoformat(),
      "command": "python benchmarks/grid_wall_times.py " + " ".join(
          sys.argv[1:] if argv is None else argv),
      "note": a.note, "totals": totals(grids, suite_keys, keys), "grids": grids}
  files.write_json(a.out, record, indent=1)
  for suite, t in record["totals"].items():
    print(f"{suite}: {t['timed']} of {t['grids']} grids timed, "
          f"{t['minutes'] / 60:.2f} h of grid wall time")
  print(f"wrote {a.out}")


if __name__ == "__main__":
  main()
