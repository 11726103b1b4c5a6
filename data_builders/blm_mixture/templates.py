"""The Mixture BLM of 000 sec. 3.2.5 and appendix 11.1.

Sequence of tense plus number and gender agreement, in Italian se-allora
hypotheticals with null subjects. The appendix's table (sentences 1-7, the
answer 8, answers A-F) is the `APPENDIX` rotation of the template:

    1 SgM-CPas               SgM-CnPr       5 SgM-IFut    attractorPlF SgM-IFut
    2 PlM-CPas               PlM-CnPr       6 PlM-IFutAnt attractorSgM PlM-IFut
    3 SgF-CTrPas             SgF-CnPas      7 SgF-IFut    attractorPlM SgF-IFut
    4 PlF-CTrPas             PlF-CnPas      8 ???

    A PlF-IFutAnt attractorSgF PlF-IFut     correct
    B SgF-IFut                 SgF-IFut     number, sentence 7's pair, attractor
    C SgM-CTrPas               SgM-CnPas    number, gender, sentence 4's pair,
                                            attractor
    D PlM-IFutAnt              PlM-IFut     gender, attractor
    E SgF-CTrPas attractorSgF  PlM-CTrPas   agreement, subjunctive
    F PlF-IFutAnt              PlF-IFut     attractor

Its progression, as rules: the number alternates every sentence; the
gender every two sentences; an incidental clause holds an attractor noun
in one half (5-8), whose number is never the subject's and whose gender
is not the subject's in the half's odd sentences and is in its even ones;
the first half goes through one mood's two tense pairs in blocks of two
(CPas-CnPr, CTrPas-CnPas), the second half alternates the other mood's two
pairs every sentence (IFut-IFut, IFutAnt-IFut).

With one fixed table, answer A is always the same pattern and a solver that
never reads the context learns it (version 1.0.0: answers-only logit 1.000).
So each instance draws a `Rotation` of the table's free values (first number,
first gender, which half holds the attractor, which mood comes first, simple
or anterior pair first): 32 rotations, the appendix's among them; sentence 8
and the answers follow from the same rules and violations, now relative to
the context (B takes sentence 7's pair, C sentence 4's; "attractor" toggles
it). E remains locally detectable (a subjunctive consequent, disagreeing
clauses): the appendix's own cue, documented in README.md.

The appendix lists B's violations as "attractor: no, Agr: Pl" and E's as
"Agr: no, Number: Sg, tense: CtrPas"; its patterns also change B's premise
tense (IFut, sentence 7's) and put E's consequent in the subjunctive: we
follow the patterns and name those changes as rules too. Its example
sentences stray from its own patterns in places (C "allora fossi felice",
E's attractor "tanti altri fattori", PlM for SgF): the patterns win.

Person is not part of the template: one person per instance (types I, II) or
per sentence (type III); E's consequent keeps its premise's person.
"""

from __future__ import annotations

from typing import NamedTuple

from data_builders.blm_sequence_of_tense import italian
from data_builders.blm_sequence_of_tense.realise import (CONS, CONS_A, INC,
                                                         PREM, PREM_A)
from data_builders.blm_sequence_of_tense.templates import (
    TENSE_PAIRS, hypothetical, other, other_gender)
from data_builders.common.template import (AnswerTemplate, Pattern, Rule,
                                           answer_patterns, slot)

FAMILY = "mixture"
CORRECT = "A"
N_CONTEXT = 7


class Rotation(NamedTuple):
  """The free values of the appendix's table: sentence 1's number and
  gender, the half (0: 1-4, 1: 5-8) holding the attractor, whether the
  first half is counterfactual and whether a half starts with its simple
  pair.

  The context-necessary configs also draw the half (0 in the appendix) that
  goes through its pairs in blocks of two (the other alternates every
  sentence) and, on its own, whether the second half starts with its simple
  pair (None: as the first half, as in the appendix)."""

  first_number: str
  first_gender: str
  attractor_half: int
  counterfactual_first: bool
  simple_first: bool
  blocks_half: int = 0
  second_simple_first: bool | None = None


APPENDIX = Rotation("sg", "m", 1, True, True)


def _pair(rot: Rotation, i: int) -> tuple[str, str]:
  half, j = divmod(i, 4)
  reality = int(rot.counterfactual_first) ^ half  # 1 = counterfactual
  anterior = (j // 2) % 2 if half == rot.blocks_half else j % 2
  simple = rot.simple_first
  if half == 1 and rot.second_simple_first is not None:
    simple = rot.second_simple_first
  anterior ^= int(not simple)
  return TENSE_PAIRS[2 * reality + anterior]


def _attractor(p: Pattern, odd: bool) -> Pattern:
  """p with the incidental clause whose attractor takes the number the
  subject lacks, and the other gender in a half's odd sentences (1st, 3rd),
  the subject's in its even ones."""
  num, gen = p.slot(PREM_A).get("num"), p.slot(PREM_A).get("gen")
  return p.insert_after(PREM_A, slot(
      INC, gen=other_gender(gen) if odd else gen, num=other(num)))


def row(i: int, person: str, rot: Rotation = APPENDIX) -> Pattern:
  """Sentence i (0-based) of the rotated table."""
  number = rot.first_number if i % 2 == 0 else other(rot.first_number)
  gender = (rot.first_gender if (i // 2) % 2 == 0
            else other_gender(rot.first_gender))
  p = hypothetical(*_pair(rot, i), person, number, gender)
  if i // 4 == rot.attractor_half:
    p = _attractor(p, odd=i % 2 == 0)
  return p


def context_patterns(persons, rot: Rotation = APPENDIX
                     ) -> tuple[Pattern, ...]:
  return tuple(row(i, persons[i], rot) for i in range(N_CONTEXT))


def _clause_number(roles, number):
  verb, adj = roles

  def corrupt(p: Pattern) -> Pattern:
    person, _ = italian.split_pn(p.slot(verb).get("pn"))
    return (p.set(verb, pn=italian.person_number(person, number))
            .set(adj, num=number))

  return corrupt


def _flip_number(p: Pattern) -> Pattern:
  number = other(p.slot(PREM_A).get("num"))
  return _clause_number(_CONSEQUENT, number)(
      _clause_number(_PREMISE, number)(p))


def _flip_gender(p: Pattern) -> Pattern:
  gender = other_gender(p.slot(PREM_A).get("gen"))
  return p.set(PREM_A, gen=gender).set(CONS_A, gen=gender)


def _toggle_attractor(p: Pattern) -> Pattern:
  return p.drop(INC) if p.has(INC) else _attractor(p, odd=False)


def _set_pair(pair: tuple[str, str]):
  return lambda p: p.set(PREM, tense=pair[0]).set(CONS, tense=pair[1])


_PREMISE, _CONSEQUENT = (PREM, PREM_A), (CONS, CONS_A)


def rules(rot: Rotation = APPENDIX) -> dict[str, Rule]:
  """The rules behind B-F, relative to the rotation's context."""
  return {r.name: r for r in (
      Rule("attractor", "one half carries the incidental attractor: broken "
           "by toggling it (leaving it out in the appendix)",
           _toggle_attractor),
      Rule("number", "number alternates every sentence: broken by the other "
           "number in both clauses", _flip_number),
      Rule("gender", "gender alternates every two sentences: broken by the "
           "other gender in both clauses", _flip_gender),
      Rule("pair_of_7", "the second half alternates its pairs every "
           "sentence: broken by sentence 7's pair (in the appendix IFut for "
           "IFutAnt in the premise)", _set_pair(_pair(rot, 6))),
      Rule("pair_of_4", "the second half is in the other mood than the "
           "first: broken by sentence 4's pair", _set_pair(_pair(rot, 3))),
      Rule("agreement", "premise and consequent share the subject's number "
           "and gender: broken by the other number in the premise and the "
           "other gender in the consequent", lambda p: _clause_number(
               _PREMISE, other(p.slot(PREM_A).get("num")))(p).set(
                   CONS_A, gen=other_gender(p.slot(CONS_A).get("gen")))),
      Rule("subjunctive", "a se-premise takes an indicative or conditional "
           "consequent: broken by CTrPas in both clauses (a subjunctive "
           "consequent)", _set_pair(("CTrPas", "CTrPas"))),
  )}


ANSWERS: tuple[AnswerTemplate, ...] = (
    AnswerTemplate("A"),
    AnswerTemplate("B", ("number", "pair_of_7", "attractor")),
    AnswerTemplate("C", ("number", "gender", "pair_of_4", "attractor")),
    AnswerTemplate("D", ("gender", "attractor")),
    AnswerTemplate("E", ("agreement", "subjunctive")),
    AnswerTemplate("F", ("attractor",)),
)
LABELS = tuple(t.label for t in ANSWERS)


def answers(person: str, rot: Rotation = APPENDIX) -> dict[str, Pattern]:
  return answer_patterns(row(N_CONTEXT, person, rot), ANSWERS, rules(rot))


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


# --- Context-necessary configs (`ctx_type_*`, README "Context-necessary
# configs"). ---------------------------------------------------------------
#
# Two well-formed answers, A and ANT (A in the other anteriority of its
# mood: sentence 8 of the rotation that keeps sentence 7 and swaps which
# half goes in blocks), each with the errors B, D, E, F, G around it; which
# of the two is correct is drawn per instance (`second_simple_first`), so
# the answer set is the same in both cases and only the context decides.

CTX_FAMILY = "mixture_ctx"
CTX_SUBSET = "ctx"
ANT = "ANT"


def _pair_index(p: Pattern) -> int:
  return TENSE_PAIRS.index((p.slot(PREM).get("tense"),
                            p.slot(CONS).get("tense")))


def _move_pair(xor: int):
  """The pair at TENSE_PAIRS index XOR `xor` (1: the other anteriority,
  2: the other mood)."""
  return lambda p: _set_pair(TENSE_PAIRS[_pair_index(p) ^ xor])(p)


def _attractor_follows(corrupt):
  """`corrupt` on the clauses, the attractor (if any) re-derived for the
  changed subject (other number, same gender: sentence 8's position)."""
  def apply(p: Pattern) -> Pattern:
    if not p.has(INC):
      return corrupt(p)
    return _attractor(corrupt(p.drop(INC)), odd=False)

  return apply


def _subjunctive_of_base(p: Pattern) -> Pattern:
  anterior = _pair_index(p) % 2
  tense = "CTrPas" if anterior else "CPas"
  return _set_pair((tense, tense))(p)


def ctx_rules() -> dict[str, Rule]:
  """The rules behind the context-necessary answers, relative to a base
  (A or ANT). In the appendix's progression "anteriority" gives sentence
  7's pair (the paper's B) and "mood" sentence 4's (the paper's C)."""
  paper = rules()
  return {r.name: r for r in (
      paper["attractor"],
      Rule("number", "number alternates every sentence: broken by the other "
           "number in both clauses (an attractor follows the subject)",
           _attractor_follows(_flip_number)),
      Rule("gender", "gender alternates every two sentences: broken by the "
           "other gender in both clauses (an attractor follows the subject)",
           _attractor_follows(_flip_gender)),
      Rule("anteriority", "the second half's pairs follow the context's "
           "progression: broken by the other pair of the same mood",
           _move_pair(1)),
      Rule("mood", "the second half is in the other mood than the first: "
           "broken by the other mood's pair of the same anteriority",
           _move_pair(2)),
      paper["agreement"],
      Rule("subjunctive", "a se-premise takes an indicative or conditional "
           "consequent: broken by the subjunctive of the base's anteriority "
           "in both clauses (CTrPas for an anterior base, CPas for a simple "
           "one)", _subjunctive_of_base),
  )}


# The errors around each base, A's named as in the appendix where they
# break the same rules (B, D, E, F); G is the appendix's C keeping the
# attractor status (C's mirror image would repeat sentence 1).
CTX_ERRORS: tuple[AnswerTemplate, ...] = (
    AnswerTemplate("B", ("number", "anteriority", "attractor")),
    AnswerTemplate("D", ("gender", "attractor")),
    AnswerTemplate("E", ("agreement", "subjunctive")),
    AnswerTemplate("F", ("attractor",)),
    AnswerTemplate("G", ("number", "gender", "mood")),
)
CTX_LABELS = ((CORRECT,) + tuple(t.label for t in CTX_ERRORS) + (ANT,)
              + tuple(f"{ANT}-{t.label}" for t in CTX_ERRORS))


def ctx_base(label: str) -> str:
  """The well-formed answer a ctx label's errors are relative to."""
  if label not in CTX_LABELS:
    raise ValueError(f"unknown mixture_ctx label {label!r}; known: "
                     f"{CTX_LABELS}")
  return ANT if label.startswith(ANT) else CORRECT


def ctx_answers(person: str, rot: Rotation) -> dict[str, Pattern]:
  """label -> pattern of the context-necessary answer set (CTX_LABELS)."""
  r = ctx_rules()
  a = row(N_CONTEXT, person, rot)
  out = {CORRECT: a}
  out.update(answer_patterns(a, CTX_ERRORS, r))
  ant = r["anteriority"].corrupt(a)
  out[ANT] = ant
  out.update({f"{ANT}-{k}": v for k, v in
              answer_patterns(ant, CTX_ERRORS, r).items()})
  return {lab: out[lab] for lab in CTX_LABELS}
