"""The spray/load BLM templates (000 Figures 5-6, 004 Figures 2-4) as data.

Objects are phrases: NP and PP slots carrying a semantic role (Agent, Theme,
Loc), and the verb (active `Verb` or passive `VerbPass`). A PP slot also
carries its preposition kind when it is not the role's default one (the
agentive "by" for Agent, "with" for Theme, the verb's own locative
preposition `Ploc` for Loc). Pattern strings read like the papers' figures:
"NP-Agent Verb NP-Theme PP-Loc".

The context is built by relational operators rather than listed: sentence 1
is one alternant, sentences 2-7 passivise each alternant (the object becomes
the subject, the agent a by-PP) keeping {agent}, {PP, agent} and {PP} in
turn. The target is the other alternant. Every wrong answer applies named
rules (000 Figure 4: AGENTACT, ALT, NOEMB, LEXPREP, SSM) to the target.

AASSM demotes the agent into the PP with "with", in both templates, as the
papers spell it: 001 Figure 4 (ALT-ATL) "Paint sprayed the wall with the
girl", Figure 5 (ATL-ALT) "The wall sprayed the paint with the girl", 004
footnote 1 "The wall sprayed paint with the girl". (Until 1.1.0 the ALT-ATL
agent took the target's locative preposition: "Heavy bags are loading the
trailer onto the crew".)

Departures from the published release, on purpose: the AASSM agent has its
preposition where the release drops it ("... the meat us"); and in types
II and III the SSM and AASSM candidates are realised per instance, where the
release repeats one fixed sentence across all instances (a cue a solver can
learn).
"""

from __future__ import annotations

from data_builders.common.template import (AnswerTemplate, Pattern, Rule,
                                           Slot, answer_patterns, pattern,
                                           slot)

AGENT, THEME, LOC = "Agent", "Theme", "Loc"
EMB = "Emb"  # A noun-modifying PP embedded in the preceding NP (NOEMB).

# Preposition kinds of a PP; "" is the role's default.
DEFAULT_PREP = {AGENT: "by", THEME: "with", LOC: "Ploc"}
WRONG_PREP = "Pwrong"
AASSM_AGENT_PREP = "with"  # 001 Figures 4-5, 004 footnote 1.


def np_(role: str) -> Slot:
  return slot("NP", arg=role)


def pp(role: str, prep: str = "") -> Slot:
  """A PP of `role`; `prep` only when it is not the role's default."""
  if prep == DEFAULT_PREP.get(role):
    prep = ""
  return slot("PP", arg=role, prep=prep)


VERB = slot("Verb")
VERB_PASS = slot("VerbPass")

# The two alternants: AGENT-THEME-LOC and AGENT-LOC-THEME.
ATL = pattern(np_(AGENT), VERB, np_(THEME), pp(LOC))
ALT = pattern(np_(AGENT), VERB, np_(LOC), pp(THEME))


def prep_kind(s: Slot) -> str:
  """The effective preposition kind of a PP slot."""
  return s.get("prep") or DEFAULT_PREP.get(s.get("arg"), "")


# --- Relational operators: from an active alternant to the context. --------

def passivise(active: Pattern, keep: tuple[str, ...]) -> Pattern:
  """The passive of `active`: its object is promoted to subject, the agent
  becomes a by-PP; only the roles in `keep` (PP roles, in order) stay."""
  subj, _, obj, comp = active.slots
  demoted = {comp.get("arg"): comp, subj.get("arg"): pp(AGENT)}
  return pattern(np_(obj.get("arg")), VERB_PASS,
                 *(demoted[r] for r in keep))


# Which PPs each passive keeps (000 Figure 5, rows 2-4 and 5-7).
PASSIVE_KEEPS = ((AGENT,), (None, AGENT), (None,))


def context_patterns(first: Pattern) -> tuple[Pattern, ...]:
  """Sentence 1 is `first`; 2-4 passivise ATL, 5-7 passivise ALT."""
  out = [first]
  for alternant in (ATL, ALT):
    comp_role = alternant.slots[3].get("arg")
    for keep in PASSIVE_KEEPS:
      out.append(passivise(alternant,
                           tuple(comp_role if r is None else r for r in keep)))
  return tuple(out)


# --- Rules and how a wrong answer breaks them (000 Figure 4). ---------------

def _args(p: Pattern) -> tuple[str, str, str]:
  """The (subject, object, PP) roles of an NP Verb NP PP pattern."""
  subj, _, obj, comp = p.slots
  return subj.get("arg"), obj.get("arg"), comp.get("arg")


def _with_args(p: Pattern, subj: str, obj: str, comp: str,
               prep: str = "") -> Pattern:
  """`p` with its three argument roles reassigned (same syntax)."""
  return pattern(np_(subj), p.slots[1], np_(obj), pp(comp, prep))


def _agentact(p: Pattern) -> Pattern:
  return p.replace("Verb", VERB_PASS)


def _alt_np(p: Pattern) -> Pattern:
  return pattern(*p.slots[:3], np_(p.slots[3].get("arg")))


def _alt_pp(p: Pattern) -> Pattern:
  return pattern(*p.slots[:2], pp(p.slots[2].get("arg")), p.slots[3])


def _noemb(p: Pattern) -> Pattern:
  return pattern(*p.slots[:3], slot("PP", arg=EMB))


def _lexprep(p: Pattern) -> Pattern:
  return pattern(*p.slots[:3], pp(p.slots[3].get("arg"), WRONG_PREP))


def _ssm_swap(p: Pattern) -> Pattern:
  s, o, c = _args(p)
  return _with_args(p, o, s, c)


def _ssm_rotate(p: Pattern) -> Pattern:
  s, o, c = _args(p)
  return _with_args(p, c, s, o)


def _agent_to_pp(p: Pattern) -> Pattern:
  # 001 Figures 4-5: the demoted agent is a with-PP in both templates.
  s, o, c = _args(p)
  return _with_args(p, s, c, o, prep=AASSM_AGENT_PREP)


RULES: dict[str, Rule] = {r.name: r for r in (
    Rule("AGENTACT", "in an active sentence the agent is the NP subject: "
         "broken by a passive verb with the agent still subject", _agentact),
    Rule("ALT-NP", "the verb is followed by an NP and a PP: broken by a "
         "second NP", _alt_np),
    Rule("ALT-PP", "the verb is followed by an NP and a PP: broken by a "
         "PP in place of the NP", _alt_pp),
    Rule("NOEMB", "the PP after the object is an argument, not embedded in "
         "it: broken by a noun-modifying PP", _noemb),
    Rule("LEXPREP", "PP arguments take the verb's prepositions: broken by a "
         "wrong preposition", _lexprep),
    Rule("SSM-1", "roles map to fixed positions: broken by swapping subject "
         "and object roles", _ssm_swap),
    Rule("SSM-2", "roles map to fixed positions: broken by rotating the "
         "roles (PP role to subject, agent to object)", _ssm_rotate),
    Rule("AGENTACT-PP", "the agent is an NP: broken by demoting it into a "
         "with-PP (001 Figures 4-5)", _agent_to_pp),
)}

CORRECT = "CORRECT"

# The answer set, in the papers' order (000 Figures 5-6).
ANSWER_TEMPLATES: tuple[AnswerTemplate, ...] = (
    AnswerTemplate(CORRECT),
    AnswerTemplate("AGENTACT", ("AGENTACT",)),
    AnswerTemplate("ALT-NP", ("ALT-NP",)),
    AnswerTemplate("ALT-PP", ("ALT-PP",)),
    AnswerTemplate("NOEMB", ("NOEMB",)),
    AnswerTemplate("LEXPREP", ("LEXPREP",)),
    AnswerTemplate("SSM-1", ("SSM-1",)),
    AnswerTemplate("SSM-2", ("SSM-2",)),
    AnswerTemplate("AASSM", ("SSM-1", "AGENTACT-PP")),
)

# Template name -> (context's first alternant, target alternant).
TEMPLATES: dict[str, tuple[Pattern, Pattern]] = {
    "ALT-ATL": (ALT, ATL),
    "ATL-ALT": (ATL, ALT),
}


def template_patterns(
    name: str) -> tuple[tuple[Pattern, ...], dict[str, Pattern]]:
  """(7 context patterns, label -> answer pattern) of template `name`."""
  if name not in TEMPLATES:
    raise KeyError(f"unknown spray/load template {name!r}; known: "
                   f"{sorted(TEMPLATES)}")
  first, target = TEMPLATES[name]
  return (context_patterns(first),
          answer_patterns(target, ANSWER_TEMPLATES, RULES))


LABELS = tuple(t.label for t in ANSWER_TEMPLATES)


# --- Context-necessary answer sets (configs `ctx_type_*`). ------------------
# The direction is drawn per instance, and the answer set is built around
# both alternants: the target (CORRECT) and the first alternant, which is
# well-formed and wrong only because it repeats sentence 1's alternant instead
# of alternating from it (NOALT). Every named error is applied to both: on the
# target it keeps its paper label, on the first alternant it is labelled
# NOALT-<rule> (the base, then the rule it breaks relative to that base).

NOALT = "NOALT"
CTX_SUBSET = "ctx"


def mirrored_label(label: str) -> str:
  """The label of answer template `label` applied to the NOALT base."""
  return NOALT if label == CORRECT else f"{NOALT}-{label}"


CTX_LABELS = LABELS + tuple(mirrored_label(lab) for lab in LABELS)


def ctx_patterns(
    name: str) -> tuple[tuple[Pattern, ...], dict[str, Pattern]]:
  """(7 context patterns, label -> answer pattern) of one drawn direction
  `name` (a key of TEMPLATES) in the context-necessary answer set: the
  paper's answer set around the target, mirrored around the first
  alternant."""
  context, answers = template_patterns(name)
  first, _ = TEMPLATES[name]
  mirrored = answer_patterns(first, ANSWER_TEMPLATES, RULES)
  answers.update((mirrored_label(lab), p) for lab, p in mirrored.items())
  return context, answers
