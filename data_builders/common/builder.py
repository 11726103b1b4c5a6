"""Base class for the builders that generate BLM datasets from templates.

A family's builder subclasses `GeneratedBLMBuilder`, lists its
`BUILDER_CONFIGS` and implements `generate(config)` returning every instance
of that config; this class writes them in the shared schema with
deterministic train/dev/test splits (`splits.assign_splits`, or the
config's generalisation regime: `GeneratedConfig.regime`). TFDS writes into
a temporary folder and renames it when complete, so a failed build leaves no
dataset that a later read would pick up.

Byte-identical rebuilds: TFDS serializes each record as a tf.train.Example,
whose feature map the upb protobuf runtime writes in an order that changes
from process to process (same records, other bytes). `DeterministicRecords`
serializes with `deterministic=True` during the build (same decoded data).
Its builders hand TFDS each record already serialized (`records.serialize`,
the same bytes written directly), which the build passes through TFDS's
encoder and serializer untouched.
"""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Callable, Mapping, Sequence

import tensorflow_datasets as tfds
from tensorflow_datasets.core import example_serializer
from tensorflow_datasets.core.features import features_dict

from data_builders.common import file_format, records, schema, splits


def blm_info(builder: tfds.core.DatasetBuilder) -> tfds.core.DatasetInfo:
  """DatasetInfo in the shared BLM schema, described by the class docstring."""
  return tfds.core.DatasetInfo(
      builder=builder,
      description=(type(builder).__doc__ or "").strip(),
      features=schema.features(),
      supervised_keys=None,
  )


class Serialized(bytes):
  """A record already serialized (`records.serialize`): within
  `deterministic_serialization`, TFDS's encoder and serializer pass it on
  as it is."""


@contextlib.contextmanager
def deterministic_serialization():
  """Within the block, TFDS writes tf.Example maps in a fixed order, and
  `Serialized` records as they are."""
  cls = example_serializer.ExampleSerializer
  original = cls.serialize_example
  features = features_dict.FeaturesDict
  original_encode = features.encode_example

  def serialize_example(self, example):
    if isinstance(example, Serialized):
      return bytes(example)
    return self.get_tf_example(example).SerializeToString(deterministic=True)

  def encode_example(self, example):
    if isinstance(example, Serialized):
      return example
    return original_encode(self, example)

  cls.serialize_example = serialize_example
  features.encode_example = encode_example
  try:
    yield
  finally:
    cls.serialize_example = original
    features.encode_example = original_encode


class DeterministicRecords:
  """Builder mixin: records byte-identical across processes and machines."""

  def _download_and_prepare(self, dl_manager, download_config=None):
    with deterministic_serialization():
      return super()._download_and_prepare(dl_manager, download_config)

  def _generate_examples(self, instances):
    """(id, record) of each `schema.BLMInstance`: serialized directly
    (`records.DIRECT`), else the example dict TFDS encodes."""
    for inst in instances:
      yield inst.id, (Serialized(records.serialize(inst)) if records.DIRECT
                      else inst.to_example())


# The split regimes a generated config can have (`GeneratedConfig.regime`).
REGIMES = ("", "rules", "extrap")


@dataclasses.dataclass(eq=False)
class GeneratedConfig(tfds.core.BuilderConfig):
  """A generated config; `seed` fixes candidate order and splits.

  `split_fractions`: ((split, fraction), ...) for configs whose paper gives
  other split sizes; () is `splits.DEFAULT_FRACTIONS`.
  `context_necessary`: the config is designed so that its answers alone
  cannot decide (`lint --strict` holds it to the context-free ceilings).
  `sequence_necessary`: the rule varies per instance, so that no single
  context sentence decides and the answers alone do not narrow the choice
  (the `_seq` designs; `lint --strict --design` holds it to the sequence
  bounds). Implies `context_necessary`.
  `regime`: how the instances are split (DESIGN.md, generalisation as PGM
  does): "" (neutral: by the builder's groups), "rules" (by rule,
  `splits.rule_key`: no test rule in train or dev) or "extrap" (test holds
  the instances the builder's `extrapolated` marks, train and dev the
  others).
  """

  seed: int = 0
  split_fractions: tuple[tuple[str, float], ...] = ()
  context_necessary: bool = False
  sequence_necessary: bool = False
  regime: str = ""

  @property
  def fractions(self) -> dict[str, float]:
    return dict(self.split_fractions) or dict(splits.DEFAULT_FRACTIONS)


@dataclasses.dataclass(eq=False)
class LexicalTypeConfig(GeneratedConfig):
  """One config per lexical type (I, II, III) of a single template."""

  lexical_type: str = "I"


def lexical_type_configs(family: str, types: Sequence[str],
                         seed: int = 0) -> list[LexicalTypeConfig]:
  """`type_<t>` configs for a family whose configs differ only in type."""
  return [LexicalTypeConfig(name=f"type_{t}", lexical_type=t, seed=seed,
                            description=f"{family}, type {t}")
          for t in types]


class GeneratedBLMBuilder(DeterministicRecords,
                          file_format.ArrayRecordWithoutTF,
                          skip_registration=True):
  """Writes `generate(config)` with the shared BLM schema and splits."""

  # Subclasses may override, e.g. to group type I instances by their seed.
  group_of: Callable[[schema.BLMInstance], str] = staticmethod(
      splits.context_key)
  # Split fractions; families whose paper fixes other sizes override it
  # (a config's own `split_fractions` wins over this).
  split_fractions: Mapping[str, float] = splits.DEFAULT_FRACTIONS

  def generate(self, config) -> Sequence[schema.BLMInstance]:
    raise NotImplementedError

  def extrapolated(self, config) -> Callable[[schema.BLMInstance], bool]:
    """For an "extrap" config: whether an instance shows a value (a
    period, an attribute value) that training never shows."""
    raise ValueError(f"{self.name}/{config.name}: regime 'extrap' but the "
                     "builder marks no extrapolated instances")

  def _info(self) -> tfds.core.DatasetInfo:
    return blm_info(self)

  def _split_generators(self, dl_manager):
    del dl_manager  # Generated: nothing to download.
    instances = list(self.generate(self.builder_config))
    ids = [x.id for x in instances]
    if len(set(ids)) != len(ids):
      raise ValueError(f"{self.name}/{self.builder_config.name}: instance ids "
                       "are not unique")
    config = self.builder_config
    fractions = (dict(config.split_fractions) or type(self).split_fractions)
    if config.regime not in REGIMES:
      raise ValueError(f"{self.name}/{config.name}: unknown regime "
                       f"{config.regime!r}; known: "
                       f"{', '.join(map(repr, REGIMES))}")
    if config.regime == "rules" and not all(
        s.pattern for x in instances for s in x.context):
      raise ValueError(f"{self.name}/{config.name}: regime 'rules' needs "
                       "every context sentence's pattern (the rule)")
    if config.regime == "extrap":
      parts = splits.held_out(instances, config.seed,
                              self.extrapolated(config), type(self).group_of,
                              fractions)
    else:
      parts = splits.assign_splits(
          instances, config.seed,
          splits.rule_key if config.regime == "rules" else type(self).group_of,
          fractions)
    return {name: self._generate_examples(items)
            for name, items in parts.items() if items}
