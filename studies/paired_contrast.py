"""The solvers suite's contrast (`blm_jax/study/solver_contrasts.py`) for
grids run outside a suite: the best of two or more finished workdirs on one
dataset against each other one, paired by seed and test instance when they
share them, with the 95% interval and Holm's correction.

  python studies/paired_contrast.py --workdir=workdirs/a \
      --workdir=workdirs/b --out=studies/records/x.json

Writes a record with one `contrast` table (`records tables` renders it).
"""

from __future__ import annotations

import json
import os
import sys
import time

from absl import app, flags

_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _HERE not in sys.path:
  sys.path.insert(0, _HERE)

from blm_jax.study import records as study_records  # noqa: E402
from blm_jax.results import predictions  # noqa: E402
from blm_jax.study import records, solver_contrasts  # noqa: E402

FLAGS = flags.FLAGS


def _define_flags():
  """At run time only, so that tests can import `contrast`."""
  flags.DEFINE_multi_string("workdir", [], "finished grid workdirs (2 or "
                            "more)")
  flags.DEFINE_string("out", None, "the record to write")
  flags.mark_flag_as_required("out")


def contrast(workdirs: list[str]) -> tuple[list[list[str]], dict]:
  """The contrast rows and each workdir's model and dataset."""
  runs, preds, seen = {}, {}, {}
  for w in workdirs:
    path = os.path.join(w, "results.json")
    if not os.path.exists(path):
      raise SystemExit(f"--workdir={w}: no results.json (is the run "
                       "finished?)")
    results = records.read_json_object(path, "a grid's results.json")
    model = results["config"]["model"]  # results.json's short config
    dataset = results["config"]["dataset"]
    runs.setdefault(dataset, {})[model] = results
    preds.setdefault(dataset, {})[model] = predictions.load(w)
    seen[w] = {"model": model, "dataset": dataset}
  if len(seen) < 2:
    raise SystemExit("--workdir: name two or more finished grids")
  models = [v["model"] for v in seen.values()]
  return solver_contrasts.rows(runs, models, preds), seen


def main(argv):
  del argv
  rows, seen = contrast(FLAGS.workdir)
  record = {
      "study": "paired contrast of solvers run outside a suite "
               "(blm_jax/study/solver_contrasts.py)",
      "source": "measured", "date": time.strftime("%Y-%m-%d", time.gmtime()),
      "commit": study_records.head_commit(),
      "command": " ".join(["python", "studies/paired_contrast.py",
                           *sys.argv[1:]]),
      "config": None, "workdirs": seen,
      "tables": {"contrast": {"columns": list(solver_contrasts.COLUMNS),
                              "rows": rows}}}
  with open(FLAGS.out, "w") as f:
    json.dump(record, f, indent=1, sort_keys=True)
  for r in rows:
    print(" | ".join(r))


if __name__ == "__main__":
  _define_flags()
  app.run(main)
