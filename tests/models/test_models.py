"""Solver output shapes, parameter counts and the sentence-VAE reshape."""

import re

import jax
import jax.numpy as jnp
import pytest

from blm_jax import models
from configs import common


def _init(name, embed_dim, num_context, **overrides):
  cfg = common.base(name).model
  for k, v in overrides.items():
    cfg[k] = v
  m = models.create_model(cfg, embed_dim=embed_dim, num_context=num_context,
                          score="cosine")
  x = jnp.ones((3, num_context, embed_dim))
  mask = jnp.ones((3, num_context), bool)
  params = m.init({"params": jax.random.key(0), "sample": jax.random.key(1)},
                  x, mask, False)
  out = m.apply(params, x, mask, True, rngs={"sample": jax.random.key(2)})
  n = sum(p.size for p in jax.tree.leaves(params))
  return out, n


def test_ffnn_is_7d_to_3p5d_to_3p5d_to_d():
  out, n = _init("ffnn", 8, 7)
  assert out.pred.shape == (3, 8)
  h = 28  # 3.5 * 8
  assert n == (56 * h + h) + (h * h + h) + (h * 8 + 8)


def test_cnn_three_valid_3x3_convs_then_dense():
  out, n = _init("cnn", 10, 7, channels=(2, 2, 2))
  assert out.pred.shape == (3, 10)
  convs = (9 * 1 * 2 + 2) + 2 * (9 * 2 * 2 + 2)
  assert n == convs + (1 * 4 * 2) * 10 + 10  # 7x10 -> 1x4 after 3 convs


def test_sentence_vae_shapes_and_latent_5():
  out, _ = _init("sent_vae", 768, 1)
  assert out.pred.shape == (3, 768) and out.latent.shape == (3, 5)
  kl = out.terms["sentence_kl"]
  assert set(out.terms) == {"sentence_kl"}
  assert kl.shape == (3,) and bool(jnp.all(kl >= 0))


@pytest.mark.slow
def test_two_level_vae_has_sentence_and_task_losses():
  out, _ = _init("vae2", 384, 7, channels=(4,))
  assert out.pred.shape == (3, 384)
  assert set(out.terms) == {"task_kl", "sentence_margin", "sentence_kl"}
  for v in out.terms.values():
    assert v.shape == (3,) and bool(jnp.all(v >= 0))
  assert out.latent.shape == (3, 5)


def test_sentence_grid_shape():
  assert models.sentence_grid_shape(768) == (32, 24)
  assert models.sentence_grid_shape(384) == (24, 16)
  with pytest.raises(ValueError, match=r"grid_shape=\(30, 20\) does not "
                     "reshape an embedding of dimension 768"):
    models.sentence_grid_shape(768, (30, 20))


def test_the_authors_sentence_array():
  """Their scripts reshape D to 32 rows and pad the 15x15 convolutions:
  the same array as ours at 768, not at MiniLM's 384."""
  from blm_jax.models import sentence_vae
  assert sentence_vae.authors_array(768, 15) == ((32, 24), (0, 0))
  assert sentence_vae.authors_array(384, 15) == ((32, 12), (0, 3))
  with pytest.raises(ValueError, match="sentence_array='authors' reshapes D "
                     "to 32 rows; D=300 is not a multiple of 32"):
    sentence_vae.authors_array(300, 15)
  cfg = common.base("vae2").model
  cfg.sentence_array, cfg.grid_shape = "authors", (24, 16)
  with pytest.raises(ValueError, match="config.model.grid_shape is set with "
                     "config.model.sentence_array='authors'"):
    sentence_vae.sentence_array(cfg, 384)
  cfg.sentence_array = "theirs"
  with pytest.raises(ValueError, match="config.model.sentence_array='theirs'"
                     "; expected one of"):
    sentence_vae.sentence_array(cfg, 384)


def test_unknown_model_name():
  cfg = common.base("ffnn").model
  cfg.name = "rnn"
  with pytest.raises(ValueError, match="config.model.name='rnn' is not a "
                     "known solver"):
    models.create_model(cfg, embed_dim=4, num_context=7, score="dot")


KERNEL_TOO_BIG = ("config.model.kernel=15 does not fit config.model."
                  "grid_shape=(2, 4): a 15x15 convolution needs both sides "
                  ">= 15; set config.model.kernel <= 2")


@pytest.mark.parametrize("name", ["sent_vae", "vae2"])
def test_a_kernel_larger_than_a_set_grid_shape_is_refused(name):
  """Refused before any data (config_check) and by the builder, not shrunk:
  the shrunk model would not be the one the config names."""
  from blm_jax.training import config_check
  from configs import sent_vae, vae2
  c = {"sent_vae": sent_vae, "vae2": vae2}[name].get_config(None)
  c.model.grid_shape = (2, 4)
  assert config_check.problems(c) == [KERNEL_TOO_BIG]
  with pytest.raises(ValueError, match=r"^" + re.escape(KERNEL_TOO_BIG)):
    models.create_model(c.model, embed_dim=8, num_context=4, score="cosine",
                        loss_cfg=c.loss)
  c.model.kernel = 2
  assert config_check.problems(c) == []


def test_a_fitting_kernel_on_a_set_grid_is_the_configured_one():
  out, n = _init("sent_vae", 8, 1, grid_shape=(2, 4), kernel=2,
                 channels=(3,))
  assert out.pred.shape == (3, 8)
  # A 2x2 kernel over 2 x 4: 1 x 3 positions x 3 channels = 9 features.
  enc = (2 * 2 * 3 + 3) + (9 * 10 + 10)  # conv; dense to 5 means, 5 logvars
  dec = (5 * 9 + 9) + (3 * 2 * 2 + 1)  # dense; transposed conv
  assert n == enc + dec


def test_a_derived_grid_shrinks_the_kernel_to_fit():
  """grid_shape unset: the kernel follows the array derived from D (D = 8:
  4 x 2, so 15 becomes 2), as DEFAULTS documents."""
  from blm_jax.models import sentence_vae
  cfg = common.base("sent_vae").model
  grid, pads = sentence_vae.sentence_array(cfg, 8)
  assert grid == (4, 2) and sentence_vae.sentence_kernel(cfg, grid,
                                                         pads) == 2
  out, _ = _init("sent_vae", 8, 1)
  assert out.pred.shape == (3, 8)
