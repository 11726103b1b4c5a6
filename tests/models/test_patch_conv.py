"""patch_conv's banded-matmul convolutions against XLA's own convolutions."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from blm_jax import models
from blm_jax.models import patch_conv

_DN = ("NHWC", "HWIO", "NHWC")


def _data(grid_shape, k, c, lead=(3, 2)):
  h, w = grid_shape
  oh, ow = h - k + 1, w - k + 1
  keys = jax.random.split(jax.random.key(0), 4)
  x = jax.random.normal(keys[0], (*lead, h * w))
  y = jax.random.normal(keys[1], (*lead, oh * ow, c))
  k_fwd = jax.random.normal(keys[2], (k * k, c))
  k_tr = jax.random.normal(keys[3], (c, k * k))
  return x, y, k_fwd, k_tr


@pytest.mark.parametrize("grid_shape,k,c", [((32, 24), 15, 3),
                                            ((24, 16), 15, 2),
                                            ((7, 5), 3, 4), ((6, 6), 6, 1)])
def test_conv_valid_is_lax_conv(grid_shape, k, c):
  h, w = grid_shape
  x, _, k_fwd, _ = _data(grid_shape, k, c)
  got = patch_conv.conv_valid(x, k_fwd, grid_shape)
  want = lax.conv_general_dilated(
      x.reshape(-1, h, w, 1), k_fwd.reshape(k, k, 1, c), (1, 1), "VALID",
      dimension_numbers=_DN)
  np.testing.assert_allclose(got, want.reshape(got.shape), atol=1e-5,
                             rtol=1e-5)


@pytest.mark.parametrize("grid_shape,k,c", [((32, 24), 15, 3),
                                            ((24, 16), 15, 2),
                                            ((7, 5), 3, 4), ((6, 6), 6, 1)])
def test_conv_transpose_valid_is_lax_conv_transpose(grid_shape, k, c):
  h, w = grid_shape
  oh, ow = h - k + 1, w - k + 1
  _, y, _, k_tr = _data(grid_shape, k, c)
  got = patch_conv.conv_transpose_valid(y, k_tr, grid_shape)
  # The forward kernel (I=1, O=C) transposed: flipped and I/O swapped.
  fwd_kernel = k_tr.T.reshape(k, k, 1, c)
  want = lax.conv_transpose(y.reshape(-1, oh, ow, c), fwd_kernel, (1, 1),
                            "VALID", dimension_numbers=_DN,
                            transpose_kernel=True)
  np.testing.assert_allclose(got, want.reshape(got.shape), atol=1e-5,
                             rtol=1e-5)


@pytest.mark.parametrize("grid_shape,k,pads", [((32, 12), 15, (0, 3)),
                                               ((7, 5), 3, (1, 2))])
def test_padded_convolutions_are_laxs_with_padding(grid_shape, k, pads):
  """Zero padding on each side as torch's Conv2d `padding`; the transposed
  convolution crops the same border (their ConvTranspose2d `padding`):
  the adjoint of the padded convolution."""
  c = 3
  h, w = grid_shape
  oh, ow = h + 2 * pads[0] - k + 1, w + 2 * pads[1] - k + 1
  assert patch_conv.output_shape(grid_shape, k, pads) == (oh, ow)
  keys = jax.random.split(jax.random.key(5), 4)
  x = jax.random.normal(keys[0], (3, 2, h * w))
  y = jax.random.normal(keys[1], (3, 2, oh * ow, c))
  k_fwd = jax.random.normal(keys[2], (k * k, c))
  k_tr = jax.random.normal(keys[3], (c, k * k))
  got = patch_conv.conv_valid(x, k_fwd, grid_shape, pads)
  want = lax.conv_general_dilated(
      x.reshape(-1, h, w, 1), k_fwd.reshape(k, k, 1, c), (1, 1),
      [(p, p) for p in pads], dimension_numbers=_DN)
  np.testing.assert_allclose(got, want.reshape(got.shape), atol=1e-5,
                             rtol=1e-5)
  back = patch_conv.conv_transpose_valid(y, k_tr, grid_shape, pads)
  assert back.shape == (3, 2, h * w)
  fwd = patch_conv.conv_valid(x, k_tr.T, grid_shape, pads)
  np.testing.assert_allclose(jnp.sum(fwd * y), jnp.sum(x * back), rtol=1e-4)


def test_transpose_is_the_adjoint_and_matches_im2col():
  grid_shape, k, c = (32, 24), 15, 3
  x, y, _, k_tr = _data(grid_shape, k, c)
  # <conv(x), y> == <x, conv_transpose(y)> with the same kernel.
  lhs = jnp.sum(patch_conv.conv_valid(x, k_tr.T, grid_shape) * y)
  rhs = jnp.sum(x * patch_conv.conv_transpose_valid(y, k_tr, grid_shape))
  np.testing.assert_allclose(lhs, rhs, rtol=1e-5)
  # And the parameters mean what the earlier im2col layout meant (so old
  # checkpoints decode the same): window p, offset ki*k+kj.
  h, w = grid_shape
  img = np.arange(h * w).reshape(h, w)
  idx = np.stack([img[i:i + k, j:j + k].reshape(-1)
                  for i in range(h - k + 1) for j in range(w - k + 1)])
  want = jnp.zeros((*y.shape[:-2], h * w)).at[..., idx].add(y @ k_tr)
  np.testing.assert_allclose(
      patch_conv.conv_transpose_valid(y, k_tr, grid_shape), want,
      atol=1e-4, rtol=1e-5)
  np.testing.assert_allclose(patch_conv.conv_valid(x, k_tr.T, grid_shape),
                             x[..., idx] @ k_tr.T, atol=1e-4, rtol=1e-5)


@pytest.mark.slow
def test_gradients_match_lax_under_vmap():
  grid_shape, k, c = (24, 16), 15, 2
  h, w = grid_shape
  oh, ow = h - k + 1, w - k + 1
  _, y, _, k_tr = _data(grid_shape, k, c, lead=(4,))
  kernels = jnp.stack([k_tr, 2 * k_tr, -k_tr])  # 3 "cells"

  def ours(kern, y):
    return jnp.sum(jnp.sin(patch_conv.conv_transpose_valid(y, kern,
                                                           grid_shape)))

  def ref(kern, y):
    out = lax.conv_transpose(y.reshape(-1, oh, ow, c),
                             kern.T.reshape(k, k, 1, c), (1, 1), "VALID",
                             dimension_numbers=_DN, transpose_kernel=True)
    return jnp.sum(jnp.sin(out))

  got = jax.vmap(jax.grad(ours, (0, 1)), in_axes=(0, None))(kernels, y)
  want = jax.vmap(jax.grad(ref, (0, 1)), in_axes=(0, None))(kernels, y)
  for g, r in zip(got, want):
    np.testing.assert_allclose(g, r, atol=1e-4, rtol=1e-4)


def test_kernel_larger_than_image_is_an_error():
  with pytest.raises(ValueError, match=r"kernel k=9 does not fit the image "
                     r"grid_shape=\(8, 6\): need 1 <= k <= 6"):
    patch_conv.output_shape((8, 6), 9)


def test_sentence_vae_parameters_keep_their_names_and_shapes():
  vae = models.SentenceVAE(embed_dim=768, grid_shape=(32, 24), channels=40)
  params = jax.eval_shape(vae.init, {"params": jax.random.key(0)},
                          jnp.ones((2, 768)))
  shapes = jax.tree.map(lambda p: p.shape, params["params"])
  assert shapes == {
      "enc_kernel": (225, 40), "enc_bias": (40,),
      "enc_dense": {"kernel": (7200, 10), "bias": (10,)},
      "dec_dense": {"kernel": (5, 7200), "bias": (7200,)},
      "dec_kernel": (40, 225), "dec_bias": (1,)}
