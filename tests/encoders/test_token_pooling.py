"""The `segmentsP` poolings (blm_jax/encoders/token_pooling.py)."""

import jax.numpy as jnp
import numpy as np
import pytest

from blm_jax.embedding import embed
from blm_jax.encoders import encoder as encoders
from blm_jax.encoders import token_pooling


def test_segments_by_hand_right_and_left_padding_agree():
  # 5 real tokens of width 1, values 0..4: runs of 2 (floor(r*2/5)): [0,1,2]
  # and [3,4]; of 3: [0,1], [2,3], [4]; of 4: [0,1], [2], [3], [4].
  h = jnp.arange(6, dtype=jnp.float32).reshape(1, 6, 1)
  right = jnp.array([[1, 1, 1, 1, 1, 0]])
  np.testing.assert_allclose(encoders.pool(h, right, "segments2"), [[1, 3.5]])
  np.testing.assert_allclose(encoders.pool(h, right, "segments3"),
                             [[0.5, 2.5, 4]])
  np.testing.assert_allclose(encoders.pool(h, right, "segments4"),
                             [[0.5, 2, 3, 4]])
  left_h = jnp.concatenate([jnp.full((1, 1, 1), 99.0), h[:, :5]], 1)
  left = jnp.array([[0, 1, 1, 1, 1, 1]])
  np.testing.assert_allclose(encoders.pool(left_h, left, "segments3"),
                             [[0.5, 2.5, 4]])


def test_segments_keep_the_width_and_order_and_empty_runs_are_zero():
  rng = np.random.default_rng(0)
  h = jnp.asarray(rng.normal(size=(2, 4, 3)), jnp.float32)
  mask = jnp.array([[1, 1, 1, 1], [1, 0, 0, 0]])
  out = encoders.pool(h, mask, "segments4")
  assert out.shape == (2, 12)
  np.testing.assert_allclose(out[0].reshape(4, 3), h[0], rtol=1e-6)
  # One real token: it is run 0; the other runs are empty.
  np.testing.assert_allclose(out[1, :3], h[1, 0], rtol=1e-6)
  np.testing.assert_allclose(out[1, 3:], 0.0)
  # The segments' token-weighted mean is the plain mean.
  two = encoders.pool(h, mask, "segments2").reshape(2, 2, 3)
  np.testing.assert_allclose(two[0].mean(0), encoders.pool(h, mask, "mean")[0],
                             rtol=1e-6)


def test_width_and_names():
  assert token_pooling.pooled_width("mean", 384) == 384
  assert token_pooling.pooled_width("segments3", 384) == 1152
  assert encoders.pooled_width("segments4", 10) == 40
  assert set(token_pooling.SEGMENT_POOLINGS) <= set(encoders.POOLINGS)
  with pytest.raises(ValueError, match="pooling='segments9' is not one of"):
    embed.EncoderSpec(pooling="segments9")


@pytest.mark.slow  # Loads MiniLM and compiles two poolings.
def test_minilm_segments_embed_wider_and_cache_apart(tmp_path):
  sentences = ["The girl sprayed paint onto the wall.", "Cats sleep."]
  segments = embed.EncoderSpec(pooling="segments3")
  mean = embed.embed_sentences(sentences, embed.EncoderSpec(), progress=False,
                               cache_dir=str(tmp_path))
  seg = embed.embed_sentences(sentences, segments, progress=False,
                              cache_dir=str(tmp_path))
  again = embed.embed_sentences(sentences, segments, progress=False,
                                cache_dir=str(tmp_path))
  assert mean.shape == (2, 384) and seg.shape == (2, 1152)
  np.testing.assert_array_equal(seg, again)
  assert not np.allclose(seg[:, :384], mean)
  assert len(list(tmp_path.iterdir())) == 2
