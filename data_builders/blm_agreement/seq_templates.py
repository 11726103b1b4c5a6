"""The sequence-necessary agreement template: 000 Figure 3's progressions
with their rule drawn per instance (README "Sequence-necessary configs").

000 Figure 3's context is a progression over the subject's number
(alternating every sentence), N1's number (every two sentences), the number
of attractors (one in sentences 1-4, two in 5-8) and N2's number (constant).
Here each number progression follows a rule drawn per instance from the
periods the figure uses, at every phase and from either number:

- subject and N1, over sentences 1-8: constant, period 1, period 2 (two
  phases) or period 4 (a step, four phases); 8 rules x 2 starting numbers,
  each of the 16 sequences fixed by its first seven terms;
- N2, over sentences 5-8 (where it exists): constant, period 1 or period 2
  (two phases); these 8 sequences are the 4-term ones whose last term is the
  parity of the first three, so it needs all three of sentences 5-7;
- the number of attractors keeps the figure's step (one, then two).

No single sentence, and no pair, tells the subject's or N1's number in
sentence 8 more than 10 times in 16, nor N2's number more than half the time;
the seven sentences tell all three (the tests enumerate it).

The answer set: the eight well-formed two-attractor continuations (every
subject, N1 and N2 number, the verb agreeing), which the family's other
rules predict, and the five rule-breaking candidates of 000 Figure 3 (Coord,
WNA, AEV, AEN1, AEN2), each built on a continuation drawn per instance, so
that they tell nothing about which continuation is correct. A label names
what differs from the correct answer: WS (the subject's number, the verb
agreeing), WN1, WN2, joined by `-`, then the rule a rule-breaking candidate
breaks (`WS-WN1-Coord`: Coord built on the continuation with the other
subject and N1 numbers).
"""

from __future__ import annotations

import dataclasses
import itertools
import random

from data_builders.blm_agreement import templates
from data_builders.common import labels
from data_builders.common.template import AnswerTemplate, Pattern, Rule

FAMILY = "agreement_seq"
LENGTH = 8  # Seven context sentences and the answer.
N2_FROM = 4  # N2 exists from sentence 5 (index 4) on.
# (period, phase); period 0 is constant.
LONG_RULES = ((0, 0), (1, 0), (2, 0), (2, 1), (4, 0), (4, 1), (4, 2), (4, 3))
N2_RULES = ((0, 0), (1, 0), (2, 0), (2, 1))


@dataclasses.dataclass(frozen=True)
class NumberRule:
  """A number progression: flips every `period` terms from `phase`."""

  period: int
  phase: int
  start: str

  def numbers(self, length: int) -> tuple[str, ...]:
    if self.period == 0:
      return (self.start,) * length
    return tuple(self.start if (i + self.phase) // self.period % 2 == 0
                 else templates.other(self.start) for i in range(length))

  @property
  def code(self) -> str:
    return f"p{self.period}{self.phase}{self.start}"


def _flip_subject(p: Pattern) -> Pattern:
  s = templates.other(p.slot(templates.NP).get("num"))
  return p.set(templates.NP, num=s).set(templates.VP, num=s)


RULES: dict[str, Rule] = dict(templates.RULES, subject_number=Rule(
    "subject_number", "the subject's number continues its progression (the "
    "verb agreeing)", _flip_subject))
# Which continuation (base) a label names: WS / WN1 / WN2 flip that number.
BASE_RULES = (("WS", "subject_number"), ("WN1", "n1_number"),
              ("WN2", "n2_number"))
ERRORS = {t.label: t.breaks for t in templates.ANSWERS
          if t.label in ("Coord", "WNA", "AEV", "AEN1", "AEN2")}
# The numbers an error's candidate keeps from its base: WNA has no N2, an
# agreement error's attractors follow its subject (`templates._lure`).
ERROR_BASE_ROLES = {"Coord": 3, "WNA": 2, "AEV": 1, "AEN1": 1, "AEN2": 1}


def _base_name(flips) -> str:
  return "-".join(n for (n, _), f in zip(BASE_RULES, flips) if f)


def _template(flips: tuple[int, ...], error: str = "") -> AnswerTemplate:
  base = _base_name(flips)
  label = "-".join(x for x in (base, error) if x) or "Corr"
  breaks = tuple(r for (_, r), f in zip(BASE_RULES, flips) if f)
  return AnswerTemplate(label, breaks + (ERRORS[error] if error else ()))


def _order(flips):
  """Corr, WS, WN1, WN2, WS-WN1, WS-WN2, WN1-WN2, WS-WN1-WN2."""
  return sum(flips), tuple(-f for f in flips)


BASES = tuple(sorted(itertools.product((0, 1), repeat=3), key=_order))
BASE_TEMPLATES = tuple(_template(f) for f in BASES)
ERROR_TEMPLATES = {
    (e, f): _template(f, e) for e, k in ERROR_BASE_ROLES.items()
    for f in sorted({b[:k] + (0,) * (3 - k) for b in BASES}, key=_order)}
ALL_TEMPLATES = BASE_TEMPLATES + tuple(ERROR_TEMPLATES.values())
assert tuple(t.label for t in ALL_TEMPLATES) == labels.family_labels(FAMILY)


@dataclasses.dataclass(frozen=True)
class Plan:
  """One instance's progressions and the bases of its rule-breaking
  candidates (`errors`: error label -> flips of its base)."""

  s: NumberRule
  n1: NumberRule
  n2: NumberRule
  errors: tuple[tuple[str, tuple[int, ...]], ...]

  @property
  def code(self) -> str:
    err = ".".join("".join(map(str, f)) for _, f in self.errors)
    return f"{self.s.code}_{self.n1.code}_{self.n2.code}_{err}"

  def numbers(self, i: int) -> tuple[str, str, str | None]:
    """Subject, N1 and N2 numbers of sentence i (0-based; N2 None before
    sentence 5)."""
    n2 = self.n2.numbers(LENGTH - N2_FROM)
    return (self.s.numbers(LENGTH)[i], self.n1.numbers(LENGTH)[i],
            n2[i - N2_FROM] if i >= N2_FROM else None)

  def context_patterns(self, clause: str) -> tuple[Pattern, ...]:
    return tuple(templates.sentence_pattern(clause, *self.numbers(i))
                 for i in range(LENGTH - 1))

  def correct_pattern(self, clause: str) -> Pattern:
    return templates.sentence_pattern(clause, *self.numbers(LENGTH - 1))

  @property
  def answers(self) -> tuple[AnswerTemplate, ...]:
    """The 13 answer templates, the correct one first."""
    return BASE_TEMPLATES + tuple(ERROR_TEMPLATES[e] for e in self.errors)


def draw_plan(rng: random.Random) -> Plan:
  """Uniform over the rules, starting numbers and error bases."""

  def rule(family):
    return NumberRule(*rng.choice(family), rng.choice(templates.NUMBERS))

  s, n1, n2 = rule(LONG_RULES), rule(LONG_RULES), rule(N2_RULES)
  errors = []
  for e, k in ERROR_BASE_ROLES.items():
    f = tuple(rng.randrange(2) for _ in range(k))
    errors.append((e, f + (0,) * (3 - k)))
  return Plan(s, n1, n2, tuple(errors))
