"""TFDS builder `blm_spray_load_v0`: the earlier English spray/load BLM
(BLM-s/lE v0, 003 sec. 4.2, Figures 7, 11, 13-15).

Configs `Template<1|2>_type_<I|II|III>`: 7 context sentences and 6
candidates (Template 1: CORRECT, WPrep, WPP, Adv, WT, WS; Template 2:
CORRECT, SLA, WP, Repeat, NoAgent, STA), from the `blm_spray_load` lexicon.
Splits 72:18:10 train:dev:test by context, seeded.

Configs `ctx_type_<I|II|III>` and `ctx_t2_type_<I|II|III>`
(context-necessary, Templates 1 and 2): the role order is drawn per instance
and the answers hold both orders' answer sets, so the answers alone cannot
decide (README, "Context-necessary configs").
"""

from __future__ import annotations

import dataclasses

import tensorflow_datasets as tfds

from data_builders.blm_spray_load import lexicon
from data_builders.blm_spray_load_v0 import generate, templates
from data_builders.common import builder


@dataclasses.dataclass(eq=False)
class SprayLoadV0Config(builder.GeneratedConfig):
  template: str = "Template1"
  lexical_type: str = "I"


def _configs():
  paper = [SprayLoadV0Config(
      name=f"{template}_type_{lexical_type}", template=template,
      lexical_type=lexical_type, seed=0,
      description=f"spray/load v0 {template}, lexical type {lexical_type}")
           for template in templates.TEMPLATES
           for lexical_type in generate.LEXICAL_TYPES]
  ctx = [SprayLoadV0Config(
      name=f"{ctx}_type_{lexical_type}", template=ctx,
      lexical_type=lexical_type, seed=0, context_necessary=True,
      description=(f"spray/load v0 {template}, role order drawn per "
                   f"instance, answers around both orders' answers, "
                   f"lexical type {lexical_type}"))
         for ctx, (template, _) in generate.CTX_CONFIGS.items()
         for lexical_type in generate.LEXICAL_TYPES]
  return paper + ctx


class Builder(builder.GeneratedBLMBuilder):
  """English spray/load v0 BLMs (003 sec. 4.2), two templates x types I-III."""

  VERSION = tfds.core.Version("1.1.0")
  RELEASE_NOTES = {
      "1.0.0": "Templates 1 and 2 x lexical types I-III, 6 candidates.",
      "1.1.0": "The blm_spray_load lexicon it reads (blm_spray_load 1.2.0): "
               "spurt's agents aim, sprinkle's theme 'sprinkles' is "
               "'coconut flakes'. Instances with spurt or sprinkle change.",
  }
  BUILDER_CONFIGS = _configs()

  def generate(self, config):
    if config.template in generate.CTX_CONFIGS:
      return generate.generate_ctx(config.lexical_type, lexicon.load_lexicon(),
                                   seed=config.seed, ctx=config.template)
    return generate.generate(config.template, config.lexical_type,
                             lexicon.load_lexicon(), seed=config.seed)
