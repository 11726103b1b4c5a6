"""Poolings that keep more of a sentence's token states than one mean.

A mean over all tokens mixes the subject, the attractors and the verb of an
agreement sentence into one vector, and the probes find the attractors'
numbers lost in it (the diagnosis ladder, docs/explanation/designs-and-ladder.md).
`segmentsP` cuts each sentence's real tokens into P contiguous runs of
(nearly) equal length, in order, and concatenates the runs' means: a
[P * D] vector that keeps where in the sentence a state was (the subject
early, the verb late) with no parsing and no learned weights, so it is
cached like any other pooling (under its own key). Token r of n real tokens
falls in run floor(r * P / n); with fewer than P real tokens some runs are
empty and their part of the vector is 0.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

SEGMENT_POOLINGS = ("segments2", "segments3", "segments4")


def segment_count(pooling: str) -> int | None:
  """P of a `segmentsP` pooling; None for any other pooling."""
  if pooling in SEGMENT_POOLINGS:
    return int(pooling[len("segments"):])
  return None


def pooled_width(pooling: str, hidden_size: int) -> int:
  """The width of a sentence vector pooled with `pooling`."""
  return hidden_size * (segment_count(pooling) or 1)


def segment_pool(hidden: jax.Array, mask: jax.Array,
                 segments: int) -> jax.Array:
  """[B, T, D] token states + [B, T] mask -> [B, segments * D]: the means
  of `segments` contiguous runs of the real tokens, concatenated in order.
  Real tokens are ranked by the mask, so right and left padding pool
  alike."""
  real = (mask > 0)
  n = jnp.sum(real, axis=1, keepdims=True)  # [B, 1]
  rank = jnp.cumsum(real, axis=1) - 1  # [B, T]: rank among real tokens
  run = (rank * segments) // jnp.maximum(n, 1)
  weight = (jax.nn.one_hot(run, segments, dtype=hidden.dtype)
            * real[..., None].astype(hidden.dtype))  # [B, T, P]
  sums = jnp.einsum("btp,btd->bpd", weight, hidden)
  counts = jnp.sum(weight, axis=1)[..., None]  # [B, P, 1]
  means = sums / jnp.maximum(counts, 1.0)
  return means.reshape(hidden.shape[0], segments * hidden.shape[-1])
