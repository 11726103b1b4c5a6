"""two_level_vae_subnets against a torch re-implementation of the authors'
VariationalAutoencoder_2level_subnets with the same weights; its mask
checks; a tiny grid."""

import re
import types

import jax.numpy as jnp
import numpy as np
import pytest

from blm_jax.models import two_level_vae_subnets as subnets
from blm_jax.training import config_check
from configs import two_level_vae_subnets as config_file
from tests import synthetic

torch = pytest.importorskip("torch")
from tests import torch_reference as ref  # noqa: E402


def _ours_from_channels_first(ch: int, windows) -> np.ndarray:
  """Our region-output index (window, channel) -> theirs (channel, window)."""
  p = int(np.prod(windows))
  return (np.arange(ch)[None, :] * p + np.arange(p)[:, None]).ravel()


def _masked(layer, perm) -> dict:
  out = {"kernel": ref.to_np(layer.weight).T[perm],
         "scale": ref.to_np(layer.scale)[perm],
         "logits": ref.to_np(layer.logits)[perm]}
  if layer.bias is not None:
    out["bias"] = ref.to_np(layer.bias)
  return out


def _params(tm):
  perm = _ours_from_channels_first(tm.ch, tm.windows)
  return {"params": {
      "sentence": {
          "enc_kernel": ref.to_np(tm.conv.weight).transpose(2, 3, 1, 0),
          "enc_bias": ref.to_np(tm.conv.bias),
          "enc_masked": _masked(tm.lin_mask, perm),
          "enc_logvar": ref.dense_from_channels_first(tm.lin_sd, tm.ch,
                                                      tm.windows),
          "dec_masked": _masked(tm.dec_mask, perm),
          "dec_kernel": ref.to_np(tm.convT.weight).transpose(2, 3, 0, 1),
          "dec_bias": ref.to_np(tm.convT.bias)},
      "task_enc": ref.conv_task_params(tm),
      # vae2's banded 'VALID' transposed convolution
      "task_dec": ref.banded_decoder_params(tm.answer)}}


@pytest.mark.slow
@pytest.mark.parametrize("dim,x_dim,k,temperature",
                         [(60, 6, 4, 1e-6), (60, 6, 4, 0.3),
                          (768, 32, 15, 1e-6)])
def test_forward_and_loss_match_the_authors_module(dim, x_dim, k,
                                                   temperature):
  # One instance of 4 sentences: their negatives (the next three of the
  # flattened batch) are then exactly the instance's other sentences.
  seq, a = 4, 5
  torch.manual_seed(0)
  tm = ref.TwoLevelSubnets(dim, seq, x_dim, ch=3, k=k, task_ch=3, ans_ch=2,
                           temperature=temperature)
  c = config_file.get_config("reference")
  c.model.grid_shape = (x_dim, dim // x_dim)
  c.model.kernel = c.model.stride = k
  c.model.hidden_channels, c.model.task_channels = 3, 3
  c.model.answer_channels = 2
  c.model.mask_temperature = temperature
  correct = np.array([2])
  solver, batch, ctx, ans = ref.ours(c, dim, seq, correct, a, seed=1)
  params = _params(tm)
  outputs = ref.assert_two_level_parity(solver, params, batch, tm, ctx, ans,
                                       correct)
  mean = outputs[4]
  sent = solver.model.apply(params, batch.ctx, batch.ctx_mask,
                            method="sentence_latent")
  np.testing.assert_allclose(sent[0], ref.to_np(mean), rtol=1e-4, atol=1e-5)


def _tiny(epochs=2, seeds=(0, 1)):
  cfg = synthetic.config("two_level_vae_subnets", epochs=epochs, seeds=seeds,
                         types=("I",))
  cfg.model.grid_shape = (4, 2)  # synthetic.DIM = 8
  cfg.model.kernel = cfg.model.stride = 2
  cfg.model.hidden_channels, cfg.model.task_channels = 3, 2
  cfg.model.answer_channels, cfg.model.task_kernel = 2, 2
  return cfg


@pytest.mark.slow
def test_a_tiny_grid_trains_and_probe_maps_its_regions(tmp_path):
  import json
  import os

  from blm_jax.analysis import probing
  from blm_jax.results.experiment import run_experiment
  data = synthetic.data(n_train=40, n_dev=20, n_test=20, types=("I",))
  res = run_experiment(_tiny(), str(tmp_path), data=data)
  assert res["config"]["model"] == "two_level_vae_subnets"
  assert set(res["cells"][0]["history"]["train"]) >= {
      "task_kl", "sentence_margin", "sentence_kl"}
  assert "regions" in probing.default_analyses("two_level_vae_subnets")
  assert "regions" not in probing.default_analyses("vae2")
  result = probing.analyze(str(tmp_path), ("regions",), data=data)
  cells = result["regions"]["cells"]
  assert set(cells) == {"seed=0,train=I", "seed=1,train=I"}
  for c in cells.values():
    assert [s["rows"] for s in c["regions"]] == [[0, 2], [2, 4]]
    frac = np.asarray(c["weight_fraction"])  # [regions, units]
    assert frac.shape == (2, 5)
    np.testing.assert_allclose(frac.sum(axis=0), 1.0, rtol=1e-5)
    np.testing.assert_allclose(np.sum(c["mask_share"], axis=1), 1.0,
                               rtol=1e-5)
    assert sum(c["outputs_per_unit"]) == 6  # 2 windows x 3 channels
    assert len(c["pattern_eta2"]) == 5
    assert c["property_unit"] == int(np.argmax(c["pattern_eta2"]))
  out = os.path.join(tmp_path, "probe")
  assert json.load(open(os.path.join(out, "probe.json")))["regions"]
  with open(os.path.join(out, "regions.png"), "rb") as f:
    assert f.read(8) == b"\x89PNG\r\n\x1a\n"
  assert "the sentence pattern lives in unit" in probing.summary_text(result)
  # A suite's report (the solvers suite probes this model) lists each
  # cell's line under its own heading, not as one of 000 sec. 7's probes.
  from blm_jax.analysis import regions
  from blm_jax.study import paper_comparison
  md = "\n".join(paper_comparison.sections({}, {"cos_en": result}))
  assert "000 Figures 20-22" not in md
  assert "## Where the sentence pattern lives (region maps)" in md
  for cell, c in cells.items():
    assert c["summary"] == regions.summary(c)
    assert f"| cos_en | {cell} | {c['summary']} |" in md


def test_regions_refuses_models_without_a_map(tmp_path):
  from blm_jax.analysis import probing
  with open(tmp_path / "config.json", "w") as f:
    f.write(synthetic.config("vae2").to_json())
  with pytest.raises(ValueError, match=(
      r"--analysis=regions needs a run of \['two_level_vae_subnets'\]; "
      r".* holds a 'vae2' run")):
    probing.analyze(str(tmp_path), ("regions",))


@pytest.mark.slow
def test_masks_are_one_hot_and_their_logits_get_no_gradient():
  import jax
  m = subnets.SubnetSentenceVAE(embed_dim=8, grid_shape=(4, 2), channels=3,
                                kernel=2, stride=2, latent=5,
                                masked_weights_train=False)
  x = jnp.ones((2, 8))
  params = m.init({"params": jax.random.key(0),
                   "sample": jax.random.key(1)}, x)
  masks = m.apply(params, method="region_masks")["mask"]
  assert masks.shape == (2, 1, 3, 5)  # windows 2 x 1, channels, units
  np.testing.assert_array_equal(masks.max(-1), 1.0)  # one unit each
  assert (masks.sum(axis=(0, 1, 2)) >= 1).all()  # every unit is fed
  assert m.apply(params, method="region_masks")["units"].tolist() == [
      0, 1, 2, 3, 4]
  theirs = m.clone(latent_layout="interleaved")
  got = theirs.apply(params, method="region_masks")
  assert got["units"].tolist() == [0, 1, 2]  # masked outputs 0, 2, 4
  np.testing.assert_array_equal(got["mask"], masks[..., 0::2])
  grads = jax.grad(lambda p: jnp.sum(m.apply(p, x)[0] ** 2))(params)
  for layer in ("enc_masked", "dec_masked"):
    for k in ("kernel", "scale", "logits"):
      assert not jnp.any(grads["params"][layer][k]), (layer, k)
  assert jnp.any(grads["params"]["enc_masked"]["bias"])
  assert jnp.any(grads["params"]["enc_kernel"])
  # Trained: the weights and scales move; at T = 1e-6 the logits do not.
  trained = m.clone(masked_weights_train=True)
  grads = jax.grad(lambda p: jnp.sum(trained.apply(p, x)[0] ** 2))(params)
  for layer in ("enc_masked", "dec_masked"):
    assert jnp.any(grads["params"][layer]["kernel"]), layer
    assert not jnp.any(grads["params"][layer]["logits"]), layer


def test_region_spans_cover_the_array_without_padding():
  spans = subnets.region_spans((32, 24), 15, 15)  # padded by 13 and 6
  assert [s["rows"] for s in spans[::2]] == [[0, 2], [2, 17], [17, 32]]
  assert [s["cols"] for s in spans[:2]] == [[0, 9], [9, 24]]
  assert sum(s["dims"] for s in spans) == 768


def test_a_schedule_that_feeds_no_unit_is_refused():
  c = config_file.get_config(None)
  c.model.mask_temperature = 1.0
  assert config_check.problems(c) == [
      "config.model.mask_temperature=1.0 leaves no latent unit fed: with 5 "
      "units a region gives at most 0.40 of its mask to one unit (logits "
      "start in [0, 1)), so every region feeds every unit about equally; "
      "use at most 0.721 (their code: 1e-6)"]
  c.model.mask_temperature = 0.0
  assert config_check.problems(c) == [
      "config.model.mask_temperature=0.0 must be > 0 (the masks are "
      "softmax(mask logits / temperature))"]


def test_too_few_region_outputs_or_sentences_are_refused():
  from blm_jax.models import registry
  c = _tiny()
  c.model.hidden_channels = 2  # 2 windows x 2 channels < 5 units
  data = synthetic.data(n_train=4, n_dev=2, n_test=2, types=("I",))
  with pytest.raises(ValueError, match=(
      r"^config\.model\.latent=5 masked units but the sentence encoder has "
      r"only 4 region outputs \(2 windows x "
      r"config\.model\.hidden_channels=2\): some unit would be fed by no "
      r"region$")):
    registry.get("two_level_vae_subnets").check_data(c, data)
  c.model.hidden_channels = 3
  one = types.SimpleNamespace(embed_dim=8, num_context=1)
  with pytest.raises(ValueError, match=(
      r"^config\.model\.name='two_level_vae_subnets' needs at least 2 "
      r"context sentences")):
    registry.get("two_level_vae_subnets").check_data(c, one)


def test_foreign_keys_are_named():
  c = config_file.get_config(None)
  c.model.task_level = "mlp"  # vae2's key
  assert config_check.problems(c) == [
      "config.model.task_level is not a key of the 'two_level_vae_subnets' "
      "solver; its config.model keys: answer_channels, grid_shape, "
      "hidden_channels, kernel, latent, latent_layout, mask_temperature, "
      "masked_weights_train, name, stride, task_channels, task_kernel, "
      "task_latent"]


def test_an_answer_kernel_larger_than_the_array_is_refused():
  """The answer decoder's 'VALID' kernel is refused, not shrunk, whether
  grid_shape is set (before any data) or derived from D."""
  from blm_jax import models
  from blm_jax.models import registry
  c = config_file.get_config(None)
  c.model.grid_shape = (4, 2)
  assert config_check.problems(c) == [
      "config.model.kernel=15 does not fit config.model.grid_shape=(4, 2): "
      "a 15x15 transposed convolution (the answer decoder) needs both sides "
      ">= 15; set config.model.kernel <= 2"]
  c.model.grid_shape = ()
  derived = ("config.model.kernel=15 does not fit the 4 x 2 sentence array "
             "derived from D = 8 (config.model.grid_shape unset): a 15x15 "
             "transposed convolution (the answer decoder) needs both sides "
             ">= 15; set config.model.kernel <= 2")
  data = types.SimpleNamespace(embed_dim=8, num_context=4)
  with pytest.raises(ValueError, match=r"^" + re.escape(derived) + "$"):
    registry.get("two_level_vae_subnets").check_data(c, data)
  with pytest.raises(ValueError, match=r"^" + re.escape(derived) + "$"):
    models.create_model(c.model, embed_dim=8, num_context=4, score="cosine",
                        loss_cfg=c.loss)


def test_a_refusal_found_on_the_data_is_one_error_line():
  """The same refusal raised by the solver's data check reaches the command
  line as one 'error:' line (trainer.DataMismatchError), not a traceback."""
  import launch
  from blm_jax.training import trainer
  c = config_file.get_config(None)
  c.model.grid_shape = ()
  c.data.num_answers = 0
  c.data.seed_follows_grid = False
  data = types.SimpleNamespace(embed_dim=8, num_context=4, num_answers=9)
  with pytest.raises(trainer.DataMismatchError) as e:
    trainer.check_compatible(c, data)
  line = launch.error_line(e.value)
  assert line.startswith("error: config.model.kernel=15 does not fit the 4 x 2")
  assert "\n" not in line
