"""`blm_roll`: the causative alternation of English Roll verbs as BLMs.

000 sec. 3.2.2 (Figure 10), sec. 4.3 and Table 1. Three configs `type_<I|II|III>`,
3000 instances each, generated from the curated lexicon in `lexicon/` by
`generate.generate`; splits are 90:10 train:test with a 20% dev slice of
train (72/18/10), no context in two splits. `ctx_type_<I|II|III>`: the
context-necessary variants (same sizes and splits; the direction of the
alternation is drawn per instance and the errors are mirrored on a foil
material, so the answers alone cannot decide; README).

    import data_builders, tensorflow_datasets as tfds
    src = tfds.data_source("blm_roll/type_II", data_dir=...)
"""

from __future__ import annotations

import dataclasses

import tensorflow_datasets as tfds

from data_builders.blm_roll import generate
from data_builders.common import builder


@dataclasses.dataclass(eq=False)
class RollConfig(builder.GeneratedConfig):
  lexical_type: str = "I"
  num_instances: int = generate.INSTANCES_PER_CONFIG


_DESCRIPTIONS = {
    "I": "one verb, two scenes (000 Figure 10)",
    "II": "two verbs, one per paradigm (000 sec. 4.3)",
    "III": "a verb per sentence, drawn from its paradigm's scene",
}


class Builder(builder.GeneratedBLMBuilder):
  """Roll-verb (manner of motion) causative BLMs in English."""

  VERSION = tfds.core.Version("1.2.0")
  RELEASE_NOTES = {
      "1.0.0": "Roll verbs, types I-III (000 Figure 10).",
      "1.1.0": "Every verb takes its scene's path PPs: drop only a goal or "
               "a vertical path (no 'dropped across the floor'), verbs of "
               "motion around an axis only a place or a direction of "
               "turning (no 'revolved onto the stand'). verbs.tsv lists the "
               "kinds of path each verb takes and loading and generation "
               "refuse a scene that breaks them; 28 scenes changed paths "
               "or verbs, so all three configs differ from 1.0.0.",
      "1.2.0": "Context-necessary configs: six answers, the same four "
               "candidates on the context's material and on the foil "
               "(ALT-D, the other alternant on the foil alone, is gone: it "
               "marked the foil as the material with the extra well-formed "
               "candidate, and the majority frame as the asked one). The "
               "paper configs type_I-III are unchanged.",
  }
  BUILDER_CONFIGS = [
      RollConfig(name=generate.config_name(t),
                 description=f"Roll verbs, lexical type {t}: "
                 f"{_DESCRIPTIONS[t]}", lexical_type=t)
      for t in generate.LEXICAL_TYPES
  ] + [
      RollConfig(name=generate.config_name(t, context_necessary=True),
                 description=f"Roll verbs, lexical type {t}, "
                 f"context-necessary: direction of the alternation drawn "
                 f"per instance, errors mirrored on a foil material",
                 lexical_type=t, context_necessary=True)
      for t in generate.LEXICAL_TYPES
  ]

  def generate(self, config):
    return generate.generate(config.lexical_type, config.num_instances,
                             seed=config.seed,
                             context_necessary=config.context_necessary)
