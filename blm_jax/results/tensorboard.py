"""A finished grid's curves as TensorBoard event files, one folder per cell
(`tensorboard/seed=0,train=I/`), so `tensorboard --logdir=workdirs` shows
the curves of several runs side by side.

Written from the run's history (`results.json` keeps the same numbers)
once training ends, resumed epochs included: per epoch the train loss
terms (`train/<term>`), `dev/accuracy` and `dev/loss`; at the last epoch
each test type's F1 (`test/f1_<type>`). The folder is replaced as a whole,
so a report written again never doubles a curve.
"""

from __future__ import annotations

import os
import shutil
import sys

FOLDER = "tensorboard"


def _writer(logdir: str):
  # tensorboardX imports torch, where it is installed, for a type hint
  # alone; that import took 5-17 s of each run's report (more than the
  # toy runs' training), so torch is hidden while tensorboardX loads,
  # unless the process has it already.
  hide_torch = "torch" not in sys.modules
  if hide_torch:
    sys.modules["torch"] = None  # `import torch` raises ImportError
  try:
    from tensorboardX import SummaryWriter
  except ImportError:
    raise ImportError("config.results.tensorboard=True needs tensorboardX "
                      "(pip install tensorboardX), or set it to False"
                      ) from None
  finally:
    if hide_torch:
      sys.modules.pop("torch", None)
  return SummaryWriter(logdir)


def write(workdir: str, cell_names: list[str], history: dict,
          test_f1: dict[str, list[float]]) -> str:
  """Writes `<workdir>/tensorboard/<cell>/` for each cell; returns the
  folder. `history`: the trainer's ({'train': {term: [epoch][cell]},
  'dev_accuracy': [epoch][cell], 'dev_loss': ...}); `test_f1`: {test
  type: [cell]}."""
  final = os.path.join(workdir, FOLDER)
  partial = final + ".partial"
  shutil.rmtree(partial, ignore_errors=True)
  epochs = len(history["dev_accuracy"])
  for i, name in enumerate(cell_names):
    w = _writer(os.path.join(partial, name))
    try:
      for e in range(epochs):
        for term, steps in history["train"].items():
          w.add_scalar(f"train/{term}", steps[e][i], e)
        w.add_scalar("dev/accuracy", history["dev_accuracy"][e][i], e)
        w.add_scalar("dev/loss", history["dev_loss"][e][i], e)
      for u, f1 in test_f1.items():
        w.add_scalar(f"test/f1_{u}", f1[i], max(0, epochs - 1))
    finally:
      w.close()
  shutil.rmtree(final, ignore_errors=True)
  os.replace(partial, final)
  return final
