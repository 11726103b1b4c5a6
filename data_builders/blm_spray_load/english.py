"""English morphology for the spray/load sentences: case, agreement, verb groups.

Closed-class grammar lives here as code (pronoun case, auxiliaries,
agreement); open-class material (nouns, verb forms) comes from the lexicon.
A verb group names the tense/modal frame of a seed sentence ("past",
"can", "have to", ...); the active and passive forms of every group agree
with their subject, so a plural passive subject gets "were", never "was".
Every group has its negation ("not <group>": "won't hang", "won't be
hung"), so a sentence's polarity can vary while its frame stays
(`with_polarity`).
"""

from __future__ import annotations

import dataclasses
import functools

# nominative -> (accusative, person, number). "you" agrees like a plural.
PRONOUNS: dict[str, tuple[str, int, str]] = {
    "I": ("me", 1, "sg"),
    "you": ("you", 2, "pl"),
    "he": ("him", 3, "sg"),
    "she": ("her", 3, "sg"),
    "it": ("it", 3, "sg"),
    "we": ("us", 1, "pl"),
    "they": ("them", 3, "pl"),
}

NUMBERS = ("sg", "pl")


@dataclasses.dataclass(frozen=True)
class NP:
  """A noun phrase as written mid-sentence ("the roses", "I", "Maria")."""

  text: str
  number: str = "sg"

  @functools.cached_property
  def is_pronoun(self) -> bool:
    return self.text in PRONOUNS

  @functools.cached_property
  def agreement(self) -> str:
    """'1sg', '3sg' or 'pl' (the three present-tense paradigms of English)."""
    if self.is_pronoun:
      _, person, number = PRONOUNS[self.text]
    else:
      person, number = 3, self.number
    if number == "pl":
      return "pl"
    return "1sg" if person == 1 else "3sg"

  def nominative(self) -> str:
    return self.text

  def accusative(self) -> str:
    return PRONOUNS[self.text][0] if self.is_pronoun else self.text


@dataclasses.dataclass(frozen=True)
class VerbForms:
  """The inflected forms of one lexical verb (irregulars spelled out)."""

  base: str
  third_singular: str
  past: str
  participle: str
  gerund: str


_BE_PRESENT = {"1sg": "am", "3sg": "is", "pl": "are"}
_BE_PAST = {"1sg": "was", "3sg": "was", "pl": "were"}
_BE_NOT_PRESENT = {"1sg": "am not", "3sg": "isn't", "pl": "aren't"}
_BE_NOT_PAST = {"1sg": "wasn't", "3sg": "wasn't", "pl": "weren't"}
_MODALS = ("can", "could", "will", "would", "should", "must", "may", "might")
# Raising-like semi-modals (their passive keeps the meaning, unlike "like to").
_SEMI_MODALS = {"have to": ("has", "have"), "need to": ("needs", "need")}
_NOT_MODALS = {"can": "can't", "could": "couldn't", "will": "won't",
               "would": "wouldn't", "should": "shouldn't", "must": "mustn't",
               "may": "may not", "might": "might not"}
_NOT = "not "


def _s(agr: str, sg3: str, other: str) -> str:
  return sg3 if agr == "3sg" else other


def _join(*words: str) -> str:
  return " ".join(w for w in words if w)


def _aspect_auxiliaries(group: str, agr: str) -> tuple[str, str, str]:
  """(have, be, aspect) of the perfect, progressive and "going to" groups,
  affirmative or "not "-negated: the auxiliaries carry the negation."""
  negated = group.startswith(_NOT)
  aspect = group[len(_NOT):] if negated else group
  have = (_s(agr, "hasn't", "haven't") if negated
          else _s(agr, "has", "have"))
  return have, (_BE_NOT_PRESENT if negated else _BE_PRESENT)[agr], aspect


def active(group: str, v: VerbForms, agr: str, adverb: str = "") -> str:
  """The active verb group agreeing with a subject of agreement `agr`."""
  if group == "present":
    return _join(adverb, _s(agr, v.third_singular, v.base))
  if group == "past":
    return _join(adverb, v.past)
  if group in _MODALS:
    return _join(group, adverb, v.base)
  if group in _SEMI_MODALS:
    return _join(_s(agr, *_SEMI_MODALS[group]), "to", adverb, v.base)
  if group == "used to":
    return _join("used to", adverb, v.base)
  if group == "not present":
    return _join(_s(agr, "doesn't", "don't"), adverb, v.base)
  if group == "not past":
    return _join("didn't", adverb, v.base)
  if group.startswith(_NOT) and group[len(_NOT):] in _MODALS:
    return _join(_NOT_MODALS[group[len(_NOT):]], adverb, v.base)
  if group.startswith(_NOT) and group[len(_NOT):] in _SEMI_MODALS:
    return _join(_s(agr, "doesn't", "don't"), group[len(_NOT):], adverb,
                 v.base)
  if group == "not used to":
    return _join("didn't use to", adverb, v.base)
  have, be, aspect = _aspect_auxiliaries(group, agr)
  if aspect == "perfect":
    return _join(have, adverb, v.participle)
  if aspect == "progressive":
    return _join(be, adverb, v.gerund)
  if aspect == "going to":
    return _join(be, "going to", adverb, v.base)
  raise KeyError(f"unknown verb group {group!r}; known: "
                 f"{list(VERB_GROUPS + NEGATED_GROUPS)}")


def passive(group: str, v: VerbForms, agr: str, adverb: str = "") -> str:
  """The passive counterpart of `active(group, ...)`, agreeing with `agr`."""
  part = _join(adverb, v.participle)
  if group == "present":
    return _join(_BE_PRESENT[agr], part)
  if group == "past":
    return _join(_BE_PAST[agr], part)
  if group in _MODALS:
    return _join(group, "be", part)
  if group in _SEMI_MODALS:
    return _join(_s(agr, *_SEMI_MODALS[group]), "to be", part)
  if group == "used to":
    return _join("used to be", part)
  if group == "not present":
    return _join(_BE_NOT_PRESENT[agr], part)
  if group == "not past":
    return _join(_BE_NOT_PAST[agr], part)
  if group.startswith(_NOT) and group[len(_NOT):] in _MODALS:
    return _join(_NOT_MODALS[group[len(_NOT):]], "be", part)
  if group.startswith(_NOT) and group[len(_NOT):] in _SEMI_MODALS:
    return _join(_s(agr, "doesn't", "don't"), group[len(_NOT):], "be",
                 part)
  if group == "not used to":
    return _join("didn't use to be", part)
  have, be, aspect = _aspect_auxiliaries(group, agr)
  if aspect == "perfect":
    return _join(have, "been", part)
  if aspect == "progressive":
    return _join(be, "being", part)
  if aspect == "going to":
    return _join(be, "going to be", part)
  raise KeyError(f"unknown verb group {group!r}; known: "
                 f"{list(VERB_GROUPS + NEGATED_GROUPS)}")


VERB_GROUPS = ("present", "past") + _MODALS + (
    "have to", "need to", "used to", "not present", "not past", "perfect",
    "progressive", "going to")
# The negations of the other groups ("not present" and "not past" are seed
# frames of their own).
NEGATED_GROUPS = tuple(_NOT + g for g in VERB_GROUPS
                       if _NOT + g not in VERB_GROUPS
                       and not g.startswith(_NOT))
# A negative adverb and the affirmative one that replaces it: "I never
# spread the toast" is negated, its affirmative "I always spread the toast"
# (negating "never" would give a double negation).
_NEGATIVE_ADVERBS = {"never": "always"}


def with_polarity(group: str, adverb: str, negated: bool) -> tuple[str, str]:
  """(group, adverb) of a seed frame made affirmative or negated: "will"
  <-> "not will", "not past" <-> "past", adverb "never" <-> "always"."""
  if adverb in _NEGATIVE_ADVERBS:
    return group, adverb if negated else _NEGATIVE_ADVERBS[adverb]
  base = group[len(_NOT):] if group.startswith(_NOT) else group
  return (_NOT + base if negated else base), adverb

# "a" before a vowel letter is right only before a consonant sound, and "an"
# before a consonant letter only before a vowel sound: the exceptions English
# nouns in this lexicon may need.
_A_BEFORE_VOWEL_LETTER = ("uni", "use", "usu", "one", "euro", "ewe")
_AN_BEFORE_CONSONANT_LETTER = ("hour", "honest", "honour", "honor", "heir")


def article_error(text: str) -> str | None:
  """A message if `text` misuses a/an, else None."""
  words = text.split()
  for det, nxt in zip(words, words[1:]):
    low_det, low = det.lower(), nxt.lower()
    vowel_letter = low[:1] in "aeiou"
    if low_det == "a" and vowel_letter and not low.startswith(
        _A_BEFORE_VOWEL_LETTER):
      return f"'a {nxt}' should be 'an {nxt}'"
    if low_det == "an" and (
        (not vowel_letter and not low.startswith(_AN_BEFORE_CONSONANT_LETTER))
        or low.startswith(_A_BEFORE_VOWEL_LETTER)):
      return f"'an {nxt}' should be 'a {nxt}'"
  return None


def capitalise(text: str) -> str:
  return text[:1].upper() + text[1:]
