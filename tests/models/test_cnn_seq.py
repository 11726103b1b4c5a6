"""cnn_seq against a torch re-implementation of the authors'
BaselineCNN_1DxSeq with the same weights: forward and loss."""

import jax.numpy as jnp
import numpy as np
import pytest

from blm_jax import models
from blm_jax.training import config_check
from configs import cnn_seq as cnn_seq_config
from tests import synthetic

torch = pytest.importorskip("torch")
from tests import torch_reference as ref  # noqa: E402


def _flax_params(tm, seq: int, dim: int) -> dict:
  """The torch module's weights in our layout: kernels [kh, kw, Ci, Co]
  (kh along the sentences), the dense rows in (row, column, channel)
  order instead of (channel, row, column)."""
  p = {}
  for i, conv in enumerate(tm.convs):
    p[f"conv{i + 1}"] = {
        "kernel": ref.to_np(conv.weight).transpose(2, 3, 1, 0),
        "bias": ref.to_np(conv.bias)}
  co = tm.convs[-1].out_channels
  w = ref.to_np(tm.fc.weight).reshape(dim, co, seq - 6, dim - 6)
  p["out"] = {"kernel": w.transpose(2, 3, 1, 0).reshape(-1, dim),
              "bias": ref.to_np(tm.fc.bias)}
  return {"params": p}


@pytest.mark.slow
@pytest.mark.parametrize("seq", [7, 8])
def test_forward_and_loss_match_the_authors_module(seq):
  dim, a = 10, 5
  torch.manual_seed(0)
  tm = ref.CNNSeq(dim, seq)
  c = cnn_seq_config.get_config("reference")
  correct = np.array([0, 3, 2])
  solver, batch, ctx, ans = ref.ours(c, dim, seq, correct, a)
  params = _flax_params(tm, seq, dim)
  ref.assert_same_shapes(solver, params, batch)
  total, terms, out, _ = solver.objective(params, batch, False)
  want_pred = tm(torch.tensor(ctx))
  np.testing.assert_allclose(out.pred, ref.to_np(want_pred), rtol=1e-5,
                             atol=1e-5)
  want_loss = ref.answer_margin(want_pred, torch.tensor(ans),
                                torch.tensor(correct))
  np.testing.assert_allclose(float(jnp.mean(total)),
                             float(want_loss.detach()), rtol=1e-5)


@pytest.mark.slow
def test_a_tiny_grid_trains(tmp_path):
  from blm_jax.results.experiment import run_experiment
  cfg = synthetic.config("cnn_seq", epochs=2, seeds=(0, 1), types=("I",))
  cfg.model.channels = (2, 2, 2)
  data = synthetic.data(n_train=40, n_dev=20, n_test=20, types=("I",),
                        num_context=7)
  res = run_experiment(cfg, str(tmp_path), data=data)
  assert res["config"]["model"] == "cnn_seq" and len(res["cells"]) == 2


def test_short_context_and_foreign_keys_are_refused():
  c = cnn_seq_config.get_config(None)
  assert sorted(c.model) == ["channels", "name", "output_relu"]
  c.model.hidden_factor = 3.5
  assert config_check.problems(c) == [
      "config.model.hidden_factor is not a key of the 'cnn_seq' solver; "
      "its config.model keys: channels, name, output_relu"]
  import types
  with pytest.raises(ValueError, match="need at least 7 context sentences; "
                     "the data has 4"):
    models.registry.get("cnn_seq").check_data(
        cnn_seq_config.get_config(None), types.SimpleNamespace(num_context=4))
