"""The CNN's 'VALID' convolutions as one matmul each (CPU speed, scans, vmap).

The CNN convolves the stacked context, a short and long image (7 sentences
x D dimensions, 1-8 channels). XLA's CPU convolution runs such small-channel
convolutions far under the matmul rate, and inside a `lax.scan` (every epoch
is one) it lost another 3x: in a 16-step scan the D=384 CNN's training step
took 114 ms against 40 ms jitted alone, and 25 ms in this form
(`benchmarks/step_in_scan.py`).

Here the image is kept long-axis-first, [..., W, H, C], so that a position
along W carries the whole short column (H x C values). A kh x kw kernel is
then one matmul: the kw shifted views along W are concatenated (the
columns, [..., W', kw*H*C_in]) and multiplied by a weight that lays the
kernel out banded along H (`band_weight`: input rows to output rows). Under
vmap the per-cell weights make a batched matmul with large operands. The
maths is that of `lax.conv_general_dilated` with 'VALID' padding and stride
1 (tests check it), only the summation order differs; the kernel keeps
`nn.Conv`'s layout [kh, kw, C_in, C_out] and initialisation, so parameters
and checkpoints are unchanged.
"""

from __future__ import annotations

from typing import Sequence

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np


def band_weight(kernel: jax.Array, height: int) -> jax.Array:
  """[kh, kw, Ci, Co] -> [kw*height*Ci, oh*Co], oh = height - kh + 1.

  Entry ((j, r, ci), (o, co)) is kernel[r - o, j, ci, co] where
  0 <= r - o < kh, else 0: input row r feeds output row o through kernel
  row r - o. Built with a constant index and mask (a differentiable gather).
  """
  kh, kw, ci, co = kernel.shape
  oh = height - kh + 1
  offset = np.arange(height)[:, None] - np.arange(oh)[None, :]  # [H, oh]
  valid = (offset >= 0) & (offset < kh)
  band = kernel[np.clip(offset, 0, kh - 1)]  # [H, oh, kw, Ci, Co]
  band = jnp.where(valid[:, :, None, None, None], band,
                   jnp.zeros((), kernel.dtype))
  return band.transpose(2, 0, 3, 1, 4).reshape(kw * height * ci, oh * co)


def conv_valid(x: jax.Array, kernel: jax.Array) -> jax.Array:
  """'VALID', stride-1 cross-correlation in the long-axis-first layout.

  x [..., W, H, Ci], kernel [kh, kw, Ci, Co] (nn.Conv's HWIO layout)
  -> [..., W - kw + 1, H - kh + 1, Co], no bias.
  """
  *lead, w, h, ci = x.shape
  kh, kw, kci, co = kernel.shape
  if kci != ci:
    raise ValueError(f"kernel {kernel.shape} expects {kci} input channels, "
                     f"the image has {ci}")
  if not (kh <= h and kw <= w):
    raise ValueError(f"a {kh}x{kw} kernel does not fit an image of {h} rows "
                     f"x {w} columns ('VALID' convolution)")
  oh, ow = h - kh + 1, w - kw + 1
  flat = x.reshape(*lead, w, h * ci)
  columns = jnp.concatenate([flat[..., j:j + ow, :] for j in range(kw)], -1)
  y = columns @ band_weight(kernel, h)  # [..., ow, oh * Co]
  return y.reshape(*lead, ow, oh, co)


class Conv(nn.Module):
  """`nn.Conv(features, kernel_size, padding='VALID')` on [..., W, H, C].

  Same parameter names, shapes and initialisers as nn.Conv, so a model
  that swaps one for the other keeps its parameters.
  """

  features: int
  kernel_size: Sequence[int] = (3, 3)

  @nn.compact
  def __call__(self, x: jax.Array) -> jax.Array:
    kernel = self.param("kernel", nn.initializers.lecun_normal(),
                        (*self.kernel_size, x.shape[-1], self.features))
    bias = self.param("bias", nn.initializers.zeros_init(), (self.features,))
    return conv_valid(x, kernel) + bias
