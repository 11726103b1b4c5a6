"""Whether a grid's epoch fits in memory, and which config keys to change
when it does not: the budget (config or free memory), what a checkpoint
save holds beside the epoch, and the grid's own vmap/scan choice."""

from __future__ import annotations

import math

import jax
import numpy as np

from blm_jax.encoders.memory import gib
from blm_jax.training import distributed
from blm_jax.training.grid import available_bytes, Grid
from blm_jax.training.settings import GridSettings


def memory_budget(limit_gb: float, grid: Grid) -> int:
  """Bytes the grid's epoch may use: config.grid.memory_limit_gb, or (0)
  what this process's first device has available now (the least over the
  processes, so that all of them compile the same epoch)."""
  limit = limit_gb
  if limit:
    return int(limit * 2**30)
  return distributed.min_bytes_over_processes(
      available_bytes(grid.local_devices[0]))


def save_bytes(grid: Grid) -> int:
  """Bytes a checkpoint save holds on top of the epoch: orbax copies every
  leaf of the state to host memory before writing it, which on CPU is the
  memory the epoch itself uses (on an accelerator it is host memory, not
  the device's), and one leaf more is in flight while it is written.

  Measured (studies/records/memory_estimate.json, 18-cell FFNN layer sweep,
  D=384): the peak RSS grew 3.85 GiB past the RSS at the check, against
  3.71 GiB for the epoch and the host copy alone: 0.14 GiB more, less than
  the largest leaf (0.24 GiB there).
  """
  if grid.platform != "cpu":
    return 0
  sizes = [math.prod(x.shape) * np.dtype(x.dtype).itemsize
           for x in jax.tree.leaves(grid.abstract_state())]
  return sum(sizes) + max(sizes, default=0)


def model_widths(model_cfg) -> str:
  """The model's numeric keys (its widths), e.g. 'config.model.hidden_factor=3.5'."""
  keys = [f"config.model.{k}={v}" for k, v in model_cfg.items()
          if isinstance(v, (int, float, tuple)) and not isinstance(v, bool)
          and k != "name"]
  return ", ".join(keys)


def fit_memory(grid: Grid, settings: GridSettings, batch_size: int,
               widths: str) -> list[str]:
  """`grid.fit_memory` within the memory budget less what a checkpoint
  save holds; the MemoryError names the keys that set the size: the
  model's widths (`widths`, from `model_widths`) where the state alone
  does not fit, else config.train.batch_size (`batch_size`) and the number
  of cells."""
  budget = memory_budget(settings.memory_limit_gb, grid)
  save = save_bytes(grid)
  of = ("set by config.grid.memory_limit_gb" if settings.memory_limit_gb
        else "free")
  state = sum(math.prod(x.shape) * np.dtype(x.dtype).itemsize
              for x in jax.tree.leaves(grid.abstract_state()))
  if max(save, state) > budget:
    raise MemoryError(
        f"the training state does not fit: one cell's parameters and "
        f"optimizer moments take {gib(state / grid.num_cells)} ("
        f"{grid.num_cells} cells: {gib(state)}"
        + (", and a checkpoint save holds a host copy as large" if save
           else "") + f"), over the {gib(budget)} {of}: lower "
        f"the model's width ({widths}) or train fewer cells"
        + (", or raise config.grid.memory_limit_gb"
           if settings.memory_limit_gb else ""))
  try:
    # A limit below the save's own size leaves nothing (not less).
    notes = grid.fit_memory(budget - save,
                            may_scan=settings.mode == "auto")
  except MemoryError as e:
    raise MemoryError(
        f"{e}, or lower config.train.batch_size (now "
        f"{batch_size}) or the model's width ("
        f"{widths}) (of the {budget / 2**30:.2f} GiB {of}"
        + (f", {save / 2**30:.2f} GiB are kept for the host copy of the "
           "state a checkpoint save makes" if save else "") + ")") from None
  if save:
    notes.append(f"checkpoint saves: {save / 2**30:.2f} GiB (a host copy of "
                 "the state), counted in the budget")
  return notes
