"""Base class for the builders that generate BLM datasets from templates.

A family's builder subclasses `GeneratedBLMBuilder`, lists its
`BUILDER_CONFIGS` and implements `generate(config)` returning every instance
of that config; this class writes them in the shared schema with
deterministic train/dev/test splits (`splits.assign_splits`). TFDS writes into
a temporary folder and renames it when complete, so a failed build leaves no
dataset that a later read would pick up.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Mapping, Sequence

import tensorflow_datasets as tfds

from blm_jax import schema
from data_builders.common import file_format, splits


def blm_info(builder: tfds.core.DatasetBuilder) -> tfds.core.DatasetInfo:
  """DatasetInfo in the shared BLM schema, described by the class docstring."""
  return tfds.core.DatasetInfo(
      builder=builder,
      description=(type(builder).__doc__ or "").strip(),
      features=schema.features(),
      supervised_keys=None,
  )


@dataclasses.dataclass(eq=False)
class GeneratedConfig(tfds.core.BuilderConfig):
  """A generated config; `seed` fixes candidate order and splits."""

  seed: int = 0


class GeneratedBLMBuilder(file_format.ArrayRecordWithoutTF,
                          skip_registration=True):
  """Writes `generate(config)` with the shared BLM schema and splits."""

  # Subclasses may override, e.g. to group type I instances by their seed.
  group_of: Callable[[schema.BLMInstance], str] = staticmethod(
      splits.context_key)
  # Split fractions; families whose paper fixes other sizes override it.
  split_fractions: Mapping[str, float] = splits.DEFAULT_FRACTIONS

  def generate(self, config) -> Sequence[schema.BLMInstance]:
    raise NotImplementedError

  def _info(self) -> tfds.core.DatasetInfo:
    return blm_info(self)

  def _split_generators(self, dl_manager):
    del dl_manager  # Generated: nothing to download.
    instances = list(self.generate(self.builder_config))
    ids = [x.id for x in instances]
    if len(set(ids)) != len(ids):
      raise ValueError(f"{self.name}/{self.builder_config.name}: instance ids "
                       "are not unique")
    parts = splits.assign_splits(instances, self.builder_config.seed,
                                 type(self).group_of,
                                 type(self).split_fractions)
    return {name: self._generate_examples(items)
            for name, items in parts.items() if items}

  def _generate_examples(self, instances):
    for inst in instances:
      yield inst.id, inst.to_example()
