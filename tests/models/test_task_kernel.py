"""The conv task level's k x k kernel over the [context sentences x sentence
latent] matrix is refused when it does not fit, never silently shrunk (a
config that asks for task_kernel=4 trains with 4 or not at all)."""

import os
import subprocess
import sys
import types

import jax
import jax.numpy as jnp
import pytest

from blm_jax.models import registry, two_level_vae
from blm_jax.training import config_check
from configs import two_level_vae_subnets, vae2, vae_1d_2level
from tests import ROOT


def _configs():
  conv_vae2 = vae2.get_config(None)
  conv_vae2.model.task_level = "conv"
  return {"vae2": conv_vae2, "vae_1d_2level": vae_1d_2level.get_config(None),
          "two_level_vae_subnets": two_level_vae_subnets.get_config(None)}


@pytest.mark.parametrize("name", ["vae2", "vae_1d_2level",
                                  "two_level_vae_subnets"])
def test_a_kernel_wider_than_the_sentence_latent_is_refused_up_front(name):
  c = _configs()[name]
  assert config_check.problems(c) == []
  c.model.latent = 3  # task_kernel 4
  assert config_check.problems(c) == [
      "config.model.task_kernel=4 does not fit the conv task level's "
      "[context sentences x sentence latent] matrix: the sentence latent is "
      "3 wide; use a kernel of at most 3 or a wider latent"]
  if name != "two_level_vae_subnets":  # categorical slots widen the latent
    c.model.latent_kind = "joint"  # 3 + 5 variables x 3 categories
    assert config_check.problems(c) == []
    c.model.latent_kind = "gaussian"
  c.model.latent, c.model.task_kernel = 5, 0
  assert config_check.problems(c) == [
      "config.model.task_kernel=0 must be at least 1"]


@pytest.mark.parametrize("name", ["vae2", "vae_1d_2level",
                                  "two_level_vae_subnets"])
def test_fewer_context_sentences_than_the_kernel_is_refused_on_the_data(name):
  c = _configs()[name]
  c.model.grid_shape = (16, 24)  # D = 384, so that only the context fails
  c.model.answer_kernel = c.model.kernel = 15
  data = types.SimpleNamespace(embed_dim=384, num_context=3, num_answers=9)
  with pytest.raises(ValueError, match=(
      r"^config\.model\.task_kernel=4 does not fit .*: the data has 3 "
      r"context sentences; use a kernel of at most 3$")):
    registry.get(name).check_data(c, data)
  registry.get(name).check_data(
      c, types.SimpleNamespace(embed_dim=384, num_context=7, num_answers=9))


def test_the_module_itself_refuses_rather_than_shrinks():
  enc = two_level_vae.ConvTaskEncoder(latent=5, kernel=4)
  z = jnp.zeros((2, 3, 5))  # 3 context sentences
  with pytest.raises(ValueError, match="at most 3"):
    enc.init(jax.random.PRNGKey(0), z)
  params = enc.init(jax.random.PRNGKey(0), jnp.zeros((2, 7, 5)))
  assert params["params"]["kernel"].shape == (16, 32)


@pytest.mark.slow
def test_the_command_line_gives_one_error_line(tmp_path):
  proc = subprocess.run(
      [sys.executable, "launch.py", "--config=configs/vae_1d_2level.py",
       f"--workdir={tmp_path}", "--config.model.task_kernel=6"],
      cwd=ROOT, capture_output=True, text=True)
  assert proc.returncode != 0
  assert proc.stderr.strip().splitlines() == [
      "error: invalid config:",
      "  config.model.task_kernel=6 does not fit the conv task level's "
      "[context sentences x sentence latent] matrix: the sentence latent is "
      "5 wide; use a kernel of at most 5 or a wider latent"]
  assert not os.listdir(tmp_path)
