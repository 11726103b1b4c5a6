"""`blm_chunks`: the sentence-level chunk-pattern data of 000 sec. 7.

Derived from any BLM dataset registered in `data_builders` (generated or
published): the source is built (or read) through `data_builders.common.loading`, all its
splits pooled, and `derive.derive` draws, splits and pairs the sentences.
Records use the shared BLM schema (family `sentence_chunks`, labels POS/NEG),
so the solvers read them like any other BLM dataset.

Predefined configs are listed in `SOURCES`. For any other source, make a
config at run time:

    cfg = BlmChunksConfig(name="my_source", source="blm_agreement/en_main_type_I")
    b = tfds.builder("blm_chunks", config=cfg, data_dir=data_dir)
    b.download_and_prepare()

(or `config_for_source("blm_agreement/en_main_type_I")`, which derives the
name from the source). Once built, `data_builders.common.loading.load_instances(
"blm_chunks/<name>", split, data_dir)` reads it back by name in any process.
The source is built into the same data_dir unless `source_data_dir` says
otherwise; a source that needs release files (blm_published) gets
`source_manual_dir`, or else the manual_dir this build was given.
"""

from __future__ import annotations

import dataclasses
import re

import tensorflow_datasets as tfds

from data_builders.blm_chunks import derive
from data_builders.common import builder as builder_lib, file_format


@dataclasses.dataclass(eq=False)
class BlmChunksConfig(tfds.core.BuilderConfig):
  """Which BLM dataset to derive from, and how.

  `source`: a TFDS name `<builder>/<config>` of the project's builders.
  `seed` fixes the sentences drawn, the splits, the pairs and answer order.
  `num_negatives`: negatives per sentence.
  `negatives`: "minimal" (nearest patterns, the default) or "uniform"
  (distinct other patterns, uniformly); see `derive`.
  `view`: what a chunk pattern is (`derive.VIEWS`: "all" pattern roles, or
  "agreement": NP (PP1 (PP2)) VP, clause type left out).
  `size`: total sentences before scaling down to what the source has.
  """

  source: str = ""
  source_manual_dir: str | None = None
  source_data_dir: str | None = None
  seed: int = 0
  num_negatives: int = derive.PAPER_NUM_NEGATIVES
  negatives: str = "minimal"
  view: str = "all"
  size: int = sum(derive.PAPER_SPLIT_SIZES.values())


# config name -> (source, view): the ten datasets of 000 Table 5. Verb
# alternations: the context sentences of type I data (7 patterns: 000
# Figures 5, 6, 8, 11); agreement: contexts and correct answers of the type I
# data of all three clause types, seen as NP (PP1 (PP2)) VP (14 patterns).
# Plus the published French agreement sample (needs manual_dir).
SOURCES: dict[str, tuple[str, str]] = {
    "spray_load_ALT-ATL": ("blm_spray_load/ALT-ATL_type_I", "all"),
    "spray_load_ATL-ALT": ("blm_spray_load/ATL-ALT_type_I", "all"),
    **{f"{cls}_{lang}": (f"blm_cos_od/{cls}_{lang}_type_I", "all")
       for cls in ("cos", "od") for lang in ("en", "it")},
    **{f"agreement_{lang}": (f"blm_agreement/{lang}_mixed_type_I",
                             "agreement")
       for lang in ("en", "fr", "it", "ro")},
    "published_agreement_fr_type_I": ("blm_published/agreement_fr_type_I",
                                      "all"),
}


# Uniform negatives need distinct other patterns: the verb-alternation
# contexts hold 7 patterns, so 6 is the most they allow.
UNIFORM_NEGATIVES = {name: 6 for name in SOURCES
                     if name.startswith(("spray_load", "cos", "od"))}


def config_for_source(source: str, **kwargs) -> BlmChunksConfig:
  """A run-time config named after its source (and seed when not 0)."""
  name = "from_" + re.sub(r"[^A-Za-z0-9_.-]+", "__", source)
  if kwargs.get("view", "all") != "all":
    name += f"_{kwargs['view']}"
  if kwargs.get("negatives", "minimal") != "minimal":
    name += f"_{kwargs['negatives']}"
  if kwargs.get("seed"):
    name += f"_seed{kwargs['seed']}"
  return BlmChunksConfig(
      name=name, source=source,
      description=f"Sentence-level chunk data derived from {source}.",
      **kwargs)


class Builder(builder_lib.DeterministicRecords,
              file_format.ArrayRecordWithoutTF):
  """Sentence-level chunk-pattern data (000 sec. 7) derived from a BLM dataset."""

  VERSION = tfds.core.Version("2.1.0")
  RELEASE_NOTES = {
      "1.0.0": "First release.",
      "2.0.0": "Minimal negatives by default (nearest patterns, 7 for every "
               "source); agreement seen as the 14 patterns NP (PP1 (PP2)) VP "
               "of 000 sec. 7 (clause type left out, correct answers and "
               "PP-less sentences added); CoS and OD configs (10 datasets "
               "of 000 Table 5).",
      "2.1.0": "The spray/load configs follow blm_spray_load 1.2.0 (its "
               "lexicon changed spurt's and sprinkle's material); the other "
               "configs are unchanged.",
  }
  # Each source twice: minimal negatives (the paper's task) and, as
  # `<name>_uniform`, negatives of distinct other patterns drawn uniformly.
  BUILDER_CONFIGS = [
      BlmChunksConfig(
          name=name + suffix, source=source, view=view, negatives=negatives,
          num_negatives=(derive.PAPER_NUM_NEGATIVES if negatives == "minimal"
                         else UNIFORM_NEGATIVES.get(name,
                                                    derive.PAPER_NUM_NEGATIVES)),
          description=(f"Sentence-level chunk data derived from {source}, "
                       f"{negatives} negatives."))
      for negatives, suffix in (("minimal", ""), ("uniform", "_uniform"))
      for name, (source, view) in SOURCES.items()
  ]
  MANUAL_DOWNLOAD_INSTRUCTIONS = """
  Only for sources that read release files (blm_published): the folder of
  release files, handed on to the source builder as its manual_dir.
  """

  def _info(self) -> tfds.core.DatasetInfo:
    return builder_lib.blm_info(self)

  def _split_generators(self, dl_manager):
    config = self.builder_config
    try:
      manual_dir = config.source_manual_dir or str(dl_manager.manual_dir)
    except AssertionError:  # No manual_dir given, or an empty one.
      manual_dir = None
    source_splits = _read_source(
        config, config.source_data_dir or str(self.data_dir_root),
        manual_dir, where=f"{self.name}/{config.name}")
    sizes = derive.scaled_split_sizes(config.size, derive.PAPER_SPLIT_SIZES)
    splits = derive.derive(
        source_splits, source=config.source, seed=config.seed, sizes=sizes,
        num_negatives=config.num_negatives, negatives=config.negatives,
        view=_view(config))
    return {name: self._generate_examples(items)
            for name, items in splits.items()}


def _view(config: BlmChunksConfig) -> derive.ChunkView:
  if config.view not in derive.VIEWS:
    raise ValueError(f"{config.name}: unknown view {config.view!r}; known: "
                     f"{sorted(derive.VIEWS)}")
  return derive.VIEWS[config.view]


def _read_source(config: BlmChunksConfig, data_dir: str,
                 manual_dir: str | None, where: str):
  """split -> instances of every split of the source dataset."""
  from data_builders.common import loading as data  # Imported here: it imports data_builders.
  import data_builders

  if not config.source:
    raise ValueError(f"{where}: the config names no source dataset")
  try:
    data.builder(config.source, data_dir)
  except (tfds.core.DatasetNotFoundError, ValueError) as e:
    first_line = str(e).strip().splitlines()[0] if str(e).strip() else ""
    raise ValueError(
        f"{where}: unknown source dataset {config.source!r} (project "
        f"builders: {', '.join(data_builders.BUILDER_PACKAGES)}): "
        f"{first_line}") from e
  try:
    b = data.prepare(config.source, data_dir, manual_dir)
  except AssertionError as e:  # TFDS's way of saying manual_dir is missing.
    raise ValueError(f"{where}: cannot build source {config.source!r} "
                     f"(manual_dir {manual_dir!r}): {e}") from e
  return {split: data.load_instances(config.source, split, data_dir,
                                     manual_dir)
          for split in sorted(b.info.splits)}
