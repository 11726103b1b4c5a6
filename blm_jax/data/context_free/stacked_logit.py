"""Several conditional logits fitted at once: one jitted, vmapped scan.

`answers_only.fit_logit` fits one conditional logit (softmax over an
instance's candidates, hashed word features) with 300 full-batch Adam steps
in numpy, one fit after another. The context-free baselines fit one per
train type (word logit, set logit), so here every batch is padded to one
shape ([instances, candidates, features] of feature ids) and all are fitted
in one `jax.jit(jax.vmap(...))` of a `lax.scan` over the steps, in float64
with the same gradient and Adam update as the numpy fit: the weights agree
with it to rounding (about 1e-12; the sums run in another order), so the
accuracies, ties included (`answers_only._accuracy`, 1e-9), are the same.
"""

from __future__ import annotations

import functools
from typing import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from blm_jax.data.context_free import answers_only


def _padded(batches: Sequence) -> tuple[np.ndarray, ...]:
  """(feature ids [B, N, A, F] padded with DIM, candidate mask [B, N, A],
  target [B, N, A], instance counts [B]) of `answers_only._Batch`es."""
  rows = []
  for b in batches:
    # Each candidate's ids are a contiguous run of `feat` (candidate order).
    lengths = np.bincount(b.cand_of_feat, minlength=b.n_cand)
    ends = np.cumsum(lengths)
    by_cand = [b.feat[e - k:e] for e, k in zip(ends, lengths)]
    rows.append((b, by_cand, np.bincount(b.inst_of_cand,
                                         minlength=b.n_inst)))
  n = max(1, max(b.n_inst for b, _, _ in rows))
  a = max(1, max((int(k.max()) if len(k) else 0) for _, _, k in rows))
  f = max(1, max((max(map(len, c)) if c else 0) for _, c, _ in rows))
  feat = np.full((len(rows), n, a, f), answers_only.DIM, np.int32)
  mask = np.zeros((len(rows), n, a), bool)
  target = np.zeros((len(rows), n, a))
  for i, (b, by_cand, per_inst) in enumerate(rows):
    slot = np.arange(b.n_cand) - np.repeat(
        np.concatenate([[0], np.cumsum(per_inst)[:-1]]), per_inst)
    for c, (inst, j) in enumerate(zip(b.inst_of_cand, slot)):
      feat[i, inst, j, :len(by_cand[c])] = by_cand[c]
      mask[i, inst, j] = True
      target[i, inst, j] = b.target[c]
  counts = np.array([b.n_inst for b, _, _ in rows], np.float64)
  return feat, mask, target, counts


def _fit_one(feat, mask, target, n_inst, steps, lr, l2):
  """`answers_only.fit_logit` on one padded batch (float64)."""
  dim = answers_only.DIM
  real = feat < dim

  def scores_of(w):
    s = jnp.where(real, jnp.append(w, 0.0)[feat], 0.0).sum(-1)
    return jnp.where(mask, s, -jnp.inf)

  def step(carry, t):
    w, m, v = carry
    s = scores_of(w)
    top = jnp.max(s, axis=-1, keepdims=True)
    top = jnp.where(jnp.isfinite(top), top, 0.0)
    e = jnp.where(mask, jnp.exp(s - top), 0.0)
    p = e / jnp.maximum(e.sum(-1, keepdims=True), 1e-300)
    g_cand = jnp.where(mask, (p - target) / n_inst, 0.0)
    g = jnp.zeros(dim + 1).at[feat].add(
        jnp.broadcast_to(g_cand[..., None], feat.shape))[:dim]
    g = g + l2 * w
    m = 0.9 * m + 0.1 * g
    v = 0.999 * v + 0.001 * g * g
    w = w - lr * (m / (1 - 0.9**t)) / (
        jnp.sqrt(v / (1 - 0.999**t)) + 1e-8)
    return (w, m, v), None

  zeros = jnp.zeros(dim)
  (w, _, _), _ = jax.lax.scan(step, (zeros, zeros, zeros),
                              jnp.arange(1, steps + 1, dtype=jnp.float64))
  return w


@functools.partial(jax.jit, static_argnames=("steps", "lr", "l2"))
def _fit(feat, mask, target, n_inst, steps, lr, l2):
  return jax.vmap(_fit_one, in_axes=(0, 0, 0, 0, None, None, None))(
      feat, mask, target, n_inst, steps, lr, l2)


def fit_logits(batches: Sequence, steps: int = 300, lr: float = 0.5,
               l2: float = 1e-2) -> list[np.ndarray]:
  """`answers_only.fit_logit(b, steps, lr, l2)` of every batch in
  `batches`, fitted together; the weights as float64 numpy arrays."""
  if not batches:
    return []
  feat, mask, target, counts = _padded(batches)
  with jax.enable_x64(True):
    w = _fit(jnp.asarray(feat), jnp.asarray(mask),
             jnp.asarray(target, jnp.float64),
             jnp.asarray(counts, jnp.float64), steps, float(lr), float(l2))
    w = np.asarray(w, np.float64)
  return list(w)
