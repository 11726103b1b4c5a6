"""A configs folder whose grids are tiny real runs (the released format,
a tiny BERT), for the reproduce command as a user starts it: every dataset
short name stands for the same small release; the grids of `failing`
datasets name an encoder folder that does not exist."""

from __future__ import annotations

import os

from tests import ROOT, release_fixtures, tiny_checkpoints

CONFIG = '''
import sys
sys.path.insert(0, {root!r})
from configs import ffnn


def get_config(arg=None):
  c = ffnn.get_config(None)
  c.data.name = "blm_published/type_{{}}"
  c.data.manual_dir = {release!r}
  c.data.data_dir = {tfds!r}
  c.data.train_types = c.data.test_types = ("I", "II")
  c.encoder.name = {encoder!r}
  if any(f"dataset={{d}}" in (arg or "") for d in {failing!r}):
    c.encoder.name = {missing!r}
  c.encoder.cache_dir = {cache!r}
  c.grid.seeds = (0,)
  c.train.epochs = {epochs}
  c.train.batch_size = 16
  c.progress = False
  return c
'''


def write(root: str, failing: tuple[str, ...] = (), rows: int = 40,
          epochs: int = 2) -> str:
  """Writes the release, the tiny BERT and `<root>/configs` (common.py,
  ffnn.py); returns the configs folder."""
  release = os.path.join(root, "release")
  for k, t in enumerate(("I", "II")):
    release_fixtures.write_release(
        os.path.join(release, f"type_{t}", "all.tsv"),
        release_fixtures.release_rows(rows, start=100 * k))
  configs = os.path.join(root, "configs")
  os.makedirs(configs, exist_ok=True)
  with open(os.path.join(configs, "common.py"), "w") as f:
    f.write(f"import sys\nsys.path.insert(0, {ROOT!r})\n"
            "from configs.common import *  # noqa: F401,F403\n"
            "from configs.common import DATASETS  # noqa: F401\n")
  with open(os.path.join(configs, "ffnn.py"), "w") as f:
    f.write(CONFIG.format(
        root=ROOT, release=release, tfds=os.path.join(root, "tfds"),
        encoder=tiny_checkpoints.write_bert(os.path.join(root, "bert")),
        failing=tuple(failing), missing=os.path.join(root, "no_encoder"),
        cache=os.path.join(root, "cache"), epochs=epochs))
  return configs
