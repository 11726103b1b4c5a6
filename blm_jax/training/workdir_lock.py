"""One run per workdir: an exclusive lock held while a run writes there.

Two runs on one workdir would interleave their checkpoints, log and
results (and the loser dies of some library's error). The lock is a
`flock` on `<workdir>/.lock`, which names the holder's PID and host: the
kernel drops it when the holder exits or is killed, so the lock file of a
dead process is stale by construction and the next run takes it over
(saying whose it was). flock is per host: runs on two hosts sharing a
network file system are not kept apart.

A run never writes through a link in its workdir: whoever can put a file
there (a shared temporary folder, a workdir someone sent) could otherwise
have the run truncate or append to any file the user can write, through a
symbolic link or a hard link alike. The lock file is opened without
truncation and checked on its descriptor (`safe_io.open_unlinked`: no
symbolic link, one name, a regular file) before it is written, and a
workdir where any file a run writes (`WRITTEN`) is a link of either kind is
refused, naming the links.
"""

from __future__ import annotations

import atexit
import fcntl
import os
import socket
import stat

from blm_jax.training import set_aside
from data_builders.common import safe_io

LOCK_NAME = ".lock"
LOG_NAME = "log.txt"
# Every name a run writes directly in its workdir (results, plots and
# predictions are the results layer's; set_aside moves them and RUN).
WRITTEN = (LOCK_NAME, LOG_NAME) + set_aside.RUN + set_aside.RESULTS
_held: dict[str, int] = {}  # lock path -> open descriptor of this process


class WorkdirLockedError(RuntimeError):
  """Another live process holds the workdir."""


class WorkdirLinkError(RuntimeError):
  """A file the run would write in its workdir is a symbolic link."""


def links(workdir: str) -> list[str]:
  """'NAME -> TARGET' for each of `WRITTEN` that is a symbolic link, 'NAME:
  a hard link, N names' for each that is a file with other names."""
  out = []
  for name in WRITTEN:
    path = os.path.join(workdir, name)
    try:
      st = os.lstat(path)
    except OSError:
      continue
    if stat.S_ISLNK(st.st_mode):
      out.append(f"{name} -> {os.readlink(path)}")
    elif st.st_nlink > 1 and not stat.S_ISDIR(st.st_mode):
      out.append(f"{name}: a hard link, {st.st_nlink} names for one file")
  return out


def _refuse_links(workdir: str, found: list[str]) -> None:
  hard = [f for f in found if ": a hard link" in f]
  kind = ("hard links" if len(hard) == len(found) else "links" if hard
          else "symbolic links")
  raise WorkdirLinkError(
      f"{workdir} holds {kind} where a run writes its files ("
      + ", ".join(found) + "); a run does not write through "
      "links: remove them or use another --workdir")


def _holder(fd: int) -> str:
  os.lseek(fd, 0, os.SEEK_SET)
  return os.read(fd, 200).decode("utf-8", "replace").strip()


def acquire(workdir: str) -> str | None:
  """Locks `workdir` (which must exist) for this process, until `release`
  or exit. Returns the holder line of a stale lock taken over, else None.
  Re-acquiring a workdir this process holds is a no-op. Raises
  WorkdirLockedError naming the live holder's PID, WorkdirLinkError naming
  the links among the files a run writes."""
  path = os.path.abspath(os.path.join(workdir, LOCK_NAME))
  if path in _held:
    return None
  try:  # Not truncated, not written before the check of its links.
    fd = safe_io.open_unlinked(path)
  except safe_io.LinkedFileError as e:  # Made after any check of names.
    _refuse_links(workdir, links(workdir) or [
        f"{LOCK_NAME}: {e.strerror.split(';')[0]}"])
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
  found = links(workdir)
  if found:
    os.close(fd)
    _refuse_links(workdir, found)
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
