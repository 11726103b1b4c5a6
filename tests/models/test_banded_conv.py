"""banded_conv (the CNN's convolutions) against XLA's convolution and nn.Conv."""

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from blm_jax.models import banded_conv
from blm_jax.models.cnn import CNN

_DN = ("NHWC", "HWIO", "NHWC")


@pytest.mark.parametrize("h,w,kh,kw,ci,co", [(7, 20, 3, 3, 1, 8),
                                             (5, 11, 3, 3, 8, 8),
                                             (3, 9, 3, 3, 8, 2),
                                             (6, 6, 2, 4, 3, 5)])
def test_conv_valid_is_lax_conv(h, w, kh, kw, ci, co):
  kx, kk = jax.random.split(jax.random.key(0))
  x = jax.random.normal(kx, (4, h, w, ci))  # NHWC
  kernel = jax.random.normal(kk, (kh, kw, ci, co))
  # Compiled whole, as training runs it (op by op, each op compiles).
  want = jax.jit(lambda x, k: lax.conv_general_dilated(
      x, k, (1, 1), "VALID", dimension_numbers=_DN))(x, kernel)
  got = jax.jit(lambda x, k: banded_conv.conv_valid(
      x.swapaxes(1, 2), k).swapaxes(1, 2))(x, kernel)
  assert got.shape == (4, h - kh + 1, w - kw + 1, co)
  np.testing.assert_allclose(got, want, atol=1e-5, rtol=1e-5)


def test_conv_valid_gradients_under_vmap_match_lax_conv():
  keys = jax.random.split(jax.random.key(1), 3)
  x = jax.random.normal(keys[0], (3, 2, 7, 12, 4))  # 3 cells
  kernels = jax.random.normal(keys[1], (3, 3, 3, 4, 5))

  def loss(conv):
    return lambda k, x: jnp.sum(jnp.tanh(conv(x, k)))

  lax_conv = lambda x, k: lax.conv_general_dilated(
      x, k, (1, 1), "VALID", dimension_numbers=_DN)
  band_conv = lambda x, k: banded_conv.conv_valid(
      x.swapaxes(1, 2), k).swapaxes(1, 2)
  for argnum in (0, 1):
    want = jax.jit(jax.vmap(jax.grad(loss(lax_conv), argnum)))(kernels, x)
    got = jax.jit(jax.vmap(jax.grad(loss(band_conv), argnum)))(kernels, x)
    np.testing.assert_allclose(got, want, atol=1e-4, rtol=1e-4)


def test_band_weight_places_kernel_rows():
  kernel = jnp.arange(1, 1 + 2 * 3).reshape(2, 3, 1, 1).astype(jnp.float32)
  band = banded_conv.band_weight(kernel, 4)  # 4 rows -> 3 output rows
  assert band.shape == (3 * 4, 3)
  b = np.asarray(band).reshape(3, 4, 3)  # [kw, row in, row out]
  for j in range(3):
    for r in range(4):
      for o in range(3):
        want = kernel[r - o, j, 0, 0] if 0 <= r - o < 2 else 0
        assert b[j, r, o] == want


@pytest.mark.parametrize("shape,kernel,msg", [
    ((2, 9, 2, 1), (3, 3, 1, 4), "a 3x3 kernel does not fit an image of 2 "
     "rows x 9 columns"),
    ((2, 9, 5, 2), (3, 3, 1, 4), r"kernel \(3, 3, 1, 4\) expects 1 input "
     "channels, the image has 2")])
def test_conv_valid_rejects_what_does_not_fit(shape, kernel, msg):
  with pytest.raises(ValueError, match=msg):
    banded_conv.conv_valid(jnp.ones(shape), jnp.ones(kernel))


class _NHWCConvCNN(nn.Module):
  """The CNN as first written, with flax's nn.Conv (the reference)."""

  embed_dim: int
  channels: tuple

  @nn.compact
  def __call__(self, ctx, ctx_mask, train=False):
    x = (ctx * ctx_mask[..., None])[..., None]
    for i, ch in enumerate(self.channels):
      x = nn.relu(nn.Conv(ch, (3, 3), strides=1, padding="VALID",
                          name=f"conv{i + 1}")(x))
    x = x.reshape(x.shape[0], -1)
    return nn.Dense(self.embed_dim, name="out")(x), x


@pytest.mark.parametrize("channels,n_ctx", [((8, 8, 8), 7), ((4, 6), 7),
                                            ((3,), 8)])
def test_cnn_has_the_nn_conv_models_parameters_and_outputs(channels, n_ctx):
  kx, kp = jax.random.split(jax.random.key(2))
  ctx = jax.random.normal(kx, (5, n_ctx, 20))
  mask = jnp.arange(n_ctx)[None] < jnp.array([n_ctx, n_ctx - 1, 3, n_ctx,
                                              n_ctx])[:, None]
  ref = _NHWCConvCNN(20, channels)
  ours = CNN(20, channels)
  ref_params = jax.jit(ref.init)(kp, ctx, mask)
  our_params = jax.jit(ours.init)(kp, ctx, mask)
  # Same names, shapes and initial values: old checkpoints still load.
  jax.tree.map(np.testing.assert_array_equal, our_params, ref_params)
  want_pred, want_latent = jax.jit(ref.apply)(ref_params, ctx, mask)
  out = jax.jit(ours.apply)(ref_params, ctx, mask)
  np.testing.assert_allclose(out.pred, want_pred, atol=1e-5, rtol=1e-5)
  np.testing.assert_allclose(out.latent, want_latent, atol=1e-5, rtol=1e-5)


def test_cnn_names_the_config_when_the_context_is_too_short():
  with pytest.raises(ValueError, match=r"config.model.channels=\(8, 8, 8\)\) "
                     r"need at least 7 context sentences; the data has 5"):
    CNN(16).init(jax.random.key(0), jnp.ones((2, 5, 16)),
                 jnp.ones((2, 5), bool))
