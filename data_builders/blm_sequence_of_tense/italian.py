"""Italian morphology of the hypothetical period: the copula in six tenses
and moods, agreeing participles and adjectives.

Closed-class grammar is code; adjectives come from the lexicon. Subjects are
null (Italian is pro-drop), so person and number show on the finite verb,
number and gender on the participle `stato` of the compound tenses and on
the predicate adjective. Tense codes follow 000 appendix 11.1:

    CPas     congiuntivo imperfetto     (se) fossi
    CTrPas   congiuntivo trapassato     (se) fossi stato
    CnPr     condizionale presente      sarei
    CnPas    condizionale passato       sarei stato
    IFut     indicativo futuro          sarò
    IFutAnt  indicativo futuro anteriore  sarò stato
"""

from __future__ import annotations

import dataclasses

PERSONS = ("1", "2", "3")
NUMBERS = ("sg", "pl")
GENDERS = ("m", "f")

# Finite forms of essere: tense -> (1sg, 2sg, 3sg, 1pl, 2pl, 3pl).
_ESSERE = {
    "CPas": ("fossi", "fossi", "fosse", "fossimo", "foste", "fossero"),
    "CnPr": ("sarei", "saresti", "sarebbe", "saremmo", "sareste",
             "sarebbero"),
    "IFut": ("sarò", "sarai", "sarà", "saremo", "sarete", "saranno"),
}
# Compound tense -> the simple tense of its auxiliary.
_COMPOUND = {"CTrPas": "CPas", "CnPas": "CnPr", "IFutAnt": "IFut"}
TENSES = ("CPas", "CTrPas", "CnPr", "CnPas", "IFut", "IFutAnt")
MOOD = {"CPas": "subjunctive", "CTrPas": "subjunctive",
        "CnPr": "conditional", "CnPas": "conditional",
        "IFut": "indicative", "IFutAnt": "indicative"}


def person_number(person: str, number: str) -> str:
  """'2', 'pl' -> '2pl' (the verb's agreement features)."""
  if person not in PERSONS or number not in NUMBERS:
    raise ValueError(f"bad person/number {person!r}/{number!r}")
  return f"{person}{number}"


def split_pn(pn: str) -> tuple[str, str]:
  return pn[:1], pn[1:]


@dataclasses.dataclass(frozen=True)
class Adjective:
  """An adjective with its four forms (gender x number), from the lexicon."""

  ms: str
  fs: str
  mp: str
  fp: str

  def form(self, gender: str, number: str) -> str:
    return {("m", "sg"): self.ms, ("f", "sg"): self.fs,
            ("m", "pl"): self.mp, ("f", "pl"): self.fp}[gender, number]


STATO = Adjective("stato", "stata", "stati", "state")


def copula(tense: str, pn: str, gender: str, number: str) -> str:
  """The verb group of `essere` in `tense`, finite verb agreeing with `pn`,
  participle (compound tenses) with `gender`/`number`."""
  if tense not in TENSES:
    raise KeyError(f"unknown tense {tense!r}; known: {TENSES}")
  person, num = split_pn(pn)
  i = PERSONS.index(person) + 3 * NUMBERS.index(num)
  if tense in _COMPOUND:
    return f"{_ESSERE[_COMPOUND[tense]][i]} {STATO.form(gender, number)}"
  return _ESSERE[tense][i]


def regular_forms_error(a: Adjective) -> str | None:
  """A message if the four forms are not those of an -o/-a/-i/-e adjective
  (with the -chi/-ghi, -che/-ghe spellings and -io plurals), else None."""
  if not a.ms.endswith("o"):
    return f"masculine singular {a.ms!r} does not end in -o"
  stem = a.ms[:-1]
  if a.fs != stem + "a":
    return f"feminine singular {a.fs!r} is not {stem + 'a'!r}"
  mp = {stem + "i"}
  fp = {stem + "e"}
  if stem.endswith(("c", "g")):
    mp |= {stem + "hi"}
    fp = {stem + "he"}
  if stem.endswith("i"):
    mp = {stem}
  if stem.endswith(("ci", "gi")):
    fp = {stem[:-1] + "e", stem + "e"}
  if a.mp not in mp:
    return f"masculine plural {a.mp!r} is not one of {sorted(mp)}"
  if a.fp not in fp:
    return f"feminine plural {a.fp!r} is not one of {sorted(fp)}"
  return None


def capitalise(text: str) -> str:
  return text[:1].upper() + text[1:]
