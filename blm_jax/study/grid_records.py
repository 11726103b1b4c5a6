"""Committed records of a suite's finished grids, which outlive a session.

A reproduction suite runs for longer than a session, whose workdirs are
not kept. With `reproduce --keep=DIR` each finished grid's record (its
results.json without per-epoch histories, and where it came from) is
written to `DIR/<grid name>/<model>.json`, to be committed; a later
session whose workdir of that grid is gone reads it back and, if the same
config on the same data builders made it, counts the grid as done. Its
predictions.npz is kept beside it (`<model>.predictions.npz`, tens of kB),
so the claims keep their paired, per-instance interval, and a probed
grid's record holds its probe.json (`probe`). Its heatmap and error bars
are drawn again from the record (`report.write_plots`); a probe's figures
are lost.

Records from others are not trusted: a file larger than `MAX_BYTES`, a
link, or one without a grid's results is refused with its path.
"""

from __future__ import annotations

import datetime
import json
import os

from blm_jax.base import files
from data_builders.common import safe_io
from blm_jax.results import predictions
from blm_jax.study import records

# A paper-scale grid's record is tens of kB; anything past this is not one.
MAX_BYTES = 4 << 20
# A paper-scale grid's predictions.npz is tens of kB (compressed).
MAX_PREDICTION_BYTES = 64 << 20
# What the report and the reuse check read of a record.
REQUIRED = ("summary", "grid", "cells", "data", "config", "run")


def is_kept(results: dict) -> bool:
  """Whether `results` is a kept record (it says where it came from), not
  a workdir's results.json."""
  return "source" in results


def path(keep: str, name: str, model: str) -> str:
  return os.path.join(keep, name, f"{model}.json")


def read(keep: str, name: str, model: str) -> dict | None:
  """The kept record of grid `name`/`model`, or None where there is none;
  RecordError naming the file when it is not a grid's record."""
  p = path(keep, name, model)
  if not os.path.lexists(p):
    return None
  try:
    data = files.read_bounded(p, MAX_BYTES)
  except OSError:
    raise records.RecordError(f"{p}: not a plain file; a kept grid record "
                              "is read only from a file of its own") from None
  except ValueError as e:
    raise records.RecordError(f"{p}: {e}; not a grid's record") from None
  try:
    record = safe_io.json_loads(data, p)
  except ValueError as e:
    raise records.RecordError(str(e)) from None
  if not isinstance(record, dict):
    raise records.RecordError(f"{p}: not a grid's record (a JSON object)")
  lacking = [k for k in REQUIRED if not isinstance(record.get(k), dict)
             and not (k == "cells" and isinstance(record.get(k), list))]
  if lacking or not isinstance(record["run"].get("config"), dict):
    raise records.RecordError(
        f"{p}: not a grid's record: no {', '.join(lacking or ['run.config'])}"
        " (write it with `reproduce --keep`)")
  return record


def predictions_path(keep: str, name: str, model: str) -> str:
  return os.path.join(keep, name, f"{model}.{predictions.FILENAME}")


def read_predictions(keep: str, name: str, model: str
                     ) -> predictions.CellPredictions | None:
  """The kept predictions.npz of grid `name`/`model` (the claims' paired,
  per-instance interval), or None where there is none; RecordError naming
  the file when it is not one."""
  p = predictions_path(keep, name, model)
  if not os.path.lexists(p):
    return None
  try:
    return predictions.parse(files.read_bounded(p, MAX_PREDICTION_BYTES))
  except OSError:
    raise records.RecordError(f"{p}: not a plain file") from None
  except ValueError as e:
    raise records.RecordError(f"{p}: {e}") from None


def read_probe(workdir: str) -> dict | None:
  """The grid's probe/probe.json (written by the suite's probe), or None."""
  p = os.path.join(workdir, "probe", "probe.json")
  if not os.path.isfile(p):
    return None
  return records.read_json_object(p, "a probe's results")


def write(keep: str, name: str, model: str, workdir: str, command: str,
          commit: str) -> str:
  """Writes the record of the finished grid in `workdir`: its results.json
  as it is but for the per-epoch histories, with where it came from
  (atomically; a link at the path is replaced, not written through);
  returns its path."""
  p = path(keep, name, model)
  results_path = os.path.join(workdir, "results.json")
  results = records.read_json_object(results_path, "a run's results")
  written = datetime.datetime.fromtimestamp(
      os.path.getmtime(results_path), datetime.timezone.utc)
  record = {"study": f"{name}/{model}", "date": f"{written:%Y-%m-%d}",
            "commit": commit, "command": command,
            "source": f"results.json of the grid {name}/{model} of a "
                      "reproduction suite, without per-epoch histories",
            **records.drop_histories(results)}
  probe = read_probe(workdir)
  if probe is not None:
    record["probe"] = probe
  npz = os.path.join(workdir, predictions.FILENAME)
  if os.path.isfile(npz):  # first: a record is never without its npz
    with open(npz, "rb") as f:
      data = f.read()
    files.atomic_write(predictions_path(keep, name, model),
                       lambda out: out.write(data))
  files.write_json(p, record, indent=1)
  return p
