"""Checks shared by the generated-builder tests: a config built twice into
two data dirs must give byte-identical files, and its splits are read back
for leak checks; lexicon files are copied and edited to provoke errors."""

from __future__ import annotations

import hashlib
import pathlib
import shutil

from data_builders.common import loading as data


def build_twice_identical(builder_cls, config: str, tmp_path) -> pathlib.Path:
  """Builds `config` into tmp_path/a and tmp_path/b, asserts the files are
  byte-identical and non-empty, and returns tmp_path/a."""
  digests = []
  for d in ("a", "b"):
    b = builder_cls(config=config, data_dir=str(tmp_path / d),
                    file_format="array_record")
    b.download_and_prepare()
    files = sorted(pathlib.Path(b.data_dir).glob("*array_record*"))
    digests.append([p.read_bytes() for p in files])
  assert digests[0] == digests[1] and digests[0]
  return tmp_path / "a"


def split_items(name: str, data_dir, items) -> dict[str, set]:
  """split -> the union of items(instance) over the split (each non-empty)."""
  out = {}
  for split in ("train", "dev", "test"):
    insts = data.load_instances(name, split, str(data_dir))
    assert insts, split
    out[split] = {i for x in insts for i in items(x)}
  return out


def assert_disjoint(by_split: dict[str, set]):
  names = sorted(by_split)
  for i, a in enumerate(names):
    for b in names[i + 1:]:
      assert not by_split[a] & by_split[b], (a, b)


def copy_lexicon(src, tmp_path) -> pathlib.Path:
  shutil.copytree(src, tmp_path / "lex")
  return tmp_path / "lex"


def edit(path, old: str, new: str):
  text = path.read_text(encoding="utf-8")
  assert old in text
  path.write_text(text.replace(old, new), encoding="utf-8")


def line_of(path, start: str) -> int:
  for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
    if line.startswith(start):
      return i
  raise AssertionError(f"{path}: no line starts with {start!r}")


def repr_digest(xs) -> str:
  """sha256 over repr() of every instance, in order: a generator's output
  pinned byte for byte (a config that must not change, or training texts)."""
  h = hashlib.sha256()
  for x in xs:
    h.update(repr(x).encode())
  return h.hexdigest()


def fields_digest(xs) -> str:
  """The first 16 hex digits of a sha256 over each instance's fields and
  sentences (texts, patterns, chunks): the digests the CoS/OD and Mixture
  tests froze."""
  h = hashlib.sha256()
  for x in xs:
    h.update(repr((x.id, x.family, x.language, x.lexical_type, x.subset,
                   [(s.text, s.pattern, s.chunks) for s in x.context],
                   [(s.text, s.pattern, s.chunks) for s in x.answers],
                   x.labels, x.correct)).encode())
  return h.hexdigest()[:16]
