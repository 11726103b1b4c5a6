"""The embedding tables a training run reads, from its `EncoderSettings`:
the configured frozen encoder's (cached on disk), each swept layer's and
the random encoder's (the random-encoder control). training/ asks here for
arrays; with several processes each embeds its share (`embed_shared`).
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Sequence, TypeVar

import jax
import numpy as np

from blm_jax.base import processes
from blm_jax.data.input_pipeline import EmbedFn
from blm_jax.embedding import embed, fill
from blm_jax.embedding.spec import EncoderSettings, parse_layer_sweep
from blm_jax.encoders import encoder as encoders

RANDOM_ENCODER_SEED = 0  # The random encoder's weights: one fixed draw.

T = TypeVar("T")


def embed_shared(embed_fn: Callable[[list[str]], T],
                 sentences: Sequence[str]) -> T:
  """`embed_fn(sentences)`, the encoding split over the processes.

  `embed_fn` must read and fill the shared embedding cache. Each process
  first embeds its share (`fill.process_share`) into the cache; after a
  barrier every process calls `embed_fn` on all the sentences, which now
  reads them from the cache. With a cache folder that the processes do not
  share (hosts without a common file system) the second call embeds what it
  did not find: the result is the same, only the time saved is lost.
  """
  if jax.process_count() == 1:
    return embed_fn(list(sentences))
  embed_fn(fill.process_share(sentences, jax.process_index(),
                              jax.process_count()))
  processes.barrier("embedding")
  return embed_fn(list(sentences))


def _layers(settings: EncoderSettings) -> tuple[tuple[int, ...], int]:
  """(the swept hidden states, the main one), non-negative."""
  spec = settings.spec
  enc = encoders.load_encoder(spec.name_or_path, spec.revision, spec.dtype)
  return (parse_layer_sweep(settings.layer_sweep, enc.num_layers),
          enc.layer_index(spec.layer))


def _by_layer(settings: EncoderSettings, sentences, layers):
  by_layer, _ = embed_shared(
      lambda s: embed.embed_layers(s, settings.spec, layers,
                                   batch_size=settings.batch_size,
                                   cache_dir=settings.cache_root), sentences)
  return by_layer


def embed_fn(settings: EncoderSettings) -> EmbedFn:
  """Sentences -> [n, D] with the configured frozen encoder (cached).

  With a layer sweep, the one encoder pass also fills the cache of every
  swept layer, which `layer_tables` then only reads.
  """

  def fn(sentences):
    if not settings.sweeps:
      return embed_shared(
          lambda s: embed.embed_sentences(s, settings.spec,
                                          batch_size=settings.batch_size,
                                          cache_dir=settings.cache_root),
          sentences)
    swept, main = _layers(settings)
    return _by_layer(settings, sentences, swept + (main,))[main]

  return fn


def layer_tables(settings: EncoderSettings, sentences: Sequence[str]
                 ) -> tuple[dict[int, np.ndarray], int]:
  """({swept hidden state: [S, D]}, the main hidden state): the layer
  sweep's tables, rows as `sentences`; ({}, main) without a sweep."""
  if not settings.sweeps:
    return {}, _layers(settings)[1]
  swept, main = _layers(settings)
  by_layer = _by_layer(settings, sentences, swept + (main,))
  return {k: by_layer[k] for k in swept}, main


def random_encoder_table(settings: EncoderSettings,
                         sentences: Sequence[str]) -> np.ndarray:
  """[S, D]: the same architecture with random weights (its own cache key)."""
  random_spec = dataclasses.replace(settings.spec,
                                    random_weights_seed=RANDOM_ENCODER_SEED)
  return embed_shared(
      lambda s: embed.embed_sentences(s, random_spec,
                                      batch_size=settings.batch_size,
                                      cache_dir=settings.cache_root),
      sentences)
