"""Loading and validating one language's agreement lexicon (data files).

`lexicon/<lang>/` holds tab-separated files with a header row (`#` lines and
blank lines are ignored):

- `nouns.tsv`: every noun with its singular and plural forms (plus the gender,
  and for Romanian the genitive forms; columns per language in `NOUN_COLUMNS`);
- `verbs.tsv`: verb phrases, `sg` and `pl` (the finite verb agrees);
- `frames.tsv`: the seeds, in the style of the psycholinguistic stimuli
  (000 sec. 4.4, 003 appendix A): subject noun `n`, first preposition `p1`
  and attractor `n1`, second preposition `p2` and attractor `n2`, verb phrase
  `vp`. Each of n, n1, n2, vp lists `;`-separated options: the first subject
  and N1 make the seed, every (n2, vp) pair a type I seed, and the others are
  the curated alternatives of the type II replacements. `sentence` is the seed
  written out by hand (singular, two attractors, first options): the realised
  chunks must concatenate to it, which checks the morphology on every seed;
- `prefixes.tsv` (completive matrix clauses, "John thinks that") and
  `relatives.tsv` (relative clauses, placed after PP1/PP2 and so attached to
  the nearest noun, not to the subject): one `text` column;
- `corrections.tsv` (optional): verb phrases that the `_seq` configs realise
  corrected (`load(..., corrected=True)`; columns `sg` of `verbs.tsv`, then
  `fixed_sg`, `fixed_pl`, `why`), while the paper configs keep the forms
  their records were measured on.

Every error names the file, the line and the entry.
"""

from __future__ import annotations

import dataclasses
import pathlib
from typing import Mapping

LEXICON_DIR = pathlib.Path(__file__).resolve().parent / "lexicon"
LANGUAGES = ("en", "fr", "it", "ro")

# Required noun columns per language (the first one is the entry's key).
NOUN_COLUMNS: dict[str, tuple[str, ...]] = {
    "en": ("sg", "pl"),
    "fr": ("sg", "pl", "gender"),
    "it": ("sg", "pl", "gender"),
    # Definite nominative sg/pl (enclitic article) and definite genitive.
    "ro": ("lemma", "sg", "pl", "gen_sg", "gen_pl", "gender"),
}
GENDERS = {"en": (), "fr": ("m", "f"), "it": ("m", "f"), "ro": ("m", "f", "n")}
FRAME_COLUMNS = ("id", "sentence", "n", "p1", "n1", "p2", "n2", "vp")
OPTION_COLUMNS = ("n", "n1", "n2", "vp")


class LexiconError(ValueError):
  """A lexicon file is malformed; the message names file, line and entry."""


@dataclasses.dataclass(frozen=True)
class Noun:
  key: str
  forms: Mapping[str, str]
  gender: str = ""
  elide: str = ""  # French: "yes"/"no" override for h-initial nouns.

  def form(self, num: str, case: str = "") -> str:
    return self.forms[f"{case}_{num}" if case else num]


@dataclasses.dataclass(frozen=True)
class Verb:
  key: str
  sg: str
  pl: str

  def form(self, num: str) -> str:
    return self.sg if num == "sg" else self.pl


@dataclasses.dataclass(frozen=True)
class Frame:
  """One seed frame; option tuples hold noun/verb keys, seed first."""

  id: str
  sentence: str
  n: tuple[str, ...]
  p1: str
  n1: tuple[str, ...]
  p2: str
  n2: tuple[str, ...]
  vp: tuple[str, ...]
  where: str = ""  # "file line N", for later error messages.


@dataclasses.dataclass(frozen=True)
class Lexicon:
  language: str
  nouns: Mapping[str, Noun]
  verbs: Mapping[str, Verb]
  frames: tuple[Frame, ...]
  prefixes: tuple[str, ...]
  relatives: tuple[str, ...]


def read_tsv(path: pathlib.Path, required: tuple[str, ...],
             optional: tuple[str, ...] = ()) -> list[tuple[int, dict]]:
  """(line number, row) pairs; every required field must be non-empty."""
  if not path.exists():
    raise LexiconError(f"{path}: lexicon file is missing")
  rows, header = [], None
  for lineno, raw in enumerate(path.read_text(encoding="utf-8").splitlines(),
                               start=1):
    if not raw.strip() or raw.lstrip().startswith("#"):
      continue
    cells = [c.strip() for c in raw.split("\t")]
    if header is None:
      header = cells
      missing = [c for c in required if c not in header]
      if missing:
        raise LexiconError(f"{path} line {lineno}: header lacks column(s) "
                           f"{missing}; expected {list(required)}")
      unknown = [c for c in header if c not in required + optional]
      if unknown:
        raise LexiconError(f"{path} line {lineno}: unknown column(s) "
                           f"{unknown}")
      continue
    row = dict(zip(header, cells + [""] * (len(header) - len(cells))))
    if len(cells) > len(header):
      raise LexiconError(f"{path} line {lineno}, entry {cells[0]!r}: "
                         f"{len(cells)} fields for {len(header)} columns")
    for col in required:
      if not row[col]:
        what = {"pl": "its plural", "gen_pl": "its genitive plural"}.get(
            col, f"column {col!r}")
        raise LexiconError(f"{path} line {lineno}, entry {cells[0]!r}: "
                           f"missing {what} (column {col!r})")
    rows.append((lineno, row))
  if header is None:
    raise LexiconError(f"{path}: no header row")
  return rows


def _unique(path, rows, key):
  out = {}
  for lineno, row in rows:
    if row[key] in out:
      raise LexiconError(f"{path} line {lineno}, entry {row[key]!r}: "
                         f"duplicate entry (first on line {out[row[key]][0]})")
    out[row[key]] = (lineno, row)
  return out


def load(language: str, root: pathlib.Path | str | None = None,
         corrected: bool = False) -> Lexicon:
  """Reads and cross-checks `root/<language>/` (default: the shipped data);
  `corrected`: with `corrections.tsv`'s verb phrases."""
  if language not in LANGUAGES:
    raise LexiconError(f"unknown language {language!r}; known: {LANGUAGES}")
  folder = pathlib.Path(root or LEXICON_DIR) / language
  cols = NOUN_COLUMNS[language]

  path = folder / "nouns.tsv"
  nouns = {}
  for key, (lineno, row) in _unique(
      path, read_tsv(path, cols, optional=("elide",)), cols[0]).items():
    gender = row.get("gender", "")
    if GENDERS[language] and gender not in GENDERS[language]:
      raise LexiconError(f"{path} line {lineno}, entry {key!r}: gender "
                         f"{gender!r} not in {GENDERS[language]}")
    forms = {c: row[c] for c in cols if c not in ("gender", "lemma")}
    if forms["sg"] == forms["pl"]:
      raise LexiconError(f"{path} line {lineno}, entry {key!r}: singular and "
                         "plural are the same string, so the noun cannot "
                         "carry the number the template needs")
    elide = row.get("elide", "")
    if elide not in ("", "yes", "no"):
      raise LexiconError(f"{path} line {lineno}, entry {key!r}: elide must be "
                         f"yes, no or empty, not {elide!r}")
    nouns[key] = Noun(key, forms, gender, elide)

  path = folder / "verbs.tsv"
  verbs = {}
  for key, (lineno, row) in _unique(
      path, read_tsv(path, ("sg", "pl")), "sg").items():
    if row["sg"] == row["pl"]:
      raise LexiconError(f"{path} line {lineno}, entry {key!r}: singular and "
                         "plural verb forms are the same string")
    verbs[key] = Verb(key, row["sg"], row["pl"])
  path = folder / "corrections.tsv"
  if corrected and path.exists():
    for key, (lineno, row) in _unique(path, read_tsv(
        path, ("sg", "fixed_sg", "fixed_pl", "why")), "sg").items():
      if key not in verbs:
        raise LexiconError(f"{path} line {lineno}, entry {key!r}: not a "
                           f"verb phrase of {folder / 'verbs.tsv'}")
      if row["fixed_sg"] == row["fixed_pl"]:
        raise LexiconError(f"{path} line {lineno}, entry {key!r}: singular "
                           "and plural verb forms are the same string")
      verbs[key] = Verb(key, row["fixed_sg"], row["fixed_pl"])

  path = folder / "frames.tsv"
  frames = []
  for key, (lineno, row) in _unique(
      path, read_tsv(path, FRAME_COLUMNS), "id").items():
    where = f"{path} line {lineno}, seed {key!r}"
    opts = {}
    for col in OPTION_COLUMNS:
      opts[col] = tuple(o.strip() for o in row[col].split(";") if o.strip())
      if len(opts[col]) < 2:
        raise LexiconError(f"{where}: column {col!r} needs the seed's word "
                           "and at least one alternative, ';'-separated")
      if len(set(opts[col])) != len(opts[col]):
        raise LexiconError(f"{where}: column {col!r} repeats an option")
      table, kind = (verbs, "verbs.tsv") if col == "vp" else (nouns,
                                                              "nouns.tsv")
      for o in opts[col]:
        if o not in table:
          raise LexiconError(f"{where}: {col} option {o!r} is not in "
                             f"{folder / kind}")
    frames.append(Frame(key, row["sentence"], opts["n"], row["p1"],
                        opts["n1"], row["p2"], opts["n2"], opts["vp"], where))

  texts = {}
  for name in ("prefixes", "relatives"):
    path = folder / f"{name}.tsv"
    rows = _unique(path, read_tsv(path, ("text",)), "text")
    texts[name] = tuple(rows)
  lex = Lexicon(language, nouns, verbs, tuple(frames), texts["prefixes"],
                texts["relatives"])
  _check_frames_disjoint(lex)
  _check_seeds(lex)
  return lex


def _check_frames_disjoint(lex: Lexicon) -> None:
  """No two frames share a (subject, p1, N1) choice: splits group by frame,
  so a shared triple could put one sentence in two splits."""
  owner = {}
  for f in lex.frames:
    for n in f.n:
      for n1 in f.n1:
        first = owner.setdefault((n, f.p1, n1), f)
        if first is not f:
          raise LexiconError(
              f"{f.where}: subject {n!r}, {f.p1!r} and N1 {n1!r} are also a "
              f"choice of seed {first.id!r} ({first.where})")


def _check_seeds(lex: Lexicon) -> None:
  """Every seed's realised chunks must rebuild its hand-written sentence."""
  from data_builders.blm_agreement import realise, templates

  for f in lex.frames:
    words = realise.Words(lex.nouns[f.n[0]], f.p1, lex.nouns[f.n1[0]], f.p2,
                          lex.nouns[f.n2[0]], lex.verbs[f.vp[0]])
    pat = templates.sentence_pattern("main", "sg", "sg", "sg")
    try:
      chunks = realise.chunks(lex.language, pat, words)
    except (KeyError, ValueError) as e:
      raise LexiconError(f"{f.where}: cannot realise the seed: {e}") from None
    joined = realise.join(chunks)
    if joined != f.sentence:
      raise LexiconError(
          f"{f.where}: chunks {list(chunks)!r} do not concatenate to its "
          f"sentence {f.sentence!r} (they give {joined!r})")
