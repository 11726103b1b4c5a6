"""The one line a command prints for an error its user acts on (no
traceback): shared by launch.py and the commands of blm_jax.cli that run
grids (reproduce), so each says the same thing for the same input."""

from __future__ import annotations

import errno
import sys
from typing import NoReturn

from blm_jax.base import background

# The errors told here are classes of the training stack (jax, orbax): they
# are imported when an error is formatted, not with this module, which the
# command lines import before parsing their flags (--help stays fast).


def error_line(e: Exception) -> str | None:
  """'error: ...' for the errors a user acts on without a traceback: a full
  disk or unwritable embedding cache, a workdir holding another run or in
  use by one, a stale or damaged dataset build, a grid that does not fit in memory,
  a non-finite loss, a workdir that cannot be made or written, a config
  that does not fit its data, an embedding cache file of another key."""
  from blm_jax.training import checkpoints
  from blm_jax.embedding import cache as embedding_cache
  from blm_jax.training import resume
  from blm_jax.training import trainer as train
  from blm_jax.training import workdir_lock
  from blm_jax.encoders import encoder as encoders

  if isinstance(e, encoders.LOAD_ERRORS):
    return f"error: {e}"
  if isinstance(e, embedding_cache.CacheNotWritableError) or (
      isinstance(e, OSError) and e.errno == errno.ENOSPC):
    where = f" (writing {e.filename})" if e.filename else ""
    return f"error: {e.strerror or e}{where}"
  if isinstance(e, (resume.RunMismatchError, train.DataMismatchError,
                    checkpoints.CheckpointMismatchError,
                    workdir_lock.WorkdirLockedError,
                    workdir_lock.WorkdirLinkError,
                    embedding_cache.CacheMismatchError, MemoryError,
                    FloatingPointError)):
    return f"error: {e}"
  if type(e).__name__ in ("StaleBuildError", "CorruptDatasetError",
                          "ManualDirError", "ReleaseFormatError",
                          "OwnFormatError", "BoundError"):
    # data_builders' own classes
    return f"error: {e}"
  if isinstance(e, OSError) and e.filename is not None:
    return f"error: {e.strerror or e}: {e.filename}"
  return None


def exit_with(line: str) -> NoReturn:
  """Ends the command with `line` as its last word: work still running in
  the background (the context-free baselines beside training) is waited
  for first, so that the wait's notice, when there is one, comes before
  the error line and not after it."""
  background.settle()
  sys.exit(line)
