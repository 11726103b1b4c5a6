"""The sequence-necessary agreement template: 000 Figure 3's progressions
with their rule drawn per instance (README "Sequence-necessary configs").

000 Figure 3's context is a progression over the subject's number
(alternating every sentence), N1's number (every two sentences), the number
of attractors (one in sentences 1-4, two in 5-8) and N2's number (constant).
Here each number progression follows a rule drawn per instance from the
periods the figure uses, at every phase and from either number, and a
fourth attribute, orthogonal to agreement, progresses by a rule of its own:
whether the sentence is a main clause or a completive embedded under the
instance's matrix clause ("John thinks that ..."; the lexicon's prefixes):

- subject, N1 and embedding, over sentences 1-8: constant, period 1, period
  2 (two phases) or period 4 (a step, four phases); 8 rules x 2 starting
  values, each of the 16 sequences fixed by its first seven terms;
- N2, over sentences 4-8 (where it exists): constant, period 1, period 2
  from the block's start, or period 4 in the two phases that flip it once
  inside the block (after its third or its first term); 5 rules x 2
  starting values, each of the 10 five-term sequences fixed by its first
  four, so N2 is seen on four context sentences, like every other attribute
  on at least four: no reader has to know the family's rules to continue a
  three-term N2 (periods 1 and 2 alone would repeat sentence 4's N2 in
  sentence 8; the period-4 rules balance that);
- the number of attractors keeps the figure's step (one, then two), a
  sentence earlier: one attractor in sentences 1-3, two in 4-8.

No single sentence, and no pair, tells the subject's, N1's or the
embedding's value in sentence 8 more than 10 times in 16, nor N2's number
more than 6 times in 10; the seven sentences tell all four (the tests
enumerate it). Inside the completive the subject-verb agreement is the
main clause's.

The answer set: the sixteen well-formed two-attractor continuations (every
subject, N1 and N2 number and either embedding, the verb agreeing), which
the family's other rules predict, and the five rule-breaking candidates of
000 Figure 3 (Coord, WNA, AEV, AEN1, AEN2), each built on a continuation
drawn per instance, so that they tell nothing about which continuation is
correct. A label names what differs from the correct answer: WS (the
subject's number, the verb agreeing), WN1, WN2, WEMB (the embedding),
joined by `-`, then the rule a rule-breaking candidate breaks
(`WS-WN1-WEMB-Coord`: Coord built on the continuation with the other
subject and N1 numbers and the other embedding).
"""

from __future__ import annotations

import dataclasses
import itertools
import random

from data_builders.blm_agreement import templates
from data_builders.common import labels
from data_builders.common.template import (AnswerTemplate, Pattern, Rule,
                                           slot)

FAMILY = "agreement_seq"
LENGTH = 8  # Seven context sentences and the answer.
EMBEDDINGS = ("main", "compl")  # A main clause; a completive (Prefix + clause).
N2_FROM = 3  # N2 exists from sentence 4 (index 3) on.
# (period, phase); period 0 is constant.
LONG_RULES = ((0, 0), (1, 0), (2, 0), (2, 1), (4, 0), (4, 1), (4, 2), (4, 3))
N2_RULES = ((0, 0), (1, 0), (2, 0), (4, 1), (4, 3))


@dataclasses.dataclass(frozen=True)
class Progression:
  """A two-valued progression (`values`: a number's or the embedding's):
  flips every `period` terms from `phase`."""

  period: int
  phase: int
  start: str
  values: tuple[str, str] = templates.NUMBERS

  def terms(self, length: int) -> tuple[str, ...]:
    if self.period == 0:
      return (self.start,) * length
    flip = self.values[1 - self.values.index(self.start)]
    return tuple(self.start if (i + self.phase) // self.period % 2 == 0
                 else flip for i in range(length))

  @property
  def code(self) -> str:
    return f"p{self.period}{self.phase}{self.start}"


def sentence_pattern(clause: str, embedding: str, subj: str, n1: str,
                     n2: str | None, verb: str | None = None) -> Pattern:
  """`templates.sentence_pattern` of a main or relative clause, after the
  matrix clause (`Prefix`) if `embedding` is the completive."""
  p = templates.sentence_pattern(clause, subj, n1, n2, verb)
  return _embed(p) if embedding == EMBEDDINGS[1] else p


def _embed(p: Pattern) -> Pattern:
  return Pattern((slot(templates.PREFIX),) + p.slots)


def _flip_subject(p: Pattern) -> Pattern:
  s = templates.other(p.slot(templates.NP).get("num"))
  return p.set(templates.NP, num=s).set(templates.VP, num=s)


def _flip_embedding(p: Pattern) -> Pattern:
  return p.drop(templates.PREFIX) if p.has(templates.PREFIX) else _embed(p)


RULES: dict[str, Rule] = dict(templates.RULES, subject_number=Rule(
    "subject_number", "the subject's number continues its progression (the "
    "verb agreeing)", _flip_subject), clause_embedding=Rule(
        "clause_embedding", "main clause or completive under the matrix "
        "clause continues its progression", _flip_embedding))
# Which continuation (base) a label names: WS / WN1 / WN2 flip that number,
# WEMB the embedding.
BASE_RULES = (("WS", "subject_number"), ("WN1", "n1_number"),
              ("WN2", "n2_number"), ("WEMB", "clause_embedding"))
ERRORS = {t.label: t.breaks for t in templates.ANSWERS
          if t.label in ("Coord", "WNA", "AEV", "AEN1", "AEN2")}
# The numbers an error's candidate keeps from its base (its embedding is
# always kept): WNA has no N2, an agreement error's attractors follow its
# subject (`templates._lure`).
ERROR_BASE_ROLES = {"Coord": 3, "WNA": 2, "AEV": 1, "AEN1": 1, "AEN2": 1}


def _base_name(flips) -> str:
  return "-".join(n for (n, _), f in zip(BASE_RULES, flips) if f)


def _template(flips: tuple[int, ...], error: str = "") -> AnswerTemplate:
  base = _base_name(flips)
  label = "-".join(x for x in (base, error) if x) or "Corr"
  breaks = tuple(r for (_, r), f in zip(BASE_RULES, flips) if f)
  return AnswerTemplate(label, breaks + (ERRORS[error] if error else ()))


def _order(flips):
  """Corr, WS, WN1, WN2, WS-WN1, WS-WN2, WN1-WN2, WS-WN1-WN2, then the same
  with WEMB."""
  return flips[3], sum(flips[:3]), tuple(-f for f in flips[:3])


def _error_base(flips: tuple[int, ...], error: str) -> tuple[int, ...]:
  """The base an error's candidate can show: the numbers it keeps, and the
  embedding."""
  k = ERROR_BASE_ROLES[error]
  return flips[:k] + (0,) * (3 - k) + flips[3:]


BASES = tuple(sorted(itertools.product((0, 1), repeat=4), key=_order))
BASE_TEMPLATES = tuple(_template(f) for f in BASES)
ERROR_TEMPLATES = {
    (e, f): _template(f, e) for e in ERROR_BASE_ROLES
    for f in sorted({_error_base(b, e) for b in BASES}, key=_order)}
# The label inventory's order: without WEMB, then with it.
ALL_TEMPLATES = tuple(
    t for emb in (0, 1) for t in
    tuple(t for f, t in zip(BASES, BASE_TEMPLATES) if f[3] == emb)
    + tuple(t for (_, f), t in ERROR_TEMPLATES.items() if f[3] == emb))
assert tuple(t.label for t in ALL_TEMPLATES) == labels.family_labels(FAMILY)


@dataclasses.dataclass(frozen=True)
class Plan:
  """One instance's progressions and the bases of its rule-breaking
  candidates (`errors`: error label -> flips of its base)."""

  s: Progression
  n1: Progression
  n2: Progression
  emb: Progression
  errors: tuple[tuple[str, tuple[int, ...]], ...]

  @property
  def code(self) -> str:
    err = ".".join("".join(map(str, f)) for _, f in self.errors)
    return (f"{self.s.code}_{self.n1.code}_{self.n2.code}_{self.emb.code}_"
            f"{err}")

  def all_terms(self) -> tuple[tuple[str, str, str, str | None], ...]:
    """`terms(i)` of every sentence, each progression computed once."""
    n2 = self.n2.terms(LENGTH - N2_FROM)
    emb, s, n1 = (self.emb.terms(LENGTH), self.s.terms(LENGTH),
                  self.n1.terms(LENGTH))
    return tuple((emb[i], s[i], n1[i], n2[i - N2_FROM] if i >= N2_FROM
                  else None) for i in range(LENGTH))

  def terms(self, i: int) -> tuple[str, str, str, str | None]:
    """The embedding, then the subject's, N1's and N2's numbers of
    sentence i (0-based; N2 None before sentence 4)."""
    return self.all_terms()[i]

  def context_terms(self) -> tuple[tuple[str, str, str, str | None], ...]:
    return self.all_terms()[:LENGTH - 1]

  def context_patterns(self, clause: str) -> tuple[Pattern, ...]:
    return context_patterns_of(clause, self.context_terms())

  def correct_pattern(self, clause: str) -> Pattern:
    return sentence_pattern(clause, *self.terms(LENGTH - 1))

  @property
  def answers(self) -> tuple[AnswerTemplate, ...]:
    """The 21 answer templates, the correct one first."""
    return answer_templates(self.errors)


def context_patterns_of(clause: str, terms: tuple) -> tuple[Pattern, ...]:
  """The seven context sentences' patterns for these `Plan.context_terms`
  (a function of the terms, so that the generator can memoise it by them:
  they repeat across instances where whole plans rarely do)."""
  return tuple(sentence_pattern(clause, *t) for t in terms)


def answer_templates(errors) -> tuple[AnswerTemplate, ...]:
  """The answer templates of a plan with these `errors`."""
  return BASE_TEMPLATES + tuple(ERROR_TEMPLATES[e] for e in errors)


def draw_plan(rng: random.Random) -> Plan:
  """Uniform over the rules, starting values and error bases."""

  def rule(family, values=templates.NUMBERS):
    return Progression(*rng.choice(family), rng.choice(values), values)

  s, n1, n2 = rule(LONG_RULES), rule(LONG_RULES), rule(N2_RULES)
  emb = rule(LONG_RULES, EMBEDDINGS)
  errors = []
  for e in ERROR_BASE_ROLES:
    f = tuple(rng.randrange(2) for _ in range(4))
    errors.append((e, _error_base(f, e)))
  return Plan(s, n1, n2, emb, tuple(errors))
