"""One grid over several processes: JAX's multi-process runtime (docs/how-to/run-on-several-hosts.md).

Every process runs the same program (`launch.py --distributed`): it joins
the others through `jax.distributed.initialize`, after which `jax.devices()`
lists every process's devices, the grid's mesh spans them all, and each
process holds only its own devices' shards of the global arrays
(`global_array`). The pieces here:

- `Settings` / `initialize`: the coordinator address, process count and id
  from flags or the environment (JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES,
  JAX_PROCESS_ID), or JAX's cluster auto-detection (SLURM, Open MPI, cloud
  TPU) when none is given; gloo collectives on CPU. A coordinator that cannot
  be reached is reported after `init_timeout_s`, in one line.
- `is_writer`, `barrier` (from `base.processes`): process 0 writes the
  workdir's files (config.json, log.txt, results.json, plots; orbax writes
  the checkpoints of all processes); a barrier waits for every process
  (the coordination service's, which fails, rather than hangs, once a peer
  stops answering heartbeats). Each process embeds its share of the
  sentences (`embedding.sources.embed_shared`); process 0 builds the data
  (`data.input_pipeline.build_data_once`).
- `lost_peer_message`: the one-line error for a peer that died. A dead peer
  surfaces as a collective that fails at once (gloo: connection closed) or,
  at the latest after `heartbeat_timeout_s`, as JAX's coordination service
  terminating the process ("another task died").
- `exit_on_error`: an error on one process ends it at once, so that the
  others stop too instead of waiting for it.

With one process every function here is a no-op or the identity.
"""

from __future__ import annotations

import dataclasses
import os
import socket
import sys
import time

import jax
import numpy as np

from blm_jax.base.processes import (BARRIER_TIMEOUT_S, DistributedError,
                                    barrier, is_writer)

ENV_COORDINATOR = "JAX_COORDINATOR_ADDRESS"  # JAX reads this one itself.
ENV_NUM_PROCESSES = "JAX_NUM_PROCESSES"
ENV_PROCESS_ID = "JAX_PROCESS_ID"
# `is_writer`, `barrier` and `DistributedError` live in base/processes.py,
# where the data and embedding layers reach them too; they are used here
# under the same names.


@dataclasses.dataclass(frozen=True)
class Settings:
  """How this process joins the run; None fields are auto-detected."""

  coordinator_address: str | None = None  # 'host:port' of process 0
  num_processes: int | None = None
  process_id: int | None = None
  init_timeout_s: int = 300  # Waiting for the coordinator and the others.
  heartbeat_timeout_s: int = 100  # After this a silent peer counts as dead.
  # At exit every process waits for the others; process 0 writes the
  # report (plots, context-free baselines) after the others are done, so
  # the wait is long. A dead peer still shows within heartbeat_timeout_s.
  shutdown_timeout_s: int = BARRIER_TIMEOUT_S

  @classmethod
  def resolve(cls, coordinator_address: str | None = None,
              num_processes: int | None = None,
              process_id: int | None = None, **timeouts) -> "Settings":
    """Flags first, then the environment variables, then None (auto)."""
    env = os.environ

    def number(value, var):
      if value is not None:
        return int(value)
      raw = env.get(var)
      if raw in (None, ""):
        return None
      try:
        return int(raw)
      except ValueError:
        raise DistributedError(f"{var}={raw!r} is not an integer") from None

    return cls(coordinator_address or env.get(ENV_COORDINATOR) or None,
               number(num_processes, ENV_NUM_PROCESSES),
               number(process_id, ENV_PROCESS_ID), **timeouts)

  def check(self) -> None:
    given = [self.coordinator_address is not None,
             self.num_processes is not None, self.process_id is not None]
    if any(given) and not all(given):
      raise DistributedError(
          "give all three of --coordinator_address, --num_processes and "
          f"--process_id (or {ENV_COORDINATOR}, {ENV_NUM_PROCESSES}, "
          f"{ENV_PROCESS_ID}), or none of them for the cluster's "
          f"auto-detection; got {self}")
    if self.num_processes is not None and not (
        0 <= self.process_id < self.num_processes):
      raise DistributedError(
          f"process id {self.process_id} is not in 0..{self.num_processes - 1}"
          f" (--num_processes={self.num_processes})")
    if self.coordinator_address is not None and ":" not in (
        self.coordinator_address):
      raise DistributedError(
          f"coordinator address {self.coordinator_address!r}: expected "
          "host:port (process 0's host and a free port)")


def _wait_for_coordinator(address: str, timeout_s: float) -> None:
  """Raises DistributedError unless address accepts a TCP connection within
  timeout_s. JAX itself would report an unreachable coordinator by
  terminating the process with 'another task died'."""
  host, _, port = address.rpartition(":")
  host = host.strip("[]")
  deadline = time.monotonic() + timeout_s
  while True:
    try:
      with socket.create_connection((host, int(port)), timeout=2):
        return
    except OSError as e:
      if time.monotonic() >= deadline:
        raise DistributedError(
            f"cannot reach the coordinator at {address} within {timeout_s:g}"
            f" s ({e}): start process 0 there, check the address and port "
            "(and firewalls), or raise --distributed_init_timeout") from None
      time.sleep(0.5)


def initialize(settings: Settings) -> None:
  """Joins the run; call before any other JAX call (backend creation)."""
  settings.check()
  # CPU devices of several processes need a collectives library; the flag
  # is ignored by GPU and TPU backends.
  jax.config.update("jax_cpu_collectives_implementation", "gloo")
  if settings.coordinator_address is not None and settings.process_id != 0:
    _wait_for_coordinator(settings.coordinator_address,
                          settings.init_timeout_s)
  try:
    jax.distributed.initialize(
        coordinator_address=settings.coordinator_address,
        num_processes=settings.num_processes,
        process_id=settings.process_id,
        initialization_timeout=settings.init_timeout_s,
        heartbeat_timeout_seconds=settings.heartbeat_timeout_s,
        shutdown_timeout_seconds=settings.shutdown_timeout_s)
  except (ValueError, RuntimeError) as e:
    raise DistributedError(
        f"jax.distributed.initialize failed: {e}. Without a cluster that JAX "
        "detects (SLURM, Open MPI, cloud TPU), give --coordinator_address, "
        "--num_processes and --process_id") from e


def process_index() -> int:
  return jax.process_index()


def process_count() -> int:
  return jax.process_count()


def min_bytes_over_processes(value: int) -> int:
  """The smallest of every process's byte count `value`, in whole MiB (one
  decision for all; MiB keep it within the int32 that JAX moves)."""
  if jax.process_count() == 1:
    return value
  from jax.experimental import multihost_utils

  mib = np.array([min(value >> 20, 2**31 - 1)], np.int32)
  return int(np.min(multihost_utils.process_allgather(mib))) << 20


def global_array(host: np.ndarray, sharding) -> jax.Array:
  """`host` (the same value on every process) as one global array: each
  process puts only the shards of its own devices."""
  host = np.asarray(host)
  return jax.make_array_from_callback(host.shape, sharding,
                                      lambda index: host[index])


def to_host(x) -> np.ndarray:
  """The whole value of an array, on every process (gathered from the
  others when this process holds only some of its shards)."""
  if isinstance(x, jax.Array) and not x.is_fully_addressable:
    from jax.experimental import multihost_utils

    return np.asarray(multihost_utils.process_allgather(x, tiled=True))
  return np.asarray(x)


_LOST_PEER_SIGNS = ("Connection closed by peer", "Connection reset by peer",
                    "heartbeat timeout", "stopped sending heartbeats",
                    "Gloo", "Barrier failed", "Broken pipe")


def lost_peer_message(e: BaseException) -> str | None:
  """'error: ...' when `e` says another process of a multi-process run
  stopped (or `e` is a DistributedError); None otherwise."""
  if isinstance(e, DistributedError):
    return f"error: {e}"
  if jax.process_count() == 1:
    return None
  text = str(e)
  if not any(s in text for s in _LOST_PEER_SIGNS):
    return None
  first = text.strip().splitlines()[0] if text.strip() else type(e).__name__
  return (f"error: process {jax.process_index()} of {jax.process_count()}: "
          f"another process of this run stopped ({first[:300]}); stop every "
          "process, then rerun the same command on each to resume from the "
          "last checkpoint")


def exit_on_error(e: BaseException, line: str | None) -> None:
  """In a multi-process run, ends this process at once on an error: its
  `line` ('error: ...'), or the lost-peer message, or the traceback. A
  process that exited normally would wait at JAX's shutdown barrier for
  the others, which may wait at one of ours for it; ended, it stops
  answering heartbeats and the others stop too. Returns with one process.
  """
  if jax.process_count() == 1:
    return
  lost = lost_peer_message(e)
  if lost is not None:
    exit_now(lost)
  if line is None:
    import traceback

    traceback.print_exception(e)
    line = f"error: {type(e).__name__}: {e}"
  exit_now(f"{line}\n(process {jax.process_index()} of "
           f"{jax.process_count()} stopped; the others stop once they miss "
           "its heartbeats)")


def exit_now(message: str, code: int = 1) -> None:
  """Prints `message` and ends the process at once, skipping JAX's
  shutdown barrier (which would wait for the dead peer, then abort)."""
  print(message, file=sys.stderr, flush=True)
  sys.stdout.flush()
  os._exit(code)
