"""`blm_cos_plus`: COS+ change-of-state food BLMs, En / It / De (002 sec. 4.2).

Type B template with relative-clause diagnostics (SVO, SagR, OR, SpaR), in two
directions (T2I: transitive to intransitive, I2T) and two lexicalities
(MinLex, MaxLex), 3 answers (Correct, Grammar, Sequence); 002 Figure 9.
Sixteen configs `<en|it|de_case|de_mix>_<T2I|I2T>_<MinLex|MaxLex>`, 2000
instances each, split 1280/320/400 train/dev/test (002 Table 2's 1600/400
train/test, with a 20% dev slice of train), no context in two splits.
Eight context-necessary configs `<variant>_ctx_<MinLex|MaxLex>` (same sizes
and splits): the direction is drawn per instance and the answers add the
well-formed alternant the context already shows (Direction), so the answers
alone cannot decide (README).

    import data_builders, tensorflow_datasets as tfds
    src = tfds.data_source("blm_cos_plus/de_case_T2I_MinLex", data_dir=...)
"""

from __future__ import annotations

import dataclasses

import tensorflow_datasets as tfds

from data_builders.blm_cos_plus import generate, templates
from data_builders.common import builder, splits

SPLIT_FRACTIONS = {"train": 0.64, "dev": 0.16, "test": 0.20}


@dataclasses.dataclass(eq=False)
class CosPlusConfig(builder.GeneratedConfig):
  variant: str = "en"
  direction: str = "T2I"
  lexicality: str = "MinLex"
  num_instances: int = generate.INSTANCES_PER_CONFIG


def _configs():
  return [
      CosPlusConfig(
          name=generate.config_name(v, d, lex),
          description=f"COS+ {v}, {d}, {lex}",
          variant=v, direction=d, lexicality=lex)
      for v in generate.VARIANTS for d in templates.DIRECTIONS
      for lex in generate.LEXICALITIES
  ] + [
      CosPlusConfig(
          name=generate.ctx_config_name(v, lex),
          description=f"COS+ {v}, T2I or I2T drawn per instance, {lex}, "
          "context-necessary (Correct, Grammar, Sequence, Direction)",
          variant=v, direction="", lexicality=lex, context_necessary=True)
      for v in generate.VARIANTS for lex in generate.LEXICALITIES
  ]


class Builder(builder.GeneratedBLMBuilder):
  """COS+ change-of-state food BLMs (type B, relative clauses), En/It/De."""

  VERSION = tfds.core.Version("1.2.0")
  RELEASE_NOTES = {
      "1.0.0": "En, It, De case/mix; T2I, I2T; MinLex, MaxLex.",
      "1.1.0": "de_mix I2T: the transitive answers (Correct, Grammar) are "
               "drawn where the article or the verb's number shows the "
               "subject, so Grammar ('Pa Verb Ag') is never an object-first "
               "sentence with the correct meaning (Die Bratwurst hat die "
               "Konditorin gebraten). Only the two de_mix I2T configs "
               "change.",
      "1.2.0": "Only verbs under which 002's role errors are no good "
               "sentences: verbs.tsv's role_error leaves out those that "
               "also drop their object ('Ag Verb' true of the scene: bake, "
               "fry, roast; the nine German haben-verbs, whose 'Der Lachs "
               "hat gebraten' was also odd as a correct answer) and those "
               "under which 'Ag Verb' or 'Pa Verb Ag' is good in another "
               "sense (il panettiere si è raffreddato, le ragazze si "
               "seccano, der Küchenchef ist zerrissen, the soup warms the "
               "caterer): 13 English, 13 Italian, 12 German verbs; two "
               "masculine patients more per German verb for de_case "
               "MinLex. Every config changes.",
  }
  BUILDER_CONFIGS = _configs()
  split_fractions = SPLIT_FRACTIONS

  @staticmethod
  def group_of(x):
    """Paper configs: the context. Context-necessary ones: the pair of
    instances with opposite directions (`generate.ctx_pair`), so each split
    is half T2I, half I2T."""
    if "_ctx_" in x.id:
      return generate.ctx_pair(x.id)
    return splits.context_key(x)

  def generate(self, config):
    if config.context_necessary:
      return generate.generate_ctx(config.variant, config.lexicality,
                                   config.num_instances, seed=config.seed)
    return generate.generate(config.variant, config.direction,
                             config.lexicality, config.num_instances,
                             seed=config.seed)
