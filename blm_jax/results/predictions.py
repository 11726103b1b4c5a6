"""predictions.npz: every cell's chosen answer on every test instance.

results.json keeps per-cell F1, which is enough for a heatmap but not for
a confidence interval: resampling test instances, and pairing two models
on the same instances, needs per-instance correctness. The results layer
writes this file next to results.json; `blm_jax.study.claims` reads it.

Arrays (numpy strings, so the file loads without pickle):
  cell_seed [C], cell_train [C], cell_variant [C]: the grid's cells in
    `GridSpec.cells` order ('' is the real run).
  test_types [U]; per test type u: pred_<u> [C, N] chosen answer index,
    correct_<u> [N] correct index, ids_<u> [N] instance ids.
"""

from __future__ import annotations

import dataclasses
import io
import os
import zipfile

import numpy as np

from blm_jax.base import files

FILENAME = "predictions.npz"


@dataclasses.dataclass(frozen=True)
class TestPredictions:
  """The real run's cells on one test type.

  hits: bool [seeds, train types, N], whether each cell chose the correct
  answer, in the order of `CellPredictions.seeds` and `train_types`.
  """

  hits: np.ndarray
  ids: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class CellPredictions:
  seeds: tuple[int, ...]
  train_types: tuple[str, ...]
  tests: dict[str, TestPredictions]


def write(workdir: str, outcome) -> None:
  """Writes `outcome`'s (a `trainer.TrainingOutcome`) test predictions."""
  spec = outcome.spec
  arrays = {
      "cell_seed": np.array([s for s, _ in spec.cells], np.int64),
      "cell_train": np.array([t for _, t in spec.cells], str),
      "cell_variant": np.array(spec.cell_variants, str),
      "test_types": np.array(outcome.test_types, str)}
  for u in outcome.test_types:
    p = outcome.test[u]
    arrays[f"pred_{u}"] = np.asarray(p.pred, np.int32)
    arrays[f"correct_{u}"] = np.asarray(p.correct, np.int32)
    ids = p.ids or tuple(str(i) for i in range(len(p.correct)))
    arrays[f"ids_{u}"] = np.array(ids, str)

  def save(f):
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    f.write(buf.getvalue())

  files.atomic_write(os.path.join(workdir, FILENAME), save)


def load(workdir: str) -> CellPredictions | None:
  """The real run's per-instance correctness, or None (a run reported
  before this file was written)."""
  path = os.path.join(workdir, FILENAME)
  if not os.path.exists(path):
    return None
  with np.load(path, allow_pickle=False) as z:
    return _parse(z)


def parse(data: bytes) -> CellPredictions:
  """`load` of the file's bytes (read bounded by the caller); ValueError
  for bytes that are not such a file."""
  try:
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
      return _parse(z)
  except (OSError, EOFError, KeyError, IndexError, ValueError,
          zipfile.BadZipFile) as e:
    raise ValueError(f"not a {FILENAME} ({type(e).__name__}: {e})") from None


def _parse(z) -> CellPredictions:
  seed, train = z["cell_seed"], z["cell_train"]
  real = z["cell_variant"] == ""
  seeds = tuple(dict.fromkeys(int(s) for s in seed[real]))
  types = tuple(dict.fromkeys(str(t) for t in train[real]))
  index = {(int(s), str(t)): i for i, (s, t, r)
           in enumerate(zip(seed, train, real)) if r}
  order = np.array([[index[s, t] for t in types] for s in seeds])
  tests = {}
  for u in (str(x) for x in z["test_types"]):
    hits = z[f"pred_{u}"] == z[f"correct_{u}"][None, :]
    tests[u] = TestPredictions(hits[order],
                               tuple(str(i) for i in z[f"ids_{u}"]))
  return CellPredictions(seeds, types, tests)
