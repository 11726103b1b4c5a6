"""The reference model's compact form: the MLP on the distinct feature rows
gives the scores, the loss gradient and the choices of the full form."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from blm_jax.models import attribute_relations as ar


@pytest.mark.slow
def test_compact_scores_are_the_full_scores():
  rng = np.random.default_rng(0)
  ctx = jnp.asarray(rng.integers(-1, 3, size=(30, 4, 3)))
  ans = jnp.asarray(rng.integers(0, 3, size=(30, 5, 3)))
  mask = jnp.asarray(rng.random((30, 4)) > 0.1)
  features = ar.relation_features(ctx, mask, ans)
  unique, inverse = ar.compact(features)
  assert inverse.shape == (30, 5, 3)
  assert len(unique) < 30 * 5 * 3  # rows repeat
  np.testing.assert_array_equal(unique[inverse], np.asarray(features))
  params = ar.init(jax.random.key(0), 4, 8)
  np.testing.assert_allclose(ar.compact_scores(params, unique, inverse),
                             ar.scores(params, features), rtol=1e-5,
                             atol=1e-5)
  answer_mask = jnp.ones((30, 5), bool)
  correct = jnp.asarray(rng.integers(0, 5, size=30))
  full = jax.grad(ar.loss)(params, features, answer_mask, correct)
  small = jax.grad(lambda p: ar.loss_of_scores(
      ar.compact_scores(p, unique, inverse), answer_mask, correct))(params)
  for k in full:
    np.testing.assert_allclose(small[k], full[k], rtol=1e-4, atol=1e-6)
  np.testing.assert_array_equal(
      ar.predict_of_scores(ar.compact_scores(params, unique, inverse),
                           answer_mask),
      ar.predict(params, features, answer_mask))


def test_value_scores_pick_each_candidates_value():
  # One attribute, 3 values, 2 context positions; the head's output layer
  # is set so that value v scores v + 1 whatever the context.
  values = ar.init_values(jax.random.key(0), 2, 4, 1, 3)
  values["w2"] = jnp.zeros_like(values["w2"])
  values["b1"] = jnp.ones_like(values["b1"])
  values["w1"] = jnp.zeros_like(values["w1"])
  values["w2"] = values["w2"].at[0, 0].set(jnp.array([1.0, 2.0, 3.0]))
  ctx = jnp.array([[[0], [1]]])
  ans = jnp.array([[[2], [0], [-1]]])  # the last candidate lacks it
  got = ar.value_scores(values, ctx, jnp.array([[True, True]]), ans)
  np.testing.assert_allclose(got, [[3.0, 1.0, 0.0]])


def test_init_without_value_shape_has_no_value_heads():
  assert "values" not in ar.init(jax.random.key(0), 4, 8)
  params = ar.init(jax.random.key(0), 4, 8, (3, 5))
  assert params["values"]["w1"].shape == (3, 4 * 6, 8)
  assert params["values"]["w2"].shape == (3, 8, 5)
