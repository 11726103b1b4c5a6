"""'VALID' convolutions of a one-channel image as banded matmuls (CPU, vmap).

The sentence VAE convolves an embedding reshaped to an h x w image with a
k x k kernel (15 x 15 in 000) and decodes with the transposed convolution.
Written as XLA convolutions, a vmapped grid runs them as grouped convolutions
(slow on CPU); written as im2col patch gathers plus a scatter-add, every step
materialises a [..., P, k*k] array (P = output positions) and the scatter-add
plus its layout copies took 67-76% of the two-level VAE step.

Here each kernel row is applied as one matmul against a banded weight built
from the kernel (`_band_weight`: row ki of the kernel laid out as a Toeplitz
block mapping image columns to output columns), and only the k shifts along
the image height stay as slices / in-place adds. The intermediate is
[..., oh, k, w] instead of [..., oh*ow, k*k] (6x smaller at 32 x 24, k = 15)
and under vmap the per-cell kernels become one batched matmul. The maths is
that of `lax.conv_general_dilated` / `lax.conv_transpose` (tests check both
and the adjoint identity), only the summation order differs.

`pads` (rows, columns) zero-pads the image on each side first, as torch's
Conv2d `padding` does, and crops the transposed convolution's output alike
(the authors' sentence arrays at D = 384, `sentence_vae.authors_array`).

Kernel layouts are those of the sentence VAE's parameters: a forward kernel
is [k*k, C] and a transposed kernel [C, k*k], with the k*k axis row-major
(ki * k + kj), i.e. the flattened window of an h x w image.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


def padded_shape(grid_shape: tuple[int, int],
                 pads: tuple[int, int] = (0, 0)) -> tuple[int, int]:
  return grid_shape[0] + 2 * pads[0], grid_shape[1] + 2 * pads[1]


def output_shape(grid_shape: tuple[int, int], k: int,
                 pads: tuple[int, int] = (0, 0)) -> tuple[int, int]:
  """(oh, ow): the output positions of a k x k kernel over the image
  padded by `pads` on each side."""
  h, w = padded_shape(grid_shape, pads)
  if not 1 <= k <= min(h, w):
    raise ValueError(f"kernel k={k} does not fit the image grid_shape="
                     f"{grid_shape}: need 1 <= k <= {min(h, w)}")
  return h - k + 1, w - k + 1


def _band_weight(kernel3: jax.Array, ow: int, w: int) -> jax.Array:
  """[C, k(ki), k(kj)] -> [C, k(ki), ow, w]: B[c, ki, j, x] = K[c, ki, x - j].

  Zero where x - j falls outside the kernel; built with a constant index
  and mask, so it is cheap (C * k * ow * w) and differentiable (a gather).
  """
  k = kernel3.shape[-1]
  offset = np.arange(w)[None, :] - np.arange(ow)[:, None]  # [ow, w]
  valid = (offset >= 0) & (offset < k)
  band = kernel3[..., np.clip(offset, 0, k - 1)]  # [C, k, ow, w]
  return jnp.where(valid, band, jnp.zeros((), kernel3.dtype))


def conv_valid(x: jax.Array, kernel: jax.Array,
               grid_shape: tuple[int, int],
               pads: tuple[int, int] = (0, 0)) -> jax.Array:
  """'VALID' cross-correlation of the image x (zero-padded by `pads`) with
  C output channels.

  x [..., h*w] (row-major image), kernel [k*k, C] -> [..., oh*ow, C]
  (positions row-major), no bias.
  """
  kk, c = kernel.shape
  k = int(round(kk ** 0.5))
  oh, ow = output_shape(grid_shape, k, pads)
  lead = x.shape[:-1]
  img = x.reshape(*lead, *grid_shape)
  if any(pads):
    img = jnp.pad(img, [(0, 0)] * len(lead) + [(p, p) for p in pads])
  w = img.shape[-1]
  # The k row-shifted views stacked: [..., oh, k, w] (static slices).
  rows = jnp.stack([img[..., ki:ki + oh, :] for ki in range(k)], axis=-2)
  band = _band_weight(kernel.T.reshape(c, k, k), ow, w)  # [C, k, ow, w]
  weight = band.transpose(1, 3, 2, 0).reshape(k * w, ow * c)
  y = rows.reshape(*lead, oh, k * w) @ weight  # [..., oh, ow*C]
  return y.reshape(*lead, oh * ow, c)


def conv_transpose_valid(y: jax.Array, kernel: jax.Array,
                         grid_shape: tuple[int, int],
                         pads: tuple[int, int] = (0, 0)) -> jax.Array:
  """The adjoint of `conv_valid`: [..., oh*ow, C], [C, k*k] -> [..., h*w].

  Each output pixel sums kernel-weighted contributions of every window that
  covers it (a 'VALID' transposed convolution, stride 1, no bias), over
  the padded image, whose border `pads` is then cropped.
  """
  h, w = padded_shape(grid_shape, pads)
  c, kk = kernel.shape
  k = int(round(kk ** 0.5))
  oh, ow = output_shape(grid_shape, k, pads)
  lead = y.shape[:-2]
  band = _band_weight(kernel.reshape(c, k, k), ow, w)  # [C, k, ow, w]
  weight = band.transpose(2, 0, 1, 3).reshape(ow * c, k * w)
  z = y.reshape(*lead, oh, ow * c) @ weight  # [..., oh, k*w]
  z = z.reshape(*lead, oh, k, w)
  # Shift-add the k kernel rows along the height; split (not index) so the
  # backward pass is one concatenate.
  parts = lax.split(z, [1] * k, axis=z.ndim - 2)
  out = jnp.zeros((*lead, h, w), y.dtype)
  for ki, part in enumerate(parts):
    out = out.at[..., ki:ki + oh, :].add(part[..., 0, :])
  ph, pw = pads
  out = out[..., ph:h - ph, pw:w - pw]
  return out.reshape(*lead, (h - 2 * ph) * (w - 2 * pw))
