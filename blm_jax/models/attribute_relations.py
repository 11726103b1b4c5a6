"""The attribute-relations reference model: a BLM solved from attributes.

It reads each sentence's attribute codes (`SentenceTable.attributes`, gold
or probed), never an embedding. For one candidate and one attribute, the
context positions and the candidate form a sequence of values; its
features are the equality relations between every two positions (both
present and equal) and which positions have the attribute at all. One MLP,
shared by every attribute, scores those features; a candidate's score is
the sum over attributes. Equalities, not values, so a rule learnt for one
value carries over to the other (the bias that solves rules never seen in
training): the ceiling of what a solver can get from perfect features.

Equalities cannot say which value no context position has comes next
(CoS/OD: forms 1,1,1,2,2,2,2 then 3, not 0): every unseen value looks the
same to them. So beside them, per attribute, a value head (its own small
MLP, `Settings.value_head`) reads the one-hot values of the context
positions and scores each value the candidate may have; it learns the
family's order of values from the data, no rule is coded in.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np


@dataclasses.dataclass(frozen=True)
class Settings:
  hidden: int = 64
  steps: int = 400
  learning_rate: float = 3e-3
  weight_decay: float = 1e-4
  # Per attribute, an MLP from the context's one-hot values to a score for
  # each value of the candidate's; False: equality relations only.
  value_head: bool = True


def num_features(num_context: int) -> int:
  n = num_context + 1
  return n * (n - 1) // 2 + n


def relation_features(context_codes: jax.Array, context_mask: jax.Array,
                      answer_codes: jax.Array) -> jax.Array:
  """[N, C, A] context codes (-1 absent), [N, C] mask, [N, K, A] candidate
  codes -> [N, K, A, F] float32 features (`num_features(C)`)."""
  ctx = jnp.where(context_mask[..., None], context_codes, -1)
  n, c, a = ctx.shape
  k = answer_codes.shape[1]
  seq = jnp.concatenate(
      [jnp.broadcast_to(ctx[:, None], (n, k, c, a)), answer_codes[:, :, None]],
      axis=2)  # [N, K, C+1, A]
  seq = jnp.moveaxis(seq, 2, 3)  # [N, K, A, C+1]
  present = seq >= 0
  i, j = np.triu_indices(c + 1, k=1)
  eq = (seq[..., i] == seq[..., j]) & present[..., i] & present[..., j]
  return jnp.concatenate([eq, present], axis=-1).astype(jnp.float32)


def init(key: jax.Array, num_context: int, hidden: int,
         value_shape: tuple[int, int] = (0, 0)) -> dict:
  """The shared relations MLP; with `value_shape` (attributes, values per
  attribute) > 0 also the value heads, one per attribute, under 'values'."""
  f = num_features(num_context)
  k1, k2, k3 = jax.random.split(key, 3)
  params = {"w1": jax.random.normal(k1, (f, hidden)) * (2.0 / f) ** 0.5,
            "b1": jnp.zeros((hidden,)),
            "w2": jax.random.normal(k2, (hidden,)) * (1.0 / hidden) ** 0.5}
  a, v = value_shape
  if a and v:
    params["values"] = init_values(k3, num_context, hidden, a, v)
  return params


def init_values(key: jax.Array, num_context: int, hidden: int,
                num_attributes: int, num_values: int) -> dict:
  """Per attribute: [C * (V + 1)] one-hot context values (slot 0: absent)
  -> `hidden` ReLU units -> a score per value."""
  width = num_context * (num_values + 1)
  k1, k2 = jax.random.split(key)
  return {"w1": jax.random.normal(k1, (num_attributes, width, hidden))
                * (2.0 / width) ** 0.5,
          "b1": jnp.zeros((num_attributes, hidden)),
          "w2": jax.random.normal(k2, (num_attributes, hidden, num_values))
                * (1.0 / hidden) ** 0.5}


def value_scores(values: dict, context_codes: jax.Array,
                 context_mask: jax.Array, answer_codes: jax.Array
                 ) -> jax.Array:
  """The value heads: [N, C, A] context codes (-1 absent), [N, C] mask,
  [N, K, A] candidate codes -> [N, K], each candidate's value score summed
  over the attributes it has (0 for an absent one)."""
  a, _, num_values = values["w2"].shape
  ctx = jnp.where(context_mask[..., None], context_codes, -1)
  n, c, _ = ctx.shape
  onehot = jax.nn.one_hot(ctx + 1, num_values + 1)  # [N, C, A, V+1]
  x = jnp.moveaxis(onehot, 2, 1).reshape(n, a, c * (num_values + 1))
  h = jax.nn.relu(jnp.einsum("naw,awh->nah", x, values["w1"])
                  + values["b1"])
  logits = jnp.einsum("nah,ahv->nav", h, values["w2"])  # [N, A, V]
  idx = jnp.clip(answer_codes, 0, num_values - 1)  # [N, K, A]
  picked = jnp.take_along_axis(
      jnp.broadcast_to(logits[:, None], idx.shape + (num_values,)),
      idx[..., None], axis=-1)[..., 0]  # [N, K, A]
  return jnp.where(answer_codes >= 0, picked, 0.0).sum(-1)


def scores(params: dict, features: jax.Array) -> jax.Array:
  """[N, K, A, F] -> [N, K]: the shared MLP per attribute, summed."""
  h = jax.nn.relu(features @ params["w1"] + params["b1"])
  return (h @ params["w2"]).sum(-1)


def compact(features) -> tuple[np.ndarray, np.ndarray]:
  """([U, F] float32 distinct feature rows, [N, K, A] int32 row of each
  candidate and attribute): the features are binary and repeat (a few
  hundred distinct rows among hundreds of thousands), so `compact_scores`
  runs the MLP on U rows instead of N * K * A, with the same scores."""
  f = np.asarray(features).astype(np.uint8)
  unique, inverse = np.unique(f.reshape(-1, f.shape[-1]), axis=0,
                              return_inverse=True)
  return (unique.astype(np.float32),
          inverse.reshape(f.shape[:-1]).astype(np.int32))


def compact_scores(params: dict, unique: jax.Array,
                   inverse: jax.Array) -> jax.Array:
  """`scores` from `compact`'s rows: [N, K]."""
  h = jax.nn.relu(unique @ params["w1"] + params["b1"])
  return (h @ params["w2"])[inverse].sum(-1)


def model_scores(params: dict, unique: jax.Array, inverse: jax.Array,
                 context_codes: jax.Array, context_mask: jax.Array,
                 answer_codes: jax.Array) -> jax.Array:
  """[N, K]: the relations' `compact_scores`, plus the value heads' when
  `params` has them."""
  s = compact_scores(params, unique, inverse)
  if "values" in params:
    s = s + value_scores(params["values"], context_codes, context_mask,
                         answer_codes)
  return s


def loss_of_scores(s: jax.Array, answer_mask: jax.Array,
                   correct: jax.Array) -> jax.Array:
  """Softmax cross-entropy over each instance's real candidates."""
  s = jnp.where(answer_mask, s, -1e9)
  logp = jax.nn.log_softmax(s, axis=-1)
  return -jnp.take_along_axis(logp, correct[:, None], axis=-1).mean()


def loss(params: dict, features: jax.Array, answer_mask: jax.Array,
         correct: jax.Array) -> jax.Array:
  return loss_of_scores(scores(params, features), answer_mask, correct)


def predict_of_scores(s: jax.Array, answer_mask: jax.Array) -> jax.Array:
  """The chosen candidate per instance (padding never chosen)."""
  return jnp.argmax(jnp.where(answer_mask, s, -jnp.inf), axis=-1)


def predict(params: dict, features: jax.Array,
            answer_mask: jax.Array) -> jax.Array:
  return predict_of_scores(scores(params, features), answer_mask)
