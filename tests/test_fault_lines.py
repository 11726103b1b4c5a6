"""Minor faults of issue 37: each is fixed or one clear line."""

import os
import types

from blm_jax.training import trainer as train


def _grid(cells):
  spec = types.SimpleNamespace(cell_name=lambda i: f"cell{i}")
  return types.SimpleNamespace(spec=spec, num_cells=cells)


def test_a_loss_from_zero_to_tiny_is_not_divergence():
  history = {"train": {"loss": [[1.2, 1.2], [0.0, 1e-5], [1e-4, 5.0]]}}
  assert train.diverging_cells(history, _grid(2)) == [
      "cell1: loss 5 at epoch 2, lowest 1e-05"]


def test_export_refuses_a_path_traversal_name_in_one_line(tmp_path):
  import pytest
  from blm_jax.cli import export
  f = types.SimpleNamespace(dataset="blm_spray_load/../../evil",
                            out=str(tmp_path / "out"), format="jsonl",
                            split=None, data_dir=str(tmp_path / "d"),
                            manual_dir=None)
  with pytest.raises(SystemExit) as e:
    export.run(f)
  assert str(e.value).startswith(
      "error: --dataset=blm_spray_load/../../evil: 'blm_spray_load' has no "
      "config '../../evil'; its 9 configs: ALT-ATL_type_I, ")
  assert not (tmp_path / "out").exists() and not (tmp_path / "d").exists()


def test_build_agreement_lists_the_valid_config_names(tmp_path):
  import pytest
  from blm_jax.cli import build_agreement
  n = len(build_agreement.bab.CONFIG_NAMES)
  with pytest.raises(SystemExit) as e:
    build_agreement.main(["--data_dir", str(tmp_path), "zzzz"])
  line = str(e.value)
  assert line.startswith("error: 'blm_agreement' has no config 'zzzz'; its "
                         f"{n} configs: en_main_type_I, ")
  assert "\n" not in line and "..." not in line
  assert not os.listdir(tmp_path)
