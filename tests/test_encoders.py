"""Encoders: each family loads a tiny checkpoint; pooling; registry; errors."""

import json
import os

import jax.numpy as jnp
import numpy as np
import pytest

from blm_jax import encoders
from blm_jax.embed import embed_sentences
from tests import tiny_checkpoints

try:
  import torch  # noqa: F401
  HAVE_TORCH = True
except ImportError:
  HAVE_TORCH = False

SENTENCES = ["The girl sprayed paint onto the wall.",
             "The cat eats the mouse.",
             "Les chats du voisin mangent la souris.",
             "the boy loaded hay into the truck with the girl of the neighbour."]


def _write(family, folder):
  # PyTorch-layout safetensors (what the hub publishes) where torch exists to
  # write them; Flax msgpack otherwise.
  pt = HAVE_TORCH
  if family == "bert":
    return tiny_checkpoints.write_bert(folder, flax=not pt)
  if family == "bert-flax":
    return tiny_checkpoints.write_bert(folder, flax=True)
  if family == "electra":
    return tiny_checkpoints.write_bert(folder, flax=not pt, electra=True)
  if family == "roberta":
    return tiny_checkpoints.write_roberta(folder, SENTENCES, flax=not pt)
  if family == "xlm-roberta":
    return tiny_checkpoints.write_roberta(folder, SENTENCES, flax=not pt,
                                          xlm=True)
  if family == "openai-gpt":
    return tiny_checkpoints.write_openai_gpt_flax(folder)
  raise ValueError(family)


@pytest.mark.parametrize("family", ["bert", "bert-flax", "electra", "roberta",
                                    "xlm-roberta", "openai-gpt"])
def test_family_loads_and_mean_pooling_ignores_padding(family, tmp_path):
  folder = _write(family, str(tmp_path / family))
  enc = encoders.load_encoder(folder)
  assert enc.model_type == family.replace("-flax", "")
  assert enc.hidden_size == 32 and enc.num_layers == 2
  batch = embed_sentences(SENTENCES, enc, progress=False)
  assert batch.shape == (4, 32) and batch.dtype == np.float32
  assert np.isfinite(batch).all()
  assert np.abs(batch[0] - batch[1]).max() > 1e-3  # Not constant.
  # The shortest sentence alone (no padding) equals itself in a padded batch.
  alone = embed_sentences(SENTENCES[1:2], enc, progress=False)
  np.testing.assert_allclose(alone[0], batch[1], atol=1e-5)


def test_first_token_and_layer_choice(tmp_path):
  enc = encoders.load_encoder(_write("bert", str(tmp_path / "b")))
  ids = enc.tokenize(SENTENCES[:2], 64)
  assert ids[0][0] == enc.tokenizer.cls_token_id
  mean = embed_sentences(SENTENCES[:2], enc, progress=False)
  first = embed_sentences(SENTENCES[:2], enc, pooling="first", progress=False)
  emb = embed_sentences(SENTENCES[:2], enc, pooling="first", layer=0,
                        progress=False)
  assert not np.allclose(first, mean) and not np.allclose(first, emb)
  # Layer 0, first token = the [CLS] embedding row, position 0, type 0,
  # after the embeddings' LayerNorm: equal for every sentence.
  np.testing.assert_allclose(emb[0], emb[1], atol=1e-6)


def test_pooling_by_hand():
  h = jnp.arange(2 * 3 * 2, dtype=jnp.float32).reshape(2, 3, 2)
  mask = jnp.array([[1, 1, 1], [1, 1, 0]])
  np.testing.assert_allclose(encoders.pool(h, mask, "mean"),
                             [[2, 3], [7, 8]])
  np.testing.assert_allclose(encoders.pool(h, mask, "first"), [[0, 1], [6, 7]])
  np.testing.assert_allclose(encoders.pool(h, mask, "last"), [[4, 5], [8, 9]])
  with pytest.raises(ValueError, match="pooling='max' is not one of"):
    encoders.pool(h, mask, "max")


def test_minilm_offline_default():
  x = embed_sentences([
      "The girl sprayed paint onto the wall.",
      "The girl sprayed the wall with paint.",
      "Les chats du voisin mangent la souris.",
  ], progress=False)
  assert x.shape == (3, 384)
  x = x / np.linalg.norm(x, axis=1, keepdims=True)
  assert x[0] @ x[1] > x[0] @ x[2] + 0.3
  enc = encoders.load_encoder(None)
  assert enc is encoders.load_encoder("minilm")  # Loaded once.
  assert enc.identity["model_type"] == "bert"
  assert len(enc.identity["weights_sha256"]) == 64


def test_registry_names_resolve():
  for name, entry in encoders.REGISTRY.items():
    assert entry.paper_pooling in encoders.POOLINGS, name
  for alias, name in encoders.ALIASES.items():
    assert name in encoders.REGISTRY, alias
  assert encoders.canonical_name("electra") == (
      "google/electra-base-discriminator")
  assert encoders.canonical_name(None) == "minilm"


def test_missing_hub_weights_offline_say_how_to_fix(tmp_path, monkeypatch):
  from huggingface_hub import constants
  monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
  monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
  with pytest.raises(encoders.EncoderUnavailableError) as e:
    encoders.load_encoder("electra")
  msg = str(e.value)
  assert "'google/electra-base-discriminator' are not on disk" in msg
  assert "HF_HUB_OFFLINE is set" in msg
  assert "--encoder=DIR" in msg and "huggingface-cli download" in msg


def test_unreachable_hub_fails_fast_with_the_reason(tmp_path, monkeypatch):
  from huggingface_hub import constants
  monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
  monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
  monkeypatch.setattr(constants, "ENDPOINT", "http://127.0.0.1:9")
  with pytest.raises(encoders.EncoderUnavailableError,
                     match=r"openai-gpt' are not on disk .* hub is unreachable "
                     r"\(cannot connect to 127.0.0.1:9"):
    encoders.load_encoder("openai-community/openai-gpt")


def test_bad_folders(tmp_path):
  with pytest.raises(encoders.EncoderUnavailableError,
                     match="encoder folder .*nope' does not exist"):
    encoders.load_encoder(str(tmp_path / "nope"))
  (tmp_path / "gpt2").mkdir()
  with open(tmp_path / "gpt2" / "config.json", "w") as f:
    json.dump({"model_type": "gpt2"}, f)
  with pytest.raises(ValueError, match="model_type 'gpt2' in .* is not "
                     "supported; supported: .*'openai-gpt'"):
    encoders.load_encoder(str(tmp_path / "gpt2"))
  folder = tiny_checkpoints.write_bert(str(tmp_path / "noweights"), flax=True)
  os.remove(os.path.join(folder, "flax_model.msgpack"))
  with pytest.raises(encoders.EncoderUnavailableError, match="no weights"):
    encoders.load_encoder(folder)


def test_layer_and_length_limits(tmp_path):
  enc = encoders.load_encoder(
      tiny_checkpoints.write_bert(str(tmp_path / "b"), flax=not HAVE_TORCH))
  assert enc.layer_index(-1) == 2 and enc.layer_index(0) == 0
  with pytest.raises(ValueError, match="layer=3 is out of range; it has 2 "
                     "layers"):
    enc.layer_index(3)
  with pytest.raises(ValueError, match="max_length=100 exceeds the 64 "
                     "positions"):
    embed_sentences(["a cat"], enc, max_length=100, progress=False)
