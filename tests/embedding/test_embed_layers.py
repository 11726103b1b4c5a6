"""The embeddings behind two grid variants: the random-encoder control
(random weights, its own cache key) and the layer sweep (every layer from
one encoder pass, cached per layer)."""

import json
import os

import numpy as np
import pytest

from blm_jax.embedding import embed
from blm_jax.encoders import encoder as encoders
from tests import tiny_checkpoints


@pytest.fixture(scope="module")
def bert_dir(tmp_path_factory):
  return tiny_checkpoints.write_bert(str(tmp_path_factory.mktemp("bert")))


TEXTS = ["the girl sprayed paint onto the wall .", "the boy loaded hay .",
         "the cat eats the mouse .", "le chat mange la souris .",
         "the neighbour loaded the truck with hay ."]


@pytest.mark.slow
def test_random_encoder_has_its_own_cache_key(bert_dir, tmp_path):
  cache = str(tmp_path / "cache")
  real, _ = embed.embed_with_stats(TEXTS, embed.EncoderSpec(bert_dir),
                                   cache_dir=cache, progress=False)
  spec = embed.EncoderSpec(bert_dir, random_weights_seed=0)
  rand, stats = embed.embed_with_stats(TEXTS, spec, cache_dir=cache,
                                       progress=False)
  assert stats.embedded == len(TEXTS)  # not served from the real cache
  assert not np.allclose(real, rand)
  folders = sorted(os.listdir(cache))
  assert len(folders) == 2
  keys = []
  for f in folders:
    with open(os.path.join(cache, f, "meta.json")) as fh:
      keys.append(json.load(fh)["key"]["encoder"])
  assert keys[0]["weights_sha256"] != keys[1]["weights_sha256"]
  assert {k.get("random_weights_seed") for k in keys} == {None, 0}
  # The same seed again: the same weights, from the cache.
  again, stats = embed.embed_with_stats(TEXTS, spec, cache_dir=cache,
                                        progress=False)
  assert stats.embedded == 0
  np.testing.assert_array_equal(again, rand)
  base = encoders.load_encoder(bert_dir)
  assert (encoders.randomized(base, 1).identity["weights_sha256"]
          != encoders.randomized(base, 0).identity["weights_sha256"])


@pytest.mark.slow
def test_layer_sweep_embeds_each_sentence_once_for_all_layers(
    bert_dir, tmp_path, monkeypatch):
  calls = []
  encode = embed._encode_parts

  def counting(enc, texts, **kw):
    calls.append((len(texts), kw["layers"]))
    return encode(enc, texts, **kw)

  monkeypatch.setattr(embed, "_encode_parts", counting)
  cache = str(tmp_path / "cache")
  spec = embed.EncoderSpec(bert_dir)
  n_layers = encoders.load_encoder(bert_dir).num_layers
  by_layer, stats = embed.embed_layers(TEXTS, spec, None, cache_dir=cache,
                                       progress=False)
  assert calls == [(len(TEXTS), tuple(range(n_layers + 1)))]
  assert stats.embedded == len(TEXTS)
  assert sorted(by_layer) == list(range(n_layers + 1))
  calls.clear()
  for k in range(n_layers + 1):  # Each layer has its own cache folder.
    alone, stats = embed.embed_with_stats(
        TEXTS, embed.EncoderSpec(bert_dir, layer=k), cache_dir=cache,
        progress=False)
    assert stats.embedded == 0
    np.testing.assert_array_equal(alone, by_layer[k])
  assert all(n == 0 for n, _ in calls)
  assert len(os.listdir(cache)) == n_layers + 1
  # Without a cache, one layer alone gives the same vectors.
  fresh = embed.embed_sentences(TEXTS, embed.EncoderSpec(bert_dir, layer=1),
                                progress=False)
  # Bit for bit: a one-layer run and the sweep share the layer's cache key.
  np.testing.assert_array_equal(fresh, by_layer[1])
  # A new sentence is embedded once, for every layer together.
  calls.clear()
  embed.embed_layers(TEXTS + ["the boy eats ."], spec, (0, -1),
                     cache_dir=cache, progress=False)
  assert calls == [(1, (0, n_layers))]
