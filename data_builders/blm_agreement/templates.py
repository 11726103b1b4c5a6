"""The agreement BLM template of 000 Figure 3, as patterns and named rules.

Context (7 sentences): the subject's number alternates every sentence, the
first attractor's (N1) every two sentences, and the number of attractors
progresses from one (sentences 1-4) to two (5-7); the second attractor (N2)
keeps one number. The answer (sentence 8) continues all three progressions.

A `NumberVariant` fixes the starting numbers: Figure 3 is
`NumberVariant("sg", "sg", "sg")`; the other seven variants apply the same
rules from other starting values (the published release also varies them), so
one seed yields eight type I instances.

The eight candidates (000 Figure 3, labels of `data_builders.common.labels`) break named
rules of the correct pattern. For the three agreement errors Figure 3 also
fixes the attractor numbers: the wrong verb agrees with no noun (AEV), with N1
only (AEN1) or with N2 only (AEN2). Stated as rules over the subject's number,
this reproduces Figure 3 exactly for its variant and keeps the eight
candidates distinct for every variant (the published French data, which
copies one configuration, makes AEN1 and AEN2 the same string).

Differences from the published release, following the paper: WNA drops the
second attractor (Figure 3: `NP-pl PP1-pl VP-pl`; the release adds a third
one instead), and no candidate is duplicated. With this template WN1 repeats
context sentence 6 and WNA repeats sentence 4 in type I (the copy cue);
`AgreementConfig.keep_copy_cue=False` removes it (see `generate.py`).
"""

from __future__ import annotations

import dataclasses

from data_builders.common import labels
from data_builders.common.template import (AnswerTemplate, Pattern, Rule,
                                           pattern, slot)

FAMILY = "agreement"
NUMBERS = ("sg", "pl")
CLAUSE_TYPES = ("main", "relative", "completive")

# Pattern roles, in sentence order. `Prefix` is the completive clause's
# matrix ("John thinks that"), `RC` a relative clause placed after PP1/PP2:
# it attaches to the nearest noun (the last attractor), as in the published
# release, not to the subject, and the subject-verb dependency crosses it.
PREFIX, NP, PP1, PP2, COORD, RC, VP = (
    "Prefix", "NP", "PP1", "PP2", "Coord2", "RC", "VP")
NOUN_ROLES = (NP, PP1, PP2, COORD)


def other(num: str) -> str:
  return "pl" if num == "sg" else "sg"


@dataclasses.dataclass(frozen=True)
class NumberVariant:
  """Starting numbers: subject (s0), first attractor (n1), second (n2)."""

  s0: str
  n1: str
  n2: str

  @property
  def code(self) -> str:
    return f"{self.s0}{self.n1}{self.n2}"


FIGURE_3 = NumberVariant("sg", "sg", "sg")
VARIANTS = tuple(NumberVariant(a, b, c)
                 for a in NUMBERS for b in NUMBERS for c in NUMBERS)


def sentence_pattern(clause: str, subj: str, n1: str, n2: str | None,
                     verb: str | None = None) -> Pattern:
  """One sentence: [Prefix] NP PP1 [PP2] [RC] VP; the verb agrees by default."""
  if clause not in CLAUSE_TYPES:
    raise ValueError(f"unknown clause type {clause!r}; known: {CLAUSE_TYPES}")
  slots = []
  if clause == "completive":
    slots.append(slot(PREFIX))
  slots += [slot(NP, num=subj), slot(PP1, num=n1)]
  if n2 is not None:
    slots.append(slot(PP2, num=n2))
  if clause == "relative":
    slots.append(slot(RC))
  slots.append(slot(VP, num=verb or subj))
  return pattern(*slots)


def context_patterns(clause: str, v: NumberVariant) -> tuple[Pattern, ...]:
  """The seven context patterns (000 Figure 3 for `FIGURE_3`)."""
  out = []
  for i in range(7):
    subj = v.s0 if i % 2 == 0 else other(v.s0)
    n1 = v.n1 if i in (0, 1, 4, 5) else other(v.n1)
    n2 = v.n2 if i >= 4 else None
    out.append(sentence_pattern(clause, subj, n1, n2))
  return tuple(out)


def correct_pattern(clause: str, v: NumberVariant) -> Pattern:
  """Sentence 8: every progression continued."""
  return sentence_pattern(clause, other(v.s0), other(v.n1), v.n2)


def _flip(role: str):
  return lambda p: p.set(role, num=other(p.slot(role).get("num")))


def _subject(p: Pattern) -> str:
  return p.slot(NP).get("num")


def _lure(n1_agrees: bool, n2_agrees: bool):
  """Attractor numbers for a wrong verb: only the named nouns share it."""

  def corrupt(p: Pattern) -> Pattern:
    s = _subject(p)
    return (p.set(PP1, num=other(s) if n1_agrees else s)
            .set(PP2, num=other(s) if n2_agrees else s))

  return corrupt


def _coordinate(p: Pattern) -> Pattern:
  return p.replace(PP2, slot(COORD, num=p.slot(PP2).get("num")))


RULES: dict[str, Rule] = {r.name: r for r in (
    Rule("agreement", "the verb agrees in number with the subject NP",
         lambda p: p.set(VP, num=other(_subject(p)))),
    Rule("n1_number", "N1's number alternates every two sentences",
         _flip(PP1)),
    Rule("n2_number", "N2 keeps the number it has in the context", _flip(PP2)),
    Rule("attractor_count", "attractors progress from one to two",
         lambda p: p.drop(PP2)),
    Rule("embedding", "the second attractor is embedded in the first",
         _coordinate),
    # Not rules of the sequence: which noun the wrong verb of an agreement
    # error matches (000 Figure 3 fixes it per label).
    Rule("lure_none", "no noun shares the wrong verb's number",
         _lure(False, False)),
    Rule("lure_n1", "only N1 shares the wrong verb's number",
         _lure(True, False)),
    Rule("lure_n2", "only N2 shares the wrong verb's number",
         _lure(False, True)),
)}

ANSWERS: tuple[AnswerTemplate, ...] = (
    AnswerTemplate("Corr"),
    AnswerTemplate("Coord", ("embedding",)),
    AnswerTemplate("WNA", ("attractor_count",)),
    AnswerTemplate("WN1", ("n1_number",)),
    AnswerTemplate("WN2", ("n2_number",)),
    AnswerTemplate("AEV", ("agreement", "lure_none")),
    AnswerTemplate("AEN1", ("agreement", "lure_n1")),
    AnswerTemplate("AEN2", ("agreement", "lure_n2")),
)
assert tuple(t.label for t in ANSWERS) == labels.family_labels(FAMILY)

# BLM-AgrF's 6-candidate answer set (001 Figure 3; 003 Figures 2 and 6):
# Coord, correct, WNA, AE, WN1, WN2. AE is the verb agreeing with no noun:
# 003 Figure 2's AE (`NP-sg PP1-sg PP2-sg VP-pl`) has that shape, and it is
# 000 Figure 3's AEV. The figures draw Coord, WNA and AE from the subject's
# other number (and 001 Figure 3 prints WN1 as the correct sentence); we
# apply each rule to the correct pattern, as for the 8-candidate set, so each
# wrong answer differs from the correct one in what its label names.
FAMILY_AGRF = "agreement6"
ANSWERS_AGRF: tuple[AnswerTemplate, ...] = (
    AnswerTemplate("Corr"),
    AnswerTemplate("Coord", ("embedding",)),
    AnswerTemplate("WNA", ("attractor_count",)),
    AnswerTemplate("WN1", ("n1_number",)),
    AnswerTemplate("WN2", ("n2_number",)),
    AnswerTemplate("AE", ("agreement", "lure_none")),
)
assert tuple(t.label for t in ANSWERS_AGRF) == labels.family_labels(
    FAMILY_AGRF)


def parse_pattern(text: str) -> dict[str, str | None]:
  """Role -> number (None for unnumbered roles) of a pattern string."""
  out = {}
  for tok in text.split():
    role, _, num = tok.partition("-")
    out[role] = num or None
  return out


# --- Context-necessary answer sets (configs `<lang>_ctx_type_*` and
# `<fr|it>_agrf6_ctx_type_*`, README "Context-necessary configs"). ----------
# Two number variants that differ only in N1's starting number (`phase_pair`)
# show N1 alternating in opposite phases; their sentence 8 differs only in
# N1's number, so each one's Corr is the other one's WN1. The answer set
# holds both, each with its own Coord, WNA and WN2 (on WN1: `WN1-<label>`,
# the label's rule broken on WN1). The mirror of WN1 is Corr, and the
# agreement errors are the same sentences on either base (their attractor
# numbers follow the subject, `_lure`), so they keep their labels. The answer
# sets of a variant and of its phase pair are the same sentences: only the
# context's N1 phase tells which one is Corr.
FAMILY_CTX = "agreement_ctx"
FAMILY_AGRF_CTX = "agreement6_ctx"
PHASE_BASE = "WN1"  # The other phase's correct answer.
MIRRORED = ("Coord", "WNA", "WN2")


def mirrored_label(label: str) -> str:
  """The label of `label`'s rule broken on the other phase's answer."""
  return f"{PHASE_BASE}-{label}"


def phase_pair(v: NumberVariant) -> NumberVariant:
  """The variant whose context shows N1 in the other phase."""
  return NumberVariant(v.s0, other(v.n1), v.n2)


def _with_mirrors(answers: tuple[AnswerTemplate, ...]):
  base = {t.label: t for t in answers}[PHASE_BASE].breaks
  return answers + tuple(
      AnswerTemplate(mirrored_label(t.label), base + t.breaks)
      for t in answers if t.label in MIRRORED)


ANSWERS_CTX = _with_mirrors(ANSWERS)
ANSWERS_AGRF_CTX = _with_mirrors(ANSWERS_AGRF)
assert tuple(t.label for t in ANSWERS_CTX) == labels.family_labels(
    FAMILY_CTX)
assert tuple(t.label for t in ANSWERS_AGRF_CTX) == labels.family_labels(
    FAMILY_AGRF_CTX)
