"""Linguistic checks on generated agreement data (`CHECKS`; the interface is
`data_builders.common.validation`; README "Validation" says what each rule
is and where it comes from).

- `repeated_context_sentence` (the families' shared rule,
  `common/repeats.py`): types II and III vary the words of every context
  sentence (000: "one word in each sentence is different"), so no context
  sentence repeats another word for word; type I is "lexically consistent
  - the same vocabulary is used in all sentences" (000), so its sentences
  repeat exactly where their patterns do.
- `repeated_quantifier`: no sentence holds one quantifier phrase of its
  language twice (`quantifiers.py`).
- `romanian_object_marking`: a Romanian direct object marked with `pe` is
  doubled by an accusative clitic on its verb, and a definite human direct
  object is marked with `pe`.
- `thin_deciding_attribute` (`_seq` designs): every attribute that decides
  between the candidates is shown by at least four context sentences.
"""

from __future__ import annotations

import functools
import re
from typing import Iterator

from data_builders.blm_agreement import attributes, lexicon, quantifiers
from data_builders.common import attributes as common_attributes
from data_builders.common import repeats
from data_builders.common.schema import BLMInstance, Sentence
from data_builders.common.validation import Check

SEQ_FAMILY = "agreement_seq"


def _sentences(x: BLMInstance) -> Iterator[tuple[str, Sentence]]:
  for i, s in enumerate(x.context):
    yield f"context {i + 1}", s
  for lab, s in zip(x.labels, x.answers):
    yield f"answer {lab}", s


def repeated_quantifiers(x: BLMInstance) -> Iterator[str]:
  for where, s in _sentences(x):
    for q in quantifiers.repeated(x.language, s.text):
      yield f"{where}: {q!r} twice: {s.text!r}"


# Accusative clitics (weak forms îl/l-/-l, o/-o, îi/i-/-i, le/le-) on the
# verb complex before a `pe` object (its two words before `pe`).
_CLITIC_WORDS = {"îl", "o", "îi", "le"}
_CLITIC_PREFIXES = ("l-", "i-", "le-")
_CLITIC_SUFFIX = re.compile(r"-(?:l|o|i|le)$")


def _has_clitic(words) -> bool:
  return any(w in _CLITIC_WORDS or w.startswith(_CLITIC_PREFIXES)
             or _CLITIC_SUFFIX.search(w) for w in words)


# Forms of *a fi*: after them `pe` is the preposition "on" (este pe masă).
_COPULA = {"este", "e", "sunt", "era", "erau", "fi", "fost"}
# Auxiliaries of the compound past and future: `a|au <participle> <object>`.
_AUX = ("a", "au", "am", "ai", "ați", "va", "vor")
# Lemmas of the Romanian lexicon's nouns that name persons, and the person
# nouns its verb phrases hold as objects.
HUMAN_LEMMAS = frozenset(
    "antrenor atlet autor avocat băiat bucătar cântăreț cercetător chelner "
    "comandant consilier copil deținut director doamnă femeie fermier "
    "general ghid grădinar jucător martor mătușă mecanic paznic pescar "
    "pictor preparator prieten primar profesor scriitor secretară soldat "
    "soră gardian șofer toboșar turist țăran vecin vecină verișoară văr "
    "victimă".split())
_HUMAN_OBJECTS = ("medicul", "medicii", "locuitorul", "locuitorii")


@functools.lru_cache(maxsize=None)
def _human_definite_forms() -> frozenset[str]:
  nouns = lexicon.load("ro").nouns.values()
  return frozenset(
      [f for n in nouns if n.key in HUMAN_LEMMAS
       for k, f in n.forms.items() if k in ("sg", "pl")]
      + list(_HUMAN_OBJECTS))


def romanian_object_marking(x: BLMInstance) -> Iterator[str]:
  if x.language != "ro":
    return
  human = _human_definite_forms()
  for where, s in _sentences(x):
    words = s.text.rstrip(".").split()
    for i, w in enumerate(words):
      if w == "pe" and 0 < i and words[i - 1] not in _COPULA:
        if not _has_clitic(words[max(0, i - 2):i]):
          yield (f"{where}: 'pe' object without a doubling clitic on its "
                 f"verb: {s.text!r}")
      if (w in human and i >= 2 and words[i - 2] in _AUX
          and words[i - 1] not in _COPULA):
        yield (f"{where}: definite human direct object {w!r} without 'pe' "
               f"and clitic: {s.text!r}")


def thin_deciding_attributes(x: BLMInstance) -> Iterator[str]:
  if x.family != SEQ_FAMILY:
    return
  thin = common_attributes.thinly_visible(
      attributes.agreement_schema(), [s.pattern for s in x.context],
      [s.pattern for s in x.answers])
  for name, n in thin.items():
    yield (f"attribute {name!r} decides between the candidates but "
           f"{n} context sentence(s) show it (at least "
           f"{common_attributes.MIN_VISIBLE_TERMS})")


CHECKS = (
    Check("repeated_context_sentence",
          "types II and III: no context sentence repeats another word for "
          "word; type I: sentences repeat only where their patterns do",
          repeats.repeated_context),
    Check("repeated_quantifier",
          "no sentence holds the same quantifier phrase twice (fr 'tout le "
          "monde', ro 'toată lumea', ...)", repeated_quantifiers),
    Check("romanian_object_marking",
          "Romanian: a 'pe' direct object is doubled by an accusative "
          "clitic on its verb; a definite human direct object takes 'pe'",
          romanian_object_marking),
    Check("thin_deciding_attribute",
          "_seq designs: every attribute that decides between the "
          "candidates is shown by at least four context sentences",
          thin_deciding_attributes),
)
