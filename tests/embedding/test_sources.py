"""The embedding road: a config's encoder section read once as
`EncoderSettings`, and the tables training asks `embedding.sources` for."""

import os

import numpy as np
import pytest

from blm_jax.embedding import embed, sources
from blm_jax.embedding.spec import (DEFAULT_CACHE_DIR, EncoderSettings,
                                    EncoderSpec)
from blm_jax.training import config_defaults, variants
from tests import tiny_checkpoints

TEXTS = ["the girl sprayed paint onto the wall .", "the boy loaded hay .",
         "the cat eats the mouse .", "the boy loaded hay .",
         "the neighbour loaded the truck with hay ."]


def test_settings_from_the_config_section():
  section = config_defaults.default_config("ffnn").encoder
  settings = EncoderSettings(**section)
  assert settings.spec == EncoderSpec("minilm", pooling="mean", layer=-1,
                                      max_length=64, dtype="float32")
  assert settings.cache_root == DEFAULT_CACHE_DIR
  assert not settings.sweeps
  assert EncoderSettings(**{**section, "cache_dir": "/x",
                            "layer_sweep": "0,2"}).cache_root == "/x"
  assert EncoderSettings(layer_sweep="all").sweeps


@pytest.mark.parametrize("key, value, message", [
    ("pooling", "avg", r"config.encoder.pooling='avg' is not known; "
     r"expected one of mean, first"),
    ("layer", "last", r"config.encoder.layer='last': expected an integer"),
    ("max_length", 1, r"config.encoder.max_length=1: must be an integer >= 2"),
    ("batch_size", -1, r"config.encoder.batch_size=-1: must be an integer "
     r">= 0"),
    ("dtype", "fp16", r"config.encoder.dtype='fp16' is not known"),
    ("cache_dir", None, r"config.encoder.cache_dir=None: expected a folder"),
    ("layer_sweep", "0,x", r"config.encoder.layer_sweep='0,x': expected ''"),
    ("name", 3, r"config.encoder.name=3: expected a registry name"),
])
def test_a_bad_value_is_one_line_naming_its_key(key, value, message):
  with pytest.raises(ValueError, match=message) as e:
    EncoderSettings(**{key: value})
  assert "\n" not in str(e.value)


def test_embedding_takes_one_encoder_form():
  with pytest.raises(TypeError, match=r"takes an EncoderSpec \(or a loaded "
                     r"encoders.Encoder\), not dict"):
    embed.embed_sentences(["a"], {"name_or_path": "minilm"})


@pytest.mark.slow  # Embeds with a tiny BERT: three compilations.
def test_the_road_gives_the_arrays_of_the_plain_calls(tmp_path):
  """What training reads (`sources.embed_fn`, `variants.default_sources`)
  is bit for bit what the embedding functions give for the same spec, and
  under the same cache keys: the road adds nothing to the vectors."""
  bert = tiny_checkpoints.write_bert(str(tmp_path / "bert"))
  road_cache, plain_cache = str(tmp_path / "road"), str(tmp_path / "plain")
  settings = EncoderSettings(name=bert, batch_size=4, cache_dir=road_cache,
                             layer_sweep="0,1")
  main = sources.embed_fn(settings)(TEXTS)
  got = variants.default_sources(settings, ("random_encoder",), TEXTS)

  spec = EncoderSpec(bert, max_length=64)
  by_layer, _ = embed.embed_layers(TEXTS, spec, (0, 1, 2), batch_size=4,
                                   cache_dir=plain_cache, progress=False)
  random_spec = EncoderSpec(bert, max_length=64, random_weights_seed=0)
  rand = embed.embed_sentences(TEXTS, random_spec, batch_size=4,
                               cache_dir=plain_cache, progress=False)
  np.testing.assert_array_equal(main, by_layer[2])
  assert got.sweep_layers == (0, 1) and got.main_layer == 2
  assert sorted(got.tables) == ["layer=0", "layer=1", "random_encoder"]
  for k in (0, 1):
    np.testing.assert_array_equal(got.tables[f"layer={k}"], by_layer[k])
  np.testing.assert_array_equal(got.tables["random_encoder"], rand)
  assert sorted(os.listdir(road_cache)) == sorted(os.listdir(plain_cache))
