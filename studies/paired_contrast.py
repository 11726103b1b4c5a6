"""The solvers suite's contrast (`blm_jax/study/solver_contrasts.py`) for
grids run outside a suite: the best of two or more finished workdirs on one
dataset against each other one, paired by seed and test instance when they
share them, with the 95% interval and Holm's correction.

  python studies/paired_contrast.py --workdir=workdirs/a \
      --workdir=workdirs/b --out=studies/records/x.json

Writes a record with one `contrast` table (`records tables` renders it);
`--cells_of=<model>` adds a `cells` table: that model against the best
other one, cell by cell (`solver_contrasts.cell_rows`).
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
  flags.DEFINE_string("cells_of", None, "a model among the workdirs': add "
                      "its cell-by-cell contrast with the best other one")
  flags.mark_flag_as_required("out")


def contrast(workdirs: list[str], cells_of: str | None = None
             ) -> tuple[list[list[str]], dict, list[list[str]]]:
  """The contrast rows, each workdir's model and dataset, and the rows of
  `cells_of` against the best other model cell by cell (none without)."""
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
  if cells_of is not None and cells_of not in models:
    raise SystemExit(f"--cells_of={cells_of}: not the model of any "
                     f"--workdir ({', '.join(models)})")
  cells = (solver_contrasts.cell_rows(runs, models, cells_of, preds)
           if cells_of else [])
  return solver_contrasts.rows(runs, models, preds), seen, cells


def main(argv):
  del argv
  rows, seen, cells = contrast(FLAGS.workdir, FLAGS.cells_of)
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
  if cells:
    record["tables"]["cells"] = {
        "columns": list(solver_contrasts.CELL_COLUMNS), "rows": cells}
  with open(FLAGS.out, "w") as f:
    json.dump(record, f, indent=1, sort_keys=True)
  for r in rows + cells:
    print(" | ".join(r))


if __name__ == "__main__":
  _define_flags()
  app.run(main)
