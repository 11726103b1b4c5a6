"""Control baselines and layer-sweep cells: what a grid cell reads, per cell.

A heatmap alone does not say whether an F1 comes from the embeddings, from
the solver's capacity or from a cue in the candidates (Hewitt and Liang's
point about probes). The controls answer that, each as more cells of the
same grid, trained and evaluated exactly as the real cells are:

  answer_only       every context sentence is an all-zero vector: a solver
                    that beats chance then reads a cue in the candidates;
  shuffled_context  each instance's context sentences in a fixed random
                    order (seeded by the instance id): how much the
                    sequence matters;
  random_encoder    the same encoder architecture with random weights (its
                    own embedding-cache key): how much comes from the
                    pretraining;
  gold_attributes   each sentence's one-hot attributes (read off its
                    pattern, `SentenceTable.attributes`) in place of its
                    embedding, zero-padded to the embedding's width: the
                    solver's ceiling on perfect features
                    (`results/gold_ceiling.py`).

A layer-sweep cell 'layer=k' reads hidden state k of the encoder (0 = the
embedding layer) instead of `config.encoder.layer`.

How: the embedding tables of every source (the real one, the random
encoder's, each layer's) are stacked into one table, followed by one zero
row, and a cell's `View` says which block it reads (an index offset) and how
its context is read (as is, the zero row, or permuted). The index arrays and
the solver code are shared: a real cell computes exactly what it computes
in a grid without variants.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from typing import Callable, Sequence

import flax.struct
import jax
import jax.numpy as jnp
import numpy as np

from blm_jax.data.input_pipeline import BLMData
from blm_jax.embedding import sources as embedding_sources
from blm_jax.embedding.spec import EncoderSettings, parse_layer_sweep
from data_builders.common import attributes

CONTROLS = ("answer_only", "shuffled_context", "random_encoder",
            "gold_attributes")
# Controls that read an embedding table of their own.
OWN_TABLE = ("random_encoder", "gold_attributes")
AS_IS, ZERO_CONTEXT, SHUFFLED_CONTEXT = 0, 1, 2
# Part of every instance's permutation seed: change it and every shuffled
# context changes.
SHUFFLE_SEED = 0
_LAYER = re.compile(r"^layer=(\d+)$")


@flax.struct.dataclass
class View:
  """How one cell reads the shared index arrays (all int32 scalars)."""

  offset: jax.Array  # added to every sentence index: the source's block
  ctx_mode: jax.Array  # AS_IS, ZERO_CONTEXT or SHUFFLED_CONTEXT
  zero_row: jax.Array  # index of the all-zero row


def layer_variant(k: int) -> str:
  return f"layer={int(k)}"


def variant_layer(variant: str) -> int | None:
  """k of 'layer=k'; None for the real cells and the controls."""
  m = _LAYER.match(variant)
  return int(m.group(1)) if m else None


def source_of(variant: str) -> str:
  """The embedding table a variant reads: '' (the real one),
  'random_encoder', 'gold_attributes' or 'layer=k'."""
  if variant in OWN_TABLE or variant_layer(variant) is not None:
    return variant
  if variant in ("", "answer_only", "shuffled_context"):
    return ""
  raise ValueError(f"grid variant {variant!r} is not known; expected '', "
                   f"one of {CONTROLS} or 'layer=<k>'")


def ctx_mode(variant: str) -> int:
  return {"answer_only": ZERO_CONTEXT,
          "shuffled_context": SHUFFLED_CONTEXT}.get(variant, AS_IS)


def shuffles(variant: str) -> bool:
  return ctx_mode(variant) == SHUFFLED_CONTEXT


def parse_controls(value) -> tuple[str, ...]:
  """'answer_only,random_encoder' (or a tuple) -> the controls, in order.

  Raises ValueError naming `config.controls`, the bad name and the
  accepted ones.
  """
  names = [s.strip() for s in (value.split(",") if isinstance(value, str)
                               else value)]
  names = [n for n in names if n]
  bad = [n for n in names if n not in CONTROLS]
  if bad:
    raise ValueError(f"config.controls={value!r}: {', '.join(map(repr, bad))}"
                     f" is not a control; expected a comma-separated subset "
                     f"of {', '.join(CONTROLS)}")
  if len(set(names)) != len(names):
    raise ValueError(f"config.controls={value!r}: a control is repeated")
  return tuple(names)


def grid_variants(controls=(), sweep_layers=(), main_layer: int | None = None
                  ) -> tuple[str, ...]:
  """'' then the controls, then one 'layer=k' per swept layer other than
  `main_layer` (the real cells already are that layer)."""
  layers = tuple(layer_variant(k) for k in sweep_layers if k != main_layer)
  return ("",) + tuple(controls) + layers


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


# (encoder settings, the controls, the sentences) -> Sources.
SourcesFn = Callable[[EncoderSettings, tuple[str, ...], Sequence[str]],
                     Sources]


def default_sources(encoder: EncoderSettings, controls: tuple[str, ...],
                    sentences: Sequence[str]) -> Sources:
  """The random encoder's and every swept layer's embeddings (cached),
  asked of the embedding layer."""
  if "random_encoder" not in controls and not encoder.sweeps:
    return Sources({})
  by_layer, main = embedding_sources.layer_tables(encoder, sentences)
  tables = {layer_variant(k): t for k, t in by_layer.items()}
  if "random_encoder" in controls:
    tables["random_encoder"] = embedding_sources.random_encoder_table(
        encoder, sentences)
  return Sources(tables, tuple(by_layer), main)


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


def with_gold_attributes(controls: tuple[str, ...], data_name: str,
                         data: BLMData, sources: Sources) -> Sources:
  """`sources` plus the `gold_attributes` control's table when `controls`
  name it; one line when the data (`data_name`) has no attributes."""
  if "gold_attributes" not in controls:
    return sources
  table = data.table
  if not table.attribute_names:
    raise ValueError(f"config.controls=gold_attributes: "
                     f"{data_name!r} has no attributes: "
                     f"{table.attributes_missing}")
  gold = gold_attribute_table(table, data.embed_dim)
  return dataclasses.replace(sources, tables={**sources.tables,
                                              "gold_attributes": gold})


def stack_sources(embeddings: np.ndarray, sources: dict[str, np.ndarray],
                  variants) -> tuple[np.ndarray, dict[str, View]]:
  """(the stacked table [(blocks) * S + 1, D], a View per variant)."""
  s, d = embeddings.shape
  blocks = [""]
  for v in variants:
    src = source_of(v)
    if src not in blocks:
      if src not in sources:
        raise ValueError(f"grid variant {v!r} needs the embedding table "
                         f"{src!r}, which was not given")
      if sources[src].shape != (s, d):
        raise ValueError(f"embedding table {src!r} has shape "
                         f"{sources[src].shape}, not {(s, d)}")
      blocks.append(src)
  tables = [embeddings] + [sources[b] for b in blocks[1:]]
  table = np.concatenate(
      [np.asarray(t, np.float32) for t in tables]
      + [np.zeros((1, d), np.float32)])
  zero_row = len(blocks) * s
  views = {v: View(offset=np.int32(blocks.index(source_of(v)) * s),
                   ctx_mode=np.int32(ctx_mode(v)),
                   zero_row=np.int32(zero_row)) for v in variants}
  return table, views


def stack_views(views) -> View:
  return jax.tree.map(lambda *xs: np.stack(xs), *views)


def apply_view(split, view: View):
  """The split as one cell reads it (traced; a real cell's view leaves the
  indices unchanged)."""
  ctx = split.context
  if split.context_perm is not None:
    shuffled = jnp.take_along_axis(ctx, split.context_perm, axis=-1)
    ctx = jnp.where(view.ctx_mode == SHUFFLED_CONTEXT, shuffled, ctx)
  ctx = jnp.where(view.ctx_mode == ZERO_CONTEXT, view.zero_row,
                  ctx + view.offset)
  split = split.replace(context=ctx.astype(split.context.dtype),
                        answers=(split.answers + view.offset).astype(
                            split.answers.dtype))
  if split.context_attributes is None:
    return split
  # Attribute targets follow their sentences: permuted with a shuffled
  # context, absent (-1) for a zeroed one.
  att = split.context_attributes
  if split.context_perm is not None:
    shuffled = jnp.take_along_axis(att, split.context_perm[..., None], 1)
    att = jnp.where(view.ctx_mode == SHUFFLED_CONTEXT, shuffled, att)
  att = jnp.where(view.ctx_mode == ZERO_CONTEXT, -1, att)
  return split.replace(context_attributes=att.astype(jnp.int32))


def instance_permutation(instance_id: str, mask: np.ndarray) -> np.ndarray:
  """A permutation of the context positions of one instance.

  Only the real (unmasked) positions move; padding stays in place. Seeded by
  SHUFFLE_SEED and the instance id, so it does not depend on the split, the
  sampling or the row order.
  """
  digest = hashlib.sha256(f"{SHUFFLE_SEED}:{instance_id}".encode()).digest()
  rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
  perm = np.arange(len(mask), dtype=np.int32)
  real = np.flatnonzero(mask)
  perm[real] = real[rng.permutation(len(real))]
  return perm


def context_permutations(table) -> np.ndarray:
  """[N, C] int32: each instance's context permutation (`SentenceTable`)."""
  if not table.num_instances:
    return np.zeros((0, table.context.shape[1]), np.int32)
  return np.stack([instance_permutation(i, m) for i, m in
                   zip(table.instance_ids, table.context_mask)])
