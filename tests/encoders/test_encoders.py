"""Encoders: each family loads a tiny checkpoint and matches transformers'
PyTorch model layer by layer; tokenization; pooling; registry; errors."""

import json
import os
import subprocess
import sys

import jax.numpy as jnp
import numpy as np
import pytest

from blm_jax.embedding.embed import embed_sentences
from blm_jax.embedding.spec import EncoderSpec
from blm_jax.encoders import encoder as encoders
from tests import ROOT, tiny_checkpoints

try:
  import torch  # noqa: F401
  HAVE_TORCH = True
except ImportError:
  HAVE_TORCH = False

SENTENCES = ["The girl sprayed paint onto the wall.",
             "The cat eats the mouse.",
             "Les chats du voisin mangent la souris.",
             "the boy loaded hay into the truck with the girl of the neighbour."]


needs_torch = pytest.mark.skipif(
    not HAVE_TORCH, reason="torch is not installed (pip install torch==2.13.0 "
    "gives the CPU build); parity checks need the PyTorch reference")


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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_minilm_offline_default():
  """The default EncoderSpec is the offline MiniLM."""
  x = embed_sentences([
      "The girl sprayed paint onto the wall.",
      "The girl sprayed the wall with paint.",
      "Les chats du voisin mangent la souris.",
  ], EncoderSpec(), progress=False)
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


@pytest.mark.slow
def test_bad_folders(tmp_path):
  with pytest.raises(encoders.EncoderUnavailableError,
                     match="encoder folder .*nope' does not exist"):
    encoders.load_encoder(str(tmp_path / "nope"))
  (tmp_path / "noconfig").mkdir()
  with pytest.raises(encoders.EncoderUnavailableError,
                     match="noconfig: no config.json"):
    encoders.load_encoder(str(tmp_path / "noconfig"))
  (tmp_path / "t5").mkdir()
  with open(tmp_path / "t5" / "config.json", "w") as f:
    json.dump({"model_type": "t5"}, f)
  with pytest.raises(ValueError, match="model_type 't5' in .* is not "
                     "supported; supported: .*'openai-gpt'"):
    encoders.load_encoder(str(tmp_path / "t5"))
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


# -- parity with transformers' PyTorch models ---------------------------------


def _batch(enc, sentences, max_length=64):
  ids = enc.tokenize(sentences, max_length)
  t = max(map(len, ids))
  b_ids = np.full((len(ids), t), enc.pad_id, np.int32)
  mask = np.zeros((len(ids), t), np.int32)
  for i, x in enumerate(ids):
    b_ids[i, :len(x)], mask[i, :len(x)] = x, 1
  return ids, b_ids, mask


def _torch_hidden_states(folder, ids, mask):
  import torch
  import transformers
  model = transformers.AutoModel.from_pretrained(folder).eval()
  with torch.no_grad():
    out = model(torch.tensor(ids).long(), attention_mask=torch.tensor(mask)
                .long(), output_hidden_states=True)
  return [h.numpy() for h in out.hidden_states]


# bf16 compute: about 3 significant digits per op, accumulated over layers.
# Measured on these checkpoints: at most 0.034 off on values up to 3.8.
BF16_ATOL, BF16_RTOL = 0.06, 0.02


@pytest.mark.slow
@needs_torch
@pytest.mark.parametrize("family", ["bert", "electra", "roberta",
                                    "xlm-roberta"])
def test_every_layer_matches_pytorch(family, tmp_path):
  import transformers
  folder = _write(family, str(tmp_path / family))
  enc = encoders.load_encoder(folder)
  ids, b_ids, mask = _batch(enc, SENTENCES)
  # Same ids as transformers' tokenizer (from the same tokenizer.json).
  want_ids = transformers.AutoTokenizer.from_pretrained(folder)(
      SENTENCES, truncation=True, max_length=64)["input_ids"]
  assert ids == want_ids
  assert len(set(map(len, ids))) > 1  # The batch really has padding.
  want = _torch_hidden_states(folder, b_ids, mask)
  got = enc.hidden_states(enc.params, jnp.asarray(b_ids), jnp.asarray(mask))
  assert len(got) == len(want) == 3
  for layer, (w, g) in enumerate(zip(want, got)):
    np.testing.assert_allclose(np.asarray(g), w, atol=1e-5, rtol=1e-5,
                               err_msg=f"{family} hidden state {layer}")
  low = encoders.load_encoder(folder, dtype="bfloat16")
  assert low.identity["compute_dtype"] == "bfloat16"
  assert "compute_dtype" not in enc.identity
  got16 = low.hidden_states(low.params, jnp.asarray(b_ids), jnp.asarray(mask))
  for layer, (w, g) in enumerate(zip(want, got16)):
    assert g.dtype == jnp.bfloat16
    np.testing.assert_allclose(np.asarray(g, np.float32), w, atol=BF16_ATOL,
                               rtol=BF16_RTOL,
                               err_msg=f"{family} bf16 hidden state {layer}")


@needs_torch
def test_head_model_checkpoints_and_formats_load_the_same_weights(tmp_path):
  """A discriminator checkpoint (prefix `electra.`, head ignored), a sharded
  safetensors folder and a flax_model.msgpack give the bare model's weights
  and so the same cache identity."""
  import torch
  import transformers
  base_dir = _write("electra", str(tmp_path / "base"))
  base = encoders.load_encoder(base_dir)
  config = transformers.AutoConfig.from_pretrained(base_dir)
  head = transformers.ElectraForPreTraining(config).eval()
  head.electra.load_state_dict(
      transformers.AutoModel.from_pretrained(base_dir).state_dict())
  for name, kw in (("head", {}), ("sharded", {"max_shard_size": "20KB"})):
    folder = str(tmp_path / name)
    (head if name == "head" else transformers.AutoModel.from_pretrained(
        base_dir)).save_pretrained(folder, safe_serialization=True, **kw)
    transformers.AutoTokenizer.from_pretrained(base_dir).save_pretrained(
        folder)
    if name == "sharded":
      assert os.path.exists(os.path.join(folder,
                                         "model.safetensors.index.json"))
    other = encoders.load_encoder(folder)
    assert other.identity["weights_sha256"] == base.identity[
        "weights_sha256"], name
  flax_dir = tiny_checkpoints.write_bert(str(tmp_path / "flax"), flax=True,
                                         electra=True)
  assert os.listdir(flax_dir).count("model.safetensors") == 0
  assert encoders.load_encoder(flax_dir).identity == base.identity
  del torch


def test_missing_weight_is_named(tmp_path):
  from safetensors.numpy import load_file, save_file
  folder = tiny_checkpoints.write_bert(str(tmp_path / "b"), flax=False)
  path = os.path.join(folder, "model.safetensors")
  if not os.path.exists(path):
    pytest.skip("needs torch to write a PyTorch-layout checkpoint")
  state = load_file(path)
  del state["encoder.layer.1.output.LayerNorm.weight"]
  save_file(state, path, metadata={"format": "pt"})
  with pytest.raises(encoders.EncoderUnavailableError,
                     match=r"missing from the checkpoint, e.g. "
                     r"\['encoder/layer/1/output/LayerNorm/scale'\]"):
    encoders.load_encoder(folder)


@needs_torch
@pytest.mark.parametrize("family", ["bert", "roberta", "openai-gpt"])
def test_tokenizer_from_vocab_files_equals_tokenizer_json(family, tmp_path):
  """Folders without tokenizer.json: the pipeline built from the vocabulary
  files gives transformers' ids."""
  import transformers
  if family == "openai-gpt":
    folder = str(tmp_path / "gpt")
    tiny_checkpoints.write_openai_gpt(folder)  # Slow tokenizer: no json.
  else:
    folder = _write(family, str(tmp_path / family))
    os.remove(os.path.join(folder, "tokenizer.json"))
  assert not os.path.exists(os.path.join(folder, "tokenizer.json"))
  texts = SENTENCES + ["Été, naïve CAFÉ [MASK] <mask> x" * 3]
  ours = encoders.load_encoder(folder).tokenize(texts, 24)
  want = transformers.AutoTokenizer.from_pretrained(folder)(
      texts, truncation=True, max_length=24)["input_ids"]
  assert ours == want
  assert max(map(len, ours)) == 24  # Truncation counted the specials.


def test_sentencepiece_only_folder_says_how_to_fix(tmp_path):
  folder = _write("xlm-roberta", str(tmp_path / "x"))
  for name in ("tokenizer.json", "vocab.json", "merges.txt"):
    os.remove(os.path.join(folder, name))
  with open(os.path.join(folder, "sentencepiece.bpe.model"), "wb") as f:
    f.write(b"x")
  with pytest.raises(encoders.EncoderUnavailableError,
                     match="only a sentencepiece model is there, no "
                     "tokenizer.json.*save_pretrained"):
    encoders.load_encoder(folder)


def test_bad_dtype(tmp_path):
  with pytest.raises(ValueError, match="compute dtype 'float16' is not one "
                     r"of \['bfloat16', 'float32'\]"):
    encoders.load_encoder("minilm", dtype="float16")


# -- the offline default ------------------------------------------------------

# The identity that keys the embedding cache of the shipped MiniLM, as the
# transformers-Flax loader computed it: it must not change (or the README
# must say the cache was re-keyed).
MINILM_WEIGHTS_SHA256 = (
    "8df0dba2c347d2a85eaa85037a8d8ba8f32f8d6371d4a0bc491671cf7d8be8d0")

REAL_SENTENCES = [
    "The girl sprayed the wall with paint.",
    "The farmer loaded the truck with hay in the morning.",
    "Les chats du voisin mangent la souris.",
    "The computer with the programs of the experiment is down.",
    "Il professore ha rotto il vaso di cristallo.",
    "Der Hund, den die Kinder lieben, schläft.",
    "Yesterday, the old man in the house near the river finally sold his "
    "collection of rare books to a museum.",
]


def test_minilm_cache_identity_unchanged():
  enc = encoders.load_encoder("minilm")
  assert enc.identity["weights_sha256"] == MINILM_WEIGHTS_SHA256
  assert set(enc.identity) == {"model_type", "weights_sha256",
                               "tokenizer_sha256"}


@pytest.mark.slow
def test_minilm_equals_transformers_flax_on_real_sentences():
  """Our BERT module = transformers' FlaxBertModel (where a transformers 4.x
  with Flax is installed) on the real MiniLM weights, every layer, 1e-5."""
  transformers = pytest.importorskip("transformers")
  if not hasattr(transformers, "FlaxBertModel"):
    pytest.skip(f"transformers {transformers.__version__} has no Flax BERT")
  import types

  from flax import traverse_util
  from safetensors.numpy import load_file
  from transformers import modeling_flax_pytorch_utils as pt_utils

  enc = encoders.load_encoder("minilm")
  hf = transformers.FlaxBertModel(
      transformers.AutoConfig.from_pretrained(enc.model_dir), _do_init=False)
  shim = types.SimpleNamespace(base_model_prefix="bert",
                               params=hf.params_shape_tree)
  theirs = traverse_util.flatten_dict(pt_utils.convert_pytorch_state_dict_to_flax(
      load_file(os.path.join(enc.model_dir, "model.safetensors")), shim))
  ours = traverse_util.flatten_dict(enc.params)
  assert set(ours) == set(traverse_util.flatten_dict(hf.params_shape_tree))
  for k in ours:  # (their converter also passes buffers such as position_ids)
    v = theirs[k]
    np.testing.assert_array_equal(np.asarray(ours[k]), v, err_msg=str(k))
  tok = transformers.AutoTokenizer.from_pretrained(enc.model_dir)
  ids, b_ids, mask = _batch(enc, REAL_SENTENCES)
  assert ids == tok(REAL_SENTENCES, truncation=True,
                    max_length=64)["input_ids"]
  want = hf(b_ids, mask, params=enc.params, output_hidden_states=True,
            train=False).hidden_states
  got = enc.hidden_states(enc.params, jnp.asarray(b_ids), jnp.asarray(mask))
  real = mask.astype(bool)  # Padded positions are never pooled.
  for layer, (w, g) in enumerate(zip(want, got)):
    np.testing.assert_allclose(np.asarray(g)[real], np.asarray(w)[real],
                               atol=1e-5, rtol=1e-5,
                               err_msg=f"MiniLM hidden state {layer}")
  # And the pooled sentence embeddings the solvers see.
  for pooling in ("mean", "first"):
    np.testing.assert_allclose(
        encoders.pool(got[-1], mask, pooling),
        encoders.pool(jnp.asarray(want[-1]), mask, pooling), atol=1e-5)


@pytest.mark.slow
def test_runs_without_transformers(tmp_path):
  """Loading and embedding never import transformers (nor torch)."""
  folder = _write("roberta", str(tmp_path / "r"))
  code = (
      "import sys; sys.modules['transformers'] = None; "
      "sys.modules['torch'] = None\n"
      "from blm_jax.encoders import encoder as encoders\n"
      "from blm_jax.embedding.embed import EncoderSpec, embed_sentences\n"
      f"x = embed_sentences(['the cat eats .'], EncoderSpec({folder!r}), "
      "progress=False)\n"
      "y = embed_sentences(['the cat eats .'], EncoderSpec(), "
      "progress=False)\n"
      "print(x.shape, y.shape)\n")
  out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                       text=True, cwd=ROOT)
  assert out.returncode == 0, out.stderr[-2000:]
  assert out.stdout.split() == ["(1,", "32)", "(1,", "384)"]


@pytest.mark.slow
def test_bfloat16_checkpoint_is_widened_exactly(tmp_path):
  import jax
  from safetensors.flax import load_file, save_file
  folder = tiny_checkpoints.write_bert(str(tmp_path / "b"), flax=False)
  path = os.path.join(folder, "model.safetensors")
  if not os.path.exists(path):
    pytest.skip("needs torch to write a PyTorch-layout checkpoint")
  state = {k: v.astype(jnp.bfloat16) for k, v in load_file(path).items()}
  save_file(state, path, metadata={"format": "pt"})
  enc = encoders.load_encoder(folder)
  got = enc.params["encoder"]["layer"]["1"]["intermediate"]["dense"]["kernel"]
  want = state["encoder.layer.1.intermediate.dense.weight"].T
  assert got.dtype == jnp.float32
  np.testing.assert_array_equal(np.asarray(got),
                                np.asarray(want.astype(jnp.float32)))
  assert all(x.dtype == jnp.float32 for x in jax.tree_util.tree_leaves(
      enc.params))
