"""Generating spray/load BLM instances of lexical types I, II and III.

Type I: one verb, agent, theme and location (and preposition) throughout an
instance, one instance per verb and argument combination (30 x 5^3 = 3750).
Type II: one verb per instance, every sentence draws its own arguments and
preposition from that verb's lexicon entry (500 per verb, 15,000). Type III:
every sentence draws its own verb too, so all lexical material varies
(15,000). Wrong answers get the same kind of draw as the correct one, so no
candidate is singled out by its words. Draws are seeded by the instance id
(and the config seed), so builds are reproducible and independent of order.
"""

from __future__ import annotations

import functools
import itertools
import random
from typing import Callable, Sequence

from data_builders.blm_spray_load import lexicon as lexicon_lib
from data_builders.blm_spray_load import realise, sequence
from data_builders.blm_spray_load import templates
from data_builders.common.instances import make_instance, stable_seed
from data_builders.common.schema import BLMInstance

FAMILY = "spray_load"
LANGUAGE = "en"
LEXICAL_TYPES = ("I", "II", "III")
# 004 sec. 3: 3750 type I instances; 15,000 of types II and III.
TYPE_II_PER_VERB = 500
TYPE_III_SIZE = 15_000
_MAX_RETRIES = 100


class Draws:
  """Seeded choices from one instance's own random stream (Python's
  Mersenne Twister: its integer seeding and getrandbits are stable across
  versions and platforms)."""

  def __init__(self, *parts: object):
    self._rng = random.Random(stable_seed(*parts))

  def index(self, n: int) -> int:
    return self._rng.getrandbits(30) % n

  def choice(self, items: Sequence):
    return items[self.index(len(items))]


def filler(e: lexicon_lib.VerbEntry, agent: int, theme: int, loc: int,
           draws: Draws) -> realise.Filler:
  args = e.args
  mods = e.modifiers
  return realise.Filler(
      verb=e.verb_frame,
      args={templates.AGENT: args[templates.AGENT][agent],
            templates.THEME: args[templates.THEME][theme],
            templates.LOC: args[templates.LOC][loc]},
      prep=draws.choice(e.prepositions),
      wrong_prep=draws.choice(e.wrong_prepositions),
      modifiers={templates.THEME: draws.choice(mods[templates.THEME]),
                 templates.LOC: draws.choice(mods[templates.LOC])})


def random_filler(e: lexicon_lib.VerbEntry, draws: Draws) -> realise.Filler:
  n = lexicon_lib.ARGS_PER_SLOT
  return filler(e, draws.index(n), draws.index(n), draws.index(n), draws)


def realised_instance(id_: str, family: str, lexical_type: str, subset: str,
                      seed: int, plans, fillers: Sequence[realise.Filler]
                      ) -> BLMInstance:
  """The instance of `plans` = (context plans, (label, answer plan)s)
  realised with `fillers`: one per context sentence, then one per answer
  (shared by both spray/load packages' configs)."""
  ctx_plans, answer_plans = plans
  n_ctx = len(ctx_plans)
  context = [realise.realise(p, f) for p, f in zip(ctx_plans, fillers)]
  candidates = [(label, realise.realise(p, f)) for (label, p), f in
                zip(answer_plans, fillers[n_ctx:])]
  return make_instance(
      id=id_, family=family, language=LANGUAGE, lexical_type=lexical_type,
      subset=subset, context=context, candidates=candidates,
      correct_label=templates.CORRECT, seed=seed)


def _instance(id_: str, template: str, lexical_type: str, seed: int,
              fillers: Sequence[realise.Filler]) -> BLMInstance:
  """`fillers`: one per context sentence, then one per answer template."""
  return realised_instance(id_, FAMILY, lexical_type, template, seed,
                           _plans(template), fillers)


def _plans_of(patterns):
  """Realisation plans of (context patterns, {label: answer pattern})."""
  ctx, answers = patterns
  return (tuple(realise.plan(p) for p in ctx),
          tuple((label, realise.plan(p)) for label, p in answers.items()))


@functools.lru_cache(maxsize=None)
def _plans(template: str):
  """Realisation plans of the template's context and (label, answer)s."""
  return _plans_of(templates.template_patterns(template))


def lexical_types(family: str, template: str, lexical_type: str,
                  lex: lexicon_lib.Lexicon, seed: int, n_sentences: int,
                  instance: Callable[[str, str, list], BLMInstance],
                  type_iii_size: int = TYPE_III_SIZE,
                  redraw_copies: bool = False,
                  distinct_context: bool = False) -> list[BLMInstance]:
  """Types I-III of one template over the seed set (shared with
  `blm_spray_load_v0`): `instance(id, lexical_type, fillers)` with one
  filler per sentence (context, then answers). Contexts never repeat; with
  `redraw_copies`, an instance is also redrawn when a candidate repeats a
  context sentence or two candidates draw the same text; with
  `distinct_context` (types II and III vary the words), when its context
  holds a sentence twice."""
  if lexical_type not in LEXICAL_TYPES:
    raise ValueError(f"unknown lexical type {lexical_type!r}; known: "
                     f"{LEXICAL_TYPES}")
  n = n_sentences
  out = []
  if lexical_type == "I":
    k = range(lexicon_lib.ARGS_PER_SLOT)
    for e in lex.entries:
      for a, t, l in itertools.product(k, k, k):
        id_ = f"{template}-I-{e.verb}-a{a}t{t}l{l}"
        f = filler(e, a, t, l, Draws(family, seed, id_))
        out.append(instance(id_, "I", [f] * n))
    return out
  seen: set[tuple[str, ...]] = set()

  def unique(id_, make):
    """`make(draws)` until its context is new (and, with redraw_copies,
    no candidate repeats a context sentence or another candidate)."""
    for retry in range(_MAX_RETRIES):
      try:
        inst = make(Draws(family, seed, id_, retry))
      except ValueError:  # Two candidates drew the same text.
        if not redraw_copies:
          raise
        continue
      key = tuple(s.text for s in inst.context)
      if key in seen or (redraw_copies and set(key) & {
          s.text for s in inst.answers}) or (
              distinct_context and len(set(key)) < len(key)):
        continue
      seen.add(key)
      return inst
    raise RuntimeError(f"{id_}: no new context in {_MAX_RETRIES} draws")

  if lexical_type == "II":
    for e in lex.entries:
      for i in range(TYPE_II_PER_VERB):
        id_ = f"{template}-II-{e.verb}-{i:03d}"
        out.append(unique(id_, lambda d, e=e, id_=id_: instance(
            id_, "II", [random_filler(e, d) for _ in range(n)])))
    return out
  for i in range(type_iii_size):
    id_ = f"{template}-III-{i:05d}"
    out.append(unique(id_, lambda d, id_=id_: instance(
        id_, "III",
        [random_filler(d.choice(lex.entries), d) for _ in range(n)])))
  return out


def generate(template: str, lexical_type: str,
             lex: lexicon_lib.Lexicon | None = None,
             seed: int = 0) -> list[BLMInstance]:
  """Every instance of one config (template x lexical type)."""
  ctx, answers = _plans(template)
  return lexical_types(
      FAMILY, template, lexical_type, lex or lexicon_lib.load_lexicon(), seed,
      len(ctx) + len(answers),
      lambda id_, lt, fillers: _instance(id_, template, lt, seed, fillers))


# --- Context-necessary configs (`ctx_type_*`, see README). ------------------

CTX = "ctx"  # The template name of the context-necessary configs.
CTX_FAMILY = "spray_load_ctx"
DIRECTIONS = tuple(templates.TEMPLATES)  # ("ALT-ATL", "ATL-ALT")


def ctx_direction(seed: int, id_: str) -> str:
  """The instance's drawn direction, 50/50, from a stream of its own (so it
  is independent of the lexical draws and of their retries)."""
  return DIRECTIONS[Draws(CTX_FAMILY, seed, "direction", id_).index(2)]


@functools.lru_cache(maxsize=None)
def _ctx_plans(direction: str):
  """Plans of one direction's context and (label, answer)s, ctx answer set."""
  return _plans_of(templates.ctx_patterns(direction))


def _ctx_instance(id_: str, lexical_type: str, seed: int,
                  fillers: Sequence[realise.Filler]) -> BLMInstance:
  """`fillers`: one per context sentence, then one per answer (in the order
  of `templates.CTX_LABELS`)."""
  return realised_instance(id_, CTX_FAMILY, lexical_type,
                           templates.CTX_SUBSET, seed,
                           _ctx_plans(ctx_direction(seed, id_)), fillers)


def _copies(inst: BLMInstance) -> bool:
  return bool({s.text for s in inst.context} & {s.text for s in inst.answers})


def type_i_two_materials(
    family: str, prefix: str, lex: lexicon_lib.Lexicon, seed: int,
    n_ctx: int, second: Sequence[bool],
    instance: Callable[[str, list], BLMInstance]) -> list[BLMInstance]:
  """Type I of a context-necessary config (shared with
  `blm_spray_load_v0`): one verb and argument combination throughout the
  context and the answers built on the target; the answers built on the
  other base (`second[i]` for answer i) draw another argument combination
  of the same verb, since with the context's own that base would repeat a
  context sentence verbatim. `instance(id, fillers)`, one filler per
  context sentence, then one per answer; redrawn while two candidates have
  the same text or one repeats a context sentence."""
  k = range(lexicon_lib.ARGS_PER_SLOT)
  combos = list(itertools.product(k, k, k))
  out = []
  for e in lex.entries:
    for a, t, l in combos:
      id_ = f"{prefix}-I-{e.verb}-a{a}t{t}l{l}"
      draws = Draws(family, seed, id_)
      f = filler(e, a, t, l, draws)
      others = [c for c in combos if c != (a, t, l)]
      for _ in range(_MAX_RETRIES):
        g = filler(e, *draws.choice(others), draws)
        try:
          inst = instance(id_, [f] * n_ctx + [g if other else f
                                              for other in second])
        except ValueError:  # Two candidates drew the same text.
          continue
        if not _copies(inst):
          out.append(inst)
          break
      else:
        raise RuntimeError(f"{id_}: no second material without a copy in "
                           f"{_MAX_RETRIES} draws")
  return out


def generate_ctx(lexical_type: str, lex: lexicon_lib.Lexicon | None = None,
                 seed: int = 0) -> list[BLMInstance]:
  """Every instance of one context-necessary config (`ctx_type_<type>`)."""
  lex = lex or lexicon_lib.load_lexicon()
  ctx, answers = _ctx_plans(DIRECTIONS[0])
  if lexical_type == "I":
    # The NOALT answers (sentence 1's alternant and its errors) take the
    # second material.
    return type_i_two_materials(
        CTX_FAMILY, CTX, lex, seed, len(ctx),
        [lab.startswith(templates.NOALT) for lab, _ in answers],
        lambda id_, fillers: _ctx_instance(id_, "I", seed, fillers))
  return lexical_types(
      CTX_FAMILY, CTX, lexical_type, lex, seed, len(ctx) + len(answers),
      lambda id_, lt, fillers: _ctx_instance(id_, lt, seed, fillers),
      redraw_copies=True)


# --- Sequence-necessary configs (`seq_type_*`, see README and sequence.py). -

SEQ = "seq"  # The template name of the sequence-necessary configs.


def seq_draw(seed: int, id_: str
             ) -> tuple[sequence.Rule, tuple[str, str]]:
  """The instance's rule and the (alternant, polarity) of its rule-breaking
  answers' base, from a stream of its own (independent of the lexical
  draws)."""
  rng = random.Random(stable_seed(sequence.SEQ_FAMILY, seed, "rule", id_))
  rule = sequence.draw_rule(rng)
  return rule, (rng.choice(sequence.ALTERNANTS),
                rng.choice(sequence.POLARITIES))


@functools.lru_cache(maxsize=None)
def _seq_plans(rule: sequence.Rule, error_base: tuple[str, str]):
  return _plans_of(sequence.seq_patterns(rule, error_base))


def _seq_instance(id_: str, lexical_type: str, seed: int,
                  fillers: Sequence[realise.Filler]) -> BLMInstance:
  return realised_instance(id_, sequence.SEQ_FAMILY, lexical_type,
                           sequence.SEQ_SUBSET, seed,
                           _seq_plans(*seq_draw(seed, id_)), fillers)


def generate_seq(lexical_type: str, lex: lexicon_lib.Lexicon | None = None,
                 seed: int = 0, type_iii_size: int = TYPE_III_SIZE
                 ) -> list[BLMInstance]:
  """Every instance of one sequence-necessary config (`seq_type_<type>`).
  The design repeats cells, so with the context's own material a candidate
  (the correct one too) would repeat a context sentence: type I keeps one
  material in the context and gives every answer another argument
  combination of the same verb; types II and III are redrawn until no
  candidate repeats a context sentence and no context sentence another
  (they vary the words; type I repeats one where its cells repeat)."""
  lex = lex or lexicon_lib.load_lexicon()
  # Any rule gives the sizes: 7 context sentences and 24 answers.
  ctx, answers = sequence.seq_patterns(*seq_draw(seed, "size"))
  if lexical_type == "I":
    return type_i_two_materials(
        sequence.SEQ_FAMILY, SEQ, lex, seed, len(ctx), [True] * len(answers),
        lambda id_, fillers: _seq_instance(id_, "I", seed, fillers))
  return lexical_types(
      sequence.SEQ_FAMILY, SEQ, lexical_type,
      lex, seed, len(ctx) + len(answers),
      lambda id_, lt, fillers: _seq_instance(id_, lt, seed, fillers),
      type_iii_size=type_iii_size, redraw_copies=True,
      distinct_context=True)
