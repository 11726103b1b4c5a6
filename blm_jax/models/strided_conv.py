"""Padded, strided convolutions as the authors' code sizes them (torch rules).

Their sequence VAE (`vae`) and the answer decoder of `vae_1d_2level` use
15x15 kernels with stride 15 over the 2-D sentence array and pad it so the
kernel covers it (utils/misc.py get_padd / get_out_padd in
CLCL-Geneva/BLM-SNFDisentangling): 32 x 24 with k = s = 15 is padded by 13
and 6 on each side, giving 3 x 2 windows, and the transposed convolution
restores 32 x 24 with an output padding. These helpers reproduce those
sizes and torch's Conv / ConvTranspose semantics (symmetric `padding`,
`output_padding` added at the end) with `lax.conv_general_dilated`
(tests check them against torch). Layouts are channels-last: images
[..., *spatial, C], kernels [*k, C_in, C_out].
"""

from __future__ import annotations

from typing import Sequence

import jax
import numpy as np
from jax import lax


def authors_padding(dim: int, kernel: int, stride: int) -> int:
  """Their `get_padd`: no padding when the kernel divides the size; with
  stride 1, enough for one window; else enough for the last window."""
  if dim % kernel == 0:
    return 0
  if stride == 1:
    return max(0, kernel - dim)
  return kernel - (dim - stride * (dim // stride))


def out_size(dim: int, kernel: int, stride: int, pad: int) -> int:
  """Windows of a padded, strided convolution (torch's formula)."""
  n = (dim + 2 * pad - kernel) // stride + 1
  if n < 1:
    raise ValueError(f"a kernel of {kernel} with stride {stride} and "
                     f"padding {pad} does not fit a size of {dim}")
  return n


def output_padding(dim: int, n: int, kernel: int, stride: int,
                   pad: int) -> int:
  """Their `get_out_padd`: what the transposed convolution adds so that
  its output has `dim` again."""
  return dim - (n - 1) * stride + 2 * pad - kernel


def _dims(nd: int) -> lax.ConvDimensionNumbers:
  spatial = "DHW"[-nd:] if nd <= 3 else None
  return lax.conv_dimension_numbers(
      (1, 1) + (1,) * nd, (1, 1) + (1,) * nd,
      (f"N{spatial}C", f"{spatial}IO", f"N{spatial}C"))


def conv(x: jax.Array, kernel: jax.Array, strides: Sequence[int],
         pads: Sequence[int]) -> jax.Array:
  """torch ConvNd (no bias): x [B, *S, Ci], kernel [*k, Ci, Co]."""
  nd = kernel.ndim - 2
  return lax.conv_general_dilated(
      x, kernel, tuple(strides), [(p, p) for p in pads],
      dimension_numbers=_dims(nd))


def conv_transpose(y: jax.Array, kernel: jax.Array, strides: Sequence[int],
                   pads: Sequence[int],
                   out_pads: Sequence[int]) -> jax.Array:
  """torch ConvTransposeNd (no bias): y [B, *S, Ci], kernel [*k, Ci, Co].

  The adjoint of `conv`: a convolution of y dilated by the stride with the
  spatially flipped kernel, padded by k - 1 - p (plus the output padding
  at the end).
  """
  nd = kernel.ndim - 2
  ks = kernel.shape[:nd]
  flipped = kernel[tuple(slice(None, None, -1) for _ in range(nd))]
  padding = [(k - 1 - p, k - 1 - p + op)
             for k, p, op in zip(ks, pads, out_pads)]
  return lax.conv_general_dilated(
      y, flipped, (1,) * nd, padding, lhs_dilation=tuple(strides),
      dimension_numbers=_dims(nd))


def plan(shape: Sequence[int], kernel: Sequence[int],
         stride: Sequence[int]) -> dict:
  """Padding, windows and output padding per axis, as their code sizes a
  convolution and its mirrored transposed convolution."""
  pads = [authors_padding(d, k, s) for d, k, s in zip(shape, kernel, stride)]
  n = [out_size(d, k, s, p)
       for d, k, s, p in zip(shape, kernel, stride, pads)]
  out_pads = [output_padding(d, m, k, s, p)
              for d, m, k, s, p in zip(shape, n, kernel, stride, pads)]
  for axis, (op, s) in enumerate(zip(out_pads, stride)):
    if not 0 <= op < s:
      raise ValueError(f"axis {axis}: a size of {shape[axis]} cannot be "
                       f"restored by a transposed convolution with kernel "
                       f"{kernel[axis]} and stride {s}")
  return {"pads": tuple(pads), "windows": tuple(n),
          "out_pads": tuple(out_pads), "size": int(np.prod(n))}
