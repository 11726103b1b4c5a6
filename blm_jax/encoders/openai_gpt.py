"""OpenAI-GPT (GPT-1, Radford et al. 2018) in Flax, loading the published weights.

transformers has no Flax class for GPT-1, and the papers use it as their decoder
encoder (openai-community/openai-gpt), so it lives here. The architecture
follows transformers' PyTorch `OpenAIGPTModel` exactly, because that is the
layout the published checkpoint is stored in:

  h_0 = tokens_embed[ids] + positions_embed[pos]
  block: a = attn(x); n = LayerNorm_1(x + a); h = LayerNorm_2(n + mlp(n))

i.e. POST-layer-norm blocks (GPT-2 moved the norms before each sub-layer),
causal self-attention scaled by 1/sqrt(head_dim), `gelu_new` (tanh
approximation) in the MLP, and no final layer norm. `Conv1D` weights are stored
[in, out], which is what `nn.Dense` kernels expect, so they load untransposed.

Shared with the encoder families (`transformer_blocks`): the attention itself
(`jax.nn.dot_product_attention`, causal plus key padding mask) and the
activation functions. The block keeps its own parameter names (fused
`c_attn`, `c_fc`/`c_proj`): they are the published checkpoint's. The config is
read from config.json without transformers (`GPTConfig`).

`hidden_states` has n_layer + 1 entries, as in transformers: the embeddings,
then the output of each block.
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any, Mapping

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np

from blm_jax.encoders import hf_checkpoint
from blm_jax.encoders.blocks import ACTIVATIONS, attention

# Keys of the PyTorch state dict that hold no parameters (causal-mask buffers
# in older checkpoints) or belong to heads we do not use.
MODEL_TYPES = ("openai-gpt",)
_IGNORED_SUFFIXES = (".attn.bias", ".attn.masked_bias")
_IGNORED_PREFIXES = ("lm_head.", "multiple_choice_head.", "score.")


# OpenAIGPTModel's `afn` names: its "gelu" is the tanh approximation.
_ACTIVATIONS = {"gelu": ACTIVATIONS["gelu_new"], "relu": ACTIVATIONS["relu"],
                "silu": ACTIVATIONS["silu"], "swish": ACTIVATIONS["swish"]}


@dataclasses.dataclass(frozen=True)
class GPTConfig:
  """config.json fields of OpenAIGPTConfig (its defaults where absent)."""

  vocab_size: int = 40478
  n_positions: int = 512
  n_embd: int = 768
  n_layer: int = 12
  n_head: int = 12
  afn: str = "gelu"
  layer_norm_epsilon: float = 1e-5
  model_type: str = "openai-gpt"

  @classmethod
  def from_json(cls, d: Mapping[str, Any]) -> "GPTConfig":
    names = {f.name for f in dataclasses.fields(cls)}
    return cls(**{k: v for k, v in d.items() if k in names})

  @classmethod
  def from_pretrained(cls, model_dir: str) -> "GPTConfig":
    return cls.from_json(hf_checkpoint.read_config(model_dir))

  def save_pretrained(self, model_dir: str) -> None:
    with open(os.path.join(model_dir, "config.json"), "w") as f:
      json.dump(dataclasses.asdict(self), f, indent=2, sort_keys=True)


class _Attention(nn.Module):
  n_head: int
  dtype: Any = jnp.float32

  @nn.compact
  def __call__(self, x, attention_mask):
    _, t, d = x.shape
    head = d // self.n_head
    qkv = nn.Dense(3 * d, dtype=self.dtype, name="c_attn")(x)
    q, k, v = jnp.split(qkv, 3, axis=-1)
    split = lambda y: y.reshape(y.shape[:2] + (self.n_head, head))
    q, k, v = split(q), split(k), split(v)
    a = attention(q, k, v, attention_mask, causal=True).reshape(x.shape)
    return nn.Dense(d, dtype=self.dtype, name="c_proj")(a)


class _Block(nn.Module):
  n_head: int
  afn: str
  eps: float
  dtype: Any = jnp.float32

  @nn.compact
  def __call__(self, x, attention_mask):
    d = x.shape[-1]
    a = _Attention(self.n_head, self.dtype, name="attn")(x, attention_mask)
    n = nn.LayerNorm(epsilon=self.eps, dtype=self.dtype, name="ln_1")(x + a)
    m = nn.Dense(4 * d, dtype=self.dtype, name="c_fc")(n)
    m = nn.Dense(d, dtype=self.dtype, name="c_proj")(_ACTIVATIONS[self.afn](m))
    return nn.LayerNorm(epsilon=self.eps, dtype=self.dtype, name="ln_2")(n + m)


class OpenAIGPTModule(nn.Module):
  """GPT-1 trunk. Returns (last_hidden_state, hidden_states tuple)."""

  vocab_size: int = 40478
  n_positions: int = 512
  n_embd: int = 768
  n_layer: int = 12
  n_head: int = 12
  afn: str = "gelu"
  layer_norm_epsilon: float = 1e-5
  dtype: Any = jnp.float32

  @classmethod
  def from_config(cls, config, dtype=jnp.float32) -> "OpenAIGPTModule":
    """From a `GPTConfig` (or anything with its fields, e.g. transformers')."""
    if config.afn not in _ACTIVATIONS:
      raise ValueError(f"openai-gpt config: afn={config.afn!r} is not one of "
                       f"{sorted(_ACTIVATIONS)}")
    return cls(vocab_size=config.vocab_size, n_positions=config.n_positions,
               n_embd=config.n_embd, n_layer=config.n_layer,
               n_head=config.n_head, afn=config.afn,
               layer_norm_epsilon=config.layer_norm_epsilon, dtype=dtype)

  @nn.compact
  def __call__(self, input_ids, attention_mask=None, position_ids=None):
    if attention_mask is None:
      attention_mask = jnp.ones_like(input_ids)
    if position_ids is None:
      position_ids = jnp.broadcast_to(jnp.arange(input_ids.shape[-1]),
                                      input_ids.shape)
    tok = nn.Embed(self.vocab_size, self.n_embd, name="tokens_embed")
    pos = nn.Embed(self.n_positions, self.n_embd, name="positions_embed")
    x = (tok(input_ids) + pos(position_ids)).astype(self.dtype)
    hidden = [x]
    for i in range(self.n_layer):
      x = _Block(self.n_head, self.afn, self.layer_norm_epsilon, self.dtype,
                 name=f"h_{i}")(x, attention_mask)
      hidden.append(x)
    return x, tuple(hidden)


def params_from_state_dict(state: Mapping[str, np.ndarray],
                           n_layer: int) -> dict:
  """Maps a PyTorch `OpenAIGPTModel` state dict (numpy arrays) to Flax params.

  Accepts the bare model's keys and those of the LM/double-heads models
  (prefixed `transformer.`); heads and mask buffers are dropped. A missing or
  unexpected parameter is an error naming the key.
  """
  flat = {}
  for key, value in state.items():
    if key.startswith("transformer."):
      key = key[len("transformer."):]
    if key.endswith(_IGNORED_SUFFIXES) or key.startswith(_IGNORED_PREFIXES):
      continue
    flat[key] = np.asarray(value, np.float32)

  def take(key):
    try:
      return flat.pop(key)
    except KeyError:
      raise KeyError(f"openai-gpt checkpoint: parameter {key!r} is missing "
                     "(is this an OpenAIGPTModel checkpoint?)") from None

  params = {"tokens_embed": {"embedding": take("tokens_embed.weight")},
            "positions_embed": {"embedding": take("positions_embed.weight")}}
  for i in range(n_layer):
    p = f"h.{i}."
    dense = lambda k: {"kernel": take(p + k + ".weight"),
                       "bias": take(p + k + ".bias")}
    norm = lambda k: {"scale": take(p + k + ".weight"),
                      "bias": take(p + k + ".bias")}
    params[f"h_{i}"] = {
        "attn": {"c_attn": dense("attn.c_attn"),
                 "c_proj": dense("attn.c_proj")},
        "ln_1": norm("ln_1"),
        "c_fc": dense("mlp.c_fc"),
        "c_proj": dense("mlp.c_proj"),
        "ln_2": norm("ln_2"),
    }
  if flat:
    raise KeyError("openai-gpt checkpoint: unexpected parameters "
                   f"{sorted(flat)[:5]} (config n_layer={n_layer})")
  return params


def state_dict_from_params(params) -> dict[str, np.ndarray]:
  """The inverse of `params_from_state_dict` (bare OpenAIGPTModel keys)."""
  state = {"tokens_embed.weight": params["tokens_embed"]["embedding"],
           "positions_embed.weight": params["positions_embed"]["embedding"]}
  layers = sorted(int(k[2:]) for k in params if k.startswith("h_"))
  for i in layers:
    h = params[f"h_{i}"]
    for torch_name, p in (("attn.c_attn", h["attn"]["c_attn"]),
                          ("attn.c_proj", h["attn"]["c_proj"]),
                          ("mlp.c_fc", h["c_fc"]), ("mlp.c_proj", h["c_proj"])):
      state[f"h.{i}.{torch_name}.weight"] = p["kernel"]
      state[f"h.{i}.{torch_name}.bias"] = p["bias"]
    for ln in ("ln_1", "ln_2"):
      state[f"h.{i}.{ln}.weight"] = h[ln]["scale"]
      state[f"h.{i}.{ln}.bias"] = h[ln]["bias"]
  return {k: np.ascontiguousarray(np.asarray(v, np.float32))
          for k, v in state.items()}


def save(model_dir: str, params, config) -> None:
  """Writes config.json + model.safetensors in the published layout."""
  from safetensors.numpy import save_file

  os.makedirs(model_dir, exist_ok=True)
  if not isinstance(config, GPTConfig):  # e.g. transformers' OpenAIGPTConfig.
    config = GPTConfig(**{f.name: getattr(config, f.name)
                          for f in dataclasses.fields(GPTConfig)})
  config.save_pretrained(model_dir)
  save_file(state_dict_from_params(params),
            os.path.join(model_dir, "model.safetensors"),
            metadata={"format": "pt"})


def read_state_dict(model_dir: str) -> dict[str, np.ndarray]:
  """Reads `model.safetensors` (no torch needed) or `pytorch_model.bin`."""
  st = os.path.join(model_dir, "model.safetensors")
  if os.path.isfile(st):
    from safetensors.numpy import load_file
    return load_file(st)
  pt = os.path.join(model_dir, "pytorch_model.bin")
  if os.path.isfile(pt):
    try:
      import torch
    except ImportError:
      raise OSError(
          f"{pt} is a PyTorch pickle and torch is not installed: convert it "
          "once to model.safetensors (e.g. `OpenAIGPTModel.from_pretrained(d)."
          "save_pretrained(d, safe_serialization=True)` where torch exists)"
      ) from None
    state = torch.load(pt, map_location="cpu", weights_only=True)
    return {k: v.float().numpy() for k, v in state.items()}
  if os.path.isfile(st + ".index.json"):
    raise OSError(f"{model_dir}: sharded safetensors checkpoints are not "
                  "supported for openai-gpt; save it as one model.safetensors")
  raise OSError(f"{model_dir}: no model.safetensors or pytorch_model.bin")


def load(model_dir: str, dtype=jnp.float32):
  """(module, params, GPTConfig) from a folder in the transformers layout."""
  config = GPTConfig.from_pretrained(model_dir)
  module = OpenAIGPTModule.from_config(config, dtype)
  params = params_from_state_dict(read_state_dict(model_dir), config.n_layer)
  expected = jax.eval_shape(
      module.init, jax.random.key(0), jnp.zeros((1, 2), jnp.int32))["params"]
  got = jax.tree_util.tree_map(lambda x: x.shape, params)
  want = jax.tree_util.tree_map(lambda x: x.shape, expected)
  if got != want:
    bad = [(jax.tree_util.keystr(p), a, b) for (p, a), b in zip(
        jax.tree_util.tree_leaves_with_path(got, is_leaf=_is_shape),
        jax.tree_util.tree_leaves(want, is_leaf=_is_shape)) if a != b]
    raise ValueError(f"openai-gpt checkpoint {model_dir}: parameter shapes do "
                     f"not match config.json: {bad[:3]}")
  return module, jax.tree_util.tree_map(jnp.asarray, params), config


def _is_shape(x):
  return isinstance(x, tuple) and all(isinstance(i, int) for i in x)
