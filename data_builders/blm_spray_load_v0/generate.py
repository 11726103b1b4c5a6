"""Generating spray/load v0 instances of lexical types I, II and III.

The lexical material is the `blm_spray_load` seed set (one entry per verb:
its sentence frame, five agents, themes and locations, its locative and
wrong prepositions, its noun-modifying PPs), loaded and checked by that
package's loader; this package only adds the v0 templates. Types follow
`blm_spray_load.generate`: type I keeps one verb and one agent, theme and
location (and preposition) throughout an instance (30 x 5^3 = 3750); type
II draws the arguments of every sentence from one verb's entry (500 per
verb); type III draws the verb too (15,000). Each candidate gets its own
draw, like each context sentence, so no candidate stands out by its words.
"""

from __future__ import annotations

import functools
import itertools
import random
from typing import Sequence

from blm_jax.schema import BLMInstance, Sentence
from data_builders.blm_spray_load import lexicon as lexicon_lib
from data_builders.blm_spray_load import realise
from data_builders.blm_spray_load import templates as sl_templates
from data_builders.blm_spray_load_v0 import templates
from data_builders.common.instances import make_instance, stable_seed

LANGUAGE = "en"
LEXICAL_TYPES = ("I", "II", "III")
TYPE_II_PER_VERB = 500
TYPE_III_SIZE = 15_000
_MAX_RETRIES = 100


class _Draws:
  """Seeded choices from one instance's own stream (stable across runs)."""

  def __init__(self, *parts: object):
    self._rng = random.Random(stable_seed(*parts))

  def index(self, n: int) -> int:
    return self._rng.getrandbits(30) % n

  def choice(self, items: Sequence):
    return items[self.index(len(items))]


def filler(e: lexicon_lib.VerbEntry, agent: int, theme: int, loc: int,
           draws: _Draws) -> realise.Filler:
  return realise.Filler(
      verb=e.verb_frame,
      args={sl_templates.AGENT: e.args[sl_templates.AGENT][agent],
            sl_templates.THEME: e.args[sl_templates.THEME][theme],
            sl_templates.LOC: e.args[sl_templates.LOC][loc]},
      prep=draws.choice(e.prepositions),
      wrong_prep=draws.choice(e.wrong_prepositions),
      modifiers={sl_templates.THEME: draws.choice(e.modifiers[sl_templates.THEME]),
                 sl_templates.LOC: draws.choice(e.modifiers[sl_templates.LOC])})


def _random_filler(e: lexicon_lib.VerbEntry, draws: _Draws) -> realise.Filler:
  n = lexicon_lib.ARGS_PER_SLOT
  return filler(e, draws.index(n), draws.index(n), draws.index(n), draws)


def plan(p) -> tuple:
  """`realise.plan` of `p`, with Adv's `Padv` written as "because of" (the
  pattern string keeps the one-token name)."""
  _, ops = realise.plan(_written(p))
  return str(p), ops


def _written(p):
  """`p` with the adverbial kind replaced by the preposition itself."""
  slots = tuple(s.with_(prep=templates.ADVERBIAL_PREP)
                if s.role == "PP" and s.get("prep") == templates.ADVERBIAL
                else s for s in p.slots)
  return type(p)(slots)


@functools.lru_cache(maxsize=None)
def plans(template: str):
  """Realisation plans of the template's context and (label, answer)s."""
  ctx, answers = templates.template_patterns(template)
  return (tuple(plan(p) for p in ctx),
          tuple((label, plan(p)) for label, p in answers.items()))


def instance(id_: str, template: str, lexical_type: str, seed: int,
             fillers: Sequence[realise.Filler]) -> BLMInstance:
  """`fillers`: one per context sentence, then one per answer."""
  ctx_plans, answer_plans = plans(template)
  n_ctx = len(ctx_plans)
  context = [realise.realise(p, f) for p, f in zip(ctx_plans, fillers)]
  candidates = [(label, realise.realise(p, f)) for (label, p), f in
                zip(answer_plans, fillers[n_ctx:])]
  return make_instance(
      id=id_, family=templates.FAMILY, language=LANGUAGE,
      lexical_type=lexical_type, subset=template, context=context,
      candidates=candidates, correct_label=templates.CORRECT, seed=seed)


def _n_sentences(template: str) -> int:
  ctx, answers = plans(template)
  return len(ctx) + len(answers)


def generate(template: str, lexical_type: str,
             lex: lexicon_lib.Lexicon | None = None,
             seed: int = 0, size: int | None = None) -> list[BLMInstance]:
  """Every instance of one config (template x lexical type); `size` caps
  type III (its first `size` instances, for quick checks)."""
  lex = lex or lexicon_lib.load_lexicon()
  if lexical_type not in LEXICAL_TYPES:
    raise ValueError(f"unknown lexical type {lexical_type!r}; known: "
                     f"{LEXICAL_TYPES}")
  n = _n_sentences(template)
  out = []
  if lexical_type == "I":
    k = range(lexicon_lib.ARGS_PER_SLOT)
    for e in lex.entries:
      for a, t, l in itertools.product(k, k, k):
        id_ = f"{template}-I-{e.verb}-a{a}t{t}l{l}"
        f = filler(e, a, t, l, _Draws(templates.FAMILY, seed, id_))
        out.append(instance(id_, template, "I", seed, [f] * n))
    return out
  seen: set[tuple[str, ...]] = set()

  def unique(id_, make):
    """`make(draws)` until its context is new and no candidate repeats a
    context sentence or another candidate."""
    for retry in range(_MAX_RETRIES):
      try:
        inst = make(_Draws(templates.FAMILY, seed, id_, retry))
      except ValueError:  # Two candidates drew the same text: redraw.
        continue
      key = tuple(s.text for s in inst.context)
      if key not in seen and not set(key) & {s.text for s in inst.answers}:
        seen.add(key)
        return inst
    raise RuntimeError(f"{id_}: no new context in {_MAX_RETRIES} draws")

  if lexical_type == "II":
    for e in lex.entries:
      for i in range(TYPE_II_PER_VERB):
        id_ = f"{template}-II-{e.verb}-{i:03d}"
        out.append(unique(id_, lambda d, e=e, id_=id_: instance(
            id_, template, "II", seed,
            [_random_filler(e, d) for _ in range(n)])))
    return out
  for i in range(TYPE_III_SIZE if size is None else size):
    id_ = f"{template}-III-{i:05d}"
    out.append(unique(id_, lambda d, id_=id_: instance(
        id_, template, "III", seed,
        [_random_filler(d.choice(lex.entries), d) for _ in range(n)])))
  return out
