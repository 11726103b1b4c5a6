"""A content-keyed cache of the context-free baselines' scores.

The baselines (`scorers.py` here, the candidate MLP in
`blm_jax.results.context_free`) depend on the data (the train tables of
a grid's train types, the test tables, the sentences they index, the
embeddings), the MLP settings and the code that computes them, never on
the solver: the ffnn, cnn and vae2 grids of one dataset get the same
numbers, which take minutes to fit on a CPU. So each set of scores is
stored once, as `<folder>/<digest>.json`, where the digest is a sha256
over all of those, the source files of the scoring modules (`SOURCES`)
and the library versions and platform included: a change to a scorer
misses the cache instead of serving stale numbers. Only the scores are
stored; the context gain depends on the solver and is computed by the
caller after the lookup.

Files from others are never trusted: a file that is a link (symbolic or
hard), owned by another user or writable by group or others (what ssh
asks of its keys: `safe_io.trusted`), unreadable, larger than `MAX_BYTES`
or nested past the JSON bound, not of the expected structure or written
for another key is ignored (`load` says why, and the caller warns) and
overwritten by `store`,
atomically (`base.files`: the rename replaces a link, it never writes
through one). A folder that cannot be written costs a warning, never the
run (`store` returns the reason).

Grids of one dataset often start at once (a job array over a suite): the
first to miss holds `computing`, a lock on `<digest>.lock`, while it fits
the scorers; the others wait for it and then read the file it stored
instead of fitting the same scorers again.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.metadata
import importlib.util
import json
import math
import os
import socket
from typing import Callable, Iterator, Mapping, Sequence

import numpy as np

from blm_jax.base import files
from blm_jax.data.sentence_table import SentenceTable
from data_builders.common import safe_io

# The layout of a cache file; a change bumps it (older files then miss).
FORMAT_VERSION = 1
# A cache file holds a few hundred floats; anything much larger is not one.
MAX_BYTES = 1 << 20
# The modules whose code computes the scores: their file bytes are hashed
# (named, not imported: the MLP and its loss are in layers above this one).
SOURCES = ("blm_jax.results.context_free", "blm_jax.models.losses",
           *(f"blm_jax.data.context_free.{m}" for m in (
               "scorers", "answers_only", "set_features", "set_scorer",
               "stacked_logit")))
_PACKAGES = ("jax", "jaxlib", "optax", "numpy")
# The arrays of a table the scores read (answers, masks, correct), plus
# the rest of what says which instances it holds.
_TABLE_ARRAYS = ("context", "context_mask", "answers", "answer_mask",
                 "correct", "labels")


def _sha(*parts: bytes) -> str:
  h = hashlib.sha256()
  for p in parts:
    h.update(len(p).to_bytes(8, "little"))
    h.update(p)
  return h.hexdigest()


def _texts(texts: Sequence[str]) -> bytes:
  return json.dumps(list(texts), ensure_ascii=False).encode("utf-8")


def _array(a: np.ndarray) -> bytes:
  a = np.ascontiguousarray(a)
  return f"{a.dtype.str}{a.shape}".encode() + a.tobytes()


def _table_digest(table: SentenceTable) -> str:
  return _sha(*(_array(getattr(table, f)) for f in _TABLE_ARRAYS),
              _texts(table.label_names), _texts(table.instance_ids))


def _source_digests() -> dict[str, str]:
  out = {}
  for name in SOURCES:
    with open(importlib.util.find_spec(name).origin, "rb") as f:
      out[name] = _sha(f.read())
  return out


def _versions() -> dict[str, str]:
  out = {}
  for p in _PACKAGES:
    try:
      out[p] = importlib.metadata.version(p)
    except importlib.metadata.PackageNotFoundError:
      out[p] = ""
  return out


def cache_key(embeddings: np.ndarray, sentences: Sequence[str],
              train: Mapping[str, SentenceTable],
              test: Mapping[str, SentenceTable], settings: Mapping,
              platform: str) -> dict:
  """Everything the scores depend on, as plain JSON (digests of the
  arrays). `sentences` are the texts the tables index; `train` and `test`
  map each type to its table, in the grid's order; `settings` is the
  MLP's (`dataclasses.asdict`); `platform` the device kind the MLP is
  fitted on (its float results differ)."""
  return {
      "format": FORMAT_VERSION, "sources": _source_digests(),
      "versions": _versions(), "platform": platform,
      "settings": json.loads(json.dumps(dict(settings), sort_keys=True)),
      "embeddings": _sha(_array(embeddings)),
      "sentences": _sha(_texts(sentences)),
      "train": [[t, _table_digest(table)] for t, table in train.items()],
      "test": [[u, _table_digest(table)] for u, table in test.items()]}


def path_of(folder: str, key: Mapping) -> str:
  """The cache file of `key` in `folder`."""
  digest = _sha(json.dumps(key, sort_keys=True).encode())[:32]
  return os.path.join(os.path.expanduser(folder), f"{digest}.json")


def _scores_problem(scores, train_types, test_types, baselines) -> str:
  """'' when `scores` is {train: {test: {baseline: accuracy}}} over
  exactly the given names, else what is wrong."""
  if not isinstance(scores, dict) or set(scores) != set(train_types):
    return "its train types are not the run's"
  for row in scores.values():
    if not isinstance(row, dict) or set(row) != set(test_types):
      return "its test types are not the run's"
    for cell in row.values():
      if not isinstance(cell, dict) or set(cell) != set(baselines):
        return "its baselines are not the expected ones"
      for v in cell.values():
        if (not isinstance(v, (int, float)) or isinstance(v, bool)
            or not math.isfinite(v) or not 0 <= v <= 1):
          return f"a score is not an accuracy ({v!r})"
  return ""


def load(path: str, key: Mapping, train_types: Sequence[str],
         test_types: Sequence[str], baselines: Sequence[str]
         ) -> tuple[dict | None, str]:
  """(scores, '') from the cache file at `path`; (None, '') when there is
  none; (None, why) when there is one that cannot be used."""
  if not os.path.lexists(path):
    return None, ""
  untrusted = safe_io.trusted(path)  # A link, another's, group-writable.
  if untrusted:
    return None, untrusted
  try:
    stored = files.read_json(path, MAX_BYTES)
  except safe_io.BoundError as e:  # Past a bound, not JSON, not UTF-8.
    return None, f"it cannot be read ({e.reason})"
  except (OSError, ValueError) as e:
    return None, f"it cannot be read ({type(e).__name__}: {e})"
  if not isinstance(stored, dict) or set(stored) != {"key", "scores"}:
    return None, "it is not a context-free score file"
  if stored["key"] != json.loads(json.dumps(dict(key))):
    return None, "it was written for another key"
  problem = _scores_problem(stored["scores"], train_types, test_types,
                            baselines)
  return (None, problem) if problem else (stored["scores"], "")


def store(path: str, key: Mapping, scores: dict) -> str:
  """Writes `scores` under `key` at `path` atomically; '' or why not."""
  try:
    files.write_json(path, {"key": dict(key), "scores": scores},
                     mode=files.CACHE_MODE)
  except OSError as e:
    return f"{type(e).__name__}: {e}"
  return ""


@contextlib.contextmanager
def computing(path: str, log: Callable[[str], None]) -> Iterator[None]:
  """Held while this process computes the scores stored at `path`. A
  process that finds another holding it logs the holder and waits (the
  caller then reads the file the holder stored). The lock is a `flock` on
  `path` with `.lock` for `.json`, which the kernel drops when its holder
  exits or dies, and which the holder removes when it is done; where it
  cannot be taken (a folder that cannot be written, a link in its place)
  the scores are computed without it."""
  lock = os.path.splitext(path)[0] + ".lock"
  try:
    os.makedirs(os.path.dirname(lock), exist_ok=True)
    fd = safe_io.open_unlinked(lock)  # Never written through a link.
  except OSError:
    fd = -1
  if fd < 0:
    yield
    return
  try:
    try:
      fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
      holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
      log(f"waiting for {holder or 'another process'}, which is computing "
          f"these context-free baselines ({lock})")
      fcntl.flock(fd, fcntl.LOCK_EX)
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"process {os.getpid()} on {socket.gethostname()}".encode(),
              0)
    yield
    # The scores are stored (or cannot be): a waiter that takes the lock
    # of the removed file reads them; a newcomer never needs the lock.
    with contextlib.suppress(OSError):
      os.unlink(lock)
  finally:
    os.close(fd)  # Drops the lock.
