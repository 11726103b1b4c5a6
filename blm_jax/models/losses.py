"""Scores and losses shared by every BLM solver (000 eq. 1-6).

`score` is the function used both to train and to predict; the config picks
the kind for each phase (`train.score`, `train.predict_score`: the authors'
code trains with the dot product, or with L2-normalised dot scores for the
sentence VAE, and predicts with the cosine). Candidates are masked: padded
answers never count in a loss and can never be predicted.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

# 'normalized': dot scores divided by their L2 norm over the candidates (the
# authors' sentence-level max_margin); it ranks like 'dot'.
SCORES = ("dot", "cosine", "normalized")
# How the hinge treats the wrong candidates: 'sum' = eq. (1); 'mean' = maxM of
# eq. (3), the hinge of the mean wrong score; 'mean_hinge' = the mean of the
# per-candidate hinges (what the authors' code computes with
# torch.nn.MarginRankingLoss for the answer level).
MARGIN_REDUCTIONS = ("sum", "mean", "mean_hinge")


def score(pred: jax.Array, cands: jax.Array, kind: str,
          mask: jax.Array | None = None) -> jax.Array:
  """Scores of candidates [..., A, D] against predictions [..., D] -> [..., A].

  `mask` [..., A] (False for padding) only matters to 'normalized'.
  """
  if kind not in SCORES:
    raise ValueError(f"unknown score {kind!r}; expected one of {SCORES}")
  if kind == "normalized":
    dots = pairwise_score(pred[..., None, :], cands, "dot")[..., 0, :]
    return normalize_scores(
        dots, jnp.ones(dots.shape, bool) if mask is None else mask)
  return pairwise_score(pred[..., None, :], cands, kind)[..., 0, :]


def normalize_scores(scores: jax.Array, mask: jax.Array) -> jax.Array:
  """Scores [..., M] divided by their L2 norm over the unmasked candidates.

  The authors' sentence-level loss (sentence_representations/losses.py)
  normalises each sentence's vector of (positive, negatives) dot scores this
  way before the hinge, which bounds the margin term whatever the embedding
  scale.
  """
  masked = jnp.where(mask, scores, 0.0)
  norm = jnp.sqrt(jnp.sum(masked**2, axis=-1, keepdims=True))
  return masked / jnp.maximum(norm, 1e-12)


def pairwise_score(a: jax.Array, b: jax.Array, kind: str) -> jax.Array:
  """Scores of every b [..., M, D] against every a [..., N, D] -> [..., N, M].

  One batched matmul: no [N, M, D] intermediate is materialised.
  """
  if kind == "cosine":
    eps = 1e-8
    a = a / (jnp.linalg.norm(a, axis=-1, keepdims=True) + eps)
    b = b / (jnp.linalg.norm(b, axis=-1, keepdims=True) + eps)
  elif kind != "dot":
    raise ValueError(f"unknown score {kind!r} for pairwise_score; expected "
                     f"'dot' or 'cosine' ('normalized' needs the candidate "
                     f"mask: use score or normalize_scores)")
  return jnp.einsum("...nd,...md->...nm", a, b)


def max_margin(scores: jax.Array, correct: jax.Array, mask: jax.Array,
               reduction: str = "sum") -> jax.Array:
  """Max-margin loss per instance.

  reduction='sum' is 000 eq. (1): sum over wrong candidates of
  [1 - s_c + s_i]^+. reduction='mean' is maxM of eq. (3):
  [1 - s_c + mean_i s_i]^+. reduction='mean_hinge' is the mean over wrong
  candidates of [1 - s_c + s_i]^+ (the authors' code).

  Args:
    scores: [..., A] candidate scores.
    correct: [...] int index of the correct candidate.
    mask: [..., A] bool, False for padded candidates.
    reduction: 'sum' or 'mean'.
  """
  onehot = jax.nn.one_hot(correct, scores.shape[-1], dtype=bool)
  s_c = jnp.sum(jnp.where(onehot, scores, 0.0), axis=-1)
  wrong = mask & ~onehot
  if reduction == "sum":
    terms = jnp.maximum(0.0, 1.0 - s_c[..., None] + scores)
    return jnp.sum(jnp.where(wrong, terms, 0.0), axis=-1)
  if reduction == "mean_hinge":
    n = jnp.maximum(1, jnp.sum(wrong, axis=-1))
    terms = jnp.maximum(0.0, 1.0 - s_c[..., None] + scores)
    return jnp.sum(jnp.where(wrong, terms, 0.0), axis=-1) / n
  if reduction == "mean":
    n = jnp.maximum(1, jnp.sum(wrong, axis=-1))
    mean_wrong = jnp.sum(jnp.where(wrong, scores, 0.0), axis=-1) / n
    return jnp.maximum(0.0, 1.0 - s_c + mean_wrong)
  raise ValueError(
      f"unknown margin reduction {reduction!r}; expected {MARGIN_REDUCTIONS}")


def predict(scores: jax.Array, mask: jax.Array) -> jax.Array:
  """The highest-scoring unmasked candidate.

  Readers and generators shuffle candidates, so a tie cannot systematically
  favour the correct index; padded candidates get -inf.
  """
  return jnp.argmax(jnp.where(mask, scores, -jnp.inf), axis=-1)


def kl_to_standard_normal(mean: jax.Array, logvar: jax.Array) -> jax.Array:
  """KL(N(mean, exp(logvar)) || N(0, I)), summed over the last axis."""
  return 0.5 * jnp.sum(jnp.exp(logvar) + mean**2 - 1.0 - logvar, axis=-1)
