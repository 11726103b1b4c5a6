"""One run per workdir: an exclusive lock held while a run writes there.

Two runs on one workdir would interleave their checkpoints, log and
results (and the loser dies of some library's error). The lock is a
`flock` on `<workdir>/.lock`, which names the holder's PID and host: the
kernel drops it when the holder exits or is killed, so the lock file of a
dead process is stale by construction and the next run takes it over
(saying whose it was). flock is per host: runs on two hosts sharing a
network file system are not kept apart.
"""

from __future__ import annotations

import atexit
import fcntl
import os
import socket

LOCK_NAME = ".lock"
_held: dict[str, int] = {}  # lock path -> open descriptor of this process


class WorkdirLockedError(RuntimeError):
  """Another live process holds the workdir."""


def _holder(fd: int) -> str:
  os.lseek(fd, 0, os.SEEK_SET)
  return os.read(fd, 200).decode("utf-8", "replace").strip()


def acquire(workdir: str) -> str | None:
  """Locks `workdir` (which must exist) for this process, until `release`
  or exit. Returns the holder line of a stale lock taken over, else None.
  Re-acquiring a workdir this process holds is a no-op. Raises
  WorkdirLockedError naming the live holder's PID."""
  path = os.path.abspath(os.path.join(workdir, LOCK_NAME))
  if path in _held:
    return None
  fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
  try:
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
  except OSError:
    holder = _holder(fd) or "unknown"
    os.close(fd)
    pid, _, host = holder.partition(" ")
    raise WorkdirLockedError(
        f"{workdir} is in use by another run (PID {pid}"
        + (f" on {host}" if host else "") + "); wait for it to end or use "
        "another --workdir") from None
  stale = _holder(fd) or None
  os.ftruncate(fd, 0)
  os.lseek(fd, 0, os.SEEK_SET)
  os.write(fd, f"{os.getpid()} {socket.gethostname()}\n".encode())
  _held[path] = fd
  return stale


def release(workdir: str) -> None:
  """Drops this process's lock on `workdir`; the file stays, empty and
  unlocked (a lock file naming a process is one whose holder died)."""
  fd = _held.pop(os.path.abspath(os.path.join(workdir, LOCK_NAME)), None)
  if fd is not None:
    os.ftruncate(fd, 0)
    os.close(fd)


def undo(workdir: str, remove_lock: bool, remove_dir: bool) -> None:
  """Releases `workdir` after a run that failed before writing anything:
  removes the lock file if the run added it, and the workdir if the run
  made it and it holds nothing else."""
  path = os.path.join(workdir, LOCK_NAME)
  release(workdir)
  try:
    if remove_lock and os.path.exists(path):
      os.remove(path)
    if remove_dir and not os.listdir(workdir):
      os.rmdir(workdir)
  except OSError:
    pass  # Another process wrote there meanwhile: left as it is.


@atexit.register
def _release_all() -> None:
  for path in list(_held):
    release(os.path.dirname(path))
