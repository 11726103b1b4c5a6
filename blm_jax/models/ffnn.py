"""The FFNN baseline (000 sec. 6.1): n_ctx*D -> 3.5D -> 3.5D -> D, ReLU."""

from __future__ import annotations

import flax.linen as nn
import jax.numpy as jnp

from blm_jax.models import registry
from blm_jax.models.common import SolverOutput

# config.model of the FFNN: hidden width = hidden_factor x D.
DEFAULTS = {"hidden_factor": 3.5}


class FFNN(nn.Module):
  embed_dim: int
  hidden_factor: float = DEFAULTS["hidden_factor"]

  @nn.compact
  def __call__(self, ctx, ctx_mask, train: bool = False) -> SolverOutput:
    del train  # Deterministic.
    x = (ctx * ctx_mask[..., None]).reshape(ctx.shape[0], -1)
    hidden = int(self.hidden_factor * self.embed_dim)
    x = nn.relu(nn.Dense(hidden, name="layer1")(x))
    x = nn.relu(nn.Dense(hidden, name="layer2")(x))
    pred = nn.Dense(self.embed_dim, name="layer3")(x)
    return SolverOutput(pred=pred, latent=x)


def _build(model_cfg, loss_cfg, *, embed_dim, num_context, score):
  del loss_cfg, num_context, score
  return FFNN(embed_dim=embed_dim, hidden_factor=model_cfg.hidden_factor)


SPEC = registry.SolverSpec(
    name="ffnn",
    model=DEFAULTS,
    build=_build)
