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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
@pytest.mark.parametrize("shape,kernel,stride", [
    ((7, 32, 24), (3, 15, 15), (1, 15, 15)),  # vae's encoder at D = 768
    ((7, 24, 16), (3, 15, 15), (1, 15, 15)),  # ... at 384 (ours)
    ((32, 24), (15, 15), (15, 15)),  # subnets' sentence convolution
    ((6, 10), (4, 4), (4, 4)), ((5, 7), (2, 3), (2, 3))])
def test_window_matmuls_are_xlas_convolutions(shape, kernel, stride,
                                              monkeypatch):
  """The non-overlapping-window path of strided_conv equals XLA's
  convolution (the general path) forwards, transposed and in gradient."""
  plan = strided_conv.plan(shape, kernel, stride)
  k = jax.random.split(jax.random.key(0), 4)
  x = jax.random.normal(k[0], (2, *shape, 3))
  w = jax.random.normal(k[1], (*kernel, 3, 4))
  y = jax.random.normal(k[2], (2, *plan["windows"][-2:], 4))
  wt = jax.random.normal(k[3], (*kernel[-2:], 4, 1))

  def both(fn):
    fast = fn()
    monkeypatch.setattr(strided_conv, "_windowed", lambda *a: False)
    slow = fn()
    monkeypatch.undo()
    # Sums of up to 2 x 7 x 3 x 2 window products: float32 rounding.
    np.testing.assert_allclose(fast, slow, rtol=1e-4, atol=1e-3)

  both(lambda: strided_conv.conv(x, w, stride, plan["pads"]))
  both(lambda: jax.grad(lambda w: jnp.sum(jnp.sin(strided_conv.conv(
      x, w, stride, plan["pads"]))))(w))
  sub = strided_conv.plan(shape[-2:], kernel[-2:], stride[-2:])
  both(lambda: strided_conv.conv_transpose(y, wt, stride[-2:], sub["pads"],
                                           sub["out_pads"]))
  out = strided_conv.conv_transpose(y, wt, stride[-2:], sub["pads"],
                                    sub["out_pads"])
  assert out.shape == (2, *shape[-2:], 1)
