"""Reading files from others in bounded pieces, and opening the files a run
writes so that no link is followed or truncated.

Reads: a line is read with `readline(limit + 1)` on the binary file, so a
file without newlines (an 8 GB sparse file) costs at most `limit` bytes
before it is refused; JSON nesting is counted before `json.loads`, which
would otherwise recurse into a RecursionError. Every refusal is one
`BoundError` line naming the file, the line and the bound.

Writes in place (locks, logs): `open_unlinked` opens without truncating,
then checks the descriptor: a symbolic link (O_NOFOLLOW), a hard link
(link count above 1) or a file that is not regular is refused before a byte
is written, so nobody can have a run empty or append to a file of theirs
by linking it into a workdir or cache. Files replaced whole go through
`blm_jax.base.files.atomic_write`, whose rename replaces a link rather
than writing through it.

Lives in data_builders (the lowest layer) so the readers there and every
blm_jax layer share it.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from typing import Any, BinaryIO, Iterator

MAX_LINE_BYTES = 1_000_000  # One BLM instance or release row is far less.
MAX_JSON_DEPTH = 64  # Our formats nest 2 to 6 deep.
_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_NOT_BRACKETS = re.compile(rb"[^\[\]{}]+")


class BoundError(ValueError):
  """Input past a bound, or not text; the message names file, line and
  the bound."""

  def __init__(self, path: str, line: int | None, reason: str):
    self.path, self.line, self.reason = path, line, reason
    super().__init__(f"{path}{'' if line is None else f':{line}'}: {reason}")


class LinkedFileError(OSError):
  """A file to be written in place is a link or not a regular file."""


def open_input(path: str) -> BinaryIO:
  """`path` opened for binary reading; a FIFO or device is refused (reading
  one could block forever or never end)."""
  fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
  try:
    if not stat.S_ISREG(os.fstat(fd).st_mode):
      raise OSError(errno.EINVAL, "not a regular file", path)
    return os.fdopen(fd, "rb")
  except BaseException:
    os.close(fd)
    raise


def raw_lines(path: str, max_line_bytes: int = MAX_LINE_BYTES
              ) -> Iterator[tuple[int, bytes]]:
  """(line number from 1, the line's bytes with its newline); BoundError
  once a line passes `max_line_bytes`, having read no more than that."""
  with open_input(path) as f:
    n = 0
    while True:
      raw = f.readline(max_line_bytes + 1)
      if not raw:
        return
      n += 1
      if len(raw) > max_line_bytes and not raw.endswith(b"\n"):
        raise BoundError(
            path, n, f"line longer than {max_line_bytes:,} bytes (the "
            "bound of one line; nothing past it was read): not a file of "
            "this format, or damaged")
      if n == 1 and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]  # A UTF-8 byte-order mark.
      yield n, raw


def decode_line(raw: bytes, path: str, line: int | None = None) -> str:
  """UTF-8 text of one line; BoundError naming the file, the line and the
  byte that is not UTF-8."""
  try:
    return raw.decode("utf-8")
  except UnicodeDecodeError as e:
    raise BoundError(
        path, line, f"bytes {raw[e.start:e.end]!r} at byte {e.start + 1} of the "
        "line are not UTF-8 (the file must be UTF-8: re-encode it)") from None


def text_lines(path: str, max_line_bytes: int = MAX_LINE_BYTES
               ) -> Iterator[tuple[int, str]]:
  """(line number, UTF-8 text) of each line, each bounded and checked."""
  for n, raw in raw_lines(path, max_line_bytes):
    yield n, decode_line(raw, path, n)


def json_depth(data: bytes | str) -> int:
  """The deepest nesting of JSON arrays and objects in `data` (brackets in
  strings do not count); linear, no recursion."""
  if isinstance(data, str):
    data = data.encode("utf-8", "surrogatepass")
  brackets = _NOT_BRACKETS.sub(b"", _STRINGS.sub(b"", data))
  opened = brackets.count(b"[") + brackets.count(b"{")
  if opened <= 1:
    return opened
  depth = deepest = 0
  for b in brackets:
    if b in b"[{":
      depth += 1
      deepest = max(deepest, depth)
    else:
      depth -= 1
  return deepest


def json_loads(data: bytes | str, path: str, line: int | None = None,
               max_depth: int = MAX_JSON_DEPTH) -> Any:
  """`json.loads(data)` once its nesting is within `max_depth`; BoundError
  naming the file (and line) past it or for text not JSON."""
  depth = json_depth(data)
  if depth > max_depth:
    raise BoundError(path, line, f"JSON nested {depth} deep (at most "
                     f"{max_depth}): not a file of this format")
  try:
    return json.loads(data)
  except UnicodeDecodeError as e:
    raise BoundError(path, line, f"not UTF-8 ({e})") from None
  except ValueError as e:
    raise BoundError(path, line, f"not JSON ({e})") from None


def read_json(path: str, max_bytes: int,
              max_depth: int = MAX_JSON_DEPTH) -> Any:
  """A whole JSON file of at most `max_bytes`, nesting within `max_depth`;
  BoundError or ValueError naming the file, OSError if it cannot be read."""
  with open_input(path) as f:
    data = f.read(max_bytes + 1)
  if len(data) > max_bytes:
    raise BoundError(path, None, f"larger than {max_bytes:,} bytes (the "
                     "bound of this kind of file); not read")
  return json_loads(data, path, None, max_depth)


def open_unlinked(path: str, flags: int = os.O_RDWR, mode: int = 0o644,
                  truncate: bool = False) -> int:
  """A descriptor of `path` (created if missing) for writing in place,
  after checking it is a regular file with no other name; `truncate` only
  after the check. LinkedFileError (an OSError) naming `path` otherwise."""
  flags = (flags | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK) & ~os.O_TRUNC
  try:
    fd = os.open(path, flags, mode)
  except OSError as e:
    if e.errno == errno.ELOOP or os.path.islink(path):
      raise LinkedFileError(
          errno.ELOOP, "a symbolic link where a file is written; not "
          "written through: remove it", path) from None
    raise
  try:
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
      raise LinkedFileError(errno.EINVAL, "not a regular file; not written "
                            "to: remove it", path)
    if st.st_nlink > 1:
      raise LinkedFileError(
          errno.EMLINK, f"a hard link ({st.st_nlink} names for one file); "
          "not written through: remove it", path)
    os.set_blocking(fd, True)
    if truncate:
      os.ftruncate(fd, 0)
    return fd
  except BaseException:
    os.close(fd)
    raise


def trusted(path: str) -> str:
  """'' when the file at `path` may be trusted as a cache of this user
  (owned by the running user, not writable by group or others, one name,
  a regular file: what ssh asks of its keys); else why not."""
  try:
    st = os.lstat(path)
  except OSError as e:
    return f"it cannot be read ({e.strerror})"
  if stat.S_ISLNK(st.st_mode):
    return "it is a symbolic link"
  if not stat.S_ISREG(st.st_mode):
    return "it is not a regular file"
  if hasattr(os, "geteuid") and st.st_uid != os.geteuid():
    return f"it is owned by another user (uid {st.st_uid})"
  if st.st_mode & 0o022:
    return (f"it is writable by {'group' if st.st_mode & 0o020 else 'others'}"
            f" (mode {stat.S_IMODE(st.st_mode):o})")
  if st.st_nlink > 1:
    return f"it is a hard link ({st.st_nlink} names for one file)"
  return ""
