"""TFDS builder `blm_sequence_of_tense`: Italian se-allora hypotheticals
(000 sec. 3.2.5; the template is ours, see `templates.py` and README.md).

Configs `type_<I|II|III>`: 7 context sentences progressing through the tense
cycle IFut-IFut, IFutAnt-IFut, CPas-CnPr, CTrPas-CnPas from a drawn start
(number alternating, one subject), 6 grammatical candidates (CORRECT, WNUM,
WANT, WREAL, WPER, WGEN), each wrong one only relative to the context.
Splits 72:18:10, seeded.

Configs `ctx_type_<I|II|III>` (context-necessary): the same progressions
with 16 candidates, four well-formed bases (the sentence 8 of contexts
starting in either number and at either anteriority) each with the other
clauses broken, so the answers alone cannot decide (README,
"Context-necessary configs").
"""

from __future__ import annotations

import tensorflow_datasets as tfds

from data_builders.blm_sequence_of_tense import generate, lexicon
from data_builders.common import builder


def _configs() -> list[builder.LexicalTypeConfig]:
  paper = builder.lexical_type_configs("sequence_of_tense",
                                       generate.LEXICAL_TYPES)
  ctx = [builder.LexicalTypeConfig(
      name=f"ctx_type_{t}", lexical_type=t, seed=0,
      context_necessary=True,
      description=(f"sequence_of_tense, type {t}, context-necessary: four "
                   "well-formed bases x the errors on each"))
         for t in generate.LEXICAL_TYPES]
  return paper + ctx


class Builder(builder.GeneratedBLMBuilder):
  """Italian sequence-of-tense BLMs (hypotheticals), lexical types I-III."""

  VERSION = tfds.core.Version("2.0.0")
  RELEASE_NOTES = {
      "1.0.0": "Template of README.md, types I-III.",
      "2.0.0": "The answer set needs the context: each instance draws where "
               "the tense cycle and the number alternation start and its "
               "subject; the wrong answers are grammatical canonical "
               "hypotheticals breaking one clause of the progression (WNUM, "
               "WANT, WREAL, WPER, WGEN for WCT, WCM, WPT, WPM, AGR, which "
               "were solvable from the answers alone); type I answers take "
               "another consequent adjective; type III draws adjectives per "
               "candidate (person and gender are now the progression's).",
  }
  BUILDER_CONFIGS = _configs()
  group_of = staticmethod(generate.group_of)

  def generate(self, config):
    return generate.generate(config.lexical_type, lexicon.load(),
                             seed=config.seed,
                             ctx=config.context_necessary)
