"""Minor faults of issue 37: each is fixed or one clear line."""

import types

from blm_jax.training import trainer as train


def _grid(cells):
  spec = types.SimpleNamespace(cell_name=lambda i: f"cell{i}")
  return types.SimpleNamespace(spec=spec, num_cells=cells)


def test_a_loss_from_zero_to_tiny_is_not_divergence():
  history = {"train": {"loss": [[1.2, 1.2], [0.0, 1e-5], [1e-4, 5.0]]}}
  assert train.diverging_cells(history, _grid(2)) == [
      "cell1: loss 5 at epoch 2, lowest 1e-05"]
