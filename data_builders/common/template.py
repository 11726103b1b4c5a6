"""A small template engine shared by every generated BLM family.

A family describes its phenomenon as objects (slots such as NP, PP1, V) with
attributes (number, role, voice...) and named rules. A context template is a
sequence of `Pattern`s produced by the family's relational operators; an
answer-set template names, for each wrong answer, the rules it corrupts, and
each rule is a pure function from the correct pattern to the corrupted one.
A realiser turns a pattern plus lexical material into a `Sentence` that
carries `str(pattern)`, so the construction can be checked from the data
(see `token_diff`) rather than trusted.
"""

from __future__ import annotations

import dataclasses
import difflib
from typing import Callable, Iterable, Mapping

from data_builders.common.schema import Sentence


@dataclasses.dataclass(frozen=True)
class Slot:
  """One object of a pattern: a role plus ordered attributes.

  `str(Slot("NP", (("num", "sg"),)))` is "NP-sg": the role followed by the
  attribute values (empty values are left out).
  """

  role: str
  feats: tuple[tuple[str, str], ...] = ()

  def get(self, key: str, default: str | None = None) -> str | None:
    return dict(self.feats).get(key, default)

  def with_(self, **updates: str) -> "Slot":
    """A copy with some attributes changed (new keys are appended)."""
    feats = dict(self.feats)
    unknown = [k for k in updates if k not in feats]
    feats.update(updates)
    order = [k for k, _ in self.feats] + unknown
    return Slot(self.role, tuple((k, feats[k]) for k in order))

  def __str__(self) -> str:
    return "-".join([self.role] + [v for _, v in self.feats if v])


def slot(role: str, **feats: str) -> Slot:
  return Slot(role, tuple(feats.items()))


@dataclasses.dataclass(frozen=True)
class Pattern:
  """An abstract sentence: an ordered tuple of slots."""

  slots: tuple[Slot, ...]

  def __str__(self) -> str:
    return " ".join(str(s) for s in self.slots)

  def roles(self) -> tuple[str, ...]:
    return tuple(s.role for s in self.slots)

  def index(self, role: str) -> int:
    for i, s in enumerate(self.slots):
      if s.role == role:
        return i
    raise KeyError(f"pattern {self} has no slot {role!r}")

  def has(self, role: str) -> bool:
    return role in self.roles()

  def slot(self, role: str) -> Slot:
    return self.slots[self.index(role)]

  def set(self, role: str, **updates: str) -> "Pattern":
    i = self.index(role)
    return self._with_slots(self.slots[:i] + (self.slots[i].with_(**updates),)
                            + self.slots[i + 1:])

  def replace(self, role: str, new: Slot) -> "Pattern":
    i = self.index(role)
    return self._with_slots(self.slots[:i] + (new,) + self.slots[i + 1:])

  def drop(self, role: str) -> "Pattern":
    i = self.index(role)
    return self._with_slots(self.slots[:i] + self.slots[i + 1:])

  def insert_after(self, role: str, new: Slot) -> "Pattern":
    i = self.index(role) + 1
    return self._with_slots(self.slots[:i] + (new,) + self.slots[i:])

  def swap(self, role_a: str, role_b: str) -> "Pattern":
    i, j = self.index(role_a), self.index(role_b)
    slots = list(self.slots)
    slots[i], slots[j] = slots[j], slots[i]
    return self._with_slots(tuple(slots))

  def _with_slots(self, slots: tuple[Slot, ...]) -> "Pattern":
    return dataclasses.replace(self, slots=slots)


def pattern(*slots: Slot) -> Pattern:
  return Pattern(tuple(slots))


@dataclasses.dataclass(frozen=True)
class Rule:
  """A named rule of the phenomenon and how a wrong answer breaks it."""

  name: str
  description: str
  corrupt: Callable[[Pattern], Pattern]


@dataclasses.dataclass(frozen=True)
class AnswerTemplate:
  """One candidate of the answer set: its label and the rules it breaks."""

  label: str
  breaks: tuple[str, ...] = ()

  def apply(self, correct: Pattern, rules: Mapping[str, Rule]) -> Pattern:
    p = correct
    for name in self.breaks:
      if name not in rules:
        raise KeyError(
            f"answer template {self.label!r} breaks unknown rule {name!r}; "
            f"known rules: {sorted(rules)}")
      p = rules[name].corrupt(p)
    return p


def answer_patterns(correct: Pattern, templates: Iterable[AnswerTemplate],
                    rules: Mapping[str, Rule]) -> dict[str, Pattern]:
  """label -> pattern for a whole answer set (the correct one breaks none)."""
  out = {}
  for t in templates:
    if t.label in out:
      raise ValueError(f"answer label {t.label!r} appears twice")
    out[t.label] = t.apply(correct, rules)
  return out


def realised(text: str, pat: Pattern | str,
             chunks: Iterable[str] = ()) -> Sentence:
  """A Sentence carrying its pattern; chunks, if given, must rebuild it."""
  chunks = tuple(chunks)
  if chunks:
    joined = " ".join(c for c in chunks if c)
    if _squash(joined) != _squash(text):
      raise ValueError(
          f"chunks {list(chunks)!r} do not concatenate to the sentence "
          f"{text!r}")
  return Sentence(text=text, pattern=str(pat), chunks=chunks)


def token_diff(a: str, b: str) -> list[tuple[str, str]]:
  """The differing token spans of two pattern strings, as (a_part, b_part).

  Used to check that a wrong answer differs from the correct one exactly in
  what its label names.
  """
  ta, tb = a.split(), b.split()
  sm = difflib.SequenceMatcher(a=ta, b=tb, autojunk=False)
  return [(" ".join(ta[i1:i2]), " ".join(tb[j1:j2]))
          for op, i1, i2, j1, j2 in sm.get_opcodes() if op != "equal"]


def _squash(s: str) -> str:
  return "".join(s.split())
