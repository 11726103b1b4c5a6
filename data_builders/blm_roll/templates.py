"""Context and answer-set templates of the Roll BLM (000 Figure 10).

The context is two quadruples ("paradigms") over the same four patterns, one
per lexical scene P1, P2:

    1/5  NP-Agent V-roll OBJ-Theme     The man rolled the dice.
    2/6  NP-Agent V-did PRO-Theme      The man did it.        (agent diagnostic)
    3/7  NP-Theme V-was LOC-state      The dice were in the cup.  ("was in")
    4/8  NP-Theme V-roll LOC-path      The dice rolled into the cup.

and the answer completes the second one. Every slot carries the paradigm it
takes its words from (P1/P2), so the paradigm rule is visible in the pattern.

Rules and the labels of 000 Figure 10 (the text calls SCRC "SCRS"):

    P        the answer continues paradigm 2, not paradigm 1's material
    RR       the intransitive's subject is the Theme, not the Agent
    SC-COP   the answer is `V-roll LOC-path`, not the "was" diagnostic
    SC-TRANS the answer is the intransitive, not the transitive of 1/5
    RS       (after SC-TRANS) subject and object roles are swapped

    CORRECT  NP-Theme rollV path        -
    SCRC     NP-Theme rollV NP-Agent    SC-TRANS + RS
    SC-RR    NP-Agent was in-NP-Loc     SC-COP + RR
    RR       NP-Agent rollV path        RR
    PSC-RS   (P1) NP-Theme rollV NP-Agent   P + SC-TRANS + RS
    PSC-RR   (P1) NP-Agent was in-NP-Loc    P + SC-COP + RR
    PC-RR    (P1) NP-Agent rollV path       P + RR

SC-COP and SC-TRANS never occur alone: alone they would repeat context
sentence 7 or 5 verbatim (a copy cue), which is why 000 pairs them with RR/RS.
"""

from __future__ import annotations

from data_builders.common.template import (AnswerTemplate, Pattern, Rule,
                                           pattern, slot)

AGENT, THEME = "Agent", "Theme"
P1, P2 = "P1", "P2"


def _np(role, par):
  return slot("NP", arg=role, par=par)


def _v(kind):
  return slot("V", kind=kind)


def _obj(role, par):
  return slot("OBJ", arg=role, par=par)


def _loc(kind, par):
  return slot("LOC", kind=kind, par=par)


def quadruple(par: str) -> tuple[Pattern, ...]:
  """The four patterns of one paradigm (000 Figure 10, rows 1-4 / 5-7)."""
  return (
      pattern(_np(AGENT, par), _v("roll"), _obj(THEME, par)),
      pattern(_np(AGENT, par), _v("did"), slot("PRO", arg=THEME, par=par)),
      pattern(_np(THEME, par), _v("was"), _loc("state", par)),
      pattern(_np(THEME, par), _v("roll"), _loc("path", par)),
  )


def context_patterns() -> tuple[Pattern, ...]:
  """Seven sentences: paradigm 1 whole, paradigm 2 without its last."""
  return quadruple(P1) + quadruple(P2)[:3]


def correct_pattern() -> Pattern:
  return quadruple(P2)[3]


def _other(role: str) -> str:
  return THEME if role == AGENT else AGENT


def _to_p1(p: Pattern) -> Pattern:
  for role in ("NP", "OBJ", "LOC"):
    if p.has(role):
      p = p.set(role, par=P1)
  return p


def _role_error(p: Pattern) -> Pattern:
  return p.set("NP", arg=AGENT)


def _copula(p: Pattern) -> Pattern:
  return p.set("V", kind="was").set("LOC", kind="state")


def _transitive(p: Pattern) -> Pattern:
  par = p.slot("NP").get("par")
  return p.replace("LOC", _obj(THEME, par)).set("NP", arg=AGENT)


def _role_swap(p: Pattern) -> Pattern:
  subj, obj = p.slot("NP").get("arg"), p.slot("OBJ").get("arg")
  return p.set("NP", arg=obj).set("OBJ", arg=subj)


RULES: dict[str, Rule] = {r.name: r for r in (
    Rule("P", "the answer continues the second paradigm's material", _to_p1),
    Rule("RR", "the intransitive's subject is the Theme (the NP that 'was "
         "in' the location), not the Agent (the NP that 'did it')",
         _role_error),
    Rule("SC-COP", "the answer has the roll verb and the path PP, not the "
         "'was' diagnostic", _copula),
    Rule("SC-TRANS", "the answer is the intransitive, not the transitive",
         _transitive),
    Rule("RS", "subject and object keep their roles (Agent subject, Theme "
         "object) in a transitive", _role_swap),
)}

ANSWERS: tuple[AnswerTemplate, ...] = (
    AnswerTemplate("CORRECT"),
    AnswerTemplate("SCRC", ("SC-TRANS", "RS")),
    AnswerTemplate("SC-RR", ("SC-COP", "RR")),
    AnswerTemplate("RR", ("RR",)),
    AnswerTemplate("PSC-RS", ("P", "SC-TRANS", "RS")),
    AnswerTemplate("PSC-RR", ("P", "SC-COP", "RR")),
    AnswerTemplate("PC-RR", ("P", "RR")),
)
