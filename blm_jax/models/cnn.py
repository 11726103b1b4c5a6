"""The CNN baseline (000 footnote 18).

The stacked context [n_ctx, D] is one 2-D image; three 3x3 convolutions
(stride 1, no dilation, 'VALID' so the layers really shrink the sentence axis
rather than padding it) then a dense layer to D. The paper does not give the
channel counts: they are a config choice.
"""

from __future__ import annotations

from typing import Sequence

import flax.linen as nn

from blm_jax.models.common import SolverOutput


class CNN(nn.Module):
  embed_dim: int
  channels: Sequence[int] = (8, 8, 8)

  @nn.compact
  def __call__(self, ctx, ctx_mask, train: bool = False) -> SolverOutput:
    del train
    x = (ctx * ctx_mask[..., None])[..., None]  # [B, C, D, 1]
    for i, ch in enumerate(self.channels):
      x = nn.relu(nn.Conv(ch, (3, 3), strides=1, padding="VALID",
                          name=f"conv{i + 1}")(x))
    x = x.reshape(x.shape[0], -1)
    pred = nn.Dense(self.embed_dim, name="out")(x)
    return SolverOutput(pred=pred, latent=x)
