"""Run identity: only the keys of the run's solver and the shared sections
count, so FFNN runs saved when every config carried every solver's keys
still resume."""

import pytest

from blm_jax.training import resume, run_identity, trainer as train
from tests import synthetic

# What an FFNN run's saved identity held besides its own keys while every
# config carried every solver's section (55 keys, up to 2026-11-24).
OTHER_SOLVERS_KEYS = {
    "loss.kl_scale": "none", "loss.sentence_kl": 1.0,
    "loss.sentence_margin": 1.0, "loss.sentence_reduction": "sum",
    "loss.sentence_score": "", "loss.task_kl": 1.0,
    "model.channels": [8, 8, 8], "model.decoder_hidden_relu": True,
    "model.decoder_output_relu": False, "model.grid_shape": [],
    "model.kernel": 15, "model.latent": 5, "model.task_channels": 32,
    "model.task_hidden": 64, "model.task_kernel": 4, "model.task_latent": 5,
    "model.task_level": "mlp"}


@pytest.fixture(scope="module")
def data():
  return synthetic.data(n_train=40, n_dev=20, n_test=20)


def _saved(identity, **extra):
  return {**identity, "config": {**identity["config"], **extra}}


def test_another_solvers_key_does_not_change_an_ffnn_identity(data):
  now = run_identity.fingerprint(synthetic.config("ffnn"), data)
  assert not any(k in now["config"] for k in OTHER_SOLVERS_KEYS)
  assert run_identity.differences(
      _saved(now, **OTHER_SOLVERS_KEYS), now) == []
  for kernel in (4, 8):
    assert run_identity.differences(
        _saved(now, **{**OTHER_SOLVERS_KEYS, "model.task_kernel": kernel}),
        now) == []
  # A real FFNN key still counts, and so does a shared one.
  assert run_identity.differences(
      _saved(now, **OTHER_SOLVERS_KEYS, **{"model.hidden_factor": 3.5}),
      now) == ["config.model.hidden_factor: 3.5 -> 2.0"]
  assert run_identity.differences(
      _saved(now, **{"loss.answer_margin": 2.0}), now) == [
          "config.loss.answer_margin: 2.0 -> 1.0"]


def test_a_vae2_run_compares_its_own_keys(data):
  now = run_identity.fingerprint(synthetic.config("vae2"), data)
  assert run_identity.differences(
      _saved(now, **{"model.task_kernel": 8}), now) == [
          "config.model.task_kernel: 8 -> 4"]
  # The FFNN key an old vae2 identity held is not a vae2 key.
  assert run_identity.differences(
      _saved(now, **{"model.hidden_factor": 3.5}), now) == []


@pytest.mark.slow
def test_an_ffnn_run_saved_with_every_solvers_keys_resumes(tmp_path, data,
                                                           monkeypatch):
  cfg = synthetic.config("ffnn", epochs=2)
  real = run_identity.fingerprint
  monkeypatch.setattr(run_identity, "fingerprint", lambda c, d: _saved(
      real(c, d), **OTHER_SOLVERS_KEYS))
  train.train_and_evaluate(cfg, str(tmp_path), data=data)
  monkeypatch.setattr(run_identity, "fingerprint", real)
  cfg.train.epochs = 3
  assert cfg.train.resume == "auto"
  train.train_and_evaluate(cfg, str(tmp_path), data=data)
  assert "resumed from epoch 1" in (tmp_path / "log.txt").read_text()
  cfg.model.hidden_factor = 3.0
  with pytest.raises(resume.RunMismatchError,
                     match="config.model.hidden_factor: 2.0 -> 3.0"):
    train.train_and_evaluate(cfg, str(tmp_path), data=data)
