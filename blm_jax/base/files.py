"""Atomic file writes: a killed process never leaves a half-written file;
bounded reads: a file from elsewhere is never read past a size or through
a link.

Every file a run, a cache or an export writes goes through `atomic_write`:
written to a temporary file beside its final path, flushed to disk, given
the permissions a plain `open` would give it (umask applied), then renamed
over the final path.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import tempfile
from typing import Any, BinaryIO, Callable, Iterable

from data_builders.common import safe_io

CACHE_MODE = 0o644  # Never writable by group or others, whatever the umask.


def atomic_write(path: str, write: Callable[[BinaryIO], Any],
                 mode: int = 0o666) -> None:
  """Calls write(file) on a binary temp file beside `path`, then renames it
  there; the folder is made if needed. `mode` (less the umask) is its
  permission: caches pass `CACHE_MODE`, so that no umask makes a file they
  trust (`safe_io.trusted`) writable by others."""
  folder = os.path.dirname(os.path.abspath(path))
  os.makedirs(folder, exist_ok=True)
  fd, tmp = tempfile.mkstemp(dir=folder, prefix=".", suffix=".tmp")
  try:
    with os.fdopen(fd, "wb") as f:
      write(f)
      f.flush()
      os.fsync(f.fileno())
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, mode & ~umask)  # mkstemp makes it private.
    os.replace(tmp, path)
  except BaseException as e:
    if os.path.exists(tmp):
      os.remove(tmp)
    if isinstance(e, OSError) and e.errno is not None and e.filename is None:
      # A write error names no file (a full disk): name the one written.
      raise OSError(e.errno, e.strerror, path) from e
    raise
  try:  # Make the rename itself durable.
    dfd = os.open(folder, os.O_RDONLY)
    try:
      os.fsync(dfd)
    finally:
      os.close(dfd)
  except OSError:
    pass


def write_text(path: str, text: str | Iterable[str],
               mode: int = 0o666) -> None:
  """UTF-8 text (a string, or lines written one after another), atomically."""
  parts = [text] if isinstance(text, str) else text

  def write(f):
    for part in parts:
      f.write(part.encode("utf-8"))

  atomic_write(path, write, mode)


def write_json(path: str, obj, mode: int = 0o666, **dump_kwargs) -> None:
  """`json.dumps(obj, **dump_kwargs)`, atomically (default: indent 2, keys
  sorted)."""
  dump_kwargs = {"indent": 2, "sort_keys": True, **dump_kwargs}
  write_text(path, json.dumps(obj, **dump_kwargs), mode)


def read_bounded(path: str, max_bytes: int) -> bytes:
  """The file's bytes; OSError for a link or a file that is not regular,
  ValueError past `max_bytes` (nothing more is read)."""
  fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
  try:
    if not stat.S_ISREG(os.fstat(fd).st_mode):
      raise OSError(errno.EINVAL, "not a regular file")
    with os.fdopen(fd, "rb") as f:
      fd = -1
      data = f.read(max_bytes + 1)
  finally:
    if fd >= 0:
      os.close(fd)
  if len(data) > max_bytes:
    raise ValueError(f"larger than {max_bytes} bytes")
  return data


def read_json(path: str, max_bytes: int,
              max_depth: int = safe_io.MAX_JSON_DEPTH) -> Any:
  """A JSON file read within `max_bytes` and `max_depth` of nesting (no
  RecursionError): `safe_io.read_json`. ValueError naming the file past a
  bound or for text not JSON; OSError when it cannot be read."""
  return safe_io.read_json(path, max_bytes, max_depth)
