"""TFDS builder `blm_mixture`: sequence of tense plus number and gender
agreement in Italian hypotheticals (000 sec. 3.2.5, appendix 11.1).

Configs `type_<I|II|III>`: the appendix's 7 context sentences and 6 answers
A-F (A correct), rotated per instance (`templates.Rotation`), from the
adjective and incidental-clause lexicons. Configs `ctx_type_<I|II|III>`:
context-necessary (README "Context-necessary configs"): two well-formed
answers, A and ANT, each with its errors, the correct one drawn per
instance. Splits 72:18:10, seeded.
"""

from __future__ import annotations

import tensorflow_datasets as tfds

from data_builders.blm_mixture import generate, lexicon
from data_builders.common import builder


class Builder(builder.GeneratedBLMBuilder):
  """Italian Mixture BLMs (000 appendix 11.1), lexical types I-III."""

  VERSION = tfds.core.Version("2.0.0")
  RELEASE_NOTES = {
      "1.0.0": "Appendix 11.1 template, types I-III.",
      "2.0.0": "Each instance draws one of 32 rotations of the appendix's "
               "table (first number and gender, attractor half, mood and "
               "anteriority order; the appendix's is one), so answer A is no "
               "longer one fixed pattern solvable without the context.",
  }
  BUILDER_CONFIGS = builder.lexical_type_configs(
      "mixture", generate.LEXICAL_TYPES) + [
          builder.LexicalTypeConfig(
              name=f"ctx_type_{t}", lexical_type=t, context_necessary=True,
              description=f"mixture, context-necessary, type {t}")
          for t in generate.LEXICAL_TYPES]
  group_of = staticmethod(generate.group_of)

  def generate(self, config):
    return generate.generate(config.lexical_type, lexicon.load(),
                             seed=config.seed,
                             ctx=config.context_necessary)
