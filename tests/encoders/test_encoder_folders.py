"""Encoder folders from someone else: the weights' size is checked from the
checkpoint's headers and config.json before any weight is read, and a
damaged folder is one line naming the file."""

import json
import os
import struct

import pytest

from blm_jax.encoders import encoder as encoders
from blm_jax.encoders import memory
from tests import tiny_checkpoints

SENTENCES = ["The girl sprayed paint onto the wall.", "The cat eats."]
HUGE = (2_000_000, 4096)  # 8.2e9 float32 parameters, 30.52 GiB


def _safetensors(path, tensors, sparse=True):
  """A safetensors file of float32 `tensors` (name -> shape): the header,
  and a body of zeros that takes no disk (sparse) or nothing at all."""
  header, offset = {}, 0
  for name, shape in tensors.items():
    size = 4
    for n in shape:
      size *= n
    header[name] = {"dtype": "F32", "shape": list(shape),
                    "data_offsets": [offset, offset + size]}
    offset += size
  body = json.dumps(header).encode()
  with open(path, "wb") as f:
    f.write(struct.pack("<Q", len(body)) + body)
    if sparse:
      f.truncate(8 + len(body) + offset)


def _bert_folder(tmp_path, **config):
  """A tiny BERT folder (tokenizer and config.json), weights removed."""
  folder = tiny_checkpoints.write_bert(str(tmp_path / "bert"))
  for name in ("model.safetensors", "flax_model.msgpack"):
    if os.path.exists(os.path.join(folder, name)):
      os.remove(os.path.join(folder, name))
  if config:
    path = os.path.join(folder, "config.json")
    with open(path) as f:
      c = json.load(f)
    c.update(config)
    with open(path, "w") as f:
      json.dump(c, f)
  encoders._load_cached.cache_clear()
  return folder


@pytest.fixture
def no_reading(monkeypatch):
  """Any weight read fails the test: the check must come first."""
  from blm_jax.encoders import hf_checkpoint

  def read(*a, **k):
    raise AssertionError("a weight was read")
  monkeypatch.setattr(hf_checkpoint, "read_weights", read)
  monkeypatch.setattr(hf_checkpoint, "load_tensors", read)
  monkeypatch.delenv(memory.ENV_LIMIT, raising=False)


def test_a_header_claiming_a_huge_tensor_is_refused_unread(tmp_path,
                                                           no_reading):
  folder = _bert_folder(tmp_path)
  _safetensors(os.path.join(folder, "model.safetensors"),
               {"embeddings.word_embeddings.weight": HUGE})
  with pytest.raises(memory.MemoryEstimateError) as e:
    encoders.load_encoder(folder)
  msg = str(e.value)
  assert msg.startswith(f"encoder folder {folder}: its weights need 30.52 "
                        "GiB (8,192,000,000 parameters in float32, counted "
                        "from the model.safetensors header), more than the ")
  assert msg.endswith("available on this machine (MemAvailable)); nothing "
                      "was read")


def test_the_limit_variable_is_obeyed_on_cpu(tmp_path, no_reading,
                                             monkeypatch):
  folder = _bert_folder(tmp_path)
  _safetensors(os.path.join(folder, "model.safetensors"),
               {"embeddings.word_embeddings.weight": (1000, 1000)})
  monkeypatch.setenv(memory.ENV_LIMIT, "1000000")
  with pytest.raises(memory.MemoryEstimateError,
                     match=r"need 3.81 MiB .* more than the 878.91 KiB that "
                     r"fits \(90% of the 976.56 KiB that BLM_DEVICE_MEMORY="
                     r"1000000 allows\); nothing was read"):
    encoders.load_encoder(folder)


@pytest.mark.slow
def test_config_dimensions_count_where_there_is_no_header(tmp_path,
                                                          no_reading):
  """A folder whose config.json says hidden 4096 x 48 layers (38.7 GB in
  float32), its weights in a format without a header."""
  folder = _bert_folder(tmp_path, hidden_size=4096, num_hidden_layers=48,
                        num_attention_heads=64, intermediate_size=16384)
  with open(os.path.join(folder, "flax_model.msgpack"), "wb") as f:
    f.write(b"\x80")
  with pytest.raises(memory.MemoryEstimateError,
                     match=r"its weights need 36\.\d\d GiB \([\d,]+ "
                     r"parameters in float32, counted from .*bert/config"
                     r"\.json\)"):
    encoders.load_encoder(folder)


@pytest.mark.slow
def test_openai_gpt_and_decoders_are_checked_too(tmp_path, no_reading):
  gpt = tiny_checkpoints.write_openai_gpt_flax(str(tmp_path / "gpt"))
  for name in os.listdir(gpt):
    if name.endswith((".msgpack", ".safetensors", ".bin")):
      os.remove(os.path.join(gpt, name))
  _safetensors(os.path.join(gpt, "model.safetensors"), {"tokens_embed.weight":
                                                        HUGE})
  with pytest.raises(memory.MemoryEstimateError,
                     match="need 30.52 GiB .*model.safetensors header"):
    encoders.load_encoder(gpt)
  llama = str(tmp_path / "llama")
  os.makedirs(llama)
  tiny_checkpoints.write_decoder_tokenizer(llama, SENTENCES)
  tiny_checkpoints.decoder_config("llama", 300).save_pretrained(llama)
  for k in range(2):
    _safetensors(os.path.join(llama, f"model-{k}.safetensors"),
                 {f"t{k}": HUGE})
  with open(os.path.join(llama, "model.safetensors.index.json"), "w") as f:
    json.dump({"weight_map": {"t0": "model-0.safetensors",
                              "t1": "model-1.safetensors"}}, f)
  with pytest.raises(memory.MemoryEstimateError,
                     match=r"need 61.04 GiB .*the headers of 2 safetensors "
                     r"shards"):
    encoders.load_encoder(llama)


def test_a_truncated_safetensors_file_is_named(tmp_path, no_reading):
  folder = _bert_folder(tmp_path)
  path = os.path.join(folder, "model.safetensors")
  _safetensors(path, {"embeddings.word_embeddings.weight": (10, 32)})
  os.truncate(path, os.path.getsize(path) - 100)
  with pytest.raises(encoders.EncoderUnavailableError,
                     match=rf"^{path}: truncated: its header describes "
                     r"[\d,]+ bytes, the file holds [\d,]+ \(copy it again\)$"):
    encoders.load_encoder(folder)


@pytest.fixture(scope="module")
def bert_dir(tmp_path_factory):
  """A tiny BERT folder with PyTorch-layout safetensors (needs torch)."""
  folder = tiny_checkpoints.write_bert(
      str(tmp_path_factory.mktemp("good") / "bert"))
  if not os.path.exists(os.path.join(folder, "model.safetensors")):
    pytest.skip("needs torch to write a PyTorch-layout checkpoint")
  return folder


def _damaged(bert_dir, tmp_path, change=None):
  import shutil
  from safetensors.numpy import load_file, save_file

  folder = str(tmp_path / "damaged")
  shutil.copytree(bert_dir, folder)
  path = os.path.join(folder, "model.safetensors")
  if change:
    state = load_file(path)
    change(state)
    save_file(state, path, metadata={"format": "pt"})
  encoders._load_cached.cache_clear()
  return folder


def _one_line(folder, match):
  with pytest.raises(encoders.LOAD_ERRORS) as e:
    encoders.load_encoder(folder)
  import re
  assert "\n" not in str(e.value) and re.search(match, str(e.value)), e.value
  return str(e.value)


@pytest.mark.slow
def test_damaged_folders_are_one_error_naming_what_and_where(bert_dir,
                                                             tmp_path,
                                                             monkeypatch):
  import numpy as np

  name = "encoder.layer.0.attention.self.query.weight"
  d = _damaged(bert_dir, tmp_path / "shape",
               lambda s: s.update({name: np.zeros((3, 5), np.float32)}))
  _one_line(d, rf"{d}: tensor {name} has shape \(5, 3\)|{d}: weight "
            r"encoder/layer/0/attention/self/query/kernel has shape")
  d = _damaged(bert_dir, tmp_path / "missing", lambda s: s.pop(name))
  _one_line(d, rf"{d}: 1 weights the model needs are missing")
  d = _damaged(bert_dir, tmp_path / "nan",
               lambda s: s[name].__setitem__((0, 0), np.nan))
  _one_line(d, rf"encoder '{d}': weight encoder/layer/0/attention/self/"
            rf"query/kernel in {d} holds NaN or infinite values")
  d = _damaged(bert_dir, tmp_path / "type")
  with open(os.path.join(d, "config.json")) as f:
    c = json.load(f)
  with open(os.path.join(d, "config.json"), "w") as f:
    json.dump(dict(c, model_type="mamba"), f)
  _one_line(d, rf"model_type 'mamba' in {d}/config.json is not supported")
  d = _damaged(bert_dir, tmp_path / "noconfig")
  os.remove(os.path.join(d, "config.json"))
  _one_line(d, rf"^{d}: no config.json$")
  d = _damaged(bert_dir, tmp_path / "notok")
  for n in os.listdir(d):
    if n.startswith(("tokenizer", "vocab", "special")):
      os.remove(os.path.join(d, n))
  _one_line(d, rf"{d}")
  d = _damaged(bert_dir, tmp_path / "bin")
  os.rename(os.path.join(d, "model.safetensors"),
            os.path.join(d, "pytorch_model.bin"))
  monkeypatch.setitem(__import__("sys").modules, "torch", None)
  _one_line(d, rf"{d}: only pytorch_model.bin is there and torch is not "
            "installed")


def test_the_command_lines_print_them_in_one_line():
  import launch
  from blm_jax.encoders import hf_checkpoint
  for e in (encoders.EncoderFolderError("F: bad"),
            encoders.EncoderUnavailableError("F: hub unreachable"),
            memory.MemoryEstimateError("F: too big")):
    assert launch.error_line(e) == f"error: {e}"
  assert issubclass(hf_checkpoint.CheckpointError, OSError)


def test_an_unpicklable_pytorch_bin_is_one_line_and_nothing_is_run(
    bert_dir, tmp_path):
  pytest.importorskip("torch")
  ran = tmp_path / "ran"
  d = _damaged(bert_dir, tmp_path / "pickle")
  os.remove(os.path.join(d, "model.safetensors"))
  # A pickle that would call os.system("touch ran") if it were unpickled.
  command = f"touch {ran}".encode()
  with open(os.path.join(d, "pytorch_model.bin"), "wb") as f:
    f.write(b"\x80\x02cos\nsystem\nX" + struct.pack("<I", len(command))
            + command + b"\x85R.")
  _one_line(d, rf"^{d}/pytorch_model.bin: not a PyTorch state dict of "
            r"tensors only \(Trying to load unsupported GLOBAL os.system")
  assert not ran.exists()
  with open(os.path.join(d, "pytorch_model.bin"), "wb") as f:
    f.write(b"not a pickle at all")
  encoders._load_cached.cache_clear()
  _one_line(d, rf"^{d}/pytorch_model.bin: not a PyTorch state dict of "
            r"tensors only \(\w+\); nothing in it was run")


def test_a_layer_the_encoder_lacks_is_one_line(bert_dir):
  import launch
  enc = encoders.load_encoder(bert_dir)
  with pytest.raises(encoders.LOAD_ERRORS) as e:
    enc.layer_index(99)
  assert launch.error_line(e.value) == (
      f"error: encoder {enc.name!r}: layer=99 is out of range; it has 2 "
      "layers (0 = embeddings, -1 = last layer; config.encoder.layer, or "
      "layer= in --encoder)")
