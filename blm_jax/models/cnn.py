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

from blm_jax.models import banded_conv, registry
from blm_jax.models.common import SolverOutput

# config.model of the CNN: output channels of each 3x3 convolution.
DEFAULTS = {"channels": (8, 8, 8)}


def check_context(channels: Sequence[int], num_context: int) -> None:
  """Each 'VALID' 3x3 convolution takes 2 rows off the sentence axis."""
  need = 2 * len(channels) + 1
  if num_context < need:
    raise ValueError(
        f"the CNN's {len(channels)} 3x3 'VALID' convolutions "
        f"(config.model.channels={tuple(channels)}) need at least {need} "
        f"context sentences; the data has {num_context}")


class CNN(nn.Module):
  embed_dim: int
  channels: Sequence[int] = DEFAULTS["channels"]
  output_relu: bool = False  # ReLU on the prediction (the authors' cnn_seq)

  @nn.compact
  def __call__(self, ctx, ctx_mask, train: bool = False) -> SolverOutput:
    del train
    check_context(self.channels, ctx.shape[-2])
    x = (ctx * ctx_mask[..., None]).swapaxes(-1, -2)[..., None]  # [B, D, C, 1]
    for i, ch in enumerate(self.channels):
      x = nn.relu(banded_conv.Conv(ch, (3, 3), name=f"conv{i + 1}")(x))
    x = x.swapaxes(1, 2).reshape(x.shape[0], -1)  # (row, column, channel)
    pred = nn.Dense(self.embed_dim, name="out")(x)
    if self.output_relu:
      pred = nn.relu(pred)
    return SolverOutput(pred=pred, latent=x)


def _build(model_cfg, loss_cfg, *, embed_dim, num_context, score):
  del loss_cfg, num_context, score
  return CNN(embed_dim=embed_dim, channels=tuple(model_cfg.channels))


def _check_data(config, data) -> None:
  check_context(config.model.channels, data.num_context)


SPEC = registry.SolverSpec(
    name="cnn",
    model=DEFAULTS,
    build=_build,
    check_data=_check_data,
    # The vmapped 3x3 convolutions of many cells are slower than one cell
    # after another on a CPU (benchmarks/README.md).
    scan_on=frozenset({"cpu"}))
