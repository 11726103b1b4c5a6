"""Context-free baselines of a grid run: the candidate MLP and the assembly.

A BLM result means something only if the context was needed. For every
(train type, test type) pair of a grid, five scorers that never see the
context are fitted on the train type's training instances and scored on
the test type's test instances:

  candidate_mlp  a one-hidden-layer MLP scoring each candidate's frozen
                 embedding alone, trained with the solver's max-margin loss
                 (full-batch Adam, seeded; every train type in one jitted,
                 vmapped fit): a cue in the embedding of the correct answer.
                 It is here, not with the others, because that loss is the
                 models layer's;
  word_logit,    the scorers of `blm_jax.data.context_free` (`scorers`):
  odd_one_in,    a cue in the words, the correct answer as the centre of
  set_logit,     its minimal variants, and each candidate's features
  set_trees      relative to its answer set (the strongest we have).

Each score is an accuracy (ties shared out evenly for the two word
and set baselines), the same quantity as the heatmap's F1 (`metrics.cell_metrics`:
one correct and one chosen answer per instance). The context gain of a pair
is the solver's mean F1 minus the best of the five.

The scores depend on the data and the MLP settings, not on the solver, so
they are computed once per dataset: `cached_scores` keeps them in a
content-keyed cache (`data.context_free.cache`, the folder given by
`config.results.context_free_cache`), and each grid adds the gain from
its own summary after the lookup (`context_free`: results.json's key).
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np
import optax

from blm_jax.base.background import Background
from blm_jax.data.context_free import cache as context_free_cache
from blm_jax.data.context_free import answers_only, scorers, set_scorer
from blm_jax.data.input_pipeline import BLMData
from blm_jax.data.lint import populations
from blm_jax.data.sentence_table import SentenceTable, build_sentence_table
from blm_jax.embedding import embed
from blm_jax.embedding.spec import DEFAULT_CACHE_DIR, EncoderSpec
from blm_jax.models import losses

BASELINES = ("candidate_mlp", "word_logit", "odd_one_in", "set_logit",
             "set_trees")


@dataclasses.dataclass(frozen=True)
class MLPSettings:
  """The candidate-only MLP; small on purpose: it has to find a cue, not
  to compete with the solver."""

  hidden: int = 64
  steps: int = 300
  learning_rate: float = 1e-2
  weight_decay: float = 1e-4
  seed: int = 0
  reduction: str = "sum"  # `losses.max_margin`, as config.loss


def _mlp_scores(params, x: jax.Array) -> jax.Array:
  """[..., A, D] candidate embeddings -> [..., A] scores, each alone."""
  x = (x - params["mean"]) / params["std"]
  h = jax.nn.relu(x @ params["w1"] + params["b1"])
  return h @ params["w2"]


def _fit_one(key, emb, answers, mask, correct, weight, settings):
  """One train type's MLP; `weight` is 0 for padded instances."""
  x = emb[answers]  # [N, A, D]
  m = (mask & (weight[:, None] > 0))[..., None]
  n = jnp.maximum(1.0, m.sum())
  mean = (x * m).sum((0, 1)) / n
  std = jnp.sqrt((((x - mean) ** 2) * m).sum((0, 1)) / n) + 1e-6
  d = emb.shape[-1]
  k1, k2 = jax.random.split(key)
  params = {
      "w1": jax.random.normal(k1, (d, settings.hidden)) / jnp.sqrt(d),
      "b1": jnp.zeros(settings.hidden),
      "w2": jax.random.normal(k2, (settings.hidden,)) / jnp.sqrt(
          settings.hidden)}
  fixed = {"mean": mean, "std": std}
  tx = optax.adamw(settings.learning_rate,
                   weight_decay=settings.weight_decay)

  def loss_fn(p):
    scores = _mlp_scores({**p, **fixed}, x)
    per = losses.max_margin(scores, correct, mask, settings.reduction)
    return jnp.sum(per * weight) / jnp.maximum(1.0, weight.sum())

  def step(carry, _):
    p, opt = carry
    g = jax.grad(loss_fn)(p)
    updates, opt = tx.update(g, opt, p)
    return (optax.apply_updates(p, updates), opt), None

  (params, _), _ = jax.lax.scan(step, (params, tx.init(params)), None,
                                length=settings.steps)
  return {**params, **fixed}


@functools.partial(jax.jit, static_argnames="settings")
def _fit(keys, emb, answers, mask, correct, weight, settings):
  """Every train type's MLP at once: arrays stacked on a leading axis."""
  return jax.vmap(_fit_one, in_axes=(0, None, 0, 0, 0, 0, None))(
      keys, emb, answers, mask, correct, weight, settings)


@jax.jit
def _correct_fraction(params, emb, answers, mask, correct):
  """Accuracy of every stacked MLP on one split."""
  def one(p):
    pred = losses.predict(_mlp_scores(p, emb[answers]), mask)
    return jnp.mean(pred == correct)
  return jax.vmap(one)(params)


def _pad(a: np.ndarray, n: int) -> np.ndarray:
  return np.concatenate([a, np.zeros((n - len(a),) + a.shape[1:], a.dtype)])


def candidate_mlp_accuracy(
    embeddings: np.ndarray, train: dict[str, SentenceTable],
    test: dict[str, SentenceTable],
    settings: MLPSettings = MLPSettings()) -> dict[str, dict[str, float]]:
  """{train type: {test type: accuracy}} of the candidate-only MLP.

  The train types are padded to one instance count and fitted in one
  jitted vmap, each with the same seed; a type fits as it would alone.
  """
  names = list(train)
  n = max(t.num_instances for t in train.values())
  stack = lambda f: np.stack([_pad(f(train[t]), n) for t in names])
  emb = jnp.asarray(embeddings, jnp.float32)
  keys = jnp.stack([jax.random.PRNGKey(settings.seed)] * len(names))
  params = _fit(keys, emb, stack(lambda t: t.answers),
                stack(lambda t: t.answer_mask), stack(lambda t: t.correct),
                stack(lambda t: np.ones(t.num_instances, np.float32)),
                settings)
  out = {t: {} for t in names}
  for u, table in test.items():
    acc = np.asarray(_correct_fraction(params, emb, table.answers,
                                       table.answer_mask, table.correct))
    for t, a in zip(names, acc):
      out[t][u] = float(a)
  return out


def baseline_scores(data: BLMData, train_types, test_types,
                    settings: MLPSettings = MLPSettings()) -> dict:
  """{train type: {test type: {baseline: accuracy}}}, computed."""
  sentences = data.table.sentences
  train = {t: data.train[t] for t in train_types}
  test = {u: data.test[u] for u in test_types}
  # The MLP (XLA, which lets go of the GIL while it computes) in a thread
  # beside the host's word, odd-one-in and set scorers.
  mlp = Background(lambda: candidate_mlp_accuracy(
      data.embeddings, train, test, settings),
                   what="the candidate-only MLP baseline")
  words = scorers.word_logit_accuracy(train, test, sentences)
  odd = {u: scorers.odd_one_in_accuracy(test[u], sentences) for u in test_types}
  sets = scorers.set_scorer_accuracy(train, test, sentences)
  mlp = mlp.result()
  return {t: {u: {"candidate_mlp": mlp[t][u], "word_logit": words[t][u],
                  "odd_one_in": odd[u],
                  **{s: sets[s][t][u] for s in set_scorer.SCORERS}}
              for u in test_types} for t in train_types}


def _warn(log: Callable[[str], None], message: str) -> None:
  logging.warning("%s", message)
  log(message)


def cache_entry(data: BLMData, train_types, test_types,
                settings: MLPSettings, cache_dir: str) -> tuple[dict, str]:
  """(key, file) of these scores in the cache folder `cache_dir`."""
  key = context_free_cache.cache_key(
      data.embeddings, data.table.sentences,
      {t: data.train[t] for t in train_types},
      {u: data.test[u] for u in test_types}, dataclasses.asdict(settings),
      f"{jax.default_backend()}:{jax.devices()[0].device_kind}")
  return key, context_free_cache.path_of(cache_dir, key)


def cached_scores(data: BLMData, train_types, test_types,
                  settings: MLPSettings = MLPSettings(), cache_dir: str = "",
                  log: Callable[[str], None] = logging.info,
                  read_from: list[str] | None = None) -> dict:
  """`baseline_scores`, read from the cache in folder `cache_dir` when
  it holds them ('' = no cache), else computed and stored there. `log`
  gets one line when they come from the cache (naming the file) and any
  warning about a cache file ignored or not written; `read_from` (a list)
  gets the file's path when the scores were read, not computed."""
  if not cache_dir:
    return baseline_scores(data, train_types, test_types, settings)
  key, path = cache_entry(data, train_types, test_types, settings, cache_dir)
  scores, _ = context_free_cache.load(path, key, train_types, test_types,
                                      BASELINES)
  if scores is None:
    with context_free_cache.computing(path, log):
      # Read again under the lock: another grid of this data may have
      # stored the scores while this one waited for it.
      scores, problem = context_free_cache.load(path, key, train_types,
                                                test_types, BASELINES)
      if scores is None:
        if problem:
          _warn(log, f"context-free score cache file {path} ignored: "
                f"{problem}; computing the scores again and rewriting it")
        scores = baseline_scores(data, train_types, test_types, settings)
        problem = context_free_cache.store(path, key, scores)
        if problem:
          _warn(log, f"context-free scores not cached in {cache_dir}: "
                f"{problem}")
        return scores
  log(f"context-free baselines read from the cache: {path}")
  if read_from is not None:
    read_from.append(path)
  return scores


def with_gain(scores: dict, summary: dict) -> dict:
  """Each (train, test) pair's scores plus the best of them (`best`,
  `best_baseline`) and the context gain (the solver's mean F1 in
  `summary` minus `best`)."""
  out = {}
  for t, row in scores.items():
    out[t] = {}
    for u, cell in row.items():
      best = max(BASELINES, key=cell.get)
      out[t][u] = {**cell, "best": cell[best], "best_baseline": best,
                   "context_gain": summary[t][u]["f1_mean"] - cell[best]}
  return out


def context_free(data: BLMData, summary: dict, train_types, test_types,
                 settings: MLPSettings = MLPSettings(), cache_dir: str = "",
                 log: Callable[[str], None] = logging.info,
                 read_from: list[str] | None = None) -> dict:
  """results.json's `context_free`: per (train, test) pair each baseline's
  accuracy (`cached_scores`, which adds the cache file to `read_from` when
  it read them), the best of them and the context gain (`with_gain`, from
  this call's `summary`: never cached)."""
  return with_gain(cached_scores(data, train_types, test_types, settings,
                                 cache_dir, log, read_from), summary)


def cross_fitted_mlp_accuracy(embeddings: np.ndarray, table: SentenceTable,
                              folds: np.ndarray,
                              settings: MLPSettings = MLPSettings()) -> float:
  """The candidate-only MLP's accuracy on one population without a split
  of its own (`lint --probe`): fitted on each fold, scored on the other,
  both fits at once (the padded, vmapped fit agrees with a fit alone to
  float rounding, not bit for bit: batched sums run in another order);
  `folds` is 0/1 per instance (`answers_only.group_folds`)."""
  rows = [np.flatnonzero(folds == k) for k in (0, 1)]
  if min(map(len, rows)) == 0:
    raise ValueError("the embedding probe needs instances in both folds")
  # Both folds' fits in one jitted vmap (`candidate_mlp_accuracy`), fit k
  # on the other fold, scored on fold k.
  acc = candidate_mlp_accuracy(
      embeddings, {k: table.select(rows[1 - k]) for k in (0, 1)},
      {k: table.select(rows[k]) for k in (0, 1)}, settings)
  return sum(acc[k][k] * len(rows[k]) for k in (0, 1)) / len(folds)


def embedding_probe_scores(instances, encoder: str, cache_dir: str | None
                           ) -> dict[str, tuple[int, float]]:
  """{population: (n, embedding-probe accuracy)} (`lint --probe`): the
  candidate-only MLP on each candidate's frozen embedding under `encoder`
  (name, alias or folder), cross-fitted over `answers_only.instance_folds`
  (grouped by answer set and correct answer); only the candidates are
  embedded, and a population under `answers_only.MIN_INSTANCES` is left
  out."""
  out = {}
  for key, members in populations(instances).items():
    if len(members) < answers_only.MIN_INSTANCES:
      continue
    table = build_sentence_table(members)
    used = np.unique(table.answers[table.answer_mask])
    vectors = embed.embed_sentences(
        [table.sentences[i] for i in used], EncoderSpec(encoder),
        cache_dir=cache_dir or DEFAULT_CACHE_DIR, progress=False)
    emb = np.zeros((len(table.sentences), vectors.shape[1]), np.float32)
    emb[used] = vectors
    folds = answers_only.instance_folds(members)
    out[key] = (len(members), cross_fitted_mlp_accuracy(emb, table, folds))
  return out
