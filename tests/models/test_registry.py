"""The solver registry: a solver is one module plus one config file, each
config holds only its solver's keys, and nothing branches on a name."""

import json

import pytest

from blm_jax import models
from blm_jax.models import registry
from blm_jax.results.experiment import run_experiment
from blm_jax.training import config_check, config_defaults
from blm_jax.training import grid as grid_lib, trainer as train
from tests import synthetic, toy_config, toy_solver


def test_builtins_are_registered_in_order():
  assert registry.names()[:4] == ("ffnn", "cnn", "sent_vae", "vae2")
  assert registry.get("vae2").loss_terms == (
      "task_kl", "sentence_margin", "sentence_kl", "task_categorical_kl",
      "sentence_categorical_kl")
  assert registry.get("sent_vae").loss_terms == ("sentence_kl",
                                                 "sentence_categorical_kl")
  assert registry.get("ffnn").loss_terms == ()


def test_unknown_name_names_the_key_and_the_known_solvers():
  with pytest.raises(ValueError) as e:
    registry.get("vea2")
  msg = str(e.value)
  assert msg.startswith("config.model.name='vea2' is not a known solver "
                        "(did you mean 'vae2'?); expected one of 'ffnn', "
                        "'cnn', 'sent_vae', 'vae2'")
  with pytest.raises(ValueError, match="config.model.name='rnn'"):
    config_defaults.default_config("rnn")


def test_a_name_is_registered_once():
  registry.register(toy_solver.SPEC)  # The same spec again: a no-op.
  other = registry.SolverSpec(name="ffnn", model={}, build=lambda *a: None)
  with pytest.raises(ValueError, match="'ffnn' is already registered"):
    registry.register(other)
  with pytest.raises(ValueError, match=r"loss terms \['x'\] have no default"):
    registry.SolverSpec(name="bad", model={}, build=lambda *a: None,
                        loss_terms=("x",))


def test_a_config_holds_only_its_solvers_keys():
  ffnn = config_defaults.default_config("ffnn")
  assert sorted(ffnn.model) == ["hidden_factor", "name"]
  assert sorted(ffnn.loss) == ["answer_margin", "answer_reduction"]
  sent = config_defaults.default_config("sent_vae")
  assert "task_latent" not in sent.model and "task_kl" not in sent.loss
  vae2 = config_defaults.default_config("vae2")
  assert {"task_kl", "sentence_margin", "sentence_kl", "sentence_reduction",
          "sentence_score", "kl_scale"} <= set(vae2.loss)
  # The shared sections are the same for every solver.
  for name in registry.names()[:4]:
    c = config_defaults.default_config(name)
    for section in ("data", "encoder", "train", "grid"):
      assert c[section].to_dict() == ffnn[section].to_dict(), (name, section)
  assert config_check.problems(toy_config.get_config()) == []


def test_grid_form_per_platform_comes_from_the_spec():
  assert grid_lib.resolve_mode("auto", toy_solver.NAME, "cpu") == "scan"
  assert grid_lib.resolve_mode("auto", toy_solver.NAME, "gpu") == "vmap"


def test_loss_weights_keep_their_names_and_kl_scaling():
  cfg = synthetic.config("sent_vae")
  cfg.loss.kl_scale = "latent_over_dim"
  assert dict(train.loss_weights(cfg, 384)) == {
      "answer_margin": 1.0, "sentence_kl": 5 / 384}
  assert dict(train.loss_weights(synthetic.config("ffnn"), 8)) == {
      "answer_margin": 1.0}


@pytest.mark.slow
def test_a_toy_solver_trains_end_to_end(tmp_path):
  cfg = toy_config.get_config()
  assert sorted(cfg.model) == ["context_used", "hidden", "name"]
  data = synthetic.data(n_train=60, n_dev=20, n_test=20)
  res = run_experiment(cfg, str(tmp_path), data=data)
  assert res["config"]["model"] == toy_solver.NAME
  assert res["config"]["loss_weights"] == {"answer_margin": 1.0,
                                           "pred_norm": 0.5}
  cell = res["cells"][0]
  assert len(res["cells"]) == 4  # 2 seeds x 2 train types
  assert len(cell["history"]["train"]["pred_norm"]) == 3
  assert set(res["summary"]) == {"I", "II"}
  saved = json.loads((tmp_path / "config.json").read_text())
  assert saved["model"] == {"name": toy_solver.NAME, "hidden": 8,
                            "context_used": 3}
  # Its data check names its config key, before anything is compiled.
  cfg.model.context_used = 5
  with pytest.raises(ValueError, match="config.model.context_used=5 but "
                     "'synthetic_{}' has 4 context sentences"):
    train.train_and_evaluate(cfg, str(tmp_path / "short"), data=data)
  assert not (tmp_path / "short").exists()
  # Its config check runs with the others.
  cfg.model.context_used = 0
  with pytest.raises(config_check.ConfigError,
                     match="config.model.context_used=0: must be >= 1"):
    train.train_and_evaluate(cfg, str(tmp_path / "bad"), data=data)


def test_create_model_builds_from_the_spec():
  cfg = config_defaults.default_config("cnn").model
  cfg.channels = (2,)
  m = models.create_model(cfg, embed_dim=4, num_context=3, score="dot")
  assert isinstance(m, models.CNN) and m.channels == (2,)
