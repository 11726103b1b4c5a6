"""The Italian sequence-of-tense BLM: our template for 000 sec. 3.2.5.

The paper names the phenomenon (se-allora hypotheticals whose premise and
consequent must agree in tense and mood: subjunctive and conditional in the
present and past, indicative future and future perfect, marked for person
and number) but gives no template; this one follows the style of 000 Figure
3 and of the Mixture template (appendix 11.1), whose tense pairs it shares.
The rules, stated as the papers state Figure 3's:

 (i)   mood: a subjunctive premise (se + congiuntivo) takes a conditional
       consequent, an indicative premise an indicative one;
 (ii)  tense: the pairs are IFut-IFut, IFutAnt-IFut (real), CPas-CnPr,
       CTrPas-CnPas (counterfactual): a pair is its reality (real or
       counterfactual) and its anteriority (simple or anterior premise);
 (iii) agreement: both clauses share one null subject; their verbs agree
       with it in person and number, participles and adjectives in number
       and gender;
 (iv)  sequence: the matrix speaks of one subject (person and gender
       constant); the number alternates every sentence; the tense pair
       advances every two sentences along the cycle IFut-IFut, IFutAnt-IFut,
       CPas-CnPr, CTrPas-CnPas (back to IFut-IFut): the anteriority flips
       with every pair, the reality every two pairs.

Each instance draws where the cycle and the alternation start, its person
and its gender: sentence 8 may be any pair in any number and person, and
only the context says which. Every candidate is a grammatical sentence with
a canonical pair (i-iii hold in all six); each wrong answer breaks exactly
one clause of rule (iv), so it is wrong only relative to the context:

  WNUM   the number of sentence 7 again (the alternation)
  WANT   the other anteriority in the same reality (the pair cycle)
  WREAL  the other reality with the same anteriority (the pair cycle)
  WPER   another person (the one subject)
  WGEN   the other gender (the one subject)

Rules (i)-(iii) are what every sentence obeys, and a violation of them would
be visible without the context (the version 1 answer set was solved from the
answers alone that way).
"""

from __future__ import annotations

from typing import NamedTuple

from data_builders.blm_sequence_of_tense import italian
from data_builders.blm_sequence_of_tense.realise import (CONS, CONS_A, PREM,
                                                         PREM_A)
from data_builders.common.template import (AnswerTemplate, Pattern, Rule,
                                           answer_patterns, pattern, slot)

FAMILY = "sequence_of_tense"
CORRECT = "CORRECT"
# Rule (iv)'s cycle; each pair is (reality, anteriority) by its index:
# reality = index // 2 (0 real, 1 counterfactual), anteriority = index % 2.
TENSE_PAIRS = (("IFut", "IFut"), ("IFutAnt", "IFut"), ("CPas", "CnPr"),
               ("CTrPas", "CnPas"))
N_CONTEXT = 7


def other(number: str) -> str:
  return "pl" if number == "sg" else "sg"


def other_gender(gender: str) -> str:
  return "f" if gender == "m" else "m"


class Progression(NamedTuple):
  """What an instance draws for rule (iv): the cycle's first pair (an index
  of TENSE_PAIRS), the first sentence's number, the subject's person and
  gender, and the person WPER uses instead."""

  first_pair: int
  first_number: str
  person: str
  gender: str
  wrong_person: str


def hypothetical(premise: str, consequent: str, person: str, number: str,
                 gender: str) -> Pattern:
  """One se-allora sentence whose clauses share one subject."""
  pn = italian.person_number(person, number)
  return pattern(slot(PREM, tense=premise, pn=pn),
                 slot(PREM_A, gen=gender, num=number),
                 slot(CONS, tense=consequent, pn=pn),
                 slot(CONS_A, gen=gender, num=number))


def pair_index(i: int, prog: Progression) -> int:
  """The TENSE_PAIRS index of sentence i (0-based): rule (iv)."""
  return (prog.first_pair + i // 2) % len(TENSE_PAIRS)


def row(i: int, prog: Progression) -> Pattern:
  """Sentence i (0-based) of the matrix: rule (iv)."""
  premise, consequent = TENSE_PAIRS[pair_index(i, prog)]
  number = prog.first_number if i % 2 == 0 else other(prog.first_number)
  return hypothetical(premise, consequent, prog.person, number, prog.gender)


def context_patterns(prog: Progression) -> tuple[Pattern, ...]:
  return tuple(row(i, prog) for i in range(N_CONTEXT))


def correct_pattern(prog: Progression) -> Pattern:
  return row(N_CONTEXT, prog)


def _pair_of(p: Pattern) -> int:
  return TENSE_PAIRS.index((p.slot(PREM).get("tense"),
                            p.slot(CONS).get("tense")))


def _with_pair(p: Pattern, index: int) -> Pattern:
  premise, consequent = TENSE_PAIRS[index]
  return p.set(PREM, tense=premise).set(CONS, tense=consequent)


def _with_subject(p: Pattern, person: str | None = None,
                  number: str | None = None,
                  gender: str | None = None) -> Pattern:
  """The whole sentence with another subject: both verbs, participles and
  adjectives agree with it (rule iii is kept)."""
  old_person, old_number = italian.split_pn(p.slot(PREM).get("pn"))
  person, number = person or old_person, number or old_number
  gender = gender or p.slot(PREM_A).get("gen")
  pn = italian.person_number(person, number)
  return (p.set(PREM, pn=pn).set(CONS, pn=pn)
          .set(PREM_A, gen=gender, num=number)
          .set(CONS_A, gen=gender, num=number))


def rules(prog: Progression) -> dict[str, Rule]:
  """Rule (iv)'s clauses and how a wrong answer breaks each; WPER's person
  is the instance's draw."""
  return {r.name: r for r in (
      Rule("number", "(iv) the number alternates every sentence: broken by "
           "sentence 7's number", lambda p: _with_subject(
               p, number=other(italian.split_pn(p.slot(PREM).get("pn"))[1]))),
      Rule("anteriority", "(iv) the anteriority flips with every pair: "
           "broken by the other anteriority in the same reality",
           lambda p: _with_pair(p, _pair_of(p) ^ 1)),
      Rule("reality", "(iv) the reality changes every two pairs: broken by "
           "the other reality with the same anteriority",
           lambda p: _with_pair(p, _pair_of(p) ^ 2)),
      Rule("person", "(iv) one subject: broken by another person",
           lambda p: _with_subject(p, person=prog.wrong_person)),
      Rule("gender", "(iv) one subject: broken by the other gender",
           lambda p: _with_subject(
               p, gender=other_gender(p.slot(PREM_A).get("gen")))),
  )}


ANSWERS: tuple[AnswerTemplate, ...] = (
    AnswerTemplate(CORRECT),
    AnswerTemplate("WNUM", ("number",)),
    AnswerTemplate("WANT", ("anteriority",)),
    AnswerTemplate("WREAL", ("reality",)),
    AnswerTemplate("WPER", ("person",)),
    AnswerTemplate("WGEN", ("gender",)),
)
LABELS = tuple(t.label for t in ANSWERS)


def answers(prog: Progression) -> dict[str, Pattern]:
  return answer_patterns(correct_pattern(prog), ANSWERS, rules(prog))


# --- The context-necessary answer set (configs `ctx_type_*`, README.md) ----
# The answer set above is a star: every wrong answer is CORRECT with one
# clause of (iv) changed, so CORRECT shares the most with the others and
# the answers alone find it (odd-one-in 0.46-0.78). The context-necessary set
# is a product instead: four well-formed bases, the sentence 8 of contexts
# that start the alternation in the other number and/or the cycle one pair
# off (CORRECT, WNUM, WANT, WNUM-WANT), each with the three other clauses
# broken in turn (reality, person, gender). Number and anteriority are drawn
# uniformly by the progression, so each base is the correct one in a quarter
# of the instances and the set has four equal centres.
CTX_FAMILY = "sequence_of_tense_ctx"
CTX_BASE_RULES = ("number", "anteriority")
CTX_ERROR_RULES = ("reality", "person", "gender")
RULE_CODES = {"number": "WNUM", "anteriority": "WANT", "reality": "WREAL",
              "person": "WPER", "gender": "WGEN"}


def ctx_label(breaks: tuple[str, ...]) -> str:
  """The label of the candidate breaking `breaks` (rule names, in order)
  relative to CORRECT: their codes joined by '-'. Without its last code a
  label names the base the candidate breaks exactly one clause of."""
  return "-".join(RULE_CODES[r] for r in breaks) or CORRECT


def _ctx_answers() -> tuple[AnswerTemplate, ...]:
  bases = ((), ("number",), ("anteriority",), ("number", "anteriority"))
  return tuple(AnswerTemplate(ctx_label(b + e), b + e) for b in bases
               for e in ((),) + tuple((r,) for r in CTX_ERROR_RULES))


CTX_ANSWERS = _ctx_answers()
CTX_LABELS = tuple(t.label for t in CTX_ANSWERS)
CTX_BASES = tuple(t.label for t in CTX_ANSWERS
                  if set(t.breaks) <= set(CTX_BASE_RULES))


def ctx_base(label: str) -> str:
  """The well-formed base a context-necessary label is built on (the label
  without its last code); CORRECT for the bases WNUM and WANT."""
  return label.rpartition("-")[0] or CORRECT


def ctx_answers(prog: Progression) -> dict[str, Pattern]:
  return answer_patterns(correct_pattern(prog), CTX_ANSWERS, rules(prog))
