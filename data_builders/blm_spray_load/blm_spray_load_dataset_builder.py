"""TFDS builder `blm_spray_load`: the English spray/load BLMs (BLM-s/lE).

Configs `<template>_type_<I|II|III>`: templates ALT-ATL (context shows
AGENT-LOC-THEME, target AGENT-THEME-LOC) and ATL-ALT (the reverse), 000
Figures 5-6; lexical types per 004 sec. 3 (3750 type I instances, 15,000 of
types II and III). Splits 72:18:10 train:dev:test (90:10 with a 20% dev
slice of train), by context, seeded.

Configs `ctx_type_<I|II|III>` (context-necessary): the direction is drawn
per instance and the answers are built around both alternants, so the
answers alone cannot decide (README, "Context-necessary configs").

Configs `seq_type_<I|II|III>` (sequence-necessary): the progression of the
alternant, the form and the polarity is drawn per instance, so that no one
or two context sentences decide (README, "Sequence-necessary configs").
Their regimes (README, "Generalisation regimes"): `seq_rules_type_*`, no
test rule in training; `seq_extrap_type_*`, a period never seen in training.
"""

from __future__ import annotations

import dataclasses

import tensorflow_datasets as tfds

from data_builders.blm_spray_load import generate, lexicon, sequence
from data_builders.common import builder


@dataclasses.dataclass(eq=False)
class SprayLoadConfig(builder.GeneratedConfig):
  """`type_iii_size`: instances of a `seq` config of type III (tests build
  them small)."""

  template: str = "ALT-ATL"
  lexical_type: str = "I"
  type_iii_size: int = generate.TYPE_III_SIZE


# Types II and III of the `seq` design (and its regimes, which split the
# same instances) changed in 1.4.0; the other configs keep VERSION.
def _seq_version(lexical_type: str) -> str | None:
  return "1.4.0" if lexical_type in ("II", "III") else None


def _configs():
  paper = [SprayLoadConfig(
      name=f"{template}_type_{lexical_type}", template=template,
      lexical_type=lexical_type, seed=0,
      description=(f"spray/load {template}, lexical type {lexical_type}"))
           for template in ("ALT-ATL", "ATL-ALT")
           for lexical_type in generate.LEXICAL_TYPES]
  ctx = [SprayLoadConfig(
      name=f"{generate.CTX}_type_{lexical_type}", template=generate.CTX,
      lexical_type=lexical_type, seed=0, context_necessary=True,
      description=(f"spray/load, direction drawn per instance, answers "
                   f"around both alternants, lexical type {lexical_type}"))
         for lexical_type in generate.LEXICAL_TYPES]
  seq = [SprayLoadConfig(
      name=f"{generate.SEQ}_type_{lexical_type}", template=generate.SEQ,
      lexical_type=lexical_type, seed=0, context_necessary=True,
      sequence_necessary=True, version=_seq_version(lexical_type),
      description=(f"spray/load, the alternant's, the form's and the "
                   f"polarity's progression drawn per instance, answers all "
                   f"16 cells and the paper's errors, lexical type "
                   f"{lexical_type}"))
         for lexical_type in generate.LEXICAL_TYPES]
  # The generalisation regimes: the `seq` instances, split otherwise.
  regimes = [SprayLoadConfig(
      name=f"{generate.SEQ}_{regime}_type_{lexical_type}",
      template=generate.SEQ, lexical_type=lexical_type, seed=0,
      context_necessary=True, sequence_necessary=True, regime=regime,
      version=_seq_version(lexical_type),
      description=(f"spray/load seq_type_{lexical_type}'s instances, {what}"))
             for regime, what in (
                 ("rules", "split by rule: no test rule (context pattern "
                  "sequence) in train or dev"),
                 ("extrap", f"the alternant switching every "
                  f"{sequence.EXTRAP_BLOCK} sentences in test only"))
             for lexical_type in generate.LEXICAL_TYPES]
  return paper + ctx + seq + regimes


class Builder(builder.GeneratedBLMBuilder):
  """English spray/load alternation BLMs generated from a curated lexicon."""

  VERSION = tfds.core.Version("1.3.0")
  RELEASE_NOTES = {
      "1.0.0": "Templates ALT-ATL/ATL-ALT x lexical types I-III, 30 verbs.",
      "1.1.0": "AASSM demotes the agent into a with-PP in both templates, as "
               "001 Figures 4-5 (ALT-ATL gave it the target's locative "
               "preposition: '... the trailer onto the crew'). Contexts and "
               "the other answers are unchanged.",
      "1.2.0": "Lexicon: spurt's agents aim (kids with water, not leaking "
               "pipes), so its with-variant is natural; sprinkle's theme "
               "'sprinkles' (the verb's own form) is 'coconut flakes'. "
               "Instances with spurt or sprinkle change; the others are "
               "byte-identical. Adds the seq_type_* configs.",
      "1.3.0": "seq_type_*: a third attribute, the polarity (affirmative or "
               "negated verb group), with its own progression drawn per "
               "instance; 24 answers (the 16 cells and the paper's 8 errors "
               "on a base whose polarity is drawn too), 84 labels (the 42 of "
               "1.2.0 keep their ids). The other configs are byte-identical.",
      "1.4.0": "seq_type_II/III and their regimes (per config): an "
               "instance whose context holds a sentence twice is redrawn "
               "(types II and III vary the words; README 'Faithful "
               "readings'); the other instances and configs are "
               "byte-identical.",
  }
  BUILDER_CONFIGS = _configs()

  def generate(self, config):
    if config.template == generate.SEQ:
      return generate.generate_seq(config.lexical_type, lexicon.load_lexicon(),
                                   seed=config.seed,
                                   type_iii_size=config.type_iii_size)
    if config.template == generate.CTX:
      return generate.generate_ctx(config.lexical_type, lexicon.load_lexicon(),
                                   seed=config.seed)
    return generate.generate(config.template, config.lexical_type,
                             lexicon.load_lexicon(), seed=config.seed)

  def extrapolated(self, config):
    return sequence.extrapolated

