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
from typing import Sequence

from data_builders.blm_spray_load import generate as sl_generate
from data_builders.blm_spray_load import lexicon as lexicon_lib
from data_builders.blm_spray_load import realise
from data_builders.blm_spray_load_v0 import templates
from data_builders.common.schema import BLMInstance

LEXICAL_TYPES = ("I", "II", "III")
TYPE_III_SIZE = sl_generate.TYPE_III_SIZE


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
  return sl_generate.realised_instance(id_, templates.FAMILY, lexical_type,
                                       template, seed, plans(template),
                                       fillers)


def generate(template: str, lexical_type: str,
             lex: lexicon_lib.Lexicon | None = None,
             seed: int = 0, size: int | None = None) -> list[BLMInstance]:
  """Every instance of one config (template x lexical type); `size` caps
  type III (its first `size` instances, for quick checks)."""
  ctx, answers = plans(template)
  return sl_generate.lexical_types(
      templates.FAMILY, template, lexical_type,
      lex or lexicon_lib.load_lexicon(), seed, len(ctx) + len(answers),
      lambda id_, lt, fillers: instance(id_, template, lt, seed, fillers),
      type_iii_size=TYPE_III_SIZE if size is None else size,
      redraw_copies=True)


# --- Context-necessary configs (`ctx_type_*`, `ctx_t2_type_*`, see README).

CTX = "ctx"  # The template name of Template 1's context-necessary configs.
CTX_T2 = "ctx_t2"  # The same, Template 2.
CTX_FAMILY = "spray_load_v0_ctx"
# Config template -> (paper template, family of its instances).
CTX_CONFIGS = {CTX: (templates.CTX_TEMPLATE, CTX_FAMILY),
               CTX_T2: ("Template2", "spray_load_v0_t2_ctx")}


def _ctx_config(ctx: str) -> tuple[str, str]:
  if ctx not in CTX_CONFIGS:
    raise KeyError(f"unknown context-necessary template {ctx!r}; known: "
                   f"{sorted(CTX_CONFIGS)}")
  return CTX_CONFIGS[ctx]


def ctx_order(seed: int, id_: str, ctx: str = CTX) -> str:
  """The instance's drawn role order, 50/50, from a stream of its own (so
  it is independent of the lexical draws and of their retries)."""
  return templates.ORDERS[
      sl_generate.Draws(_ctx_config(ctx)[1], seed, "order", id_).index(2)]


@functools.lru_cache(maxsize=None)
def ctx_plans(order: str, ctx: str = CTX):
  """Plans of one role order's context and (label, answer)s, in the
  context-necessary answer set of config template `ctx`."""
  ctx_pats, answers = templates.ctx_patterns(_ctx_config(ctx)[0], order)
  return (tuple(plan(p) for p in ctx_pats),
          tuple((label, plan(p)) for label, p in answers.items()))


def ctx_instance(id_: str, lexical_type: str, seed: int,
                 fillers: Sequence[realise.Filler],
                 ctx: str = CTX) -> BLMInstance:
  """`fillers`: one per context sentence, then one per answer (in the order
  of `templates.ctx_labels` of the config's template)."""
  return sl_generate.realised_instance(
      id_, _ctx_config(ctx)[1], lexical_type, templates.CTX_SUBSET, seed,
      ctx_plans(ctx_order(seed, id_, ctx), ctx), fillers)


def _type_i_instance(id_: str, seed: int, fillers: Sequence[realise.Filler],
                     ctx: str) -> BLMInstance:
  """Type I from `type_i_two_materials`' fillers (the context's, then per
  answer the context material and the other material): each answer takes
  the other material when it is built on the other order's answer in this
  instance's drawn order."""
  template = _ctx_config(ctx)[0]
  order = ctx_order(seed, id_, ctx)
  labels = templates.ctx_labels(template)
  n_ctx = len(fillers) - 2 * len(labels)
  own, other = fillers[n_ctx:n_ctx + len(labels)], fillers[n_ctx + len(labels):]
  answers = [b if templates.on_other_base(template, order, lab) else a
             for lab, a, b in zip(labels, own, other)]
  return ctx_instance(id_, "I", seed, list(fillers[:n_ctx]) + answers, ctx)


def generate_ctx(lexical_type: str, lex: lexicon_lib.Lexicon | None = None,
                 seed: int = 0, size: int | None = None,
                 ctx: str = CTX) -> list[BLMInstance]:
  """Every instance of one context-necessary config (`<ctx>_type_<type>`);
  `size` caps type III as in `generate`."""
  lex = lex or lexicon_lib.load_lexicon()
  template, family = _ctx_config(ctx)
  ctx_pats, answers = ctx_plans(templates.ORDERS[0], ctx)
  if lexical_type == "I":
    # The answers built on the WSeq base take a second argument combination
    # of the verb; which answers those are can depend on the drawn order
    # (Template 2's order-free labels), so each answer gets both materials.
    n = len(answers)
    return sl_generate.type_i_two_materials(
        family, ctx, lex, seed, len(ctx_pats), [False] * n + [True] * n,
        lambda id_, fillers: _type_i_instance(id_, seed, fillers, ctx))
  return sl_generate.lexical_types(
      family, ctx, lexical_type, lex, seed, len(ctx_pats) + len(answers),
      lambda id_, lt, fillers: ctx_instance(id_, lt, seed, fillers, ctx),
      type_iii_size=TYPE_III_SIZE if size is None else size,
      redraw_copies=True)
