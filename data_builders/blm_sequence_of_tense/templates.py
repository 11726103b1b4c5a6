"""The Italian sequence-of-tense BLM: our template for 000 sec. 3.2.5.

The paper names the phenomenon (se-allora hypotheticals whose premise and
consequent must agree in tense and mood: subjunctive and conditional in the
present and past, indicative future and future perfect, marked for person
and number) but gives no template; this one follows the style of 000 Figure
3 and of the Mixture template (appendix 11.1), with whose tense pairs it
shares. The rules, stated as the papers state Figure 3's:

 (i)   mood: a subjunctive premise (se + congiuntivo) takes a conditional
       consequent, an indicative premise an indicative one; the premise is
       never conditional ("*se sarei");
 (ii)  tense: the pairs are CPas-CnPr, CTrPas-CnPas, IFut-IFut and
       IFutAnt-IFut (a compound premise takes a compound conditional in the
       counterfactual, a simple future in the realis);
 (iii) agreement: both clauses share one null subject; their verbs agree
       with it in person and number, participles and adjectives in number
       and gender;
 (iv)  sequence: the tense pair changes every two sentences, from the real
       to the counterfactual (IFut-IFut, IFutAnt-IFut, CPas-CnPr,
       CTrPas-CnPas), and the number alternates every sentence (Sg, Pl).

Context: sentences 1-7 of rule (iv); the answer is sentence 8, a plural
CTrPas-CnPas hypothetical. The wrong answers each break one rule:

  WCT  consequent tense: CnPr for CnPas (ii)
  WCM  consequent mood: subjunctive CTrPas for conditional CnPas (i)
  WPT  premise tense: CPas for CTrPas (ii)
  WPM  premise mood: conditional CnPas for subjunctive CTrPas (i)
  AGR  the consequent verb in the other number, its participle and adjective
       unchanged (iii)

WCT and WPT are sequence errors: Italian has mixed hypotheticals ("Se foste
stati onesti, ora sareste ricchi"), so these sentences are grammatical and
only break the pairing the matrix sets up, as WN1 in the agreement BLM is
grammatical and only breaks the alternation. WCM, WPM and AGR are
grammatical errors. No candidate repeats a context sentence: the only
plural CTrPas premise is the answer's.

Person and gender are not part of the progression: one person and one
gender per sentence, drawn per instance (types I and II) or per sentence
(type III), see `generate.py`.
"""

from __future__ import annotations

from data_builders.blm_sequence_of_tense import italian
from data_builders.blm_sequence_of_tense.realise import (CONS, CONS_A, PREM,
                                                         PREM_A)
from data_builders.common.template import (AnswerTemplate, Pattern, Rule,
                                           answer_patterns, pattern, slot)

FAMILY = "sequence_of_tense"
CORRECT = "CORRECT"
# Rule (iv): the tense pairs, two sentences each, in context order.
TENSE_PAIRS = (("IFut", "IFut"), ("IFutAnt", "IFut"), ("CPas", "CnPr"),
               ("CTrPas", "CnPas"))
N_CONTEXT = 7


def other(number: str) -> str:
  return "pl" if number == "sg" else "sg"


def hypothetical(premise: str, consequent: str, person: str, number: str,
                 gender: str) -> Pattern:
  """One se-allora sentence whose clauses share one subject."""
  pn = italian.person_number(person, number)
  return pattern(slot(PREM, tense=premise, pn=pn),
                 slot(PREM_A, gen=gender, num=number),
                 slot(CONS, tense=consequent, pn=pn),
                 slot(CONS_A, gen=gender, num=number))


def row(i: int, person: str, gender: str) -> Pattern:
  """Sentence i (0-based) of the matrix: rule (iv)."""
  premise, consequent = TENSE_PAIRS[i // 2]
  return hypothetical(premise, consequent, person,
                      "sg" if i % 2 == 0 else "pl", gender)


def context_patterns(persons, genders) -> tuple[Pattern, ...]:
  """The 7 context patterns, sentence i with persons[i] and genders[i]."""
  return tuple(row(i, persons[i], genders[i]) for i in range(N_CONTEXT))


def correct_pattern(person: str, gender: str) -> Pattern:
  return row(N_CONTEXT, person, gender)


def _tense(role: str, tense: str):
  return lambda p: p.set(role, tense=tense)


def _verb_number(p: Pattern) -> Pattern:
  person, number = italian.split_pn(p.slot(CONS).get("pn"))
  return p.set(CONS, pn=italian.person_number(person, other(number)))


RULES: dict[str, Rule] = {r.name: r for r in (
    Rule("consequent_tense", "(ii) CTrPas takes CnPas: broken by CnPr",
         _tense(CONS, "CnPr")),
    Rule("consequent_mood", "(i) a subjunctive premise takes a conditional "
         "consequent: broken by a subjunctive one", _tense(CONS, "CTrPas")),
    Rule("premise_tense", "(ii) CnPas follows CTrPas: broken by CPas",
         _tense(PREM, "CPas")),
    Rule("premise_mood", "(i) the premise is never conditional: broken by "
         "CnPas", _tense(PREM, "CnPas")),
    Rule("agreement", "(iii) the consequent verb agrees with the shared "
         "subject: broken by the other number", _verb_number),
)}

ANSWERS: tuple[AnswerTemplate, ...] = (
    AnswerTemplate(CORRECT),
    AnswerTemplate("WCT", ("consequent_tense",)),
    AnswerTemplate("WCM", ("consequent_mood",)),
    AnswerTemplate("WPT", ("premise_tense",)),
    AnswerTemplate("WPM", ("premise_mood",)),
    AnswerTemplate("AGR", ("agreement",)),
)
LABELS = tuple(t.label for t in ANSWERS)


def answers(person: str, gender: str) -> dict[str, Pattern]:
  return answer_patterns(correct_pattern(person, gender), ANSWERS, RULES)
