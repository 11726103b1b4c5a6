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

With `data.seed_follows_grid`, the train and dev sample of every train type
is drawn once per grid seed, with that seed as the data seed
(`BLMData.train_by_seed`): the grid's cell (seed s, type t) then trains on
its own sample, so the spread over seeds covers the choice of the training
sample too. The test sets do not change.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Sequence

import jax
import numpy as np

from blm_jax.base import processes
from blm_jax.data.sentence_table import build_sentence_table, SentenceTable
from data_builders.common import attributes, labels, loading as data, schema

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
  # {(grid seed, type): table} with data.seed_follows_grid, else empty.
  train_by_seed: dict = dataclasses.field(default_factory=dict)
  dev_by_seed: dict = dataclasses.field(default_factory=dict)

  def train_of(self, seed: int, lexical_type: str) -> SentenceTable:
    """The training sample of grid cell (seed, type)."""
    return self.train_by_seed.get((seed, lexical_type),
                                  self.train[lexical_type])

  def dev_of(self, seed: int, lexical_type: str) -> SentenceTable:
    return self.dev_by_seed.get((seed, lexical_type), self.dev[lexical_type])

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


@dataclasses.dataclass(frozen=True)
class DataSpec:
  """A config's `data` section as one typed value, read once where a run
  starts (`DataSpec(**config.data)`); a bad value raises a ValueError of
  one line naming `config.data.<key>`. Every function here that takes
  `data_cfg` takes this (or the config section itself).
  """

  name: str  # TFDS name, '{}' for the lexical type
  train_types: tuple[str, ...]
  test_types: tuple[str, ...]
  num_train: int = 2000  # sampled per train type, dev included
  dev_fraction: float = 0.2
  seed: int = 0
  seed_follows_grid: bool = False
  max_test: int = 0  # 0 = the whole test split
  num_answers: int = 0  # 0 = whatever the data has
  data_dir: str = ""  # '' = $BLM_DATA_DIR or ~/tensorflow_datasets
  manual_dir: str = ""

  def __post_init__(self):
    object.__setattr__(self, "train_types", tuple(self.train_types))
    object.__setattr__(self, "test_types", tuple(self.test_types))
    problem = _data_problem(self)
    if problem:
      raise ValueError(f"config.data.{problem}")


def _data_problem(d: DataSpec) -> str | None:
  def whole(v, low):
    return isinstance(v, int) and not isinstance(v, bool) and v >= low

  if not isinstance(d.name, str) or not d.name:
    return f"name={d.name!r}: expected a TFDS name such as 'blm_cos/en_type_{{}}'"
  for key in ("train_types", "test_types"):
    if not getattr(d, key) or not all(isinstance(t, str)
                                      for t in getattr(d, key)):
      return f"{key}={getattr(d, key)!r}: expected a tuple of lexical types"
  if not whole(d.num_train, 1):
    return f"num_train={d.num_train!r}: must be an integer >= 1"
  if not isinstance(d.dev_fraction, (int, float)) or not 0 < d.dev_fraction < 1:
    return f"dev_fraction={d.dev_fraction!r}: must be a number in (0, 1)"
  for key in ("seed", "max_test", "num_answers"):
    if not whole(getattr(d, key), 0):
      return f"{key}={getattr(d, key)!r}: must be an integer >= 0"
  if not isinstance(d.seed_follows_grid, bool):
    return f"seed_follows_grid={d.seed_follows_grid!r}: expected True or False"
  for key in ("data_dir", "manual_dir"):
    if not isinstance(getattr(d, key), str):
      return f"{key}={getattr(d, key)!r}: expected a folder or ''"
  return None


def build_data_once(data_cfg) -> None:
  """Process 0 builds the run's TFDS datasets (if not built yet) while the
  others wait, so that no two processes write one dataset folder at once.
  A host that does not share process 0's data_dir builds its own copy when
  it loads. Nothing to do with one process."""
  if jax.process_count() == 1:
    return
  if processes.is_writer():
    for t in dict.fromkeys(tuple(data_cfg.train_types)
                           + tuple(data_cfg.test_types)):
      data.prepare(dataset_name(data_cfg.name, t),
                   data_cfg.data_dir or None,
                   getattr(data_cfg, "manual_dir", "") or None)
  processes.barrier("data built")


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


def train_dev_samples(name: str, splits: Sequence[str], data_cfg,
                      lexical_type: str, data_dir: str | None,
                      manual_dir: str | None, seeds: Sequence[int]):
  """({seed: (train, dev)}, how dev was made) for one lexical type, one
  sample per data seed (the pools are loaded once)."""
  n_dev = int(round(data_cfg.dev_fraction * data_cfg.num_train))
  pool = data.load_instances(name, "train", data_dir, manual_dir)
  if "dev" not in splits:
    return {s: sample_train_dev(pool, data_cfg.num_train,
                                data_cfg.dev_fraction, s, lexical_type)
            for s in seeds}, ("sampled by instance from the train split "
                              "(the dataset has no dev split)")
  dev_pool = data.load_instances(name, "dev", data_dir, manual_dir)
  return {s: (sample(pool, data_cfg.num_train - n_dev, s, lexical_type,
                     "train"),
              sample(dev_pool, n_dev, s, lexical_type, "dev"))
          for s in seeds}, "the dataset's dev split"


def train_dev(name: str, splits: Sequence[str], data_cfg, lexical_type: str,
              data_dir: str | None, manual_dir: str | None):
  """(train, dev, how dev was made) for one lexical type, data.seed's."""
  samples, source = train_dev_samples(name, splits, data_cfg, lexical_type,
                                      data_dir, manual_dir, (data_cfg.seed,))
  return (*samples[data_cfg.seed], source)


def builder_versions(data_cfg) -> dict[str, str]:
  """{TFDS name: builder version} of every dataset `data_cfg` reads (not
  built or read here): a finished run records it, so that reusing the run
  later can tell whether its data has changed since."""
  names = dict.fromkeys(dataset_name(data_cfg.name, t) for t in
                        tuple(data_cfg.train_types) + tuple(data_cfg.test_types))
  return {n: v for n in names if (v := data.version(n)) is not None}


def load(data_cfg, embed_fn: EmbedFn, data_dir: str | None = None,
         seeds: Sequence[int] = ()) -> BLMData:
  """Loads, samples and embeds the data of `data_cfg` (a DataSpec, or a
  config's data section).

  `seeds`: the grid's seeds; with `data.seed_follows_grid` every train
  type gets one train/dev sample per seed (`BLMData.train_by_seed`), and
  `train`/`dev` hold the first seed's.
  """
  types = tuple(dict.fromkeys(
      tuple(data_cfg.train_types) + tuple(data_cfg.test_types)))
  follow = bool(getattr(data_cfg, "seed_follows_grid", False))
  if follow and not seeds:
    raise ValueError("config.data.seed_follows_grid=True needs the grid's "
                     "seeds (config.grid.seeds)")
  parts: dict[tuple[str, str], list[schema.BLMInstance]] = {}
  seeded: dict[tuple[int, str, str], list[schema.BLMInstance]] = {}
  dev_source: dict[str, str] = {}
  manual_dir = getattr(data_cfg, "manual_dir", "") or None
  for t in types:
    name = dataset_name(data_cfg.name, t)
    splits = data.split_names(name, data_dir, manual_dir)
    if "test" not in splits or "train" not in splits:
      raise ValueError(f"dataset {name!r} needs train and test splits; it "
                       f"has {list(splits)}")
    per_seed = follow and t in data_cfg.train_types
    own = (tuple(dict.fromkeys(int(s) for s in seeds)) if per_seed
           else (data_cfg.seed,))
    samples, dev_source[t] = train_dev_samples(
        name, splits, data_cfg, t, data_dir, manual_dir, own)
    parts[t, "train"], parts[t, "dev"] = samples[own[0]]
    if per_seed:
      for s in own[1:]:
        seeded[s, t, "train"], seeded[s, t, "dev"] = samples[s]
      dev_source[t] += "; one sample per grid seed (data.seed_follows_grid)"
    test = data.load_instances(name, "test", data_dir, manual_dir)
    if getattr(data_cfg, "max_test", 0) and len(test) > data_cfg.max_test:
      # A seeded sample: ids are ordered by verb/seed, a prefix is not.
      rng = np.random.default_rng([data_cfg.seed, 1, *t.encode()])
      keep = np.sort(rng.permutation(len(test))[:data_cfg.max_test])
      test = [test[i] for i in keep]
    parts[t, "test"] = test
  blm = from_parts(parts, embed_fn, name=data_cfg.name, seeded=seeded)
  if follow:  # The first seed's sample is in `train`/`dev`.
    first = int(seeds[0])
    by = lambda split: {**{(first, t): getattr(blm, split)[t]
                           for t in data_cfg.train_types},
                        **getattr(blm, f"{split}_by_seed")}
    blm = dataclasses.replace(blm, train_by_seed=by("train"),
                              dev_by_seed=by("dev"))
  return dataclasses.replace(blm, dev_source=dev_source)


def from_parts(parts: dict[tuple[str, str], list[schema.BLMInstance]],
               embed_fn: EmbedFn, name: str = "",
               seeded: dict | None = None) -> BLMData:
  """BLMData from {(type, 'train'|'dev'|'test'): instances}: one table.

  `seeded`: {(seed, type, 'train'|'dev'): instances}, the per-seed samples
  of `BLMData.train_by_seed` / `dev_by_seed`, in the same table.
  """
  seeded = seeded or {}
  everything = [x for insts in (*parts.values(), *seeded.values())
                for x in insts]
  if not everything:
    raise ValueError(f"config.data.name={name!r}: no instances")
  inventory = labels.FAMILY_LABELS.get(everything[0].family)
  types = tuple(dict.fromkeys(t for t, _ in parts))
  schema = (attributes.schema_for_dataset(dataset_name(name, types[0]))
            if name and types else None)
  table = build_sentence_table(everything, label_names=inventory,
                               attribute_schema=schema)
  rows, start = {}, 0
  for key, insts in (*parts.items(), *seeded.items()):
    rows[key] = np.arange(start, start + len(insts))
    start += len(insts)
  emb = np.asarray(embed_fn(table.sentences), np.float32)
  if emb.shape[0] != len(table.sentences):
    raise ValueError(f"embedding function returned {emb.shape[0]} rows for "
                     f"{len(table.sentences)} sentences")
  pick = lambda split: {t: table.select(rows[t, split]) for t in types}
  by_seed = lambda split: {(s, t): table.select(rows[s, t, sp])
                           for s, t, sp in seeded if sp == split}
  return BLMData(embeddings=emb, table=table, train=pick("train"),
                 dev=pick("dev"), test=pick("test"),
                 train_by_seed=by_seed("train"), dev_by_seed=by_seed("dev"))
