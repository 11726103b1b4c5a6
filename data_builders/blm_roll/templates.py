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


def _with_material(p: Pattern, par: str) -> Pattern:
  """`p` with every argument drawn from material `par`."""
  for role in ("NP", "OBJ", "LOC"):
    if p.has(role):
      p = p.set(role, par=par)
  return p


def _to_p1(p: Pattern) -> Pattern:
  return _with_material(p, P1)


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


# --- Context-necessary configs (README "Context-necessary configs") --------
#
# The direction of the alternation is drawn per instance: TI (causative to
# inchoative, the paper's order: transitive, did, was, intransitive; the
# answer is the intransitive) or IT (the mirror order: intransitive, was,
# did, transitive; the answer is the transitive). The answers build on two
# materials of paradigm 2: the context's own (P2: the agent who "did it",
# the location the theme "was in") and a foil D (another agent and another
# location of the same scene, which the context never names). Bases are the
# intransitive I (Theme V path) and the transitive T (Agent V Theme) on each
# material.
#
#   CORRECT  the asked alternant on P2
#   D        the asked alternant on D          (D: agent or location)
#   I-RR     Agent V path on P2                (RR on I)
#   I-D-RR   Agent V path on D                 (RR on I on D)
#   T-RS     Theme V Agent on P2               (RS on T)
#   T-D-RS   Theme V Agent on D                (RS on T on D)
#
# Each material carries the same candidates, so the set is symmetric under
# exchanging P2 and D (drawn alike): neither the words nor the shape of the
# set tell CORRECT from D. The other alternant is on neither material: on
# P2 it is context sentence 5 (a copy cue), and on D alone (blm_roll 1.1.0's
# ALT-D) it marked D as the material with the extra candidate, the cue the
# README names.

FOIL = "D"
TI, IT = "TI", "IT"
DIRECTIONS = (TI, IT)


def reversed_quadruple(par: str) -> tuple[Pattern, ...]:
  """The mirror of `quadruple`: intransitive, 'was in', 'did it',
  transitive."""
  return tuple(reversed(quadruple(par)))


def ctx_context_patterns(direction: str) -> tuple[Pattern, ...]:
  q = {TI: quadruple, IT: reversed_quadruple}[direction]
  return q(P1) + q(P2)[:3]


def ctx_correct_pattern(direction: str) -> Pattern:
  return {TI: quadruple, IT: reversed_quadruple}[direction](P2)[3]


def _to_foil(p: Pattern) -> Pattern:
  return _with_material(p, FOIL)


def _alternant(p: Pattern) -> Pattern:
  """Intransitive (Theme V path) <-> transitive (Agent V Theme), same
  material."""
  par = p.slot("NP").get("par")
  if p.has("LOC"):
    return pattern(_np(AGENT, par), _v("roll"), _obj(THEME, par))
  return pattern(_np(THEME, par), _v("roll"), _loc("path", par))


CTX_RULES: dict[str, Rule] = {r.name: r for r in (
    RULES["RR"], RULES["RS"],
    Rule("D", "the answer's agent is the one who 'did it' and its location "
         "the one the theme 'was in' (not another of the scene's)",
         _to_foil),
    Rule("ALT", "the answer is the alternant the context's order asks for "
         "(intransitive after transitive, did, was; transitive after "
         "intransitive, was, did)", _alternant),
)}

CTX_LABELS = ("CORRECT", "D", "I-RR", "I-D-RR", "T-RS", "T-D-RS")
# label -> (base alternant, material, rule applied to that base)
CTX_CONSTRUCTION = {
    "CORRECT": ("asked", P2, None), "D": ("asked", FOIL, None),
    "I-RR": ("I", P2, "RR"),
    "I-D-RR": ("I", FOIL, "RR"), "T-RS": ("T", P2, "RS"),
    "T-D-RS": ("T", FOIL, "RS"),
}


def ctx_answers(direction: str) -> tuple[AnswerTemplate, ...]:
  """The rules each label breaks, counted from the correct answer."""
  asked = "I" if direction == TI else "T"
  out = []
  for label in CTX_LABELS:
    base, material, rule = CTX_CONSTRUCTION[label]
    breaks = []
    if base not in ("asked", asked):
      breaks.append("ALT")
    if material == FOIL:
      breaks.append("D")
    if rule:
      breaks.append(rule)
    out.append(AnswerTemplate(label, tuple(breaks)))
  return tuple(out)
