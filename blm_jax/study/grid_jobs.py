"""Several grids of a suite at once, each in its own process.

On an accelerator a small grid leaves the device mostly idle (loading and
embedding its data, evaluation, plots run on the host), so `reproduce
--jobs=N` keeps N grids in flight: each is a child process of its own
(the same command for one grid, so it resumes, keeps and reports like any
run) writing its output to a log, and the next grid starts as soon as one
finishes. `order` puts the longest estimated grids first (a greedy
longest-first schedule: a long grid started last would leave the other
slots idle at the end); `makespan` is that schedule's wall time, the
plan's estimate. `run` starts a job whose data group (the dataset it
builds and embeds) no running job has when it can, so that two processes
do not embed the same sentences at once or wait on each other's build.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import dataclasses
import datetime
import heapq
import os
import signal
import subprocess
import sys
import time
from typing import Callable, Mapping, Sequence

# Seconds a stopped child gets to finish a checkpoint save before it is
# killed.
STOP_GRACE_S = 60.0


def order(keys: Sequence[str], seconds: Mapping[str, float | None]
          ) -> list[str]:
  """`keys` longest estimated first; those of unknown time first of all
  (they may be the longest), in their given order, as are ties."""
  rank = {k: i for i, k in enumerate(keys)}
  return sorted(keys, key=lambda k: (seconds.get(k) is not None,
                                     -(seconds.get(k) or 0.0), rank[k]))


def makespan(seconds: Sequence[float], slots: int) -> float:
  """Wall time of running jobs of these durations `slots` at a time,
  longest first, each on the slot that frees first."""
  free = [0.0] * max(1, slots)
  for s in sorted(seconds, reverse=True):
    heapq.heapreplace(free, free[0] + s)
  return max(free)


def child_env(environ: Mapping[str, str], slots: int, accelerator: bool
              ) -> dict[str, str]:
  """The environment of each child: on an accelerator N processes share
  one device, so none preallocates and each may use about 0.9/N of its
  memory, unless the user set either; on a CPU nothing changes."""
  env = dict(environ)
  if accelerator and slots > 1:
    env.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    env.setdefault("XLA_PYTHON_CLIENT_MEM_FRACTION", f"{0.9 / slots:.2f}")
  return env


@dataclasses.dataclass(frozen=True)
class Job:
  """One grid's child process: `argv` run with its output to `log`."""

  key: str
  argv: tuple[str, ...]
  log: str
  group: str = ""  # the data the grid builds and embeds


def hms(seconds: float, *, to_the_second: bool = True) -> str:
  """'1h02m03s' or '2m03s'; an estimate (`to_the_second=False`) drops the
  seconds past an hour ('1h02m')."""
  m, s = divmod(int(round(seconds)), 60)
  h, m = divmod(m, 60)
  if not h:
    return f"{m}m{s:02d}s"
  return f"{h}h{m:02d}m{s:02d}s" if to_the_second else f"{h}h{m:02d}m"


def last_line(path: str, limit: int = 300) -> str:
  """The log's last non-empty line (its error line, for a failed child)."""
  try:
    with open(path, "rb") as f:
      f.seek(max(0, os.path.getsize(path) - 8192))
      lines = f.read().decode("utf-8", "replace").splitlines()
  except OSError:
    return ""
  line = next((x.strip() for x in reversed(lines) if x.strip()), "")
  return line[:limit]


_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _end_with_the_parent() -> Callable[[], None] | None:
  """On Linux, what a child runs before its command so that it gets
  SIGTERM (it saves its checkpoint and stops, as on a Ctrl-C) when the
  parent dies, even by SIGKILL, where `_stop` never runs: orphaned grids
  would go on holding the device and their workdirs' locks. The libc
  function is looked up here, in the parent: the child only calls it."""
  if not sys.platform.startswith("linux"):
    return None
  try:
    prctl = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6",
                        use_errno=True).prctl
  except (OSError, AttributeError):
    return None
  return lambda: prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)


def _start(job: Job, env: Mapping[str, str]) -> subprocess.Popen:
  os.makedirs(os.path.dirname(os.path.abspath(job.log)), exist_ok=True)
  with open(job.log, "a", encoding="utf-8") as log:
    stamp = datetime.datetime.now(datetime.timezone.utc).isoformat(
        timespec="seconds")
    log.write(f"== {stamp} {' '.join(job.argv)}\n")
    log.flush()
    # Its own session: a Ctrl-C at the terminal reaches the parent alone,
    # which stops each child once (`_stop`).
    return subprocess.Popen(job.argv, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, env=dict(env),
                            start_new_session=True,
                            preexec_fn=_end_with_the_parent())


def _stop(running: dict, sig: int, grace_s: float) -> None:
  """Sends `sig` to every running child, then kills those still running
  after `grace_s`."""
  for proc, *_ in running.values():
    try:
      os.killpg(proc.pid, sig)
    except ProcessLookupError:
      pass
  deadline = time.monotonic() + grace_s
  for proc, *_ in running.values():
    try:
      proc.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
      try:
        os.killpg(proc.pid, signal.SIGKILL)
      except ProcessLookupError:
        pass
      proc.wait()


def run(jobs: Sequence[Job], slots: int, env: Mapping[str, str],
        echo: Callable[[str], None] = print, poll_s: float = 0.2,
        grace_s: float = STOP_GRACE_S) -> dict[str, int]:
  """Runs `jobs` (in this order, but a job whose group is running waits
  while another can start) `slots` at a time; returns each one's exit
  status. An interruption (KeyboardInterrupt, or a subclass the caller
  raises on SIGTERM with a `signal` attribute) stops the children with
  the same signal and propagates, its `stopped` attribute the number of
  children it stopped."""
  waiting = list(jobs)
  running: dict[str, tuple[subprocess.Popen, Job, float]] = {}
  status: dict[str, int] = {}
  try:
    while waiting or running:
      while waiting and len(running) < slots:
        busy = {j.group for _, j, _ in running.values()}
        job = next((j for j in waiting if j.group not in busy), waiting[0])
        waiting.remove(job)
        running[job.key] = (_start(job, env), job, time.monotonic())
        echo(f"started {job.key} ({len(running)} running, {len(waiting)} "
             f"waiting; log: {job.log})")
      time.sleep(poll_s)
      for key, (proc, job, t0) in list(running.items()):
        rc = proc.poll()
        if rc is None:
          continue
        del running[key]
        status[key] = rc
        took = hms(time.monotonic() - t0)
        if rc == 0:
          echo(f"finished {key} in {took} ({len(status)} of {len(jobs)} "
               "done)")
        else:
          said = last_line(job.log)
          echo(f"failed {key} after {took} (exit {rc})"
               + (f": {said}" if said else "") + f"; its log: {job.log}")
  except BaseException as e:
    _stop(running, getattr(e, "signal", signal.SIGINT), grace_s)
    if isinstance(e, KeyboardInterrupt):
      e.stopped = len(running)
    raise
  return status
