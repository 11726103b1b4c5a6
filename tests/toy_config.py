"""The toy solver of tests/toy_solver.py on the synthetic data, small.

  python launch.py --config=tests/toy_config.py --workdir=...
"""

from blm_jax.training import config_defaults
from tests import toy_solver


def get_config(arg=None):
  del arg
  c = config_defaults.default_config(toy_solver.NAME)
  c.data.name = "synthetic_{}"
  c.data.train_types = c.data.test_types = ("I", "II")
  c.grid.seeds = (0, 1)
  c.model.hidden = 8
  c.loss.pred_norm = 0.5
  c.train.epochs = 3
  c.train.batch_size = 20
  c.train.checkpoint_every_epochs = 1
  c.train.checkpoint_min_seconds = 0.0
  c.progress = False
  return c
