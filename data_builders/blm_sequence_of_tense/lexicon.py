"""Loading and checking the Italian adjective lexicon (lexicon/*.tsv).

Tab-separated files with a header row; `#` lines and blank lines are
ignored. `adjectives.tsv` holds `ms fs mp fp role`: the four forms of an
adjective (checked against -o/-a/-i/-e morphology) and its role, `premise`
or `consequent` (two disjoint lists: a hypothetical never predicates the
same adjective twice). `read_tsv` is shared with `blm_mixture`'s lexicon.

Every error names the file, the line and the entry.
"""

from __future__ import annotations

import dataclasses
import pathlib
from typing import Iterator, Sequence

from data_builders.blm_sequence_of_tense import italian

LEXICON_DIR = pathlib.Path(__file__).resolve().parent / "lexicon"
ADJECTIVE_COLUMNS = ("ms", "fs", "mp", "fp", "role")
ROLES = ("premise", "consequent")
MIN_PER_ROLE = 2


class LexiconError(ValueError):
  """A lexicon file is malformed; the message names file, line and entry."""


def fail(path, line: int, entry: str, problem: str):
  raise LexiconError(f"{path}:{line}: entry {entry!r}: {problem}")


def read_tsv(path: str | pathlib.Path,
             columns: Sequence[str]) -> Iterator[tuple[int, dict[str, str]]]:
  """(line number, column -> cell) for each row; the header must be
  `columns`, every row must fill every column."""
  path = pathlib.Path(path)
  if not path.exists():
    raise LexiconError(f"{path}: missing lexicon file")
  header = None
  for lineno, raw in enumerate(path.read_text(encoding="utf-8").splitlines(),
                               1):
    if not raw.strip() or raw.lstrip().startswith("#"):
      continue
    cells = [c.strip() for c in raw.split("\t")]
    if header is None:
      if tuple(cells) != tuple(columns):
        raise LexiconError(f"{path}:{lineno}: header {cells} should be "
                           f"{list(columns)} (tab-separated)")
      header = cells
      continue
    if len(cells) != len(columns) or not all(cells):
      fail(path, lineno, cells[0], f"expected {len(columns)} non-empty "
           f"tab-separated cells {list(columns)}, got {len(cells)}: {cells}")
    yield lineno, dict(zip(columns, cells))
  if header is None:
    raise LexiconError(f"{path}: no header row {list(columns)}")


@dataclasses.dataclass(frozen=True)
class Lexicon:
  premise: tuple[italian.Adjective, ...]
  consequent: tuple[italian.Adjective, ...]


def read_adjectives(path, roles: Sequence[str]) -> dict[str, list]:
  """role -> adjectives of `path`, each checked; roles must be in `roles`."""
  out: dict[str, list[italian.Adjective]] = {r: [] for r in roles}
  seen: dict[str, int] = {}
  for lineno, row in read_tsv(path, ADJECTIVE_COLUMNS):
    a = italian.Adjective(row["ms"], row["fs"], row["mp"], row["fp"])
    if row["role"] not in roles:
      fail(path, lineno, a.ms, f"role {row['role']!r} is not one of "
           f"{list(roles)}")
    err = italian.regular_forms_error(a)
    if err:
      fail(path, lineno, a.ms, err)
    if a.ms in seen:
      fail(path, lineno, a.ms, f"repeated (first on line {seen[a.ms]})")
    seen[a.ms] = lineno
    out[row["role"]].append(a)
  for r in roles:
    if len(out[r]) < MIN_PER_ROLE:
      raise LexiconError(f"{path}: role {r!r} needs at least {MIN_PER_ROLE} "
                         f"adjectives, has {len(out[r])}")
  return out


def load(folder: str | pathlib.Path | None = None) -> Lexicon:
  folder = pathlib.Path(folder or LEXICON_DIR)
  adj = read_adjectives(folder / "adjectives.tsv", ROLES)
  return Lexicon(premise=tuple(adj["premise"]),
                 consequent=tuple(adj["consequent"]))
