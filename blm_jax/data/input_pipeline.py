"""From TFDS names to the arrays a grid run trains on.

For every lexical type of the config, `num_train` instances are sampled with
the data seed, 20% of them as dev (000 sec. 6.1): the training part from the
builder's train split and the dev part from its dev split, so dev shares no
sentence (and, for blm_chunks, no pairing) with training and best-dev
selection cannot reward memorising. A source with no dev split (the
published release) has its dev part sampled by instance from its train
split; `BLMData.dev_source` says which. The test split is used whole. All instances of all types go into one sentence table, so each
distinct sentence is embedded once, and each split becomes index arrays into
it (padded to the same context and answer counts so they stack).
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Sequence

import numpy as np

from blm_jax.data.sentence_table import build_sentence_table, SentenceTable
from data_builders.common import labels, loading as data, schema

EmbedFn = Callable[[Sequence[str]], np.ndarray]


@dataclasses.dataclass(frozen=True)
class BLMData:
  """The embedding table plus per-type train/dev/test rows of one table."""

  embeddings: np.ndarray  # [S, D] float32
  table: SentenceTable  # all instances of every split and type
  train: dict[str, SentenceTable]
  dev: dict[str, SentenceTable]
  test: dict[str, SentenceTable]
  # How each type's dev part was made (see the module docstring).
  dev_source: dict[str, str] = dataclasses.field(default_factory=dict)

  @property
  def embed_dim(self) -> int:
    return int(self.embeddings.shape[1])

  @property
  def num_context(self) -> int:
    return int(self.table.context.shape[1])

  @property
  def num_answers(self) -> int:
    return int(self.table.answers.shape[1])

  @property
  def label_names(self) -> tuple[str, ...]:
    return self.table.label_names


def dataset_name(template: str, lexical_type: str) -> str:
  """'blm_spray_load/ALT-ATL_type_{}' + 'II' -> the TFDS name of that type.

  A name without '{}' is one dataset used for every type (e.g. blm_chunks).
  """
  return template.format(lexical_type) if "{}" in template else template


def sample(pool: Sequence[schema.BLMInstance], n: int, seed: int,
           lexical_type: str, split: str = "") -> list[schema.BLMInstance]:
  """`n` instances of `pool` (all if fewer), seeded and order-independent."""
  pool = sorted(pool, key=lambda x: x.id)
  rng = np.random.default_rng([seed, *lexical_type.encode(), *split.encode()])
  return [pool[i] for i in rng.permutation(len(pool))[:min(n, len(pool))]]


def sample_train_dev(pool: Sequence[schema.BLMInstance], num_train: int,
                     dev_fraction: float, seed: int, lexical_type: str):
  """`num_train` instances of one pool (seeded), the last 20% as dev.

  Only for sources without a dev split: dev instances may then share
  sentences with training instances.
  """
  chosen = sample(pool, num_train, seed, lexical_type)
  n_dev = int(round(dev_fraction * len(chosen)))
  return chosen[:len(chosen) - n_dev], chosen[len(chosen) - n_dev:]


def train_dev(name: str, splits: Sequence[str], data_cfg, lexical_type: str,
              data_dir: str | None, manual_dir: str | None):
  """(train, dev, how dev was made) for one lexical type."""
  n_dev = int(round(data_cfg.dev_fraction * data_cfg.num_train))
  pool = data.load_instances(name, "train", data_dir, manual_dir)
  if "dev" not in splits:
    train, dev = sample_train_dev(pool, data_cfg.num_train,
                                  data_cfg.dev_fraction, data_cfg.seed,
                                  lexical_type)
    return train, dev, ("sampled by instance from the train split (the "
                        "dataset has no dev split)")
  train = sample(pool, data_cfg.num_train - n_dev, data_cfg.seed,
                 lexical_type, "train")
  dev = sample(data.load_instances(name, "dev", data_dir, manual_dir), n_dev,
               data_cfg.seed, lexical_type, "dev")
  return train, dev, "the dataset's dev split"


def load(data_cfg, embed_fn: EmbedFn, data_dir: str | None = None) -> BLMData:
  """Loads, samples and embeds the data of `config.data`."""
  types = tuple(dict.fromkeys(
      tuple(data_cfg.train_types) + tuple(data_cfg.test_types)))
  parts: dict[tuple[str, str], list[schema.BLMInstance]] = {}
  dev_source: dict[str, str] = {}
  manual_dir = data_cfg.get("manual_dir") or None
  for t in types:
    name = dataset_name(data_cfg.name, t)
    splits = data.split_names(name, data_dir, manual_dir)
    if "test" not in splits or "train" not in splits:
      raise ValueError(f"dataset {name!r} needs train and test splits; it "
                       f"has {list(splits)}")
    parts[t, "train"], parts[t, "dev"], dev_source[t] = train_dev(
        name, splits, data_cfg, t, data_dir, manual_dir)
    test = data.load_instances(name, "test", data_dir, manual_dir)
    if data_cfg.get("max_test") and len(test) > data_cfg.max_test:
      # A seeded sample: ids are ordered by verb/seed, a prefix is not.
      rng = np.random.default_rng([data_cfg.seed, 1, *t.encode()])
      keep = np.sort(rng.permutation(len(test))[:data_cfg.max_test])
      test = [test[i] for i in keep]
    parts[t, "test"] = test
  blm = from_parts(parts, embed_fn, name=data_cfg.name)
  return dataclasses.replace(blm, dev_source=dev_source)


def from_parts(parts: dict[tuple[str, str], list[schema.BLMInstance]],
               embed_fn: EmbedFn, name: str = "") -> BLMData:
  """BLMData from {(type, 'train'|'dev'|'test'): instances}: one table."""
  everything = [x for insts in parts.values() for x in insts]
  if not everything:
    raise ValueError(f"config.data.name={name!r}: no instances")
  inventory = labels.FAMILY_LABELS.get(everything[0].family)
  table = build_sentence_table(everything, label_names=inventory)
  rows, start = {}, 0
  for key, insts in parts.items():
    rows[key] = np.arange(start, start + len(insts))
    start += len(insts)
  emb = np.asarray(embed_fn(table.sentences), np.float32)
  if emb.shape[0] != len(table.sentences):
    raise ValueError(f"embedding function returned {emb.shape[0]} rows for "
                     f"{len(table.sentences)} sentences")
  types = tuple(dict.fromkeys(t for t, _ in parts))
  pick = lambda split: {t: table.select(rows[t, split]) for t in types}
  return BLMData(embeddings=emb, table=table, train=pick("train"),
                 dev=pick("dev"), test=pick("test"))
