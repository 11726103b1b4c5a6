"""The solvers suite's contrast (`blm_jax/study/solver_contrasts.py`) for
grids run outside a suite: the best of two or more finished workdirs on one
dataset against each other one, paired by seed and test instance when they
share them, with the 95% interval and Holm's correction.

  python studies/paired_contrast.py --workdir=workdirs/a \
      --workdir=workdirs/b --out=studies/records/x.json

Writes a record with one `contrast` table (`records tables` renders it);
`--cells_of=<model>` adds a `cells` table: that model against the best
other one, cell by cell (`solver_contrasts.cell_rows`).

Two or more workdirs of one model on one dataset are one grid whose seeds
are split between them (more seeds for a grid already run, e.g.
`--config.grid.seeds="(3,4)"` into a new workdir): their configs must be the
same but for `grid.seeds`, their seeds disjoint, their test sets the same.
Every grid of a dataset must have read the same builder versions (the
pairing is by test instance id, which a new version may keep for another
sentence).
Every model needs the same seeds: the contrast pairs them. `--seeds=0,1,2`
keeps only those seeds of every grid (a suite's five-seed FFNN beside a
three-seed run).

`--looks=2` reads a second look at a question already judged (the same
grids with more seeds) at half the level, Bonferroni over the looks, so
that looking again does not raise the error rate the claims assume.

`--labelled=<label>=<workdir>` reads a finished workdir as the model
`<label>`: two settings of one model side by side (e.g. two encoder
layers), which would otherwise be refused as one grid's split seeds.

`--joins=<record>` adds the rows to an earlier contrast record's: a
solver run after that record was made, against the same best (whose
workdir is here again) while the others' workdirs are gone. The record
holds both tables' rows, Holm's correction taken again over all of them
(`solver_contrasts.joined`).

`--kept=<keep>/<grid>/<model>.json` reads a grid a suite kept
(`reproduce --keep`: its record and predictions.npz) in place of a
workdir, e.g. the papers' FFNN in studies/records/paper_rest/.
"""

from __future__ import annotations

import json
import os
import sys
import time

import numpy as np
from absl import app, flags

_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _HERE not in sys.path:
  sys.path.insert(0, _HERE)

from blm_jax.study import records as study_records  # noqa: E402
from blm_jax.results import predictions  # noqa: E402
from blm_jax.study import (grid_records, records, solver_contrasts,  # noqa: E402
                           statistics)

FLAGS = flags.FLAGS


def _define_flags():
  """At run time only, so that tests can import `contrast`."""
  flags.DEFINE_multi_string("workdir", [], "finished grid workdirs")
  flags.DEFINE_multi_string("kept", [], "kept grid records "
                            "(<keep>/<grid>/<model>.json), beside or "
                            "instead of workdirs")
  flags.DEFINE_multi_string("labelled", [], "<label>=<workdir>: a finished "
                            "workdir read as the model <label>")
  flags.DEFINE_list("seeds", [], "only these seeds of every grid (default: "
                    "all; every model must have the same)")
  flags.DEFINE_string("out", None, "the record to write")
  flags.DEFINE_string("cells_of", None, "a model among the workdirs': add "
                      "its cell-by-cell contrast with the best other one")
  flags.DEFINE_string("joins", None, "an earlier contrast record of the "
                      "same question: its rows and these as one Holm "
                      "family")
  flags.DEFINE_integer("looks", 1, "which look at this question this is "
                       "(2: the same grids again with more seeds); the "
                       "verdicts' level is 5% divided by it")
  flags.mark_flag_as_required("out")


def contrast(workdirs: list[str], cells_of: str | None = None,
             kept: list[str] = (), seeds: list[int] | None = None,
             looks: int = 1, labelled: list[str] = ()
             ) -> tuple[list[list[str]], dict, list[list[str]]]:
  """The contrast rows, each workdir's (and kept record's) model and
  dataset, and the rows of `cells_of` against the best other model cell by
  cell (none without); `seeds`: only these seeds of every grid; `looks`:
  the verdicts at ALPHA / looks; `labelled`: '<label>=<workdir>', read
  as the model <label>."""
  if looks < 1:
    raise SystemExit(f"--looks={looks}: 1 for a first look, 2 or more for "
                     "each look again at the same question")
  alpha = statistics.ALPHA / looks
  runs, preds, configs, first, seen = {}, {}, {}, {}, {}
  sources = ([(w, *_read(w), predictions.load(w)) for w in workdirs]
             + [_read_labelled(x) for x in labelled]
             + [(f"--kept={k}", *_read_kept(k)) for k in kept])
  for w, results, config, cell_preds in sources:
    model = results["config"]["model"]  # results.json's short config
    dataset = results["config"]["dataset"]
    key = (dataset, model)
    if key in runs and any(x.startswith("--kept=") for x in (w, first[key])):
      raise SystemExit(f"{first[key]} and {w}: one model on one dataset "
                       "twice; a kept grid is not merged with other seeds")
    if key in runs:
      runs[key], preds[key] = _merge_seeds(
          (first[key], runs[key], configs[key], preds[key]),
          (w, results, config, cell_preds))
    else:
      runs[key], configs[key], preds[key], first[key] = (
          results, config, cell_preds, w)
    seen[w] = {"model": model, "dataset": dataset}
  if seeds is not None:
    for key in runs:
      runs[key], preds[key] = _only_seeds(first[key], runs[key], preds[key],
                                          seeds)
  models = list(dict.fromkeys(m for _, m in runs))
  if len(models) < 2:
    raise SystemExit("--workdir/--kept: name finished grids of two or more "
                     "models")
  by_dataset, preds_of = {}, {}
  for (dataset, model), results in runs.items():
    by_dataset.setdefault(dataset, {})[model] = results
    preds_of.setdefault(dataset, {})[model] = preds[dataset, model]
  runs, preds = by_dataset, preds_of
  for dataset, by_model in runs.items():
    versions = {m: r.get("data", {}).get("builder_versions")
                for m, r in by_model.items()}
    if len({json.dumps(v, sort_keys=True) for v in versions.values()}) > 1:
      raise SystemExit(f"{dataset}: the grids read different builder "
                       "versions (" + "; ".join(
                           f"{m}: {_versions_text(v)}"
                           for m, v in versions.items())
                       + "); the contrast pairs test instances, so run "
                       "every model on the same data")
    seeds = {m: sorted({c["seed"] for c in r.get("cells", [])})
             for m, r in by_model.items()}
    if len({tuple(v) for v in seeds.values()}) > 1:
      raise SystemExit(f"{dataset}: the grids' seeds differ ("
                       + "; ".join(f"{m}: {v}" for m, v in seeds.items())
                       + "); the contrast pairs them, so give every model "
                       "the same seeds (or --seeds=<those they share>)")
  if cells_of is not None and cells_of not in models:
    raise SystemExit(f"--cells_of={cells_of}: not the model of any "
                     f"--workdir or --kept ({', '.join(models)})")
  cells = (solver_contrasts.cell_rows(runs, models, cells_of, preds, alpha)
           if cells_of else [])
  return solver_contrasts.rows(runs, models, preds, alpha), seen, cells


def join(path: str, rows: list[list[str]], alpha: float
         ) -> list[list[str]]:
  """The rows of the contrast record at `path` and `rows` as one table
  (`solver_contrasts.joined`); SystemExit naming the record when it is
  not a contrast at the same level."""
  try:
    earlier = records.load(path)
    table = earlier["tables"]["contrast"]
    if list(table["columns"]) != list(solver_contrasts.COLUMNS):
      raise KeyError("columns")
    level = earlier.get("verdict_level", statistics.ALPHA)
    if abs(level - alpha) > 1e-12:
      raise SystemExit(f"--joins={path}: its verdicts are at the {level:g} "
                       f"level, these at {alpha:g} (--looks)")
    return solver_contrasts.joined(table["rows"], rows, alpha)
  except records.RecordError as e:
    raise SystemExit(f"--joins={path}: {e}") from None
  except (KeyError, TypeError):
    raise SystemExit(f"--joins={path}: not a contrast record (a `contrast` "
                     "table of paired_contrast's columns)") from None
  except ValueError as e:
    raise SystemExit(f"--joins={path}: {e}") from None


def _read_labelled(value: str):
  """A `--labelled=<label>=<workdir>` source, its results read as the
  model <label>."""
  label, sep, w = value.partition("=")
  if not sep or not label or not w:
    raise SystemExit(f"--labelled={value}: <label>=<workdir>")
  results, config = _read(w)
  results = {**results, "config": {**results["config"], "model": label}}
  return w, results, config, predictions.load(w)


def _versions_text(versions: dict | None) -> str:
  if not versions:
    return "not recorded"
  return ", ".join(sorted(set(versions.values())))


def _read(w: str) -> tuple[dict, dict]:
  """A finished workdir's results.json and config.json."""
  path = os.path.join(w, "results.json")
  if not os.path.exists(path):
    raise SystemExit(f"--workdir={w}: no results.json (is the run "
                     "finished?)")
  config_path = os.path.join(w, "config.json")
  try:
    results = records.read_json_object(path, "a grid's results.json")
    config = (records.read_json_object(config_path, "a grid's config.json")
              if os.path.exists(config_path) else {})
  except records.RecordError as e:
    raise SystemExit(f"--workdir={w}: {e}") from None
  return results, config


def _read_kept(path: str) -> tuple[dict, dict, predictions.CellPredictions
                                    | None]:
  """A kept grid record (`<keep>/<grid>/<model>.json`), its full config
  and its predictions.npz beside it, read as `reproduce --keep` reads
  them (bounded, never through a link)."""
  folder, filename = os.path.split(os.path.normpath(path))
  model = filename[:-len(".json")] if filename.endswith(".json") else ""
  try:
    record = (grid_records.read(os.path.dirname(folder),
                                os.path.basename(folder), model)
              if model else None)
    if record is None:
      raise SystemExit(f"--kept={path}: no kept grid record there (a "
                       "<keep>/<grid>/<model>.json that `reproduce --keep` "
                       "wrote)")
    cell_preds = grid_records.read_predictions(
        os.path.dirname(folder), os.path.basename(folder), model)
  except records.RecordError as e:
    raise SystemExit(f"--kept={path}: {e}") from None
  return record, record["run"]["config"], cell_preds


def _only_seeds(where: str, results: dict, cell_preds, seeds: list[int]):
  """`results` and `cell_preds` with only the cells of `seeds`;
  SystemExit naming the grid when it lacks one of them."""
  have = sorted({c["seed"] for c in results.get("cells", [])})
  lacking = [s for s in seeds if s not in have]
  if lacking:
    raise SystemExit(f"--seeds: {where} has seeds {have}, not {lacking}")
  results = {**results,
             "cells": [c for c in results["cells"] if c["seed"] in seeds]}
  if cell_preds is None:
    return results, None
  rows = [cell_preds.seeds.index(s) for s in seeds]
  return results, predictions.CellPredictions(
      tuple(seeds), cell_preds.train_types,
      {u: predictions.TestPredictions(t.hits[rows], t.ids)
       for u, t in cell_preds.tests.items()})


def _without_seeds(config: dict) -> dict:
  grid = {k: v for k, v in config.get("grid", {}).items() if k != "seeds"}
  # `progress` changes the console only.
  return {**{k: v for k, v in config.items() if k != "progress"},
          "grid": grid}


def _merge_seeds(a, b) -> tuple[dict, predictions.CellPredictions | None]:
  """One model's two grids, each (workdir, results, config, predictions),
  as one grid with the seeds of both; SystemExit naming both workdirs
  when they are not one grid's seeds."""
  (wa, ra, ca, pa), (wb, rb, cb, pb) = a, b
  both = f"--workdir={wa} and --workdir={wb}"
  if not ca or not cb or _without_seeds(ca) != _without_seeds(cb):
    raise SystemExit(f"{both}: one model on one dataset with configs that "
                     "differ beyond grid.seeds (or without config.json); "
                     "only one grid's seeds split between workdirs merge")
  cells_a, cells_b = ra.get("cells"), rb.get("cells")
  if not cells_a or not cells_b:
    raise SystemExit(f"{both}: a results.json without per-seed cells")
  shared = ({c["seed"] for c in cells_a} & {c["seed"] for c in cells_b})
  if shared:
    raise SystemExit(f"{both}: both have seed(s) {sorted(shared)}; "
                     "merged workdirs need disjoint seeds")
  if (ra["summary"].keys() != rb["summary"].keys()
      or any(ra.get("data", {}).get(k) != rb.get("data", {}).get(k)
             for k in ("test_sizes", "builder_versions"))):
    raise SystemExit(f"{both}: different train types, test sets or "
                     "builder versions")
  # `summary` stays the first grid's: only its keys (the types) are read.
  merged = {**ra, "cells": list(cells_a) + list(cells_b)}
  if pa is None or pb is None:
    return merged, None
  if (pa.train_types != pb.train_types or pa.tests.keys() != pb.tests.keys()
      or any(pa.tests[u].ids != pb.tests[u].ids for u in pa.tests)):
    raise SystemExit(f"{both}: their predictions are on different test "
                     "instances")
  return merged, predictions.CellPredictions(
      pa.seeds + pb.seeds, pa.train_types,
      {u: predictions.TestPredictions(
          np.concatenate([pa.tests[u].hits, pb.tests[u].hits]),
          pa.tests[u].ids) for u in pa.tests})


def main(argv):
  del argv
  try:
    seeds = [int(s) for s in FLAGS.seeds] if FLAGS.seeds else None
  except ValueError:
    raise SystemExit(f"--seeds={','.join(FLAGS.seeds)}: integers, "
                     "comma-separated") from None
  rows, seen, cells = contrast(FLAGS.workdir, FLAGS.cells_of, FLAGS.kept,
                               seeds, FLAGS.looks, FLAGS.labelled)
  if FLAGS.joins:
    rows = join(FLAGS.joins, rows, statistics.ALPHA / FLAGS.looks)
  record = {
      "study": "paired contrast of solvers run outside a suite "
               "(blm_jax/study/solver_contrasts.py)",
      "source": "measured", "date": time.strftime("%Y-%m-%d", time.gmtime()),
      "commit": study_records.head_commit(),
      "command": " ".join(["python", "studies/paired_contrast.py",
                           *sys.argv[1:]]),
      "config": None, "workdirs": seen,
      **({"joins": FLAGS.joins} if FLAGS.joins else {}),
      "verdict_level": statistics.ALPHA / FLAGS.looks,
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
