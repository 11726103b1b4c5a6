"""The one-level sequence VAE (`vae`) against a torch re-implementation of
the authors' VariationalAutoencoder with the same weights."""

import types

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from blm_jax import models
from blm_jax.models import strided_conv
from blm_jax.training import config_check
from configs import vae as vae_config
from tests import synthetic

torch = pytest.importorskip("torch")
from tests import torch_reference as ref  # noqa: E402


def test_their_padding_of_32_by_24_with_stride_15():
  p = strided_conv.plan((7, 32, 24), (3, 15, 15), (1, 15, 15))
  assert p["pads"] == (0, 13, 6) and p["windows"] == (5, 3, 2)
  assert p["out_pads"][1:] == (13, 6)


@pytest.mark.parametrize("dim,x_dim,kernel,stride", [
    (60, 6, (3, 4, 4), (1, 4, 4)),  # padded on both sentence axes
    (768, 32, (3, 15, 15), (1, 15, 15)),  # their default
])
def test_forward_and_loss_match_the_authors_module(dim, x_dim, kernel,
                                                   stride):
  seq, a, latent = 7, 4, 5
  torch.manual_seed(0)
  tm = ref.SeqVAE(dim, seq, x_dim, latent, ch=3, kernel=kernel,
                  stride=stride)
  c = vae_config.get_config("reference")
  c.model.grid_shape, c.model.conv_kernel, c.model.conv_stride = (
      (x_dim, dim // x_dim), kernel, stride)
  c.model.hidden_channels = 3
  correct = np.array([1, 3])
  solver, batch, ctx, ans = ref.ours(c, dim, seq, correct, a)
  model = solver.model
  params = ref.seq_vae_params(tm)
  ref.assert_same_shapes(solver, params, batch)
  total, terms, out, _ = solver.objective(params, batch, False)
  with torch.no_grad():
    pred, mean, logvar, _ = tm(torch.tensor(ctx))  # z = the mean
    want = (ref.answer_margin(pred, torch.tensor(ans), torch.tensor(correct))
            + ref.kl(mean, logvar) * latent / dim)
  np.testing.assert_allclose(out.pred, ref.to_np(pred), rtol=1e-4,
                             atol=1e-5)
  np.testing.assert_allclose(out.latent, ref.to_np(mean), rtol=1e-4,
                             atol=1e-5)
  np.testing.assert_allclose(float(jnp.mean(total)), float(want), rtol=1e-4)
  # Training decodes a sample of the latent, with their decoder's maths.
  got = model.apply(params, batch.ctx, batch.ctx_mask, True,
                    rngs={"sample": jax.random.key(5)})
  z = np.asarray(got.latent)
  assert not np.allclose(z, out.latent)
  with torch.no_grad():
    np.testing.assert_allclose(
        got.pred, ref.to_np(tm.decoder(torch.tensor(z))), rtol=1e-4,
        atol=1e-5)


def test_a_tiny_grid_trains(tmp_path):
  from blm_jax.results.experiment import run_experiment
  cfg = synthetic.config("vae", epochs=2, seeds=(0, 1), types=("I",))
  cfg.model.grid_shape, cfg.model.conv_kernel, cfg.model.conv_stride = (
      (4, 2), (2, 2, 2), (1, 2, 2))
  cfg.model.hidden_channels = 2
  data = synthetic.data(n_train=40, n_dev=20, n_test=20, types=("I",))
  res = run_experiment(cfg, str(tmp_path), data=data)
  assert res["config"]["model"] == "vae" and len(res["cells"]) == 2
  assert "task_kl" in res["cells"][0]["history"]["train"]


def test_bad_kernels_and_foreign_keys_are_named():
  c = vae_config.get_config(None)
  c.model.task_latent = 5
  assert config_check.problems(c) == [
      "config.model.task_latent is not a key of the 'vae' solver; its "
      "config.model keys: categorical_vars, categories, conv_kernel, "
      "conv_stride, grid_shape, gumbel_input, hidden_channels, latent, "
      "latent_kind, name, temperature"]
  c = vae_config.get_config(None)
  c.model.conv_kernel = (15, 15)
  with pytest.raises(ValueError, match=r"config.model.conv_kernel=\(15, "
                     r"15\), config.model.conv_stride=\(1, 15, 15\): need 3 "
                     "sizes each"):
    models.registry.get("vae").check_data(
        c, types.SimpleNamespace(num_context=7, embed_dim=768))
