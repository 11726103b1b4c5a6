"""Decoder encoders (GPT-2 and the Llama layout): every layer matches
transformers' PyTorch model; padding on either side pools alike; a sharded
checkpoint embeds with parameters sharded over 4 devices as unsharded; the
cache keys every pooling and layer apart; bad folders and memory overruns
fail with errors naming the file, field or setting."""

import dataclasses
import json
import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from blm_jax.embedding import embed, placement
from blm_jax.encoders import encoder as encoders
from blm_jax.encoders import memory
from tests import ROOT, tiny_checkpoints, xla_flags_with_devices

torch = pytest.importorskip(
    "torch", reason="parity and checkpoints need the PyTorch reference "
    "(pip install torch==2.13.0 gives the CPU build)")

FAMILIES = ("gpt2", "llama", "mistral", "qwen2", "qwen3", "gemma")
SENTENCES = ["The girl sprayed paint onto the wall.", "The cat eats the mouse.",
             "Les chats du voisin mangent la souris.",
             "the boy loaded hay into the truck with the girl of the "
             "neighbour."]


def _write(tmp_path, family, **kw):
  folder = str(tmp_path / family)
  model = tiny_checkpoints.write_decoder(folder, family, SENTENCES, **kw)
  return folder, model


def _batch(enc, texts):
  ids = enc.tokenize(texts, 64)
  t = max(map(len, ids))
  b = np.zeros((len(ids), t), np.int32)
  m = np.zeros((len(ids), t), np.int32)
  for i, x in enumerate(ids):
    b[i, :len(x)], m[i, :len(x)] = x, 1
  return b, m


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES + ("llama-linear",))
def test_every_layer_matches_transformers(family, tmp_path):
  folder, model = _write(tmp_path, family)
  enc = encoders.load_encoder(folder)
  assert enc.model_type == family.split("-")[0] and enc.num_layers == 2
  ids, mask = _batch(enc, SENTENCES)
  assert mask.sum(1).min() < ids.shape[1]  # A padded batch.
  ours = enc.hidden_states(enc.params, jnp.asarray(ids), jnp.asarray(mask))
  with torch.no_grad():
    ref = model(input_ids=torch.tensor(ids, dtype=torch.long),
                attention_mask=torch.tensor(mask),
                output_hidden_states=True).hidden_states
  assert len(ours) == len(ref) == 3  # embeddings + 2 layers (last normed).
  real = mask[..., None].astype(bool)
  for k, (a, b) in enumerate(zip(ours, ref)):
    diff = np.abs(np.where(real, np.asarray(a) - b.numpy(), 0)).max()
    assert diff < 1e-5, (family, k, diff)
  # Through the embedding pipeline: the last real token of the last layer.
  last = embed.embed_sentences(SENTENCES, enc, pooling="last",
                               progress=False)
  want = ref[-1].numpy()[np.arange(4), mask.sum(1) - 1]
  np.testing.assert_allclose(last, want, atol=1e-5)


@pytest.mark.slow
def test_left_padding_pools_like_right_padding(tmp_path):
  right, _ = _write(tmp_path / "r", "llama")
  left, _ = _write(tmp_path / "l", "llama", padding_side="left")
  enc_r, enc_l = encoders.load_encoder(right), encoders.load_encoder(left)
  assert (enc_r.padding_side, enc_l.padding_side) == ("right", "left")
  for pooling in ("mean", "last", "first"):
    a = embed.embed_sentences(SENTENCES, enc_r, pooling=pooling,
                              progress=False)
    b = embed.embed_sentences(SENTENCES, enc_l, pooling=pooling,
                              progress=False)
    np.testing.assert_allclose(a, b, atol=1e-5, err_msg=pooling)
  # Left-padded by hand: the shortest sentence alone equals itself padded.
  ids, mask = _batch(enc_l, SENTENCES)
  lens = mask.sum(1)
  lids, lmask = np.zeros_like(ids), np.zeros_like(mask)
  for i, n in enumerate(lens):
    lids[i, -n:], lmask[i, -n:] = ids[i, :n], 1
  hs = enc_l.hidden_states(enc_l.params, lids, lmask)[-1]
  alone = enc_l.hidden_states(enc_l.params, ids[1:2, :lens[1]],
                              mask[1:2, :lens[1]])[-1]
  np.testing.assert_allclose(np.asarray(hs)[1, -lens[1]:],
                             np.asarray(alone)[0], atol=1e-5)
  assert np.abs(np.asarray(encoders.pool(hs, lmask, "last"))[1]
                - np.asarray(alone)[0, -1]).max() < 1e-5


@pytest.mark.slow
def test_bfloat16_keeps_weights_in_bfloat16(tmp_path):
  folder, _ = _write(tmp_path, "qwen3")
  f32 = encoders.load_encoder(folder)
  bf16 = encoders.load_encoder(folder, dtype="bfloat16")
  dtypes = {x.dtype for x in jax.tree_util.tree_leaves(bf16.params)}
  assert dtypes == {jnp.dtype(jnp.bfloat16)}
  assert memory.tree_bytes(bf16.params) * 2 == memory.tree_bytes(f32.params)
  a = embed.embed_sentences(SENTENCES, f32, progress=False)
  b = embed.embed_sentences(SENTENCES, bf16, progress=False)
  assert b.dtype == np.float32
  assert np.abs(a - b).max() / np.abs(a).max() < 0.05


_SHARDED = r"""
import json, sys
import jax
import numpy as np
from jax.sharding import PartitionSpec as P
from blm_jax.embedding import embed, placement
from blm_jax.encoders import encoder as encoders

folder, out = sys.argv[1], sys.argv[2]
texts = json.loads(sys.argv[3])
assert len(jax.devices()) == 4
enc = encoders.load_encoder(folder)
res = {}
for shard in (True, False):
  res[shard] = embed.embed_layers(texts, enc, batch_size=8, progress=False,
                                  shard_params=shard)[0]
  _, params, _ = placement.compiled(enc, "mean", tuple(jax.devices()), shard)
  specs = [x.sharding.spec for x in jax.tree_util.tree_leaves(params)]
  split = [s for s in specs if "data" in tuple(s)]
  # Sharded: every matrix split (norms stay whole); replicated: none.
  assert (len(split) > len(specs) // 2) if shard else not split, specs
  emb = params["embed_tokens"]["embedding"]
  if shard:
    assert emb.addressable_shards[0].data.shape[0] * 4 == emb.shape[0]
np.savez(out, **{f"{s}_{k}": v for s in res for k, v in res[s].items()})
"""


@pytest.mark.slow
def test_sharded_checkpoint_embeds_sharded_over_four_devices(tmp_path):
  folder, _ = _write(tmp_path, "llama", shards=2)
  files = sorted(os.listdir(folder))
  assert "model.safetensors" not in files
  assert [f for f in files if f.endswith(".safetensors")] == [
      "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]
  single, _ = _write(tmp_path / "single", "llama")
  enc = encoders.load_encoder(folder)
  assert (enc.identity["weights_sha256"]
          == encoders.load_encoder(single).identity["weights_sha256"])
  want, _ = embed.embed_layers(SENTENCES, enc, progress=False)
  out = str(tmp_path / "out.npz")
  env = {**os.environ, "XLA_FLAGS": xla_flags_with_devices(4),
         "JAX_PLATFORMS": "cpu", "PYTHONPATH": ROOT}
  proc = subprocess.run(
      [sys.executable, "-c", _SHARDED, folder, out, json.dumps(SENTENCES)],
      cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
  assert proc.returncode == 0, proc.stderr[-3000:]
  got = np.load(out)
  for k, v in want.items():
    np.testing.assert_allclose(got[f"True_{k}"], v, atol=1e-5)
    np.testing.assert_allclose(got[f"False_{k}"], v, atol=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
def test_cache_keys_every_pooling_and_layer_and_sweep_equals_one_layer(
    family, tmp_path):
  folder, _ = _write(tmp_path, family)
  enc = encoders.load_encoder(folder)
  cache = str(tmp_path / f"cache-{family}")
  sweeps = {}
  for pooling in ("mean", "last"):
    spec = embed.EncoderSpec(folder, pooling=pooling)
    sweeps[pooling], stats = embed.embed_layers(
        SENTENCES, spec, cache_dir=cache, progress=False)
    assert stats.embedded == len(SENTENCES)  # Nothing shared across.
    assert sorted(sweeps[pooling]) == [0, 1, 2]
  keys = []
  for name in sorted(os.listdir(cache)):
    with open(os.path.join(cache, name, "meta.json")) as f:
      key = json.load(f)["key"]
    keys.append((key["pooling"], key["layer"]))
    assert key["encoder"]["model_type"] == family
  assert sorted(keys) == [(p, k) for p in ("last", "mean")
                          for k in (0, 1, 2)]
  for pooling, by_layer in sweeps.items():
    for k, v in by_layer.items():
      one = embed.embed_sentences(SENTENCES, enc, pooling=pooling, layer=k,
                                  progress=False)  # No cache: computed.
      np.testing.assert_allclose(one, v, atol=1e-6)
      cached, stats = embed.embed_with_stats(
          SENTENCES, embed.EncoderSpec(folder, pooling=pooling, layer=k),
          cache_dir=cache, progress=False)
      assert stats.embedded == 0
      np.testing.assert_array_equal(cached, v)
  vectors = [v for s in sweeps.values() for v in s.values()]
  for i in range(len(vectors)):
    for j in range(i):
      assert np.abs(vectors[i] - vectors[j]).max() > 1e-3


def test_parameters_the_device_count_does_not_divide_stay_whole():
  params = {"w": np.zeros((8, 8), np.float32), "b": np.zeros((6,), np.float32),
            "e": np.zeros((7, 6), np.float32)}
  # 3 devices: w (256 B) whole; b split (8 B each); e split on its 6 axis.
  assert placement._resident_bytes(params, 3) == 256 + 8 + 56
  assert placement._resident_bytes(params, 2) == 128 + 12 + 84


def test_missing_shard_file_names_the_index_and_the_file(tmp_path):
  folder, _ = _write(tmp_path, "qwen2", shards=2)
  os.remove(os.path.join(folder, "model-00002-of-00002.safetensors"))
  with pytest.raises(encoders.EncoderUnavailableError,
                     match=r"model\.safetensors\.index\.json: field "
                     r"'weight_map' names shard file "
                     r"'model-00002-of-00002\.safetensors'"):
    encoders.load_encoder(folder)


def _edit_config(folder, **fields):
  path = os.path.join(folder, "config.json")
  with open(path) as f:
    config = json.load(f)
  config.update(fields)
  with open(path, "w") as f:
    json.dump(config, f)


def test_unsupported_model_type_and_rope_scaling(tmp_path):
  folder, _ = _write(tmp_path, "llama")
  _edit_config(folder, rope_scaling={"rope_type": "yarn", "factor": 4.0})
  with pytest.raises(ValueError, match=r"llama/config\.json: field "
                     r"rope_scaling\.rope_type='yarn' is not supported"):
    encoders.load_encoder(folder)
  _edit_config(folder, rope_scaling={"rope_type": "llama3", "factor": 8.0})
  with pytest.raises(ValueError, match=r"field rope_scaling \(type llama3\) "
                     r"lacks \['low_freq_factor'"):
    encoders.load_encoder(folder)
  _edit_config(folder, model_type="mamba")
  with pytest.raises(ValueError, match=r"model_type 'mamba' in .*llama/"
                     r"config\.json is not supported; supported: .*'qwen3'"):
    encoders.load_encoder(folder)


@pytest.mark.slow
def test_memory_estimate_over_the_limit(tmp_path, monkeypatch):
  folder, _ = _write(tmp_path, "mistral")
  monkeypatch.setenv(memory.ENV_LIMIT, "1000")
  with pytest.raises(memory.MemoryEstimateError,
                     match=r"its float32 weights need .* more than the 1 "
                     r"device\(s\) hold together .*dtype='bfloat16'"):
    encoders.load_encoder(folder)
  monkeypatch.delenv(memory.ENV_LIMIT)
  enc = encoders.load_encoder(folder)
  params = memory.tree_bytes(enc.params)
  # The weights fit; a batch of 64 at 64 tokens does not.
  monkeypatch.setenv(memory.ENV_LIMIT, str(2 * params))
  with pytest.raises(memory.MemoryEstimateError,
                     match=r"batch_size=64 at max_length=64 .*Lower "
                     r"batch_size or max_length"):
    embed.embed_sentences(SENTENCES, enc, batch_size=64, max_length=64,
                          progress=False)
  ok = embed.embed_sentences(SENTENCES, enc, batch_size=1, max_length=16,
                             progress=False)
  assert ok.shape == (4, 32)
  # Four devices: replicated weights would not fit where sharded ones do.
  # (With 2 layers, a gathered layer is half the model: the numbers of a
  # 16-layer model of the same size show the choice.)
  deep = dataclasses.replace(enc, num_layers=16)
  four = [jax.devices()[0]] * 4
  act = dict(rows=1, length=8, hidden=32, intermediate=64, heads=4,
             compute_bytes=4)
  rep, shard = (memory.per_device_bytes(param_bytes=params, layers=16,
                                        devices=4, sharded=s, **act)
                for s in (False, True))
  assert shard < rep
  monkeypatch.setenv(memory.ENV_LIMIT, str(rep - 1))
  assert placement.plan_params(deep, four, 4, 8) is True
  monkeypatch.setenv(memory.ENV_LIMIT, str(rep))
  assert placement.plan_params(deep, four, 4, 8) is False
  monkeypatch.setenv(memory.ENV_LIMIT, str(shard - 1))
  with pytest.raises(memory.MemoryEstimateError, match="sharded over 4 "
                     "devices.*or use more devices"):
    placement.plan_params(deep, four, 4, 8)


@pytest.mark.slow
def test_random_weights_control_and_missing_tokenizer(tmp_path):
  folder, _ = _write(tmp_path, "gemma")
  enc = encoders.load_encoder(folder)
  rand = encoders.randomized(enc, 0)
  norm = rand.params["layers"]["0"]["input_layernorm"]["scale"]
  assert not np.asarray(norm).any()  # Gemma: weight 0 is scale 1.
  a = embed.embed_sentences(SENTENCES, enc, progress=False)
  b = embed.embed_sentences(SENTENCES, rand, progress=False)
  assert np.isfinite(b).all() and np.abs(a - b).max() > 1e-3
  os.remove(os.path.join(folder, "tokenizer.json"))
  encoders._load_cached.cache_clear()
  with pytest.raises(encoders.EncoderUnavailableError,
                     match=r"gemma: no tokenizer\.json, which gemma folders "
                     r"are read from"):
    encoders.load_encoder(folder)


@pytest.mark.slow
def test_batch_size_zero_is_the_largest_that_fits(tmp_path, monkeypatch):
  """batch_size=0 picks the largest power of two whose estimate fits the
  devices' memory, and embeds exactly as that batch size given by hand."""
  folder, _ = _write(tmp_path, "llama")
  enc = encoders.load_encoder(folder)
  dev = [jax.devices()[0]]
  # No memory limit known (a CPU): the default batch size.
  monkeypatch.delenv(memory.ENV_LIMIT, raising=False)
  assert placement.choose_batch_size(enc, dev, 16) == placement.DEFAULT_BATCH_SIZE
  # A limit that holds the weights and the activations of 8 rows, not 16.
  need = lambda b: memory.per_device_bytes(
      param_bytes=memory.tree_bytes(enc.params), layers=enc.num_layers,
      devices=1, sharded=False, rows=b, length=16, hidden=enc.hidden_size,
      intermediate=enc.intermediate_size, heads=enc.num_heads,
      compute_bytes=4)
  monkeypatch.setenv(memory.ENV_LIMIT, str((need(8) + need(16)) // 2))
  assert placement.choose_batch_size(enc, dev, 16) == 8
  auto = embed.embed_sentences(SENTENCES * 5, enc, batch_size=0,
                               max_length=16, progress=False)
  by_hand = embed.embed_sentences(SENTENCES * 5, enc, batch_size=8,
                                  max_length=16, progress=False)
  np.testing.assert_array_equal(auto, by_hand)
  # Nothing fits: the smallest batch's error, naming what to change.
  monkeypatch.setenv(memory.ENV_LIMIT, str(need(1) // 2))
  with pytest.raises(memory.MemoryEstimateError,
                     match=r"batch_size=1 at max_length=16"):
    placement.choose_batch_size(enc, dev, 16)
  with pytest.raises(ValueError, match=r"batch_size=-1 must be >= 1 \(or 0"):
    embed.embed_sentences(SENTENCES, enc, batch_size=-1, progress=False)
