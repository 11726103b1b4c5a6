"""The FFNN baseline (000 sec. 6.1): n_ctx*D -> 3.5D -> 3.5D -> D, ReLU."""

from __future__ import annotations

import flax.linen as nn
import jax.numpy as jnp

from blm_jax.models.common import SolverOutput


class FFNN(nn.Module):
  embed_dim: int
  hidden_factor: float = 3.5

  @nn.compact
  def __call__(self, ctx, ctx_mask, train: bool = False) -> SolverOutput:
    del train  # Deterministic.
    x = (ctx * ctx_mask[..., None]).reshape(ctx.shape[0], -1)
    hidden = int(self.hidden_factor * self.embed_dim)
    x = nn.relu(nn.Dense(hidden, name="layer1")(x))
    x = nn.relu(nn.Dense(hidden, name="layer2")(x))
    pred = nn.Dense(self.embed_dim, name="layer3")(x)
    return SolverOutput(pred=pred, latent=x)
