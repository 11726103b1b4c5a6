"""vae_1d_2level against a torch re-implementation of the authors'
VariationalAutoencoder_1D_2level with the same weights."""

import numpy as np
import pytest

from blm_jax.training import config_check
from configs import vae_1d_2level as config_file
from tests import synthetic

torch = pytest.importorskip("torch")
from tests import torch_reference as ref  # noqa: E402


@pytest.mark.parametrize("dim,x_dim,ans_k", [(60, 6, 4), (768, 32, 15)])
def test_forward_and_loss_match_the_authors_module(dim, x_dim, ans_k):
  # One instance of 4 sentences: their negatives (the next three of the
  # flattened batch) are then exactly the instance's other sentences.
  seq, a = 4, 5
  torch.manual_seed(0)
  tm = ref.TwoLevel1D(dim, seq, x_dim, ch=3, ans_k=ans_k, ans_s=ans_k)
  c = config_file.get_config("reference")
  c.model.grid_shape = (x_dim, dim // x_dim)
  c.model.answer_kernel = c.model.answer_stride = ans_k
  c.model.task_channels = 3
  correct = np.array([2])
  solver, batch, ctx, ans = ref.ours(c, dim, seq, correct, a, seed=1)
  params = ref.two_level_1d_params(tm)
  ref.assert_two_level_parity(solver, params, batch, tm, ctx, ans, correct)


@pytest.mark.slow
def test_a_tiny_grid_trains(tmp_path):
  from blm_jax.results.experiment import run_experiment
  cfg = synthetic.config("vae_1d_2level", epochs=2, seeds=(0, 1),
                         types=("I",))
  cfg.model.answer_kernel = cfg.model.answer_stride = 2
  cfg.model.task_channels, cfg.model.task_kernel = 2, 2
  data = synthetic.data(n_train=40, n_dev=20, n_test=20, types=("I",))
  res = run_experiment(cfg, str(tmp_path), data=data)
  assert res["config"]["model"] == "vae_1d_2level"
  assert set(res["cells"][0]["history"]["train"]) >= {
      "task_kl", "sentence_margin", "sentence_kl"}


def test_foreign_keys_are_named():
  c = config_file.get_config(None)
  c.model.hidden_factor = 2.0
  found = config_check.problems(c)
  assert found == [
      "config.model.hidden_factor is not a key of the 'vae_1d_2level' "
      "solver; its config.model keys: answer_kernel, answer_stride, "
      "categorical_vars, categories, grid_shape, gumbel_input, latent, "
      "latent_kind, name, task_categorical_vars, task_categories, "
      "task_channels, task_kernel, task_latent, task_latent_kind, "
      "temperature"]
