"""The CNN baseline (000 footnote 18).

The stacked context [n_ctx, D] is one 2-D image; three 3x3 convolutions
(stride 1, no dilation, 'VALID' so the layers really shrink the sentence axis
rather than padding it) then a dense layer to D. The paper does not give the
channel counts: they are a config choice.

The convolutions run in the long-axis-first layout of `banded_conv` (one
matmul each; the CNN trains 4-5x faster on CPU than with XLA's
convolution, benchmarks/README.md); the flattened
features keep `nn.Conv`'s (row, column, channel) order, so parameters are
those of the NHWC `nn.Conv` model.
"""

from __future__ import annotations

from typing import Sequence

import flax.linen as nn

from blm_jax.models import banded_conv
from blm_jax.models.common import SolverOutput


class CNN(nn.Module):
  embed_dim: int
  channels: Sequence[int] = (8, 8, 8)

  @nn.compact
  def __call__(self, ctx, ctx_mask, train: bool = False) -> SolverOutput:
    del train
    rows_needed = 2 * len(self.channels) + 1
    if ctx.shape[-2] < rows_needed:
      raise ValueError(
          f"the CNN's {len(self.channels)} 3x3 'VALID' convolutions "
          f"(config.model.channels={tuple(self.channels)}) need at least "
          f"{rows_needed} context sentences; this data has {ctx.shape[-2]}")
    x = (ctx * ctx_mask[..., None]).swapaxes(-1, -2)[..., None]  # [B, D, C, 1]
    for i, ch in enumerate(self.channels):
      x = nn.relu(banded_conv.Conv(ch, (3, 3), name=f"conv{i + 1}")(x))
    x = x.swapaxes(1, 2).reshape(x.shape[0], -1)  # (row, column, channel)
    pred = nn.Dense(self.embed_dim, name="out")(x)
    return SolverOutput(pred=pred, latent=x)
