"""Context and answer-set templates of the CoS and object-drop BLMs.

000 Figures 8 (CoS) and 11 (OD), 002 sec. 4.1 and Figure 6. Both classes share
the first six context patterns (active transitive, passive with and without a
by-agent, each followed alternately by a p-NP and a non-agentive by-NP); the
seventh is the intransitive with a p-NP, whose subject is the Theme for CoS
and the Agent for OD. The answer is the same intransitive with the by-NP.

Pattern notation (slot role first, then attribute values):

    NP-Agent / NP-Theme      the subject and its semantic role
    V-act / V-pass / V-act-si  the verb: voice, and Italian reflexive-like `si`
    OBJ-Theme / OBJ-Agent    a bare direct object
    BY-Agent / BY-Theme      by (da) introducing an argument
    pNP / byNP               the non-agentive p-NP and by-NP of the progression

The answer set is a 2x2x3 design of subject role x voice x what follows the
verb (002 sec. 4.1). Every wrong answer corrupts the named rules of its label,
read as: I = the subject's role (internal rule), E = the by-phrase selects an
argument instead of the non-agentive by-NP (wrong `by`), R = the sequence
breaks the intransitive progression by becoming a passive (R-PASS) or a
transitive (R-TRANS). So ER-PASS = E + R-PASS, IE-WRBY = I + E, etc.

Italian adds the reflexive-like `si` that marks the CoS intransitive (il burro
si scioglie) and turns an OD intransitive into a reflexive transitive (002
sec. 4.1), with rule SI. Following 000 footnote 3, each Italian class keeps the
morphosyntax of its own correct alternation in its intransitive candidates
(CoS: I-INT/E-WRBY/IE-WRBY keep `si`; OD: none has it), and the two extra
candidates are the intransitives with the `si` choice flipped: SI-PAT (Theme
subject) and SI-AG (Agent subject). For CoS, SI-PAT is the correct answer
without `si` (rule SI alone) and SI-AG also swaps the role (SI + I); for OD,
SI-AG is the correct answer with `si` (SI alone) and SI-PAT is SI + I, which
is 002 Figure 8's "Pat SI Akt by-NP" / "Ag SI Akt by-NP". Passives and
transitives never carry `si` (R-PASS and R-TRANS drop it).
"""

from __future__ import annotations

from data_builders.common.template import (AnswerTemplate, Pattern, Rule,
                                           pattern, slot)

CLASSES = ("cos", "od")
LANGUAGES = ("en", "it")

AGENT, THEME = "Agent", "Theme"


def _subj(role: str):
  return slot("NP", arg=role)


def _verb(voice: str, si: bool = False):
  return slot("V", voice=voice, si="si" if si else "")


def _obj(role: str):
  return slot("OBJ", arg=role)


def _by(role: str):
  return slot("BY", arg=role)


P_NP = slot("pNP")
BY_NP = slot("byNP")


def intransitive_subject(cls: str) -> str:
  """The role of the intransitive subject: the class's defining property."""
  return {"cos": THEME, "od": AGENT}[_check_class(cls)]


def takes_si(cls: str, language: str) -> bool:
  """Whether the class's intransitive carries `si` (Italian CoS only)."""
  return language == "it" and _check_class(cls) == "cos"


def anticausative_class(cls: str, language: str) -> str:
  """The lexicon's anticausative class the template is written for (CoS), or
  "" (OD). The correct answer carries `si` and SI-PAT drops it, so an Italian
  verb with no `si` or optional `si` would make SI-PAT grammatical or the
  correct answer wrong: only obligatory-`si` verbs fit (lexicon.py)."""
  if _check_class(cls) != "cos":
    return ""
  return "si" if takes_si(cls, language) else "bare"


def context_patterns(cls: str, language: str) -> tuple[Pattern, ...]:
  """The seven context patterns of 000 Figure 8 (CoS) / 11 (OD)."""
  intr = intransitive_subject(cls)
  return (
      pattern(_subj(AGENT), _verb("act"), _obj(THEME), P_NP),
      pattern(_subj(AGENT), _verb("act"), _obj(THEME), BY_NP),
      pattern(_subj(THEME), _verb("pass"), _by(AGENT), P_NP),
      pattern(_subj(THEME), _verb("pass"), _by(AGENT), BY_NP),
      pattern(_subj(THEME), _verb("pass"), P_NP),
      pattern(_subj(THEME), _verb("pass"), BY_NP),
      pattern(_subj(intr), _verb("act", takes_si(cls, language)), P_NP),
  )


def correct_pattern(cls: str, language: str) -> Pattern:
  return pattern(_subj(intransitive_subject(cls)),
                 _verb("act", takes_si(cls, language)), BY_NP)


def _other(role: str) -> str:
  return THEME if role == AGENT else AGENT


def _swap_roles(p: Pattern) -> Pattern:
  for role in ("NP", "OBJ", "BY"):
    if p.has(role):
      p = p.set(role, arg=_other(p.slot(role).get("arg")))
  return p


def _wrong_by(p: Pattern) -> Pattern:
  return p.replace("byNP", _by(_other(p.slot("NP").get("arg"))))


def _passivise(p: Pattern) -> Pattern:
  return p.set("V", voice="pass", si="")


def _transitivise(p: Pattern) -> Pattern:
  p = p.replace("byNP", _obj(_other(p.slot("NP").get("arg"))))
  return p.set("V", si="")


def _flip_si(p: Pattern) -> Pattern:
  return p.set("V", si="" if p.slot("V").get("si") else "si")


RULES: dict[str, Rule] = {r.name: r for r in (
    Rule("I", "the intransitive subject bears the class's role (CoS: Theme, "
         "OD: Agent)", _swap_roles),
    Rule("E", "the final by-phrase is the non-agentive by-NP, not by + an "
         "argument", _wrong_by),
    Rule("R-PASS", "the progression ends in an active intransitive, not a "
         "passive", _passivise),
    Rule("R-TRANS", "the progression ends in an intransitive, not a "
         "transitive with a bare object", _transitivise),
    Rule("SI", "Italian: CoS intransitives take the reflexive-like si, OD "
         "intransitives do not", _flip_si),
)}

# label -> rules it breaks, per class: the OD correct answer is a CoS error
# and vice versa (000 Figure 11), so only the SI labels depend on the class.
_SHARED = (
    AnswerTemplate("CORRECT"),
    AnswerTemplate("I-INT", ("I",)),
    AnswerTemplate("ER-PASS", ("E", "R-PASS")),
    AnswerTemplate("IER-PASS", ("I", "E", "R-PASS")),
    AnswerTemplate("R-TRANS", ("R-TRANS",)),
    AnswerTemplate("IR-TRANS", ("I", "R-TRANS")),
    AnswerTemplate("E-WRBY", ("E",)),
    AnswerTemplate("IE-WRBY", ("I", "E")),
)
_SI = {
    "cos": (AnswerTemplate("SI-PAT", ("SI",)),
            AnswerTemplate("SI-AG", ("I", "SI"))),
    "od": (AnswerTemplate("SI-PAT", ("I", "SI")),
           AnswerTemplate("SI-AG", ("SI",))),
}


def answer_templates(cls: str, language: str) -> tuple[AnswerTemplate, ...]:
  """8 candidates (000 Figures 8/11); Italian adds the two `si` ones."""
  extra = _SI[_check_class(cls)] if language == "it" else ()
  return _SHARED + extra


def _check_class(cls: str) -> str:
  if cls not in CLASSES:
    raise ValueError(f"unknown verb class {cls!r}; known: {CLASSES}")
  return cls


# --- Context-necessary design (README "Context-necessary configs") ----------
#
# The eight sentences of the paper's progression are four forms, each with the
# p-NP then the by-NP: transitive (TRANS), passive with by-agent (PASSBY),
# agentless passive (PASS), intransitive (INT). The context-necessary configs
# read that progression as a cycle and draw, per instance, its phase: the form
# whose by-NP sentence is missing. The context is the cycle's seven sentences
# before it (the paper's context is the phase INT) and the answer is that form
# with the by-NP. Every answer set holds the four forms with the by-NP (the
# right one is CORRECT, the other three break only R: R-<form>), each with its
# roles swapped (I-<form>), and the intransitive with the by-phrase rule (E-INT)
# and, in Italian, the si rule (SI-INT) broken: the same eleven/twelve
# patterns in every instance, whatever its phase.

FORMS = ("TRANS", "PASSBY", "PASS", "INT")
CTX_FAMILY = {"cos": "cos_ctx", "od": "od_ctx"}


def form_pattern(form: str, cls: str, language: str, tail) -> Pattern:
  """One form of the progression ending in `tail` (P_NP or BY_NP)."""
  if form == "TRANS":
    return pattern(_subj(AGENT), _verb("act"), _obj(THEME), tail)
  if form == "PASSBY":
    return pattern(_subj(THEME), _verb("pass"), _by(AGENT), tail)
  if form == "PASS":
    return pattern(_subj(THEME), _verb("pass"), tail)
  if form == "INT":
    return pattern(_subj(intransitive_subject(cls)),
                   _verb("act", takes_si(cls, language)), tail)
  raise ValueError(f"unknown form {form!r}; known: {FORMS}")


def ctx_context_patterns(cls: str, language: str,
                         missing: str) -> tuple[Pattern, ...]:
  """The seven sentences of the cycle that precede `missing` + by-NP."""
  start = (FORMS.index(missing) + 1) % len(FORMS)
  return tuple(
      form_pattern(FORMS[(start + j // 2) % len(FORMS)], cls, language,
                   BY_NP if j % 2 else P_NP)
      for j in range(7))


def ctx_labels(language: str) -> tuple[str, ...]:
  """The labels of a context-necessary answer set, CORRECT first (the
  inventory of `CTX_FAMILY`; one of the R-<form> is CORRECT instead)."""
  out = (("CORRECT",) + tuple(f"R-{f}" for f in FORMS)
         + tuple(f"I-{f}" for f in FORMS) + ("E-INT",))
  return out + (("SI-INT",) if language == "it" else ())


def ctx_answer_patterns(cls: str, language: str,
                        missing: str) -> dict[str, Pattern]:
  """label -> pattern of the answer set whose correct form is `missing`.

  R-<form>: that well-formed form with the by-NP, wrong only because the
  progression puts `missing` in eighth place (rule R); I-<form>: that form
  with its roles swapped (rule I); E-INT and SI-INT: the intransitive with
  rule E / SI broken (000 Figure 8's E-WRBY, 002 Figure 8's si candidate of
  the class). Each breaks one rule relative to the well-formed form it names.
  """
  if missing not in FORMS:
    raise ValueError(f"unknown form {missing!r}; known: {FORMS}")
  out = {}
  for f in FORMS:
    base = form_pattern(f, cls, language, BY_NP)
    out["CORRECT" if f == missing else f"R-{f}"] = base
  for f in FORMS:
    out[f"I-{f}"] = RULES["I"].corrupt(form_pattern(f, cls, language, BY_NP))
  intr = form_pattern("INT", cls, language, BY_NP)
  out["E-INT"] = RULES["E"].corrupt(intr)
  if language == "it":
    out["SI-INT"] = RULES["SI"].corrupt(intr)
  return out


# --- Sequence-necessary design (README "Sequence-necessary configs") --------
#
# The paper's eight sentences vary two attributes: the form (TRANS, PASSBY,
# PASS, INT: arguments dropped one step at a time, each form held for two
# sentences) and the tail (the p-NP, then the by-NP, alternating every
# sentence). The `_seq` configs draw per instance a progression of the same
# two attributes from the family the template admits: the form steps through
# the cycle of FORMS forwards (arguments dropped) or backwards (added), every
# sentence or every second one, from any form and offset; the tail alternates
# every sentence, every second or every fourth one, from either tail and any
# offset (SEQ_PERIODS). The eighth sentence continues both; the answer set holds
# the eight well-formed form x tail sentences (the other rules'
# continuations) and the papers' rule-breaking candidates on the intransitive.

TAILS = ("P", "BY")
SEQ_FAMILY = {"cos": "cos_seq", "od": "od_seq"}
SEQ_FORM_PERIODS = (1, 2)
SEQ_TAIL_PERIODS = (1, 2, 4)
SEQ_LENGTH = 8
# The held-out-rules regime (`seq_rules` configs) draws from a wider family,
# every period 1-4 of both attributes (1600 rules, not 336), so that its
# test split holds rules enough (README "Generalisation regimes").
WIDE_PERIODS = (1, 2, 3, 4)


def tail_slot(tail: str):
  return P_NP if tail == "P" else BY_NP


def seq_rules(wide: bool = False) -> tuple[tuple[int, ...], ...]:
  """Every progression of the family (`wide`: of the held-out-rules
  regime's) as (form period, direction, first form, form offset, tail
  period, first tail, tail offset); all give distinct sequences of eight
  (form, tail) cells (tests)."""
  form_periods = WIDE_PERIODS if wide else SEQ_FORM_PERIODS
  tail_periods = WIDE_PERIODS if wide else SEQ_TAIL_PERIODS
  return tuple(
      (pf, d, s, of, pt, t0, ot)
      for pf in form_periods for d in (1, -1) for s in range(len(FORMS))
      for of in range(pf) for pt in tail_periods for t0 in range(2)
      for ot in range(pt))


def seq_cells(rule) -> tuple[tuple[str, str], ...]:
  """The eight (form, tail) cells of a progression; the last is the answer."""
  pf, d, s, of, pt, t0, ot = rule
  return tuple(
      (FORMS[(s + d * ((j + of) // pf)) % len(FORMS)],
       TAILS[(t0 + (j + ot) // pt) % 2]) for j in range(SEQ_LENGTH))


def seq_cell_label(form: str, tail: str) -> str:
  return f"R-{form}-{tail}"


def seq_labels(language: str) -> tuple[str, ...]:
  """The inventory of `SEQ_FAMILY`, CORRECT first (one R-<form>-<tail> is
  CORRECT instead in each instance)."""
  cells = tuple(seq_cell_label(f, t) for f in FORMS for t in TAILS)
  out = ("CORRECT",) + cells + ("I-INT", "E-INT")
  return out + (("SI-INT",) if language == "it" else ())


def seq_context_patterns(cls: str, language: str,
                         rule) -> tuple[Pattern, ...]:
  return tuple(form_pattern(f, cls, language, tail_slot(t))
               for f, t in seq_cells(rule)[:-1])


def seq_answer_patterns(cls: str, language: str, rule) -> dict[str, Pattern]:
  """label -> pattern: the eight well-formed cells (the rule's eighth is
  CORRECT, each other one is what another progression of the family
  continues with: rule R), the intransitive with the by-NP and its roles
  swapped (I-INT), its by-NP replaced by by + the other argument (E-INT)
  and, in Italian, its `si` choice flipped (SI-INT)."""
  answer = seq_cells(rule)[-1]
  out = {}
  for f in FORMS:
    for t in TAILS:
      p = form_pattern(f, cls, language, tail_slot(t))
      out["CORRECT" if (f, t) == answer else seq_cell_label(f, t)] = p
  intr = form_pattern("INT", cls, language, BY_NP)
  out["I-INT"] = RULES["I"].corrupt(intr)
  out["E-INT"] = RULES["E"].corrupt(intr)
  if language == "it":
    out["SI-INT"] = RULES["SI"].corrupt(intr)
  return out
