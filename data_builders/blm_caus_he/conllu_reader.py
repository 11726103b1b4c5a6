"""Reading Universal Dependencies CoNLL-U files, with errors that say where.

Lines are parsed with the `conllu` package (its field parsers for ID, FEATS,
HEAD, DEPS, MISC); this module adds what a corpus extractor needs on top: the
line number of every problem, checks of the sentence structure (10 columns,
consecutive word IDs, heads inside the sentence, one root) and the sentence
text (`# text = ...`, else the surface tokens joined by their SpaceAfter).
Every error reads `<file>:<line>: field '<NAME>': <problem>`.
"""

from __future__ import annotations

import dataclasses
import pathlib
from typing import Iterator

import conllu
from conllu import parser as conllu_parser

FIELDS = ("id", "form", "lemma", "upos", "xpos", "feats", "head", "deprel",
          "deps", "misc")


class CoNLLUError(ValueError):
  """A CoNLL-U file that cannot be read; names file, line and field."""


@dataclasses.dataclass(frozen=True)
class Sentence:
  path: str
  line: int  # first line of the sentence block
  sent_id: str
  text: str
  tokens: conllu.TokenList  # word lines only (no multiword or empty nodes)

  def root(self):
    return next(t for t in self.tokens if t["head"] == 0)


def read(path: str | pathlib.Path) -> list[Sentence]:
  return list(iter_sentences(path))


def iter_sentences(path: str | pathlib.Path) -> Iterator[Sentence]:
  path = pathlib.Path(path)
  try:
    text = path.read_text(encoding="utf-8")
  except FileNotFoundError:
    raise CoNLLUError(f"{path}: no such CoNLL-U file") from None
  except (OSError, UnicodeDecodeError) as e:
    raise CoNLLUError(f"{path}: cannot read as UTF-8 text: {e}") from None
  block: list[tuple[int, str]] = []
  for n, line in enumerate(text.splitlines(), 1):
    if line.strip():
      block.append((n, line))
    elif block:
      yield _sentence(path, block)
      block = []
  if block:
    yield _sentence(path, block)


def _sentence(path, block) -> Sentence:
  meta: dict[str, str] = {}
  words: list[tuple[int, conllu.Token]] = []
  surface: list[tuple[int, conllu.Token]] = []  # multiword tokens + words
  covered_until = 0
  for n, line in block:
    if line.startswith("#"):
      key, eq, value = line[1:].partition("=")
      if eq:
        meta[key.strip()] = value.strip()
      continue
    cells = line.split("\t")
    if len(cells) != len(FIELDS):
      raise CoNLLUError(
          f"{path}:{n}: {len(cells)} tab-separated fields, expected "
          f"{len(FIELDS)} ({' '.join(f.upper() for f in FIELDS)})")
    for name, cell in zip(FIELDS, cells):
      if not cell:
        raise CoNLLUError(f"{path}:{n}: field '{name.upper()}': empty "
                          "(write '_' for an unknown value)")
    _check_feats(path, n, cells[5])
    try:
      tok = conllu_parser.parse_line(line, fields=FIELDS)
    except conllu.exceptions.ParseException as e:
      field = _field_of(str(e))
      raise CoNLLUError(f"{path}:{n}: field '{field}': {e}") from None
    tid = tok["id"]
    if isinstance(tid, tuple):
      if tid[1] == "-":  # Multiword token a-b: its form is the surface.
        surface.append((n, tok))
        covered_until = tid[2]
      continue  # Empty nodes (a.b) are not words.
    if tid != len(words) + 1:
      raise CoNLLUError(f"{path}:{n}: field 'ID': {tid}, expected "
                        f"{len(words) + 1} (word IDs count 1, 2, ...)")
    words.append((n, tok))
    if tid > covered_until:
      surface.append((n, tok))
  start = block[0][0]
  if not words:
    raise CoNLLUError(f"{path}:{start}: sentence without word lines")
  roots = []
  for n, tok in words:
    head = tok["head"]
    if not isinstance(head, int) or not 0 <= head <= len(words):
      raise CoNLLUError(f"{path}:{n}: field 'HEAD': {head!r}, expected "
                        f"0..{len(words)}")
    if head == 0:
      roots.append(n)
  if len(roots) != 1:
    raise CoNLLUError(f"{path}:{start}: field 'HEAD': {len(roots)} roots "
                      f"(lines {roots}), expected exactly one")
  sent_text = meta.get("text") or _join(surface)
  sent_id = meta.get("sent_id", f"{path.name}:{start}")
  return Sentence(str(path), start, sent_id, sent_text,
                  conllu.TokenList([t for _, t in words], metadata=meta))


def _check_feats(path, n, cell: str) -> None:
  """FEATS is '_' or Name=Value pairs joined by '|' (UD's format)."""
  if cell == "_":
    return
  for pair in cell.split("|"):
    name, eq, value = pair.partition("=")
    if not (eq and name and value):
      raise CoNLLUError(f"{path}:{n}: field 'FEATS': {pair!r} in {cell!r} "
                        "is not Name=Value")


def _join(surface) -> str:
  out = []
  for _, tok in surface:
    out.append(tok["form"])
    misc = tok["misc"] or {}
    if misc.get("SpaceAfter") != "No":
      out.append(" ")
  return "".join(out).strip()


def _field_of(message: str) -> str:
  for f in FIELDS:
    if f"'{f}'" in message:
      return f.upper()
  return "?"
