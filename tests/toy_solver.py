"""A solver added the way a researcher adds one: this module plus a config
file (tests/toy_config.py), nothing else in blm_jax edited.

It averages the first `model.context_used` context sentences, maps them
through one hidden layer, and adds one loss term of its own, the mean
square of its prediction, weighted by `loss.pred_norm`.
"""

from __future__ import annotations

import flax.linen as nn
import jax.numpy as jnp

from blm_jax.models import registry
from blm_jax.models.common import SolverOutput

NAME = "toy_mean"


class ToyMean(nn.Module):
  embed_dim: int
  hidden: int
  context_used: int

  @nn.compact
  def __call__(self, ctx, ctx_mask, train: bool = False) -> SolverOutput:
    del train
    k = self.context_used
    x = jnp.sum(ctx[:, :k] * ctx_mask[:, :k, None], axis=1) / k
    h = nn.relu(nn.Dense(self.hidden, name="hidden")(x))
    pred = nn.Dense(self.embed_dim, name="out")(h)
    return SolverOutput(pred=pred, latent=h,
                        terms={"pred_norm": jnp.mean(pred**2, axis=-1)})


def _build(model_cfg, loss_cfg, *, embed_dim, num_context, score):
  del loss_cfg, num_context, score
  return ToyMean(embed_dim=embed_dim, hidden=model_cfg.hidden,
                 context_used=model_cfg.context_used)


def _check_data(config, data):
  if data.num_context < config.model.context_used:
    raise ValueError(
        f"config.model.context_used={config.model.context_used} but "
        f"{config.data.name!r} has {data.num_context} context sentences")


def _check_config(config):
  if config.model.context_used < 1:
    return [f"config.model.context_used={config.model.context_used}: must "
            "be >= 1"]
  return []


SPEC = registry.register(registry.SolverSpec(
    name=NAME,
    model={"hidden": 16, "context_used": 3},
    loss={"pred_norm": 0.01},
    build=_build,
    loss_terms=("pred_norm",),
    check_data=_check_data,
    check_config=_check_config,
    scan_on=frozenset({"cpu"})))
