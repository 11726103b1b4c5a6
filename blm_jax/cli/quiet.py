"""The command lines' console: their own lines, not the libraries' INFO.

orbax, TFDS and jax log INFO lines through absl; a command line shows
them only when --verbosity is given.
"""

from __future__ import annotations

import logging


def quiet_logs() -> None:
  """absl users' INFO lines hidden unless --verbosity was given."""
  from absl import flags
  from absl import logging as absl_logging

  if "verbosity" in flags.FLAGS and flags.FLAGS["verbosity"].present:
    return
  absl_logging.set_verbosity(absl_logging.WARNING)
  for name in ("absl", "jax", "orbax", "tensorflow_datasets"):
    logging.getLogger(name).setLevel(logging.WARNING)
