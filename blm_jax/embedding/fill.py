"""Filling the embedding cache ahead of training: a dataset's splits, or
exactly the sentences one training run reads (`fill_for_run`)."""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

from blm_jax.data import input_pipeline
from blm_jax.data.sentence_table import build_sentence_table
from blm_jax.embedding.embed import (DEFAULT_BATCH_SIZE, EmbedStats,
                                     embed_with_stats)
from blm_jax.embedding.spec import (DEFAULT_CACHE_DIR, EncoderSettings,
                                    EncoderSpec)
from data_builders.common import loading


@dataclasses.dataclass(frozen=True)
class FillReport:
  dataset: str  # the datasets' names, comma-separated
  # split (or 'dataset:split' for several datasets) -> {instances,
  # sentences, dedup_ratio}
  splits: dict[str, dict]
  sentences: int  # distinct over all splits
  references: int  # sentence slots over all splits
  stats: EmbedStats

  @property
  def dedup_ratio(self) -> float:
    return self.references / max(1, self.sentences)


def process_share(sentences: Sequence[str], index: int,
                  count: int) -> list[str]:
  """The distinct sentences process `index` of `count` embeds into the
  shared cache when several processes fill it together.

  Every `count`-th sentence in order of character length: the shares have
  about the same number of sentences and the same mix of lengths (an
  encoder's cost follows the padded token length), every process computes
  the same split without talking to the others, and together the shares
  cover every sentence once. Sentence-level rather than split- or
  dataset-level: a run's splits share most of their sentences.
  """
  if not 0 <= index < count:
    raise ValueError(f"process index {index} is not in 0..{count - 1}")
  distinct = sorted(dict.fromkeys(sentences), key=lambda s: (len(s), s))
  return distinct[index::count]


def fill_cache(dataset: str | Sequence[str], spec: EncoderSpec, *,
               splits: Sequence[str] | None = None,
               data_dir: str | None = None, manual_dir: str | None = None,
               cache_dir: str = DEFAULT_CACHE_DIR,
               batch_size: int = DEFAULT_BATCH_SIZE,
               progress: bool = True) -> FillReport:
  """Embeds (into the cache) every distinct sentence of a dataset's splits.

  `dataset` may be several names: their sentences are embedded together,
  each once. The embeddings are written shard by shard and not returned.
  """

  names = [dataset] if isinstance(dataset, str) else list(dataset)
  sentences: tuple[str, ...] = ()
  per_split, references = {}, 0
  for name in names:
    for split in list(splits or loading.split_names(name, data_dir,
                                                 manual_dir)):
      instances = loading.load_instances(name, split, data_dir, manual_dir)
      alone = build_sentence_table(instances)
      # Growing one table over the splits keeps every sentence once overall.
      sentences = build_sentence_table(instances,
                                       sentences=sentences).sentences
      references += alone.num_references
      per_split[split if len(names) == 1 else f"{name}:{split}"] = {
          "instances": alone.num_instances,
          "sentences": len(alone.sentences),
          "dedup_ratio": round(alone.dedup_ratio, 3)}
  _, stats = embed_with_stats(sentences, spec, batch_size=batch_size,
                              cache_dir=cache_dir, progress=progress,
                              return_embeddings=False)
  return FillReport(dataset=", ".join(names), splits=per_split,
                    sentences=len(sentences), references=references,
                    stats=stats)


def fill_for_run(config, progress: bool = True) -> FillReport:
  """Embeds (into the cache) exactly the sentences a training run of
  `config` reads: its sampled train/dev instances and its test instances,
  under the cache key of its encoder settings."""

  encoder = EncoderSettings(**config.encoder)
  done = {}

  def fill(sentences):
    _, done["stats"] = embed_with_stats(
        sentences, encoder.spec, progress=progress, return_embeddings=False,
        batch_size=encoder.batch_size, cache_dir=encoder.cache_root)
    # input_pipeline only checks the row count; nothing is trained here.
    return np.zeros((len(sentences), 0), np.float32)

  data = input_pipeline.load(config.data, fill,
                             config.data.data_dir or None,
                             seeds=tuple(config.grid.seeds))
  per_split = {}
  for split in ("train", "dev", "test"):
    for t, table in getattr(data, split).items():
      used = np.unique(np.concatenate([
          table.context[table.context_mask.astype(bool)],
          table.answers[table.answer_mask.astype(bool)]]))
      per_split[f"{split}/{t}"] = {
          "instances": table.num_instances, "sentences": len(used),
          "dedup_ratio": round(table.num_references / max(1, len(used)),
                               3)}
  return FillReport(dataset=config.data.name, splits=per_split,
                    sentences=len(data.table.sentences),
                    references=data.table.num_references,
                    stats=done["stats"])


