"""Where a grid's embeddings come from: the configured frozen encoder
(cached on disk) for the real cells, and the tables its variants read
besides (the random-encoder control, the swept layers)."""

from __future__ import annotations

import dataclasses
from typing import Callable, Sequence

import ml_collections
import numpy as np

from blm_jax.data import input_pipeline
from blm_jax.training import distributed, variants
from data_builders.common import attributes


def encoder_spec(encoder_cfg, **overrides):
  """The `embed.EncoderSpec` of a config's encoder section."""
  from blm_jax.embedding import embed  # Imported lazily: loads the encoder stack.

  spec, _ = embed.from_config(encoder_cfg)
  return dataclasses.replace(spec, **overrides)


def embedding_cache_dir(encoder_cfg) -> str:
  """The embedding cache folder a config's encoder section names."""
  from blm_jax.embedding import embed

  return embed.from_config(encoder_cfg)[1]["cache_dir"]


def default_embed_fn(encoder_cfg) -> input_pipeline.EmbedFn:
  """Embeds with the configured frozen encoder (cached on disk).

  With `encoder.layer_sweep` set, the one encoder pass also fills the cache
  of every swept layer, which `default_sources` then only reads.
  """
  from blm_jax.embedding import embed
  from blm_jax.encoders import encoder as encoders

  def fn(sentences):
    # embed.from_config: the same cache keys as `python -m blm_jax.cli.embed
    # --config=...` computes.
    spec, options = embed.from_config(encoder_cfg)
    sweep = encoder_cfg.layer_sweep
    if not variants.parse_layer_sweep(sweep):
      return distributed.embed_shared(
          lambda s: embed.embed_sentences(s, encoder=spec, **options),
          sentences)
    enc = encoders.load_encoder(spec.name_or_path, spec.revision, spec.dtype)
    main = enc.layer_index(spec.layer)
    layers = variants.parse_layer_sweep(sweep, enc.num_layers) + (main,)
    by_layer, _ = distributed.embed_shared(
        lambda s: embed.embed_layers(s, spec, layers, **options), sentences)
    return by_layer[main]

  return fn


@dataclasses.dataclass(frozen=True)
class Sources:
  """The embedding tables the grid's variants read besides the real one.

  tables: {'random_encoder' | 'gold_attributes' | 'layer=k': [S, D]}, rows
    as the real table's.
  sweep_layers: the swept hidden states (non-negative), () without a sweep.
  main_layer: the hidden state of the real cells (non-negative).
  """

  tables: dict
  sweep_layers: tuple[int, ...] = ()
  main_layer: int | None = None


SourcesFn = Callable[[ml_collections.ConfigDict, Sequence[str]], Sources]
RANDOM_ENCODER_SEED = 0  # The random encoder's weights: one fixed draw.


def default_sources(config, sentences: Sequence[str]) -> Sources:
  """The random encoder's and every swept layer's embeddings (cached)."""
  controls = variants.parse_controls(config.controls)
  sweep = config.encoder.layer_sweep
  if "random_encoder" not in controls and not variants.parse_layer_sweep(
      sweep):
    return Sources({})
  from blm_jax.embedding import embed
  from blm_jax.encoders import encoder as encoders

  enc_cfg = config.encoder
  spec = encoder_spec(enc_cfg)
  enc = encoders.load_encoder(spec.name_or_path, spec.revision, spec.dtype)
  main = enc.layer_index(spec.layer)
  tables, layers = {}, variants.parse_layer_sweep(sweep, enc.num_layers)
  if layers:
    by_layer, _ = distributed.embed_shared(
        lambda s: embed.embed_layers(
            s, spec, layers + (main,), batch_size=enc_cfg.batch_size,
            cache_dir=embedding_cache_dir(enc_cfg)), sentences)
    tables.update({variants.layer_variant(k): by_layer[k] for k in layers})
  if "random_encoder" in controls:
    random_spec = encoder_spec(enc_cfg,
                               random_weights_seed=RANDOM_ENCODER_SEED)
    tables["random_encoder"] = distributed.embed_shared(
        lambda s: embed.embed_sentences(
            s, random_spec, batch_size=enc_cfg.batch_size,
            cache_dir=embedding_cache_dir(enc_cfg)), sentences)
  return Sources(tables, layers, main)


def gold_attribute_table(table, embed_dim: int) -> np.ndarray:
  """[S, embed_dim] float32: each sentence's one-hot attributes, zero-padded
  to the embedding's width (the `gold_attributes` control)."""
  one_hot = attributes.one_hot(table.attributes, table.attribute_sizes)
  if one_hot.shape[1] > embed_dim:
    raise ValueError(
        f"config.controls=gold_attributes: the {one_hot.shape[1]} one-hot "
        f"attribute values do not fit the embedding width {embed_dim}")
  out = np.zeros((one_hot.shape[0], embed_dim), np.float32)
  out[:, :one_hot.shape[1]] = one_hot
  return out


def with_gold_attributes(config, data, sources: Sources) -> Sources:
  """`sources` plus the `gold_attributes` control's table when
  `config.controls` names it; one line when the data has no attributes."""
  if "gold_attributes" not in variants.parse_controls(config.controls):
    return sources
  table = data.table
  if not table.attribute_names:
    raise ValueError(f"config.controls=gold_attributes: "
                     f"{config.data.name!r} has no attributes: "
                     f"{table.attributes_missing}")
  gold = gold_attribute_table(table, data.embed_dim)
  return dataclasses.replace(sources, tables={**sources.tables,
                                              "gold_attributes": gold})
