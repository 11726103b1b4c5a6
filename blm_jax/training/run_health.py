"""What the epoch loop checks as it goes: a non-finite loss stops the run
with the cell and step named, a diverging cell and a test set too small for
its F1 to mean much are warned of."""

from __future__ import annotations

import numpy as np

from blm_jax.data import input_pipeline
from blm_jax.training.grid import Grid


def check_finite(step_losses: np.ndarray, grid: Grid, epoch: int) -> None:
  bad = ~np.isfinite(step_losses[:grid.num_cells])
  if bad.any():
    cell, step = map(int, np.argwhere(bad)[0])
    global_step = epoch * grid.solver.steps_per_epoch + step
    raise FloatingPointError(
        f"non-finite loss ({step_losses[cell, step]}) in cell "
        f"{grid.spec.cell_name(cell)} at epoch {epoch}, step {global_step}; "
        "lower config.train.learning_rate or check the embeddings")


# A cell whose epoch loss grew this many times over its lowest one diverges.
DIVERGENCE_FACTOR = 1e4
# Test sets smaller than this give F1 values that mean little (one answer
# moves the F1 of a cell by more than 0.03).
MIN_TEST_INSTANCES = 30


def diverging_cells(history: dict, grid: Grid) -> list[str]:
  """'cell: loss L at epoch E, lowest M' for every cell whose latest
  epoch loss is finite, DIVERGENCE_FACTOR times its lowest and above its
  first (a loss that went from 0 to 1e-4 has not diverged)."""
  losses = np.asarray(history["train"].get("loss", []), dtype=float)
  if len(losses) < 2:
    return []
  out = []
  for i in range(losses.shape[1]):
    last, low = losses[-1, i], losses[:, i].min()
    if (np.isfinite(last) and last > DIVERGENCE_FACTOR * max(low, 1e-12)
        and last > losses[0, i]):
      out.append(f"{grid.spec.cell_name(i)}: loss {last:.3g} at epoch "
                 f"{len(losses) - 1}, lowest {low:.3g}")
  return out


def small_test_sets(data: input_pipeline.BLMData) -> list[str]:
  """One line per test type too small for its F1 to mean much."""
  return [f"test type {u} has {table.num_instances} instance(s): its F1 "
          f"means little (fewer than {MIN_TEST_INSTANCES})"
          for u, table in data.test.items()
          if table.num_instances < MIN_TEST_INSTANCES]
