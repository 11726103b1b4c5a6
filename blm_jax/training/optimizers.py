"""The optimizers `config.train.optimizer` names, from the learning rate."""

from __future__ import annotations

import optax

OPTIMIZERS = {"adam": optax.adam, "adamw": optax.adamw}


def create_optimizer(train_cfg) -> optax.GradientTransformation:
  make = OPTIMIZERS.get(train_cfg.optimizer)
  if make is None:
    raise ValueError(
        f"config.train.optimizer={train_cfg.optimizer!r} is not known; "
        f"expected one of {', '.join(map(repr, OPTIMIZERS))}")
  return make(train_cfg.learning_rate)
