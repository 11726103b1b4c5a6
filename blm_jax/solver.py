"""One solver cell: init, loss, train step, epoch and evaluation.

Everything here is a pure function of (state, data, rng) for ONE model with no
grid axis; `blm_jax.grid` vmaps these over the seed x train-type grid, so a
cell of the grid is exactly this code run alone. Data stays on device: an
embedding table [S, D] plus int32 index arrays, gathered per batch.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import flax.struct
import jax
import jax.numpy as jnp
import numpy as np
import optax

from blm_jax import losses
from blm_jax.sentence_table import SentenceTable


@flax.struct.dataclass
class SplitIndex:
  """Device index arrays of one split; rows >= `size` are padding."""

  context: jax.Array  # [N, C] int32
  context_mask: jax.Array  # [N, C] bool
  answers: jax.Array  # [N, A] int32
  answer_mask: jax.Array  # [N, A] bool
  correct: jax.Array  # [N] int32
  labels: jax.Array  # [N, A] int32
  size: jax.Array  # [] int32

  @classmethod
  def from_table(cls, table: SentenceTable, rows: int | None = None):
    """Host arrays of `table`, padded to `rows` rows."""
    n = table.num_instances
    rows = n if rows is None else rows
    pad = lambda a, v=0: np.concatenate(
        [a, np.full((rows - n, *a.shape[1:]), v, a.dtype)]) if rows > n else a
    return cls(
        context=pad(table.context), context_mask=pad(table.context_mask),
        answers=pad(table.answers), answer_mask=pad(table.answer_mask),
        correct=pad(table.correct), labels=pad(table.labels, -1),
        size=np.int32(n))


@flax.struct.dataclass
class Batch:
  ctx: jax.Array  # [B, C, D]
  ctx_mask: jax.Array  # [B, C]
  ans: jax.Array  # [B, A, D]
  ans_mask: jax.Array  # [B, A]
  correct: jax.Array  # [B]


def gather(emb: jax.Array, split: SplitIndex, rows: jax.Array) -> Batch:
  return Batch(ctx=emb[split.context[rows]],
               ctx_mask=split.context_mask[rows],
               ans=emb[split.answers[rows]],
               ans_mask=split.answer_mask[rows],
               correct=split.correct[rows])


@flax.struct.dataclass
class CellState:
  params: Any
  opt_state: Any
  best_params: Any
  best_dev: jax.Array  # [] float32: best dev accuracy so far (-1 before any)
  best_epoch: jax.Array  # [] int32


@dataclasses.dataclass(frozen=True)
class Solver:
  """A model plus its objective and optimizer; all methods are pure.

  Attributes:
    model: a solver module from `blm_jax.models`.
    tx: the optax optimizer.
    score: 'dot' (000) or 'cosine' (001, 003, 004); used to train AND predict.
    margin: 'sum' (eq. 1) or 'mean' (maxM, eq. 3/5).
    kl_weight: weight of the model's KL term.
    batch_size: instances per step.
    steps_per_epoch: steps per epoch (static).
    select_best_on_dev: evaluate the parameters of the best dev epoch.
  """

  model: Any
  tx: optax.GradientTransformation
  score: str = "cosine"
  margin: str = "sum"
  kl_weight: float = 1.0
  batch_size: int = 100
  steps_per_epoch: int = 1
  select_best_on_dev: bool = True

  def init(self, key: jax.Array, example: Batch) -> CellState:
    params_key, sample_key = jax.random.split(jax.random.fold_in(key, 0))
    params = self.model.init({"params": params_key, "sample": sample_key},
                             example.ctx, example.ctx_mask, False)
    return CellState(params=params, opt_state=self.tx.init(params),
                     best_params=params, best_dev=jnp.float32(-1.0),
                     best_epoch=jnp.int32(-1))

  def loss(self, params, batch: Batch, rng: jax.Array):
    out = self.model.apply(params, batch.ctx, batch.ctx_mask, True,
                           rngs={"sample": rng})
    scores = losses.score(out.pred, batch.ans, self.score)
    margin = losses.max_margin(scores, batch.correct, batch.ans_mask,
                               self.margin)
    return jnp.mean(margin + self.kl_weight * out.kl + out.aux_loss)

  def train_step(self, state: CellState, batch: Batch, rng: jax.Array):
    loss, grads = jax.value_and_grad(self.loss)(state.params, batch, rng)
    updates, opt_state = self.tx.update(grads, state.opt_state, state.params)
    params = optax.apply_updates(state.params, updates)
    return state.replace(params=params, opt_state=opt_state), loss

  def train_epoch(self, state: CellState, key: jax.Array, epoch: jax.Array,
                  emb: jax.Array, train: SplitIndex, dev: SplitIndex):
    """One epoch over this cell's shuffled training set, then a dev check.

    Returns the new state and the per-step losses [steps_per_epoch].
    """
    epoch_key = jax.random.fold_in(jax.random.fold_in(key, 1), epoch)
    n_rows = train.correct.shape[0]
    valid = jnp.arange(n_rows) < train.size
    u = jax.random.uniform(jax.random.fold_in(epoch_key, 0), (n_rows,))
    order = jnp.argsort(jnp.where(valid, u, 2.0))  # valid rows first
    size = jnp.maximum(train.size, 1)

    def body(state, step):
      pos = step * self.batch_size + jnp.arange(self.batch_size)
      rows = order[pos % size]
      rng = jax.random.fold_in(jax.random.fold_in(epoch_key, 1), step)
      return self.train_step(state, gather(emb, train, rows), rng)

    state, step_losses = jax.lax.scan(body, state,
                                      jnp.arange(self.steps_per_epoch))
    dev_acc = self.accuracy(state.params, emb, dev)
    better = (dev_acc > state.best_dev) | (not self.select_best_on_dev)
    pick = lambda new, old: jax.tree.map(
        lambda a, b: jnp.where(better, a, b), new, old)
    state = state.replace(
        best_params=pick(state.params, state.best_params),
        best_dev=jnp.where(better, dev_acc, state.best_dev),
        best_epoch=jnp.where(better, epoch, state.best_epoch).astype(jnp.int32))
    return state, step_losses

  def predict(self, params, emb: jax.Array, split: SplitIndex):
    """Deterministic scores [N, A], predictions [N] and latents [N, L]."""
    rows = jnp.arange(split.correct.shape[0])
    batch = gather(emb, split, rows)
    out = self.model.apply(params, batch.ctx, batch.ctx_mask, False)
    scores = losses.score(out.pred, batch.ans, self.score)
    return {"scores": jnp.where(batch.ans_mask, scores, -jnp.inf),
            "pred": losses.predict(scores, batch.ans_mask),
            "latent": out.latent}

  def accuracy(self, params, emb: jax.Array, split: SplitIndex) -> jax.Array:
    pred = self.predict(params, emb, split)["pred"]
    valid = jnp.arange(split.correct.shape[0]) < split.size
    hits = jnp.sum((pred == split.correct) & valid)
    return hits / jnp.maximum(split.size, 1)
