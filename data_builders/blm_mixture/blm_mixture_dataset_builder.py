"""TFDS builder `blm_mixture`: sequence of tense plus number and gender
agreement in Italian hypotheticals (000 sec. 3.2.5, appendix 11.1).

Configs `type_<I|II|III>`: the appendix's 7 context sentences and 6 answers
A-F (A correct), from the adjective and incidental-clause lexicons. Splits
72:18:10, seeded.
"""

from __future__ import annotations

import dataclasses

import tensorflow_datasets as tfds

from data_builders.blm_mixture import generate, lexicon
from data_builders.common import builder


@dataclasses.dataclass(eq=False)
class MixtureConfig(builder.GeneratedConfig):
  lexical_type: str = "I"


class Builder(builder.GeneratedBLMBuilder):
  """Italian Mixture BLMs (000 appendix 11.1), lexical types I-III."""

  VERSION = tfds.core.Version("1.0.0")
  RELEASE_NOTES = {"1.0.0": "Appendix 11.1 template, types I-III."}
  BUILDER_CONFIGS = [
      MixtureConfig(name=f"type_{t}", lexical_type=t, seed=0,
                    description=f"mixture, type {t}")
      for t in generate.LEXICAL_TYPES]
  group_of = staticmethod(generate.group_of)

  def generate(self, config):
    return generate.generate(config.lexical_type, lexicon.load(),
                             seed=config.seed)
