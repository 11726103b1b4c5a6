"""The typed values a run is made of, read once from its config: each
section's keys, and a bad value refused in one line naming its key."""

import pytest

from blm_jax.data.input_pipeline import DataSpec
from blm_jax.training import config_check, config_defaults
from blm_jax.training.settings import GridSettings, TrainSettings


def test_every_section_of_a_default_config_reads():
  c = config_defaults.default_config("vae2")
  data = DataSpec(**c.data)
  assert data.train_types == ("I", "II", "III") == data.test_types
  assert TrainSettings(**c.train).epochs == 120
  grid = GridSettings(controls="answer_only,random_encoder", **c.grid)
  assert grid.seeds == (0, 1, 2)
  assert grid.controls == ("answer_only", "random_encoder")
  assert GridSettings(**c.grid).controls == ()


@pytest.mark.parametrize("make, message", [
    (lambda: DataSpec("x_{}", ("I",), ("I",), num_train=0),
     r"config.data.num_train=0: must be an integer >= 1"),
    (lambda: DataSpec("x_{}", (), ("I",)),
     r"config.data.train_types=\(\): expected a tuple of lexical types"),
    (lambda: DataSpec("x_{}", ("I",), ("I",), dev_fraction=1.0),
     r"config.data.dev_fraction=1.0: must be a number in \(0, 1\)"),
    (lambda: DataSpec("x_{}", ("I",), ("I",), seed_follows_grid=1),
     r"config.data.seed_follows_grid=1: expected True or False"),
    (lambda: TrainSettings(epochs=0),
     r"config.train.epochs=0: must be an integer >= 1"),
    (lambda: TrainSettings(learning_rate=0),
     r"config.train.learning_rate=0: must be a number > 0"),
    (lambda: GridSettings(seeds=(0, 0)),
     r"config.grid.seeds=\(0, 0\): a seed is repeated"),
    (lambda: GridSettings(memory_limit_gb=-1),
     r"config.grid.memory_limit_gb=-1: must be a number >= 0"),
    (lambda: GridSettings(controls="answer_onyl"),
     r"config.controls='answer_onyl': 'answer_onyl' is not a control"),
])
def test_a_bad_value_is_one_line_naming_its_key(make, message):
  with pytest.raises(ValueError, match=message) as e:
    make()
  assert "\n" not in str(e.value)


def test_a_key_no_section_has_is_named_before_anything_is_built():
  c = config_defaults.default_config("ffnn")
  with c.unlocked():
    c.data.num_trian = 5
    c.encoder.polling = "mean"
  with pytest.raises(config_check.ConfigError) as e:
    config_check.validate(c)
  assert "config.data.num_trian is not a config key" in str(e.value)
  assert "config.encoder.polling is not a config key" in str(e.value)


def test_validate_reports_what_a_typed_value_refuses():
  c = config_defaults.default_config("ffnn")
  c.encoder.max_length = 1  # > 0, as config_check's own bound; not >= 2
  assert config_check.problems(c) == [
      "config.encoder.max_length=1: must be an integer >= 2"]
