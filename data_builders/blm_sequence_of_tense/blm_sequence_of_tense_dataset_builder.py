"""TFDS builder `blm_sequence_of_tense`: Italian se-allora hypotheticals
(000 sec. 3.2.5; the template is ours, see `templates.py` and README.md).

Configs `type_<I|II|III>`: 7 context sentences through the tense pairs
IFut-IFut, IFutAnt-IFut, CPas-CnPr, CTrPas-CnPas (number alternating), 6
candidates (CORRECT, WCT, WCM, WPT, WPM, AGR). Splits 72:18:10, seeded.
"""

from __future__ import annotations

import dataclasses

import tensorflow_datasets as tfds

from data_builders.blm_sequence_of_tense import generate, lexicon
from data_builders.common import builder


@dataclasses.dataclass(eq=False)
class SequenceOfTenseConfig(builder.GeneratedConfig):
  lexical_type: str = "I"


class Builder(builder.GeneratedBLMBuilder):
  """Italian sequence-of-tense BLMs (hypotheticals), lexical types I-III."""

  VERSION = tfds.core.Version("1.0.0")
  RELEASE_NOTES = {"1.0.0": "Template of README.md, types I-III."}
  BUILDER_CONFIGS = [
      SequenceOfTenseConfig(name=f"type_{t}", lexical_type=t, seed=0,
                            description=f"sequence of tense, type {t}")
      for t in generate.LEXICAL_TYPES]
  group_of = staticmethod(generate.group_of)

  def generate(self, config):
    return generate.generate(config.lexical_type, lexicon.load(),
                             seed=config.seed)
