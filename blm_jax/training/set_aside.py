"""A fresh start never pairs a config with results it did not produce.

A run that starts from epoch 0 in a workdir holding another run's outputs
(train.resume=restart, or every checkpoint quarantined) first moves those
outputs into `<workdir>/previous-<time>/`. Each move is one rename; the
results go first and the config and checkpoints last, so a kill in
between leaves a workdir without results, or one whose config, checkpoints
and results are all of the old run, never a mix. log.txt stays (it says
what was moved) and so does the lock. Only the latest KEEP_PREVIOUS
`previous-*` folders are kept: the oldest are removed, and said so.
"""

from __future__ import annotations

import os
import re
import shutil
import time

FIGURES = tuple(f"{name}.{fmt}" for name in ("heatmap", "errors", "layers")
                for fmt in ("png", "svg", "pdf"))
RESULTS = ("results.json", "results.csv", "predictions.npz") + FIGURES + (
    "probe", "tensorboard")
RUN = ("config.json", "checkpoints", "checkpoints-quarantine")
KEEP_PREVIOUS = 3
_PREVIOUS = re.compile(r"^previous-(\d{8}-\d{6})(?:-(\d+))?$")


def present(workdir: str, names=RESULTS + RUN) -> list[str]:
  """The outputs of `names` that `workdir` holds, in moving order."""
  return [n for n in names if os.path.lexists(os.path.join(workdir, n))]


def move_aside(workdir: str) -> str | None:
  """Moves the workdir's outputs into a new `previous-<time>` folder and
  returns it; None (nothing made) when there are none."""
  names = present(workdir)
  if not names:
    return None
  stamp = time.strftime("%Y%m%d-%H%M%S")
  dest, k = os.path.join(workdir, f"previous-{stamp}"), 1
  while os.path.lexists(dest):
    k += 1
    dest = os.path.join(workdir, f"previous-{stamp}-{k}")
  os.makedirs(dest)
  for name in names:
    os.rename(os.path.join(workdir, name), os.path.join(dest, name))
  return dest


def prune(workdir: str, keep: int = KEEP_PREVIOUS) -> list[str]:
  """Removes all but the latest `keep` `previous-*` folders (by their time
  stamp); returns the names removed. Links and other names are left."""
  found = []
  for name in os.listdir(workdir):
    m = _PREVIOUS.match(name)
    path = os.path.join(workdir, name)
    if m and os.path.isdir(path) and not os.path.islink(path):
      found.append(((m.group(1), int(m.group(2) or 1)), name))
  old = [name for _, name in sorted(found)[:-keep or None]] if \
      len(found) > keep else []
  for name in old:
    shutil.rmtree(os.path.join(workdir, name))
  return old
