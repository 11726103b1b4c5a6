"""Scores, max-margin (eq. 1 and maxM eq. 3), prediction and KL by hand."""

import jax.numpy as jnp
import numpy as np
import pytest

from blm_jax.models import losses


def test_max_margin_sum_is_eq1_by_hand():
  scores = jnp.array([[0.5, 0.2, 0.9, 7.0]])
  mask = jnp.array([[True, True, True, False]])  # the 7.0 is padding
  got = losses.max_margin(scores, jnp.array([0]), mask, "sum")
  # [1 - .5 + .2]^+ + [1 - .5 + .9]^+ = 0.7 + 1.4
  np.testing.assert_allclose(got, [2.1], rtol=1e-6)


def test_max_margin_mean_is_maxm_eq3_by_hand():
  scores = jnp.array([[0.5, 0.2, 0.9, 7.0], [3.0, 0.0, 0.0, 0.0]])
  mask = jnp.array([[True, True, True, False], [True, True, True, True]])
  got = losses.max_margin(scores, jnp.array([0, 0]), mask, "mean")
  # max(0, 1 - .5 + (.2 + .9) / 2) = 1.05 ; max(0, 1 - 3 + 0) = 0
  np.testing.assert_allclose(got, [1.05, 0.0], rtol=1e-6)


def test_scores_dot_and_cosine():
  pred = jnp.array([3.0, 4.0])
  cands = jnp.array([[3.0, 4.0], [-4.0, 3.0], [6.0, 8.0]])
  np.testing.assert_allclose(losses.score(pred, cands, "dot"), [25, 0, 50])
  np.testing.assert_allclose(losses.score(pred, cands, "cosine"), [1, 0, 1],
                             atol=1e-6)
  with pytest.raises(ValueError, match="unknown score 'l2'"):
    losses.score(pred, cands, "l2")


def test_normalized_score_divides_dots_by_their_norm_over_real_candidates():
  pred = jnp.array([3.0, 4.0])
  cands = jnp.array([[3.0, 4.0], [0.0, 0.0], [6.0, 8.0], [30.0, 40.0]])
  mask = jnp.array([True, True, True, False])  # the last is padding
  # dots 25, 0, 50 over the real ones; norm sqrt(25^2 + 50^2) = 55.9017
  np.testing.assert_allclose(losses.score(pred, cands, "normalized", mask),
                             [25 / 55.9017, 0, 50 / 55.9017, 0], rtol=1e-5)
  # it ranks like the dot product
  assert int(jnp.argmax(losses.score(pred, cands[:3], "normalized"))) == 2


def test_predict_never_picks_padding():
  scores = jnp.array([[0.1, 0.3, 9.0]])
  mask = jnp.array([[True, True, False]])
  assert int(losses.predict(scores, mask)[0]) == 1


def test_kl_zero_at_standard_normal_and_by_hand():
  np.testing.assert_allclose(
      losses.kl_to_standard_normal(jnp.zeros(5), jnp.zeros(5)), 0.0)
  # 0.5 * (e^1 + 4 - 1 - 1) for one dim with mean 2, logvar 1.
  np.testing.assert_allclose(
      losses.kl_to_standard_normal(jnp.array([2.0]), jnp.array([1.0])),
      0.5 * (np.e + 2.0), rtol=1e-6)
