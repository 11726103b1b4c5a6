"""The two spray/load v0 templates of 003 sec. 4.2 (Figures 7 and 11).

Objects, as in `blm_spray_load.templates`: NP and PP slots carrying a
semantic role (Agent, Theme, Loc), the verb (`Verb` active, `VerbPass`
passive); a PP names its preposition kind when it is not the role's own
(`Pwrong`: a wrong preposition from the lexicon; `Ploc`: the verb's locative
preposition on another role; `Padv`: "because of", Adv's adverbial PP). `PP-Emb` is a noun-modifying PP embedded in the preceding NP.

Template 1 (Figure 7): the context walks through both alternants and their
passives, then drops one argument at a time (NP-Theme, PP-Theme, NP-Loc);
the answer drops the other (NP-Agent Verb PP-Loc). Template 2 (Figure 11):
the reverse order, so the answer is the passive of the locative alternant
(NP-Loc VerbPass PP-Theme).

Each wrong answer applies one named rule (below) to the correct pattern. Our
text copy of Figure 11 is partly garbled; where it is, we read it as
follows, from the names of the labels and the Figure 13-15 examples:
WP = the theme introduced by the locative preposition ("*PP Loc-Theme");
Repeat = the location repeated in the PP; NoAgent = the theme as the
subject of the active verb, no agent; SLA and STA swap the agent with the
location (of sentence 7) and with the theme (of sentence 5).
"""

from __future__ import annotations

from data_builders.blm_spray_load.templates import (AGENT, EMB, LOC, THEME,
                                                    VERB, VERB_PASS,
                                                    WRONG_PREP, np_, pp)
from data_builders.common.template import (AnswerTemplate, Pattern, Rule,
                                           answer_patterns, pattern, slot)

FAMILY = "spray_load_v0"
CORRECT = "CORRECT"
# The adverbial preposition of Adv; the pattern string names it "Padv" (a
# pattern token cannot hold a space), `ADVERBIAL_PREP` is what is written.
ADVERBIAL = "Padv"
ADVERBIAL_PREP = "because of"
LOC_PREP = "Ploc"

# --- Template 1 (003 Figure 7). ---------------------------------------------

T1_CONTEXT = (
    pattern(np_(AGENT), VERB, np_(THEME), pp(LOC)),
    pattern(np_(THEME), VERB_PASS, pp(LOC)),
    pattern(np_(AGENT), VERB, np_(LOC), pp(THEME)),
    pattern(np_(LOC), VERB_PASS, pp(THEME)),
    pattern(np_(AGENT), VERB, np_(THEME)),
    pattern(np_(AGENT), VERB, pp(THEME)),
    pattern(np_(AGENT), VERB, np_(LOC)),
)
T1_CORRECT = pattern(np_(AGENT), VERB, pp(LOC))

# --- Template 2 (003 Figure 11). --------------------------------------------

T2_CONTEXT = (
    pattern(np_(AGENT), VERB, np_(THEME)),
    pattern(np_(AGENT), VERB, pp(THEME)),
    pattern(np_(AGENT), VERB, np_(LOC)),
    pattern(np_(AGENT), VERB, pp(LOC)),
    pattern(np_(AGENT), VERB, np_(THEME), pp(LOC)),
    pattern(np_(THEME), VERB_PASS, pp(LOC)),
    pattern(np_(AGENT), VERB, np_(LOC), pp(THEME)),
)
T2_CORRECT = pattern(np_(LOC), VERB_PASS, pp(THEME))


# --- Rules and their corruptions. -------------------------------------------

def _last_pp(p: Pattern) -> int:
  return max(i for i, s in enumerate(p.slots) if s.role == "PP")


def _with_slot(p: Pattern, i: int, new) -> Pattern:
  return pattern(*p.slots[:i], new, *p.slots[i + 1:])


def _wprep(p: Pattern) -> Pattern:
  i = _last_pp(p)
  return _with_slot(p, i, pp(p.slots[i].get("arg"), WRONG_PREP))


def _wpp(p: Pattern) -> Pattern:
  # NP-Agent Verb PP-Loc -> NP-Agent Verb NP-Theme <PP-Emb> PP-Loc.
  return pattern(p.slots[0], p.slots[1], np_(THEME), slot("PP", arg=EMB),
                 *p.slots[2:])


def _adv(p: Pattern) -> Pattern:
  # NP-Agent Verb PP-Loc -> NP-Agent Verb NP-Loc PP-Theme-"because of".
  return pattern(p.slots[0], p.slots[1], np_(LOC), pp(THEME, ADVERBIAL))


def _wt(p: Pattern) -> Pattern:
  # NP-Agent Verb PP-Loc -> NP-Agent Verb NP-Loc PP-Theme-Pwrong.
  return pattern(p.slots[0], p.slots[1], np_(LOC), pp(THEME, WRONG_PREP))


def _ws(p: Pattern) -> Pattern:
  return _with_slot(p, 0, np_(LOC))


def _sla(p: Pattern) -> Pattern:
  # NP-Loc VerbPass PP-Theme -> NP-Loc Verb NP-Agent PP-Theme.
  return pattern(np_(LOC), VERB, np_(AGENT), pp(THEME))


def _wp(p: Pattern) -> Pattern:
  return _with_slot(p, 2, pp(THEME, LOC_PREP))


def _repeat(p: Pattern) -> Pattern:
  return _with_slot(p, 2, pp(LOC))


def _noagent(p: Pattern) -> Pattern:
  return pattern(np_(THEME), VERB, pp(LOC))


def _sta(p: Pattern) -> Pattern:
  return pattern(np_(THEME), VERB, np_(AGENT), pp(LOC))


RULES: dict[str, Rule] = {r.name: r for r in (
    # Template 1.
    Rule("WPrep", "the location PP takes one of the verb's locative "
         "prepositions: broken by a wrong preposition", _wprep),
    Rule("WPP", "the theme, when present, is an argument: broken by an "
         "extra theme NP carrying a noun-modifying PP", _wpp),
    Rule("Adv", "the theme PP is an argument: broken by an adverbial PP "
         "(because of) on the theme, the location as object", _adv),
    Rule("WT", "the theme PP takes 'with': broken by a wrong preposition, "
         "the location as object", _wt),
    Rule("WS", "the subject of the active verb is the agent: broken by the "
         "location as subject", _ws),
    # Template 2.
    Rule("SLA", "roles map to positions: broken by swapping location and "
         "agent in the locative alternant (active verb)", _sla),
    Rule("WP", "the theme PP of the passive takes 'with': broken by the "
         "locative preposition", _wp),
    Rule("Repeat", "each role is realised once: broken by repeating the "
         "location in the PP", _repeat),
    Rule("NoAgent", "an active verb has the agent as subject: broken by "
         "the theme as subject with no agent", _noagent),
    Rule("STA", "roles map to positions: broken by swapping theme and "
         "agent in the theme alternant", _sta),
)}

ANSWERS_T1 = (AnswerTemplate(CORRECT), AnswerTemplate("WPrep", ("WPrep",)),
              AnswerTemplate("WPP", ("WPP",)), AnswerTemplate("Adv", ("Adv",)),
              AnswerTemplate("WT", ("WT",)), AnswerTemplate("WS", ("WS",)))
ANSWERS_T2 = (AnswerTemplate(CORRECT), AnswerTemplate("SLA", ("SLA",)),
              AnswerTemplate("WP", ("WP",)),
              AnswerTemplate("Repeat", ("Repeat",)),
              AnswerTemplate("NoAgent", ("NoAgent",)),
              AnswerTemplate("STA", ("STA",)))

TEMPLATES = {
    "Template1": (T1_CONTEXT, T1_CORRECT, ANSWERS_T1),
    "Template2": (T2_CONTEXT, T2_CORRECT, ANSWERS_T2),
}


def template_patterns(
    name: str) -> tuple[tuple[Pattern, ...], dict[str, Pattern]]:
  """(7 context patterns, label -> answer pattern) of template `name`."""
  if name not in TEMPLATES:
    raise KeyError(f"unknown spray/load v0 template {name!r}; known: "
                   f"{sorted(TEMPLATES)}")
  ctx, correct, answers = TEMPLATES[name]
  return ctx, answer_patterns(correct, answers, RULES)


LABELS = (CORRECT,) + tuple(
    t.label for answers in (ANSWERS_T1, ANSWERS_T2) for t in answers[1:])


# --- Context-necessary answer sets (configs `ctx_type_*`, `ctx_t2_type_*`).
# Both templates walk through the theme's frames before the location's
# (Template 1: NP-Theme, PP-Theme, NP-Loc -> PP-Loc; Template 2: the theme
# alternant and its passive, then the locative alternant -> its passive).
# The role order is drawn per instance: THEME-LOC is the paper's template,
# LOC-THEME the same template with the theme and location exchanged
# throughout (`swap_roles`), whose answer is the other role's frame
# (Template 1: NP-Agent Verb PP-Theme; Template 2: NP-Theme VerbPass
# PP-Loc). The answer set holds both orders' answer sets: the target's with
# the paper labels, the other order's with its CORRECT labelled WSeq
# (well-formed, but the frame the context already showed instead of the one
# that continues it) and each of its errors WSeq-<rule> (the rule, swapped,
# applied to the WSeq base).
#
# Template 2's SLA, STA and NoAgent name their roles outright (the location
# or the theme as subject of the active verb): exchanging the roles maps SLA
# onto STA and NoAgent onto "NP-Loc Verb PP-Theme" ("The walls will hang
# with paper lanterns", well-formed for some verbs). They are order-free:
# the same pattern and label in both orders, held once, each one change
# from the passive alternant whose subject it keeps (`ORDER_FREE_BASE`).

WSEQ = "WSeq"
CTX_SUBSET = "ctx"
CTX_TEMPLATE = "Template1"
ORDERS = ("THEME-LOC", "LOC-THEME")
_SWAP_ROLE = {THEME: LOC, LOC: THEME}
# The role's own preposition kinds ("with" for the theme, the verb's locative
# one for the location) go with the role.
_SWAP_PREP = {"with": LOC_PREP, LOC_PREP: "with"}
# Order-free label -> the role whose passive alternant (NP-<role> VerbPass
# PP-<other role>) it changes by one verb slot.
ORDER_FREE_BASE = {"Template1": {},
                   "Template2": {"SLA": LOC, "STA": THEME, "NoAgent": THEME}}


def swap_roles(p: Pattern) -> Pattern:
  """`p` with Theme and Loc exchanged, each PP keeping its preposition
  relative to its role (own, other role's own, wrong, adverbial)."""
  out = []
  for s in p.slots:
    arg = s.get("arg")
    if s.role == "NP" and arg in _SWAP_ROLE:
      s = np_(_SWAP_ROLE[arg])
    elif s.role == "PP" and arg in _SWAP_ROLE:
      kind = s.get("prep") or {THEME: "with", LOC: LOC_PREP}[arg]
      s = pp(_SWAP_ROLE[arg], _SWAP_PREP.get(kind, kind))
    out.append(s)
  return pattern(*out)


def mirrored_label(label: str) -> str:
  """The label of answer template `label` applied to the WSeq base."""
  return WSEQ if label == CORRECT else f"{WSEQ}-{label}"


def order_patterns(
    name: str, order: str) -> tuple[tuple[Pattern, ...], dict[str, Pattern]]:
  """(context, label -> answer) of template `name` in role order `order`."""
  ctx, answers = template_patterns(name)
  if order == ORDERS[0]:
    return ctx, answers
  if order != ORDERS[1]:
    raise KeyError(f"unknown role order {order!r}; known: {ORDERS}")
  return (tuple(swap_roles(p) for p in ctx),
          {lab: swap_roles(p) for lab, p in answers.items()})


def ctx_patterns(
    name: str, order: str) -> tuple[tuple[Pattern, ...], dict[str, Pattern]]:
  """(7 context patterns, label -> answer pattern) of template `name` in
  the drawn role order, context-necessary answer set."""
  ctx, answers = order_patterns(name, order)
  other = ORDERS[1 - ORDERS.index(order)]
  _, mirrored = order_patterns(name, other)
  _, paper = template_patterns(name)
  free = ORDER_FREE_BASE[name]
  answers = {lab: paper[lab] if lab in free else p
             for lab, p in answers.items()}
  answers.update((mirrored_label(lab), p) for lab, p in mirrored.items()
                 if lab not in free)
  return ctx, answers


def ctx_labels(name: str) -> tuple[str, ...]:
  labels = tuple(template_patterns(name)[1])
  return labels + tuple(mirrored_label(lab) for lab in labels
                        if lab not in ORDER_FREE_BASE[name])


def on_other_base(name: str, order: str, label: str) -> bool:
  """Whether answer `label` of the context-necessary set of template `name`
  in role order `order` is built on the other order's answer (WSeq), not on
  the target."""
  if label == WSEQ or label.startswith(WSEQ + "-"):
    return True
  role = ORDER_FREE_BASE[name].get(label)
  # The target's subject: the location in THEME-LOC (Template 2's passive
  # NP-Loc VerbPass PP-Theme), the theme in LOC-THEME.
  return role is not None and role != (LOC if order == ORDERS[0] else THEME)
