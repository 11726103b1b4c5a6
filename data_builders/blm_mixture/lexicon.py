"""Loading and checking the mixture's incidental clauses (lexicon/*.tsv).

`incidentals.tsv` (`prep sg pl gender adjective`): one incidental clause per
line, its noun being the attractor; `adjectives.tsv` (`ms fs mp fp role`,
role `attractor`): the adjectives agreeing with those nouns, checked like
the sequence-of-tense adjectives. The premise and consequent adjectives are
`blm_sequence_of_tense`'s lexicon. Every error names file, line and entry.
"""

from __future__ import annotations

import dataclasses
import pathlib

from data_builders.blm_agreement import morph_it
from data_builders.blm_sequence_of_tense import italian, lexicon as sot_lexicon
from data_builders.blm_sequence_of_tense.lexicon import fail, LexiconError

LEXICON_DIR = pathlib.Path(__file__).resolve().parent / "lexicon"
INCIDENTAL_COLUMNS = ("prep", "sg", "pl", "gender", "adjective")
MIN_PER_GENDER = 2


@dataclasses.dataclass(frozen=True)
class Noun:
  """What `morph_it` needs: forms by number and a gender."""

  sg: str
  pl: str
  gender: str

  def form(self, num: str) -> str:
    return self.sg if num == "sg" else self.pl


@dataclasses.dataclass(frozen=True)
class Incidental:
  """An incidental clause around an attractor noun and its adjective."""

  prep: str
  noun: Noun
  adjective: italian.Adjective

  def text(self, gender: str, number: str) -> str:
    """The clause with the noun in `number`; `gender` must be the noun's
    (the template asks for an attractor of a gender, the generator picks a
    noun of that gender)."""
    if gender != self.noun.gender:
      raise ValueError(f"incidental {self.noun.sg!r} is {self.noun.gender}, "
                       f"not {gender}")
    return (f"{morph_it.pp(self.prep, self.noun, number)} "
            f"{self.adjective.form(gender, number)}")


@dataclasses.dataclass(frozen=True)
class Lexicon:
  premise: tuple[italian.Adjective, ...]
  consequent: tuple[italian.Adjective, ...]
  incidentals: dict[str, tuple[Incidental, ...]]  # gender -> clauses


def load(folder: str | pathlib.Path | None = None,
         sot_folder: str | pathlib.Path | None = None) -> Lexicon:
  folder = pathlib.Path(folder or LEXICON_DIR)
  base = sot_lexicon.load(sot_folder)
  adj_path = folder / "adjectives.tsv"
  adjectives = {a.ms: a for a in sot_lexicon.read_adjectives(
      adj_path, ("attractor",))["attractor"]}
  path = folder / "incidentals.tsv"
  out: dict[str, list[Incidental]] = {g: [] for g in italian.GENDERS}
  seen: dict[tuple[str, str], int] = {}
  for lineno, row in sot_lexicon.read_tsv(path, INCIDENTAL_COLUMNS):
    entry = row["sg"]
    if row["gender"] not in italian.GENDERS:
      fail(path, lineno, entry, f"gender {row['gender']!r} is not one of "
           f"{list(italian.GENDERS)}")
    if row["adjective"] not in adjectives:
      fail(path, lineno, entry, f"adjective {row['adjective']!r} is not in "
           f"{adj_path}")
    if (row["prep"], entry) in seen:
      fail(path, lineno, entry, f"repeated (first on line "
           f"{seen[row['prep'], entry]})")
    seen[row["prep"], entry] = lineno
    inc = Incidental(row["prep"], Noun(row["sg"], row["pl"], row["gender"]),
                     adjectives[row["adjective"]])
    out[row["gender"]].append(inc)
  for g, items in out.items():
    if len(items) < MIN_PER_GENDER:
      raise LexiconError(f"{path}: gender {g!r} needs at least "
                         f"{MIN_PER_GENDER} incidental clauses, has "
                         f"{len(items)}")
  return Lexicon(base.premise, base.consequent,
                 {g: tuple(v) for g, v in out.items()})
