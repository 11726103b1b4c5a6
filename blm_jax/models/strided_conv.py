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

When the last two axes' stride equals their kernel (their windows do not
overlap: every use in the authors' code) and any axis before them has
stride 1, both are written as matmuls over the windows (`_conv_windows`,
`_conv_transpose_windows`): the same sums as XLA's convolution, which on
a CPU ran their `vae` at 0.44x the speed of their torch step
(benchmarks/README.md).
"""

from __future__ import annotations

from typing import Sequence

import jax
import jax.numpy as jnp
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


def _windowed(kernel_shape: Sequence[int], strides: Sequence[int]) -> bool:
  """Non-overlapping windows on the last two axes, stride 1 before them."""
  ks, ss = tuple(kernel_shape), tuple(strides)
  return (len(ks) in (2, 3) and ks[-2:] == ss[-2:]
          and all(s == 1 for s in ss[:-2]))


def _conv_windows(x, kernel, pads):
  """`conv` for `_windowed` kernels: each window's pixels (row, column,
  channel) times the kernel, summed over the shifts of a leading axis."""
  nd = kernel.ndim - 2
  *kd, kh, kw, ci, co = kernel.shape
  x = jnp.pad(x, [(0, 0)] + [(p, p) for p in pads] + [(0, 0)])
  nh, nw = x.shape[-3] // kh, x.shape[-2] // kw
  lead = x.shape[:-3]
  w = x[..., :nh * kh, :nw * kw, :].reshape(*lead, nh, kh, nw, kw, ci)
  w = jnp.swapaxes(w, -4, -3).reshape(*lead, nh, nw, kh * kw * ci)
  if nd == 2:
    return w @ kernel.reshape(kh * kw * ci, co)
  k = kernel.reshape(kd[0], kh * kw * ci, co)
  n = w.shape[1] - kd[0] + 1  # stride 1 along the leading axis
  return sum(w[:, i:i + n] @ k[i] for i in range(kd[0]))


def _conv_transpose_windows(y, kernel, pads, out_pads):
  """`conv_transpose` for 2-D `_windowed` kernels: every input position
  writes its own k x k block; the border `pads` is then cut, and
  `out_pads` zeros (beyond the blocks) added at the end."""
  kh, kw, ci, co = kernel.shape
  b, nh, nw, _ = y.shape
  blocks = y @ jnp.moveaxis(kernel, 2, 0).reshape(ci, kh * kw * co)
  full = jnp.swapaxes(blocks.reshape(b, nh, nw, kh, kw, co), 2, 3)
  full = full.reshape(b, nh * kh, nw * kw, co)
  sizes = [n * k - 2 * p + op for n, k, p, op in
           zip((nh, nw), (kh, kw), pads, out_pads)]
  extra = [max(0, op - p) for p, op in zip(pads, out_pads)]
  full = jnp.pad(full, [(0, 0), (0, extra[0]), (0, extra[1]), (0, 0)])
  return full[:, pads[0]:pads[0] + sizes[0], pads[1]:pads[1] + sizes[1]]


def conv(x: jax.Array, kernel: jax.Array, strides: Sequence[int],
         pads: Sequence[int]) -> jax.Array:
  """torch ConvNd (no bias): x [B, *S, Ci], kernel [*k, Ci, Co]."""
  nd = kernel.ndim - 2
  if _windowed(kernel.shape[:nd], strides):
    return _conv_windows(x, kernel, pads)
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
  if nd == 2 and _windowed(ks, strides):
    return _conv_transpose_windows(y, kernel, pads, out_pads)
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
