"""Loading and checking the curated Hebrew roots (`lexicon/roots.tsv`).

Tab-separated, `#` comments, a header `root paal_future PAAL NIFAL HIFIL
HUFAL gloss`. `root` is three letters, optionally dotted (`ר.ש.ם`; final
letters are read as ordinary ones). Each binyan column holds the root's
attested past 3ms form in that binyan, or `-` where the root is not used in
it; `paal_future` is `o` or `a` when the root has a Paal form, else `-`.
Every form is re-derived by `morph.form` and must come out as written, so the
file is checked, not trusted. Errors read `<file>:<line>: field '<name>': ...`.
"""

from __future__ import annotations

import dataclasses
import pathlib

from data_builders.blm_caus_he import morph

LEXICON_DIR = pathlib.Path(__file__).resolve().parent / "lexicon"
FIELDS = ("root", "paal_future", *morph.BINYANIM, "gloss")
# MaxLex needs distinct roots for all 11 sentences of an instance, and each
# binyan appears up to 3 times in one.
MIN_ROOTS = 11
MIN_ROOTS_PER_BINYAN = 3


class LexiconError(ValueError):
  """A lexicon file that cannot be used; names file, line and field."""


@dataclasses.dataclass(frozen=True)
class Root:
  line: int
  root: str  # three letters, non-final forms
  paal_future: str  # "o" | "a" | ""
  binyanim: tuple[str, ...]  # those attested, in morph.BINYANIM order
  gloss: str

  def form(self, binyan: str, tense: str, pgn: str) -> str:
    if binyan not in self.binyanim:
      raise ValueError(f"root {self.root!r} has no {binyan} form")
    return morph.form(self.root, binyan, tense, pgn,
                      paal_future=self.paal_future or "o")


def load(path: str | pathlib.Path | None = None,
         full_size: bool = True) -> tuple[Root, ...]:
  path = pathlib.Path(path) if path else LEXICON_DIR / "roots.tsv"
  try:
    lines = path.read_text(encoding="utf-8").splitlines()
  except OSError as e:
    raise LexiconError(f"{path}: cannot read lexicon: {e}") from None
  roots: list[Root] = []
  header = False
  seen: dict[str, int] = {}
  for n, line in enumerate(lines, 1):
    if not line.strip() or line.startswith("#"):
      continue
    cells = [c.strip() for c in line.split("\t")]
    if not header:
      if tuple(cells) != FIELDS:
        raise LexiconError(f"{path}:{n}: header {cells} should be the "
                           f"tab-separated fields {list(FIELDS)}")
      header = True
      continue
    if len(cells) != len(FIELDS):
      raise LexiconError(f"{path}:{n}: {len(cells)} tab-separated fields, "
                         f"expected {len(FIELDS)} ({list(FIELDS)})")
    root = _root(path, n, dict(zip(FIELDS, cells)))
    if root.root in seen:
      raise LexiconError(f"{path}:{n}: field 'root': {root.root!r} already "
                         f"on line {seen[root.root]}")
    seen[root.root] = n
    roots.append(root)
  if not header:
    raise LexiconError(f"{path}: no header line {list(FIELDS)}")
  if full_size:
    if len(roots) < MIN_ROOTS:
      raise LexiconError(f"{path}: {len(roots)} roots, MaxLex needs at least "
                         f"{MIN_ROOTS}")
    for b in morph.BINYANIM:
      k = sum(b in r.binyanim for r in roots)
      if k < MIN_ROOTS_PER_BINYAN:
        raise LexiconError(f"{path}: field {b!r}: {k} roots, at least "
                           f"{MIN_ROOTS_PER_BINYAN} needed")
  return tuple(roots)


def _root(path, n, row) -> Root:
  where = f"{path}:{n}"
  for f in FIELDS:
    if not row[f]:
      raise LexiconError(f"{where}: field {f!r}: empty (write '-' for none)")
  letters = morph.strip_finals(row["root"].replace(".", ""))
  why = morph.check_root(letters)
  if why:
    raise LexiconError(f"{where}: field 'root': {row['root']!r}: {why}")
  attested = tuple(b for b in morph.BINYANIM if row[b] != "-")
  if not attested:
    raise LexiconError(f"{where}: fields {list(morph.BINYANIM)}: the root "
                       "has no form in any binyan")
  vowel = row["paal_future"]
  if "PAAL" in attested and vowel not in morph.PAAL_FUTURE_VOWELS:
    raise LexiconError(f"{where}: field 'paal_future': {vowel!r}, expected "
                       f"one of {list(morph.PAAL_FUTURE_VOWELS)}")
  if "PAAL" not in attested and vowel != "-":
    raise LexiconError(f"{where}: field 'paal_future': {vowel!r} but the "
                       "root has no Paal form (write '-')")
  root = Root(n, letters, vowel if vowel != "-" else "", attested,
              row["gloss"])
  for b in attested:
    expected = root.form(b, "past", "3ms")
    if row[b] != expected:
      raise LexiconError(f"{where}: field {b!r}: {row[b]!r} is not the "
                         f"{b} past 3ms of {row['root']!r}; the pattern "
                         f"gives {expected!r}")
  return root
