"""config_check: every bad value named with its key and the valid choices,
before any data; config variants parsed by the type of their default."""

import pytest

from blm_jax.training import config_check
from configs import common, ffnn, vae2


def _problems(config=ffnn, **overrides):
  c = config.get_config(None)
  for key, value in overrides.items():
    section, field = key.split("__")
    c[section][field] = value
  return config_check.problems(c)


def test_shipped_configs_are_valid():
  for arg in (None, "cpu", "reference", "paper,cpu", "dataset=cos_it"):
    assert config_check.problems(vae2.get_config(arg)) == []


@pytest.mark.parametrize("key,value,expected", [
    ("model__name", "vea2", "config.model.name='vea2' is not known (did you "
     "mean 'vae2'?); expected one of 'ffnn', 'cnn', 'sent_vae', 'vae2'"),
    ("train__optimizer", "sgd", "config.train.optimizer='sgd' is not known"),
    ("train__score", "cos", "expected one of 'dot', 'cosine'"),
    ("train__predict_score", "l2", "config.train.predict_score='l2'"),
    ("train__select_by", "acc", "config.train.select_by='acc' is not known "
     "(did you mean 'accuracy'?)"),
    ("loss__answer_reduction", "max", "config.loss.answer_reduction='max'"),
    ("loss__answer_margin", -1.0, "config.loss.answer_margin=-1.0"),
    ("encoder__name", "minilmm", "config.encoder.name='minilmm' is not known "
     "(did you mean 'minilm'?)"),
    ("encoder__name", "./no/such/folder",
     "config.encoder.name='./no/such/folder': the folder"),
    ("train__batch_size", 0, "config.train.batch_size=0: must be an integer "
     "> 0"),
    ("train__checkpoint_every_epochs", 0,
     "config.train.checkpoint_every_epochs=0: must be an integer > 0"),
    ("data__num_train", 0, "config.data.num_train=0: must be an integer > 0"),
    ("data__dev_fraction", 0.0, "config.data.dev_fraction=0.0: must be a "
     "number in (0, 1)"),
    ("data__dev_fraction", 1.0, "config.data.dev_fraction=1.0"),
    ("train__epochs", 0, "config.train.epochs=0: must be an integer > 0 (0 "
     "would write the results of an untrained model)"),
    ("train__epochs", -3, "config.train.epochs=-3"),
    ("train__eval_chunk", 0, "config.train.eval_chunk=0: must be an integer "
     "> 0"),
    ("train__resume", "yes", "config.train.resume='yes' is not known; "
     "expected one of 'auto', 'force', 'restart'"),
    ("train__keep_checkpoints", 0,
     "config.train.keep_checkpoints=0: must be an integer >= 1"),
])
def test_each_bad_value_is_named(key, value, expected):
  found = _problems(**{key: value})
  assert len(found) == 1, found
  assert expected in found[0]


@pytest.mark.parametrize("key,value,expected", [
    ("loss__sentence_reduction", "avg",
     "expected one of 'sum', 'mean'"),
    ("loss__sentence_score", "norm", "config.loss.sentence_score='norm'"),
    ("loss__kl_scale", "dim", "expected one of 'none', 'latent_over_dim'"),
    ("loss__task_kl", -0.5, "config.loss.task_kl=-0.5: must be a number >= 0"),
    ("model__task_level", "rnn", "config.model.task_level='rnn' is not "
     "known; expected one of 'mlp', 'conv'"),
])
def test_each_bad_vae2_value_is_named(key, value, expected):
  found = _problems(vae2, **{key: value})
  assert len(found) == 1, found
  assert expected in found[0]


def test_another_solvers_key_is_named_with_the_solvers_keys():
  # An FFNN config has no VAE keys ...
  c = ffnn.get_config(None)
  assert "latent" not in c.model and "task_kl" not in c.loss
  assert sorted(c.model) == ["hidden_factor", "name"]
  assert sorted(c.loss) == ["answer_margin", "answer_reduction"]
  # ... so setting one on it (unlocked) is reported, naming the key.
  c.loss.task_kl = 2.0
  assert config_check.problems(c) == [
      "config.loss.task_kl is not a key of the 'ffnn' solver; its "
      "config.loss keys: answer_margin, answer_reduction"]
  # A locked config (as launch.py loads it) refuses it outright.
  c = ffnn.get_config(None)
  c.lock()
  with pytest.raises(AttributeError, match="latent"):
    c.model.latent = 5


def test_a_missing_solver_key_is_named():
  c = vae2.get_config(None)
  del c.model["task_kernel"]
  assert config_check.problems(c) == [
      "config.model.task_kernel is missing (a 'vae2' config has every key "
      "of config_defaults.default_config('vae2'))"]


def test_hub_names_and_folders_are_accepted(tmp_path):
  for name in ("minilm", "electra", "google/electra-base-discriminator",
               "someorg/some-model", str(tmp_path)):
    assert _problems(encoder__name=name) == []


def test_validate_lists_every_problem_at_once():
  c = ffnn.get_config(None)
  c.train.epochs = 0
  c.train.batch_size = 0
  with pytest.raises(config_check.ConfigError) as e:
    config_check.validate(c)
  assert str(e.value).splitlines() == [
      "invalid config:",
      "  config.train.epochs=0: must be an integer > 0 (0 would write the "
      "results of an untrained model)",
      "  config.train.batch_size=0: must be an integer > 0"]


@pytest.mark.slow
def test_train_and_evaluate_validates_before_anything(tmp_path):
  from blm_jax.training import trainer as train

  c = ffnn.get_config(None)
  c.model.name = "fnn"

  def embed_fn(sentences):
    raise AssertionError("embedding ran before validation")

  with pytest.raises(config_check.ConfigError, match="config.model.name='fnn'"):
    train.train_and_evaluate(c, str(tmp_path / "work"), embed_fn=embed_fn)
  assert not (tmp_path / "work").exists()


def test_dataset_names_suggest_the_closest():
  c = ffnn.get_config(None)
  config_check.check_dataset_names(c)
  c.data.name = "blm_spray_lod/ALT-ATL_type_{}"
  with pytest.raises(config_check.ConfigError) as e:
    config_check.check_dataset_names(c)
  assert str(e.value) == ("config.data.name='blm_spray_lod/ALT-ATL_type_{}': "
                          "no dataset 'blm_spray_lod'; did you mean "
                          "'blm_spray_load'?")
  c.data.name = "blm_spray_load/ALT-ALT_type_{}"
  with pytest.raises(config_check.ConfigError,
                     match="did you mean 'blm_spray_load/ATL-ALT_type_I'"):
    config_check.check_dataset_names(c)


@pytest.mark.parametrize("text,value", [
    ("cpu=False", False), ("cpu=false", False), ("cpu=0", False),
    ("cpu=True", True), ("cpu", True), ("cpu=yes", True)])
def test_boolean_variants_parse_by_type(text, value):
  assert common.parse_arg(text, cpu=False, n=3).cpu is value
  # cpu=False must really mean the paper schedule.
  if not value:
    assert ffnn.get_config(text).train.epochs == 120


def test_variant_values_that_do_not_parse_are_rejected():
  with pytest.raises(ValueError) as e:
    common.parse_arg("cpu=maybe", cpu=False)
  assert str(e.value) == (
      "config variant cpu='maybe' is not a boolean; accepted: cpu (= true), "
      "cpu=true or cpu=false (also 1/yes/on and 0/no/off)")
  with pytest.raises(ValueError, match="config variant n='x' is not an "
                     "integer"):
    common.parse_arg("n=x", n=3)
  assert common.parse_arg("n=7", n=3).n == 7
  with pytest.raises(ValueError, match="config variant 'dataset' needs a "
                     "value: dataset=<value>"):
    common.parse_arg("dataset", dataset="spray_load")
