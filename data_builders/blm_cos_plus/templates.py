"""The COS+ type B templates (002 sec. 4.2, Figure 9): contexts built from
relative-clause diagnostics, and the three-answer set with its rules.

Pattern notation (slot role, then attribute values):

    NP-Ag / NP-Pa      a subject (or a relative clause's head): agent, patient
    V-tr / V-intr      the verb, transitive or intransitive (anticausative)
    OBJ-Pa / OBJ-Ag    the direct object
    REL-subj / REL-obj the relative pronoun and the gap it fills
    PRED               the matrix predicate of a relative-clause sentence

So 002's SVO `Ag Verb Pa` is `NP-Ag V-tr OBJ-Pa`, SagR `Ag rel Verb Pa` is
`NP-Ag REL-subj V-tr OBJ-Pa PRED`, OR `Pa rel Ag Verb` is
`NP-Pa REL-obj NP-Ag V-tr PRED` and SpaR `Pa rel Verb` is
`NP-Pa REL-subj V-intr PRED`.

T2I shows the transitive and probes the intransitive; I2T the reverse. The
correct answer is the missing alternant; each wrong answer breaks one rule:
ROLE (the arguments' roles are swapped: the intransitive's subject is the
agent, or the transitive is reversed, object-verb-subject) or ALTERNANT (the
subject is kept but the valency is that of the alternant the context already
shows: Pa Verb Ag in T2I, Ag Verb in I2T). So Grammar = ROLE and Sequence =
ALTERNANT in both directions, which is 002's naming: the reverse-role
transitive is a Grammar error when the target is the transitive (I2T) and a
Sequence error when it is the intransitive (T2I), and the agent-subject
intransitive the other way round.
"""

from __future__ import annotations

from data_builders.common.template import (AnswerTemplate, Pattern, Rule,
                                           pattern, slot)

DIRECTIONS = ("T2I", "I2T")
AG, PA = "Ag", "Pa"
LABELS = ("Correct", "Grammar", "Sequence")

TRANSITIVE = pattern(slot("NP", arg=AG), slot("V", val="tr"),
                     slot("OBJ", arg=PA))
INTRANSITIVE = pattern(slot("NP", arg=PA), slot("V", val="intr"))
SAGR = pattern(slot("NP", arg=AG), slot("REL", gap="subj"),
               slot("V", val="tr"), slot("OBJ", arg=PA), slot("PRED"))
OR = pattern(slot("NP", arg=PA), slot("REL", gap="obj"), slot("NP", arg=AG),
             slot("V", val="tr"), slot("PRED"))
SPAR = pattern(slot("NP", arg=PA), slot("REL", gap="subj"),
               slot("V", val="intr"), slot("PRED"))

# 002 Figure 9, in order; the first sentence is the alternant shown.
CONTEXTS = {
    "T2I": (("SVO", TRANSITIVE), ("SagR", SAGR), ("OR", OR), ("SpaR", SPAR)),
    "I2T": (("SVO", INTRANSITIVE), ("SpaR", SPAR), ("OR", OR), ("SagR", SAGR)),
}
CORRECT = {"T2I": INTRANSITIVE, "I2T": TRANSITIVE}


def _other(role: str) -> str:
  return PA if role == AG else AG


def _swap_roles(p: Pattern) -> Pattern:
  for name in ("NP", "OBJ"):
    if p.has(name):
      p = p.set(name, arg=_other(p.slot(name).get("arg")))
  return p


def _other_alternant(p: Pattern) -> Pattern:
  """Transitive <-> intransitive, keeping the subject."""
  subj = p.slot("NP").get("arg")
  if p.slot("V").get("val") == "tr":
    return p.drop("OBJ").set("V", val="intr")
  return p.set("V", val="tr").insert_after("V", slot("OBJ", arg=_other(subj)))


RULES: dict[str, Rule] = {r.name: r for r in (
    Rule("ROLE", "the patient is the intransitive's subject, the agent the "
         "transitive's (the COS alternation)", _swap_roles),
    Rule("ALTERNANT", "the answer has the missing alternant's valency "
         "(intransitive in T2I, transitive in I2T)", _other_alternant),
)}

# label -> rules it breaks (the same in both directions, see above).
_ANSWERS = (AnswerTemplate("Correct"), AnswerTemplate("Grammar", ("ROLE",)),
            AnswerTemplate("Sequence", ("ALTERNANT",)))


def answer_templates(direction: str) -> tuple[AnswerTemplate, ...]:
  """Correct, Grammar, Sequence (002 Figure 9)."""
  check_direction(direction)
  return _ANSWERS


def check_direction(direction: str) -> str:
  if direction not in DIRECTIONS:
    raise ValueError(f"unknown direction {direction!r}; known: {DIRECTIONS}")
  return direction


# --- Context-necessary configs (README "Context-necessary configs") --------
#
# The direction (T2I or I2T) is drawn per instance, so either alternant is
# the answer, and the answer set holds both well-formed alternants: Correct
# and Direction (the alternant the context already shows, on other words:
# wrong only because of the direction the context takes). Each gets its ROLE
# error: Grammar = ROLE(Correct) and Sequence = ROLE(Direction), which is
# exactly 002's Sequence pattern (ALTERNANT of Correct) in both directions.
CTX_LABELS = ("Correct", "Grammar", "Sequence", "Direction")
_CTX_ANSWERS = _ANSWERS + (AnswerTemplate("Direction", ("ALTERNANT",
                                                        "ROLE")),)
# The candidates built on the context's material (MinLex: its agent and
# patient); the others take a second pair of the verb (ctx MinLex only).
CTX_ON_CONTEXT_PAIR = ("Correct", "Grammar")


def ctx_answer_templates(direction: str) -> tuple[AnswerTemplate, ...]:
  """Correct, Grammar, Sequence (002 Figure 9) and Direction."""
  check_direction(direction)
  return _CTX_ANSWERS
