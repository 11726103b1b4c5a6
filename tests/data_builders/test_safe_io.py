"""Bounded reads and link-safe writes (data_builders/common/safe_io.py)."""

import json
import os
import resource

import pytest

from data_builders.common import safe_io


def test_a_line_past_the_bound_is_refused_after_reading_only_the_bound(
    tmp_path):
  path = tmp_path / "sparse.jsonl"
  with open(path, "wb") as f:
    f.truncate(2 * 1024**3)  # 2 GB of NUL bytes, no newline, no disk.
  before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
  with pytest.raises(safe_io.BoundError,
                     match=r"sparse\.jsonl:1: line longer than 1,000 bytes"):
    list(safe_io.raw_lines(str(path), 1000))
  grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
  assert grown_kb < 100_000


def test_lines_up_to_the_bound_are_read_with_their_numbers(tmp_path):
  path = tmp_path / "ok.txt"
  path.write_bytes(b"\xef\xbb\xbf" + b"a" * 7 + b"\n" + b"b" * 10 + b"\n")
  assert list(safe_io.text_lines(str(path), 10)) == [
      (1, "a" * 7 + "\n"), (2, "b" * 10 + "\n")]  # Byte-order mark dropped.
  path.write_bytes(b"ok\n" + b"c" * 11)
  with pytest.raises(safe_io.BoundError, match=r"ok\.txt:2: line longer"):
    list(safe_io.text_lines(str(path), 10))


def test_a_byte_not_utf8_is_named_by_file_line_and_byte(tmp_path):
  path = tmp_path / "latin1.jsonl"
  path.write_bytes(b'{"a": 1}\n{"b": "caf\xe9"}\n')
  with pytest.raises(safe_io.BoundError) as err:
    list(safe_io.text_lines(str(path)))
  assert err.value.line == 2
  assert str(err.value).startswith(f"{path}:2: bytes b'\\xe9' at byte 11 of "
                                   "the line are not UTF-8")


def test_json_depth_counts_nesting_but_not_brackets_in_strings():
  assert safe_io.json_depth('{"a": [1, {"b": "[[[[{{{"}]}') == 3
  assert safe_io.json_depth('"[[["') == 0
  assert safe_io.json_depth('[' * 100_000 + ']' * 100_000) == 100_000


def test_deep_json_is_refused_before_json_loads_recurses():
  deep = "[" * 200_000 + "]" * 200_000  # json.loads: RecursionError.
  with pytest.raises(safe_io.BoundError,
                     match=r"^f\.jsonl:7: JSON nested 200000 deep \(at most "
                     r"64\)"):
    safe_io.json_loads(deep, "f.jsonl", 7)
  assert safe_io.json_loads('{"a": [[1]]}', "f.jsonl", 1) == {"a": [[1]]}
  with pytest.raises(safe_io.BoundError, match=r"^f\.jsonl:3: not JSON"):
    safe_io.json_loads("{", "f.jsonl", 3)


def test_read_json_bounds_the_file_size(tmp_path):
  path = tmp_path / "r.json"
  path.write_text(json.dumps({"x": "y" * 100}))
  assert safe_io.read_json(str(path), 1000) == {"x": "y" * 100}
  with pytest.raises(safe_io.BoundError, match="larger than 50 bytes"):
    safe_io.read_json(str(path), 50)


def test_a_fifo_is_not_read(tmp_path):
  fifo = tmp_path / "fifo.jsonl"
  os.mkfifo(fifo)
  with pytest.raises(OSError, match="not a regular file"):
    list(safe_io.raw_lines(str(fifo)))


@pytest.mark.parametrize("link", ["hard", "symbolic"])
def test_open_unlinked_refuses_a_link_and_leaves_its_target(tmp_path, link):
  victim = tmp_path / "victim.txt"
  victim.write_text("precious\n")
  path = tmp_path / ".lock"
  (os.link if link == "hard" else os.symlink)(victim, path)
  with pytest.raises(safe_io.LinkedFileError,
                     match="hard link" if link == "hard" else "symbolic"):
    safe_io.open_unlinked(str(path), truncate=True)
  assert victim.read_text() == "precious\n"


def test_open_unlinked_truncates_its_own_file_only_after_the_check(tmp_path):
  path = tmp_path / "log.txt"
  path.write_text("old\n")
  fd = safe_io.open_unlinked(str(path), os.O_WRONLY, truncate=True)
  os.write(fd, b"new\n")
  os.close(fd)
  assert path.read_text() == "new\n"


def test_trusted_asks_what_ssh_asks_of_its_keys(tmp_path):
  path = tmp_path / "scores.json"
  path.write_text("{}")
  os.chmod(path, 0o644)
  assert safe_io.trusted(str(path)) == ""
  os.chmod(path, 0o664)
  assert "writable by group" in safe_io.trusted(str(path))
  os.chmod(path, 0o646)
  assert "writable by others" in safe_io.trusted(str(path))
  os.chmod(path, 0o644)
  os.link(path, tmp_path / "other")
  assert "hard link" in safe_io.trusted(str(path))
