"""A config's `train` and `grid` sections as typed values, read once where a
run starts (`TrainSettings(**config.train)`,
`GridSettings(controls=config.controls, **config.grid)`) and handed down in
place of the config. A bad value raises a ValueError of one line naming its
config key; config_check.validate reports every problem of a config at
once before these are built.
"""

from __future__ import annotations

import dataclasses

from blm_jax.training import variants


def _whole(value, low: int) -> bool:
  return isinstance(value, int) and not isinstance(value, bool) and value >= low


def _number(value, low: float) -> bool:
  return (isinstance(value, (int, float)) and not isinstance(value, bool)
          and value >= low)


@dataclasses.dataclass(frozen=True)
class TrainSettings:
  """config.train: the optimizer, the schedule, evaluation and checkpoints
  (their meaning: training/config_defaults.py)."""

  optimizer: str = "adam"
  learning_rate: float = 1e-3
  batch_size: int = 100
  epochs: int = 120
  score: str = "dot"
  predict_score: str = ""
  select_by: str = "accuracy"
  eval_chunk: int = 256
  checkpoint_every_epochs: int = 10
  checkpoint_min_seconds: float = 60.0
  keep_checkpoints: int = 1
  resume: str = "auto"

  def __post_init__(self):
    for key, low in (("batch_size", 1), ("epochs", 1), ("eval_chunk", 1),
                     ("checkpoint_every_epochs", 1), ("keep_checkpoints", 1)):
      if not _whole(getattr(self, key), low):
        raise ValueError(f"config.train.{key}={getattr(self, key)!r}: must "
                         f"be an integer >= {low}")
    if not _number(self.learning_rate, 0) or not self.learning_rate > 0:
      raise ValueError(f"config.train.learning_rate={self.learning_rate!r}: "
                       "must be a number > 0")
    if not _number(self.checkpoint_min_seconds, 0):
      raise ValueError(f"config.train.checkpoint_min_seconds="
                       f"{self.checkpoint_min_seconds!r}: must be a number "
                       ">= 0")


@dataclasses.dataclass(frozen=True)
class GridSettings:
  """config.grid plus config.controls: the seeds, how the cells share the
  jitted epoch, its memory budget, and the control cells beside the real
  ones (`variants.CONTROLS`, parsed from the comma-separated string)."""

  seeds: tuple[int, ...] = (0, 1, 2)
  mode: str = "auto"
  memory_limit_gb: float = 0.0
  controls: tuple[str, ...] | str = ()

  def __post_init__(self):
    if not self.seeds or not all(_whole(s, 0) for s in self.seeds):
      raise ValueError(f"config.grid.seeds={self.seeds!r}: expected a tuple "
                       "of integers >= 0")
    if len(set(self.seeds)) != len(self.seeds):
      raise ValueError(f"config.grid.seeds={tuple(self.seeds)!r}: a seed is "
                       "repeated")
    object.__setattr__(self, "seeds", tuple(int(s) for s in self.seeds))
    if not _number(self.memory_limit_gb, 0):
      raise ValueError(f"config.grid.memory_limit_gb="
                       f"{self.memory_limit_gb!r}: must be a number >= 0")
    object.__setattr__(self, "controls",
                       variants.parse_controls(self.controls))
