"""The Mixture BLM of 000 sec. 3.2.5 and appendix 11.1, exactly.

Sequence of tense plus number and gender agreement, in Italian se-allora
hypotheticals with null subjects. The context (sentences 1-7) and the answer
(8) follow the appendix's table: number alternates every sentence (Sg, Pl),
gender every two (M, M, F, F), an incidental clause holding an attractor
noun (whose number and gender agree with nothing in the main clauses) is
absent in sentences 1-4 and present in 5-8, and the tense pairs are
CPas-CnPr (1-2), CTrPas-CnPas (3-4), IFut-IFut (5, 7) and IFutAnt-IFut
(6, 8):

    1 SgM-CPas               SgM-CnPr       5 SgM-IFut    attractorPlF SgM-IFut
    2 PlM-CPas               PlM-CnPr       6 PlM-IFutAnt attractorSgM PlM-IFut
    3 SgF-CTrPas             SgF-CnPas      7 SgF-IFut    attractorPlM SgF-IFut
    4 PlF-CTrPas             PlF-CnPas      8 ???

Answers, each as the appendix's pattern, built from A by named rules:

    A PlF-IFutAnt attractorSgF PlF-IFut     correct
    B SgF-IFut                 SgF-IFut     attractor, number (+ premise tense)
    C SgM-CTrPas               SgM-CnPas    number, gender, tense, attractor
    D PlM-IFutAnt              PlM-IFut     gender, attractor
    E SgF-CTrPas attractorSgF  PlM-CTrPas   agreement, number, tense (+ mood)
    F PlF-IFutAnt              PlF-IFut     attractor

The appendix lists B's violations as "attractor: no, Agr: Pl" and E's as
"Agr: no, Number: Sg, tense: CtrPas"; its patterns also change B's premise
tense (IFut, as sentence 7) and put E's consequent in the subjunctive: we
follow the patterns and name those changes as rules too. Its example
sentences stray from its own patterns in places (C "allora fossi felice",
E's attractor "tanti altri fattori", PlM for SgF): the patterns win.

Person is not part of the template: one person per instance (types I, II) or
per sentence (type III); E's consequent keeps its premise's person.
"""

from __future__ import annotations

from data_builders.blm_sequence_of_tense import italian
from data_builders.blm_sequence_of_tense.realise import (CONS, CONS_A, INC,
                                                         PREM, PREM_A)
from data_builders.blm_sequence_of_tense.templates import hypothetical
from data_builders.common.template import (AnswerTemplate, Pattern, Rule,
                                           answer_patterns, slot)

FAMILY = "mixture"
CORRECT = "A"
N_CONTEXT = 7

# (number, gender, premise tense, consequent tense, attractor (number,
# gender) or None): sentences 1-8 of appendix 11.1.
ROWS = (
    ("sg", "m", "CPas", "CnPr", None),
    ("pl", "m", "CPas", "CnPr", None),
    ("sg", "f", "CTrPas", "CnPas", None),
    ("pl", "f", "CTrPas", "CnPas", None),
    ("sg", "m", "IFut", "IFut", ("pl", "f")),
    ("pl", "m", "IFutAnt", "IFut", ("sg", "m")),
    ("sg", "f", "IFut", "IFut", ("pl", "m")),
    ("pl", "f", "IFutAnt", "IFut", ("sg", "f")),
)


def row(i: int, person: str) -> Pattern:
  number, gender, premise, consequent, attractor = ROWS[i]
  p = hypothetical(premise, consequent, person, number, gender)
  if attractor:
    p = p.insert_after(PREM_A, slot(INC, gen=attractor[1], num=attractor[0]))
  return p


def context_patterns(persons) -> tuple[Pattern, ...]:
  return tuple(row(i, persons[i]) for i in range(N_CONTEXT))


def _clause_number(roles, number):
  verb, adj = roles

  def corrupt(p: Pattern) -> Pattern:
    person, _ = italian.split_pn(p.slot(verb).get("pn"))
    return (p.set(verb, pn=italian.person_number(person, number))
            .set(adj, num=number))

  return corrupt


def _both(*fns):
  def corrupt(p: Pattern) -> Pattern:
    for fn in fns:
      p = fn(p)
    return p
  return corrupt


_PREMISE, _CONSEQUENT = (PREM, PREM_A), (CONS, CONS_A)

RULES: dict[str, Rule] = {r.name: r for r in (
    Rule("attractor", "sentences 5-8 carry the incidental attractor: broken "
         "by leaving it out", lambda p: p.drop(INC)),
    Rule("number", "number alternates every sentence (8 is Pl): broken by "
         "Sg in both clauses", _both(_clause_number(_PREMISE, "sg"),
                                     _clause_number(_CONSEQUENT, "sg"))),
    Rule("gender", "gender alternates every two sentences (8 is F): broken "
         "by M in both clauses", lambda p: p.set(PREM_A, gen="m")
         .set(CONS_A, gen="m")),
    Rule("premise_tense", "premises 5-8 alternate IFut, IFutAnt: broken by "
         "IFut in 8", lambda p: p.set(PREM, tense="IFut")),
    Rule("tense", "sentences 5-8 are indicative futures: broken by the "
         "counterfactual pair CTrPas-CnPas", lambda p: p.set(
             PREM, tense="CTrPas").set(CONS, tense="CnPas")),
    Rule("agreement", "premise and consequent share the subject's number "
         "and gender: broken by a Sg premise and an M consequent",
         lambda p: _clause_number(_PREMISE, "sg")(p).set(CONS_A, gen="m")),
    Rule("subjunctive", "a future premise takes a future consequent: "
         "broken by CTrPas in both clauses (a subjunctive consequent)",
         lambda p: p.set(PREM, tense="CTrPas").set(CONS, tense="CTrPas")),
)}

ANSWERS: tuple[AnswerTemplate, ...] = (
    AnswerTemplate("A"),
    AnswerTemplate("B", ("attractor", "number", "premise_tense")),
    AnswerTemplate("C", ("number", "gender", "tense", "attractor")),
    AnswerTemplate("D", ("gender", "attractor")),
    AnswerTemplate("E", ("agreement", "subjunctive")),
    AnswerTemplate("F", ("attractor",)),
)
LABELS = tuple(t.label for t in ANSWERS)


def answers(person: str) -> dict[str, Pattern]:
  return answer_patterns(row(N_CONTEXT, person), ANSWERS, RULES)


def appendix_code(p: Pattern) -> str:
  """A pattern in the appendix's notation: "PlF-IFutAnt attractorSgF
  PlF-IFut" (the person left out), for checks against the table."""
  def feats(adj_slot):
    return (adj_slot.get("num").capitalize() + adj_slot.get("gen").upper())

  parts = [f"{feats(p.slot(PREM_A))}-{p.slot(PREM).get('tense')}"]
  if p.has(INC):
    parts.append(f"attractor{feats(p.slot(INC))}")
  parts.append(f"{feats(p.slot(CONS_A))}-{p.slot(CONS).get('tense')}")
  return " ".join(parts)
