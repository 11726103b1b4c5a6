"""The processes of one run: which one writes, and waiting for all of them.

With one process (the usual case) `is_writer` is True and `barrier` does
nothing. Several processes (training/distributed.py joins them) share one
mesh; the data, embedding and training layers use these two to take turns
on shared folders.
"""

from __future__ import annotations

import itertools

import jax

# How long a barrier waits for the slowest process (embedding its share can
# take hours); a dead peer fails it much sooner, through the heartbeats.
BARRIER_TIMEOUT_S = 24 * 3600


class DistributedError(RuntimeError):
  """The processes of a run could not start or lost one of them."""


def is_writer() -> bool:
  """Whether this process writes the workdir's own files (process 0)."""
  return jax.process_index() == 0


_barriers = itertools.count()


def barrier(name: str, timeout_s: float = BARRIER_TIMEOUT_S) -> None:
  """Waits until every process reaches the barrier of the same name (in the
  same order); a no-op with one process."""
  if jax.process_count() == 1:
    return
  # orbax is imported only where several processes run: a one-process run
  # (and the command lines' startup) does without it.
  import orbax.checkpoint as ocp

  key = f"blm_jax.{next(_barriers)}.{name}"
  try:
    ocp.multihost.get_barrier_sync_fn()(key=key,
                                        timeout_ms=int(timeout_s * 1000))
  except Exception as e:  # The client's errors have no public class.
    raise DistributedError(
        f"process {jax.process_index()}: barrier {name!r} failed: "
        f"{str(e).splitlines()[0]}") from e
