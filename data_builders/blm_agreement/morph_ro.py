"""Romanian noun phrases: enclitic definite articles and genitive case.

Number (and case) live in the noun's inflected definite forms, given by the
lexicon: nominative/accusative `sg`/`pl` (calculatorul/calculatoarele) and
genitive `gen_sg`/`gen_pl` (experimentului/experimentelor). An attractor is
either `cu` + the definite accusative (cu cheia, cu cheile: `cu` keeps the
article on a bare noun, unlike most prepositions, which the template avoids)
or a bare genitive (`gen`: prietena proprietarului vilei), adjacent to its
definite head so no possessive article is needed. Coordinating a genitive
attractor repeats the possessive article, which agrees with the possessed
subject: al/a/ai/ale (neuter: al in the singular, ale in the plural).
"""

from __future__ import annotations

AND = "și"
PREPOSITIONS = ("cu", "gen")
_POSSESSIVE = {("m", "sg"): "al", ("n", "sg"): "al", ("f", "sg"): "a",
               ("m", "pl"): "ai", ("n", "pl"): "ale", ("f", "pl"): "ale"}


def np(noun, num: str) -> str:
  return noun.form(num)


def pp(prep: str, noun, num: str) -> str:
  if prep == "gen":
    return noun.form(num, "gen")
  if prep == "cu":
    return f"cu {noun.form(num)}"
  raise ValueError(f"Romanian attractor preposition {prep!r} is not supported;"
                   f" use one of {PREPOSITIONS}")


def coord(p1: str, noun, num: str, subject, subject_num: str) -> str:
  if p1 == "gen":
    art = _POSSESSIVE[(subject.gender, subject_num)]
    return f"{AND} {art} {noun.form(num, 'gen')}"
  return f"{AND} {noun.form(num)}"
