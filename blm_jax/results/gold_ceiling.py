"""The gold-attribute ceiling: what a solver gets from perfect features.

A solver at chance says nothing by itself: the design may be unlearnable,
the encoder may lose the features, or the solver may not use them. On data
whose sentences carry attributes (`SentenceTable.attributes`), this rung
trains the attribute-relations reference model
(`models.attribute_relations`) on the gold attribute codes, with the
grid's own training samples and seeds, and scores it on every test type.
Beside it stands the grid's own solver on one-hot attributes when the run
has the `gold_attributes` control (`training/variants.py`). A solver near
chance under a high ceiling is a finding about the encoder or the solver,
not the design.

Each (seed, train type) fit is full-batch Adam for a fixed number of steps
(`attribute_relations.Settings`), seeded by the grid seed; the score is the
accuracy, the heatmap's F1 (one chosen and one correct answer).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Sequence

import jax
import jax.numpy as jnp
import numpy as np
import optax

from blm_jax.data.input_pipeline import BLMData
from blm_jax.data.sentence_table import SentenceTable
from blm_jax.models import attribute_relations as ar

CONTROL = "gold_attributes"


def codes(table: SentenceTable, sentence_codes: np.ndarray | None = None
          ) -> tuple[np.ndarray, np.ndarray]:
  """([N, C, A] context codes, [N, K, A] candidate codes) of a table, from
  its gold attributes or from `sentence_codes` ([S, A], e.g. probed)."""
  per_sentence = (table.attributes if sentence_codes is None
                  else np.asarray(sentence_codes, np.int32))
  ctx = np.where(table.context_mask[..., None], per_sentence[table.context],
                 -1)
  ans = np.where(table.answer_mask[..., None], per_sentence[table.answers],
                 -1)
  return ctx, ans


def _features(table: SentenceTable, sentence_codes=None) -> tuple:
  """What the model reads: `ar.compact` of the table's relation features
  (rows, index), then the context codes, context mask and candidate codes
  (for the value heads)."""
  ctx, ans = codes(table, sentence_codes)
  mask = jnp.asarray(table.context_mask)
  unique, inverse = ar.compact(ar.relation_features(
      jnp.asarray(ctx), mask, jnp.asarray(ans)))
  return (jnp.asarray(unique), jnp.asarray(inverse), jnp.asarray(ctx), mask,
          jnp.asarray(ans))


def _value_shape(table: SentenceTable, settings: ar.Settings
                 ) -> tuple[int, int]:
  """(attributes, values of the widest) for the value heads; (0, 0) off."""
  if not settings.value_head or not table.attribute_sizes:
    return (0, 0)
  return (len(table.attribute_sizes), max(table.attribute_sizes))


@functools.partial(jax.jit, static_argnames=("settings", "num_context",
                                             "value_shape"))
def _fit(key, features, answer_mask, correct, settings: ar.Settings,
         num_context: int, value_shape: tuple[int, int]):
  params = ar.init(key, num_context, settings.hidden, value_shape)
  tx = optax.adamw(settings.learning_rate,
                   weight_decay=settings.weight_decay)
  grad = jax.grad(lambda p: ar.loss_of_scores(
      ar.model_scores(p, *features), answer_mask, correct))

  def step(carry, _):
    p, s = carry
    updates, s = tx.update(grad(p), s, p)
    return (optax.apply_updates(p, updates), s), None

  (params, _), _ = jax.lax.scan(step, (params, tx.init(params)), None,
                                length=settings.steps)
  return params


def fit(train: SentenceTable, seed: int,
        settings: ar.Settings = ar.Settings()) -> dict:
  """The reference model trained on `train`'s gold attributes."""
  return _fit(jax.random.key(seed), _features(train),
              jnp.asarray(train.answer_mask), jnp.asarray(train.correct),
              settings, int(train.context.shape[1]),
              _value_shape(train, settings))


def accuracy(params: dict, table: SentenceTable,
             sentence_codes: np.ndarray | None = None) -> float:
  """The share of `table`'s instances answered right, reading the gold
  attributes or `sentence_codes`."""
  pred = ar.predict_of_scores(
      ar.model_scores(params, *_features(table, sentence_codes)),
      jnp.asarray(table.answer_mask))
  return float(np.mean(np.asarray(pred) == table.correct))


def missing_line(table: SentenceTable) -> str:
  """One line saying which rungs cannot be computed without attributes."""
  return (f"gold-attribute ceiling and encoder probes skipped: "
          f"{table.attributes_missing}; the other results are computed")


def gold_ceiling(data: BLMData, seeds: Sequence[int],
                 train_types: Sequence[str], test_types: Sequence[str],
                 settings: ar.Settings = ar.Settings(),
                 solver_summary: dict | None = None) -> dict:
  """results.json's `gold_ceiling`: {'attributes': names, 'settings': ...,
  'reference': {train: {test: {f1_mean, f1_std, per_seed}}}, and with
  `solver_summary` (the gold_attributes control's summary) 'solver':
  {train: {test: {f1_mean, f1_std}}}}."""
  if not data.table.attribute_names:
    raise ValueError(missing_line(data.table))
  reference: dict = {}
  for t in train_types:
    scores = {u: [] for u in test_types}
    for s in seeds:
      params = fit(data.train_of(int(s), t), int(s), settings)
      for u in test_types:
        scores[u].append(accuracy(params, data.test[u]))
    reference[t] = {u: {"f1_mean": float(np.mean(v)),
                        "f1_std": float(np.std(v, ddof=1)) if len(v) > 1
                        else 0.0,
                        "per_seed": v} for u, v in scores.items()}
  out = {"attributes": list(data.table.attribute_names),
         "settings": dataclasses.asdict(settings), "reference": reference}
  if solver_summary is not None:
    out["solver"] = {t: {u: {"f1_mean": float(c["f1_mean"]),
                             "f1_std": float(c["f1_std"])}
                         for u, c in row.items()}
                     for t, row in solver_summary.items()}
  return out


def lines(ceiling: dict) -> list[str]:
  """'gold ceiling train T: test U reference 1.000±0.000 solver 0.975'
  per train type; the skipped line when there was none."""
  if "skipped" in ceiling:
    return [ceiling["skipped"]]
  out = []
  for t, row in ceiling.get("reference", {}).items():
    parts = []
    for u, c in row.items():
      part = f"test {u} reference {c['f1_mean']:.3f}±{c['f1_std']:.3f}"
      solver = ceiling.get("solver", {}).get(t, {}).get(u)
      if solver is not None:
        part += f" solver {solver['f1_mean']:.3f}±{solver['f1_std']:.3f}"
      parts.append(part)
    out.append(f"gold ceiling train {t}: " + "  ".join(parts))
  return out
