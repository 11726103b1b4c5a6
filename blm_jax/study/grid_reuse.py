"""Whether a finished grid may stand for a grid a suite would run now.

A grid's results (its workdir's results.json, or its record kept with
`reproduce --keep`, blm_jax/study/grid_records.py) are reused only if
the config this command would run made them and its datasets' builders
are at the versions they were trained on; else one error names the
differing keys or versions.
"""

from __future__ import annotations

import functools
import json
import os
import sys

from blm_jax.data import input_pipeline
from blm_jax.results import predictions
from blm_jax.study import grid_records, records, suites
from blm_jax.training import run_identity


def finished(workdir: str) -> dict | None:
  """The results.json of the grid finished in `workdir`, or None."""
  path = os.path.join(workdir, "results.json")
  if not os.path.exists(path):
    return None
  with open(path) as f:
    return json.load(f)


def finished_or_kept(workdir: str, keep: str, grid: suites.Grid
                     ) -> dict | None:
  """The results of `grid` in `workdir`, or else its record kept in
  `keep`, unchecked: for timing the grids of other shards only."""
  done = finished(workdir)
  if done is None and keep:
    try:
      done = grid_records.read(keep, grid.name, grid.model)
    except records.RecordError:
      pass
  return done


def saved_config(workdir: str, results: dict | None = None) -> dict | None:
  """The flattened config of the finished grid in `workdir`: results.json's
  `run.config` (`results`: the file, where already read), or (grids
  reported before it was recorded) config.json."""
  if results is None:
    results = finished(workdir) or {}
  saved = results.get("run", {}).get("config")
  if saved is None and os.path.exists(os.path.join(workdir, "config.json")):
    with open(os.path.join(workdir, "config.json")) as f:
      saved = run_identity.flatten(json.load(f))
  return saved


def builder_changes(results: dict, config) -> list[str] | None:
  """'name: old -> new' for each dataset whose builder version changed
  since the finished grid of `results` (its results.json, or its kept
  record) was trained: its data would differ now. None when the grid
  predates the record of its versions."""
  saved = results.get("data", {}).get("builder_versions")
  if saved is None:
    return None
  now = input_pipeline.builder_versions(config.data)
  return [f"data {n}: builder {saved.get(n)} -> {now.get(n)}"
          for n in sorted(set(saved) | set(now))
          if saved.get(n) != now.get(n)]


def reuse_problem(workdir: str, config, changes: list[str] | None = None,
                  results: dict | None = None) -> str | None:
  """Why the finished grid in `workdir` cannot stand for a run of
  `config`, or None when it can; `changes`: its `builder_changes`;
  `results`: its results.json, where already read."""
  return _reuse_problem(workdir, "folder", saved_config(workdir, results),
                        config, changes)


def _reuse_problem(where: str, kind: str, saved: dict | None, config,
                   changes: list[str] | None) -> str | None:
  if saved is None:
    diffs = ["it has no record of its config"]
  else:
    diffs = run_identity.reuse_differences(saved, config)
  diffs += changes or []
  if not diffs:
    return None
  return (f"{where} holds a finished grid that another config produced; "
          "it differs in: " + "; ".join(diffs) + ". Use another "
          f"{'--keep' if kind == 'file' else '--out'}, or remove that "
          f"{kind} to retrain it")


def kept_grid(keep: str, grid: suites.Grid, config,
              warn=lambda line: print(line, file=sys.stderr)) -> dict | None:
  """The committed record of `grid` in `keep` (`--keep`), checked to be
  what `config` would make now, or None where there is none; SuiteError
  when another config or other builders made it."""
  try:
    kept = grid_records.read(keep, grid.name, grid.model)
  except records.RecordError as e:
    raise suites.SuiteError(str(e)) from None
  if kept is None:
    return None
  where = grid_records.path(keep, grid.name, grid.model)
  changes = builder_changes(kept, config)
  problem = _reuse_problem(where, "file", kept["run"]["config"], config,
                           changes)
  if problem:
    raise suites.SuiteError(problem)
  if changes is None:
    warn(f"warning: {where} does not record its data's builder versions: "
         "reused without checking that its data is what the builders make "
         "now")
  kept_predictions(keep, grid)  # refused now, not after the training
  return kept


def kept_predictions(keep: str, grid: suites.Grid):
  """The predictions kept beside `grid`'s record, or None; SuiteError
  naming the file when it is not a predictions.npz."""
  try:
    return grid_records.read_predictions(keep, grid.name, grid.model)
  except records.RecordError as e:
    raise suites.SuiteError(str(e)) from None


@functools.cache
def code_commit() -> str:
  """The checkout's commit when this process first asks (reproduce asks
  as it starts): the code it loaded, not the commit the checkout has
  moved to by the time a grid of a long suite finishes."""
  return records.head_commit()


def keep_grid(keep: str, grid: suites.Grid, workdir: str, results: dict,
              command: str, echo=print) -> None:
  """Writes the committed record of the grid finished in `workdir`
  (`results`: its results.json) into `keep`, unless the one there already
  holds its results."""
  try:
    kept = grid_records.read(keep, grid.name, grid.model)
  except records.RecordError:
    kept = None  # replaced by the grid's own
  probe = grid_records.read_probe(workdir)
  npz_kept = os.path.exists(grid_records.predictions_path(
      keep, grid.name, grid.model)) or not os.path.exists(
          os.path.join(workdir, predictions.FILENAME))
  if kept is not None and kept.get("probe") == probe and npz_kept and all(
      kept.get(k) == results.get(k) for k in ("summary", "run")):
    return
  path = grid_records.write(keep, grid.name, grid.model, workdir, command,
                            code_commit())
  echo(f"== {grid.key}: its record kept in {path} (commit it)")
