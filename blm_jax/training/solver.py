"""One solver cell: init, loss, train step, epoch and evaluation.

Everything here is a pure function of (state, data, rng) for ONE model with no
grid axis; `blm_jax.training.grid` vmaps these over the seed x train-type grid, so a
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

from blm_jax.data.sentence_table import SentenceTable
from blm_jax.models import losses


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
  # [N, C] int32 per-instance context permutations; only grids with a
  # shuffled-context control set it (`variants.py`).
  context_perm: Any = None
  # [N, C, M] and [N, A, M] int32: each sentence's M attributes (-1 absent
  # or padded); only for a solver that reads them (`Solver.reads_attributes`).
  context_attributes: Any = None
  answer_attributes: Any = None

  @classmethod
  def from_table(cls, table: SentenceTable, rows: int | None = None,
                 attributes: bool = False):
    """Host arrays of `table`, padded to `rows` rows; with `attributes`,
    each position's row of the table's `attributes` [sentences, M]."""
    n = table.num_instances
    rows = n if rows is None else rows
    pad = lambda a, v=0: np.concatenate(
        [a, np.full((rows - n, *a.shape[1:]), v, a.dtype)]) if rows > n else a
    extra = {}
    if attributes:
      per_sentence = np.asarray(table.attributes, np.int32)
      of = lambda idx, mask: pad(
          np.where(mask[..., None], per_sentence[idx], -1).astype(np.int32),
          -1)
      extra = dict(context_attributes=of(table.context, table.context_mask),
                   answer_attributes=of(table.answers, table.answer_mask))
    return cls(
        context=pad(table.context), context_mask=pad(table.context_mask),
        answers=pad(table.answers), answer_mask=pad(table.answer_mask),
        correct=pad(table.correct), labels=pad(table.labels, -1),
        size=np.int32(n), **extra)


@flax.struct.dataclass
class Batch:
  ctx: jax.Array  # [B, C, D]
  ctx_mask: jax.Array  # [B, C]
  ans: jax.Array  # [B, A, D]
  ans_mask: jax.Array  # [B, A]
  correct: jax.Array  # [B]
  ctx_attributes: Any = None  # [B, C, M] where the split carries them
  ans_attributes: Any = None  # [B, A, M]


def gather(emb: jax.Array, split: SplitIndex, rows: jax.Array) -> Batch:
  extra = {}
  if split.context_attributes is not None:
    extra = dict(ctx_attributes=split.context_attributes[rows],
                 ans_attributes=split.answer_attributes[rows])
  return Batch(ctx=emb[split.context[rows]],
               ctx_mask=split.context_mask[rows],
               ans=emb[split.answers[rows]],
               ans_mask=split.answer_mask[rows],
               correct=split.correct[rows], **extra)


@flax.struct.dataclass
class CellState:
  params: Any
  opt_state: Any
  best_params: Any
  best_dev_accuracy: jax.Array  # [] float32 of the kept epoch (-1 before any)
  best_dev_loss: jax.Array  # [] float32 of the kept epoch (inf before any)
  best_epoch: jax.Array  # [] int32


# How the parameters that are evaluated are chosen among the epochs:
# 'accuracy': highest dev accuracy, ties to the lower dev loss, then to the
#   later epoch (a saturated dev set no longer freezes the first perfect one);
# 'loss': lowest dev loss (the authors' code), ties to the later epoch;
# 'last': the last epoch.
SELECT_BY = ("accuracy", "loss", "last")


@dataclasses.dataclass(frozen=True)
class Solver:
  """A model plus its objective and optimizer; all methods are pure.

  Attributes:
    model: a solver module from `blm_jax.models`.
    tx: the optax optimizer.
    score: 'dot' (000), 'cosine' (001, 003, 004) or 'normalized' (the
      authors' sentence VAE), used to train (`losses.SCORES`).
    predict_score: the score that picks the answer; '' = `score` (the
      authors' code trains with the dot product and predicts with cosine).
    answer_reduction: the answer hinge over wrong candidates
      (`losses.MARGIN_REDUCTIONS`).
    loss_weights: ((term name, weight), ...) for 'answer_margin' and every
      term the model returns (its spec's `loss_terms`).
    batch_size: instances per step.
    steps_per_epoch: steps per epoch (static).
    select_by: which epoch's parameters are evaluated (`SELECT_BY`).
    eval_chunk: instances per evaluation chunk; evaluation memory follows
      this, not the split size (the grid pads splits to a multiple of it).
  """

  model: Any
  tx: optax.GradientTransformation
  score: str = "cosine"
  predict_score: str = ""
  answer_reduction: str = "sum"
  loss_weights: tuple[tuple[str, float], ...] = (("answer_margin", 1.0),)
  batch_size: int = 100
  steps_per_epoch: int = 1
  select_by: str = "accuracy"
  eval_chunk: int = 256

  @property
  def scores_candidates(self) -> bool:
    """The model scores the candidates itself (relnet): it is called with
    them and returns `SolverOutput.scores`; `score` does not apply."""
    return bool(getattr(self.model, "scores_candidates", False))

  @property
  def reads_attributes(self) -> bool:
    """The model takes each sentence's attributes as targets (the
    attribute-bottleneck solver's `loss.aux_attribute`): the grid's splits
    then carry them and every batch hands them to the model."""
    return bool(getattr(self.model, "reads_attributes", False))

  def _candidates(self, batch: Batch) -> tuple:
    """The model's arguments after `train`: the candidates (and their
    attributes, where the batch has them) for a solver that scores them."""
    if not self.scores_candidates:
      return ()
    if batch.ctx_attributes is None:
      return (batch.ans, batch.ans_mask)
    return (batch.ans, batch.ans_mask, batch.ctx_attributes,
            batch.ans_attributes)

  def init(self, key: jax.Array, example: Batch) -> CellState:
    params_key, sample_key = jax.random.split(jax.random.fold_in(key, 0))
    params = self.model.init({"params": params_key, "sample": sample_key},
                             example.ctx, example.ctx_mask, False,
                             *self._candidates(example))
    return CellState(params=params, opt_state=self.tx.init(params),
                     best_params=params, best_dev_accuracy=jnp.float32(-1.0),
                     best_dev_loss=jnp.float32(jnp.inf),
                     best_epoch=jnp.int32(-1))

  def objective(self, params, batch: Batch, train: bool,
                rng: jax.Array | None = None):
    """Weighted total [B], named unweighted terms {name: [B]}, model output."""
    rngs = {"sample": rng} if train else None
    if self.scores_candidates:
      out = self.model.apply(params, batch.ctx, batch.ctx_mask, train,
                             *self._candidates(batch), rngs=rngs)
      scores = out.scores
    else:
      out = self.model.apply(params, batch.ctx, batch.ctx_mask, train,
                             rngs=rngs)
      scores = losses.score(out.pred, batch.ans, self.score, batch.ans_mask)
    terms = {"answer_margin": losses.max_margin(
        scores, batch.correct, batch.ans_mask, self.answer_reduction),
             **out.terms}
    weights = dict(self.loss_weights)
    missing = sorted(set(terms) - set(weights))
    if missing:
      raise ValueError(f"the model returns loss terms {missing} that "
                       f"config.loss does not weight")
    total = sum(weights[k] * v for k, v in terms.items())
    return total, terms, out, scores

  def loss(self, params, batch: Batch, rng: jax.Array):
    """Mean weighted loss and the batch means of every named term."""
    total, terms, _, _ = self.objective(params, batch, True, rng)
    loss = jnp.mean(total)
    return loss, {"loss": loss, **{k: jnp.mean(v) for k, v in terms.items()}}

  def train_step(self, state: CellState, batch: Batch, rng: jax.Array):
    grads, measurements = jax.grad(self.loss, has_aux=True)(
        state.params, batch, rng)
    updates, opt_state = self.tx.update(grads, state.opt_state, state.params)
    params = optax.apply_updates(state.params, updates)
    return state.replace(params=params, opt_state=opt_state), measurements

  def train_epoch(self, state: CellState, key: jax.Array, epoch: jax.Array,
                  emb: jax.Array, train: SplitIndex, dev: SplitIndex):
    """One epoch over this cell's shuffled training set, then a dev check.

    Returns the new state and measurements: {'train': {name: [steps]}
    (the total 'loss' and every named term per step), 'dev_accuracy',
    'dev_loss'}.
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

    state, step_measurements = jax.lax.scan(body, state,
                                            jnp.arange(self.steps_per_epoch))
    dev_out = self.evaluate(state.params, emb, dev)
    dev_acc, dev_loss = split_accuracy(dev_out, dev), split_loss(dev_out, dev)
    state = self.select(state, epoch, dev_acc, dev_loss)
    return state, {"train": step_measurements, "dev_accuracy": dev_acc,
                   "dev_loss": dev_loss}

  def select(self, state: CellState, epoch, dev_acc, dev_loss) -> CellState:
    """Keeps this epoch's parameters if they beat the kept ones (SELECT_BY)."""
    if self.select_by == "accuracy":
      better = (dev_acc > state.best_dev_accuracy) | (
          (dev_acc == state.best_dev_accuracy)
          & (dev_loss <= state.best_dev_loss))
    elif self.select_by == "loss":
      better = dev_loss <= state.best_dev_loss
    elif self.select_by == "last":
      better = jnp.bool_(True)
    else:
      raise ValueError(f"config.train.select_by={self.select_by!r}; "
                       f"expected one of {SELECT_BY}")
    pick = lambda new, old: jax.tree.map(
        lambda a, b: jnp.where(better, a, b), new, old)
    return state.replace(
        best_params=pick(state.params, state.best_params),
        best_dev_accuracy=jnp.where(better, dev_acc, state.best_dev_accuracy),
        best_dev_loss=jnp.where(better, dev_loss, state.best_dev_loss),
        best_epoch=jnp.where(better, epoch, state.best_epoch).astype(
            jnp.int32))

  def evaluate(self, params, emb: jax.Array, split: SplitIndex) -> dict:
    """Deterministic evaluation of a split, `eval_chunk` rows at a time.

    Returns per row: 'scores' [N, A] (the predict score, -inf on padding),
    'pred' [N], 'latent' [N, L] and 'loss' [N] (the weighted training
    objective with latent means instead of samples). The split's row count
    must be a multiple of the chunk (the grid pads it).
    """
    n_rows = split.correct.shape[0]
    chunk = min(self.eval_chunk, n_rows)
    if n_rows % chunk:
      raise ValueError(f"a split of {n_rows} rows is not a multiple of the "
                       f"evaluation chunk {chunk}; pad it (eval_rows)")

    def one(start):
      batch = gather(emb, split, start + jnp.arange(chunk))
      total, _, out, scores = self.objective(params, batch, False)
      if (self.predict_score and self.predict_score != self.score
          and not self.scores_candidates):
        scores = losses.score(out.pred, batch.ans, self.predict_score,
                              batch.ans_mask)
      scores = jnp.where(batch.ans_mask, scores, -jnp.inf)
      return {"scores": scores, "pred": losses.predict(scores, batch.ans_mask),
              "latent": out.latent, "loss": total}

    out = jax.lax.map(one, jnp.arange(n_rows // chunk) * chunk)
    return jax.tree.map(lambda x: x.reshape(n_rows, *x.shape[2:]), out)

  def predict(self, params, emb: jax.Array, split: SplitIndex) -> dict:
    """Scores [N, A], predictions [N] and latents [N, L] (deterministic)."""
    out = self.evaluate(params, emb, split)
    return {k: out[k] for k in ("scores", "pred", "latent")}

  def choose(self, pred: jax.Array, ans: jax.Array,
             ans_mask: jax.Array) -> jax.Array:
    """The candidate a predicted embedding [B, D] picks among `ans`
    [B, A, D], scored as `evaluate` scores (the predict score, padded
    candidates masked); probing's latent traversal decodes through it."""
    scores = losses.score(pred, ans, self.predict_score or self.score,
                          ans_mask)
    return losses.predict(jnp.where(ans_mask, scores, -jnp.inf), ans_mask)


def eval_rows(n: int, chunk: int) -> int:
  """Rows a split of n instances is padded to for chunked evaluation."""
  chunk = max(1, min(chunk, n))
  return -(-n // chunk) * chunk


def split_accuracy(out: dict, split: SplitIndex) -> jax.Array:
  valid = jnp.arange(split.correct.shape[0]) < split.size
  hits = jnp.sum((out["pred"] == split.correct) & valid)
  return hits / jnp.maximum(split.size, 1)


def split_loss(out: dict, split: SplitIndex) -> jax.Array:
  valid = jnp.arange(split.correct.shape[0]) < split.size
  return jnp.sum(jnp.where(valid, out["loss"], 0.0)) / jnp.maximum(
      split.size, 1)
