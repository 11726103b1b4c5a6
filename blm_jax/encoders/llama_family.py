"""Decoder LLMs of the Llama layout in Flax: Llama, Mistral, Qwen2/3, Gemma.

One module, `LlamaFamilyModel`, for the families that share the layout

  h_0 = embed_tokens[ids]                      (Gemma: times sqrt(hidden))
  block: x = x + o_proj(attn(rope(q), rope(k), v))   on input_layernorm(x)
         x = x + down_proj(act(gate_proj(n)) * up_proj(n)),
             n = post_attention_layernorm(x)
  final: norm(x)

with rotary position embeddings (RoPE, rotate-half form), RMSNorm,
grouped-query attention (num_key_value_heads <= num_attention_heads, handled
by `jax.nn.dot_product_attention` itself) and a gated MLP. What each member
changes (`MEMBERS`):

  llama    Llama 2 and 3; `rope_scaling` of type linear or llama3 (Llama 3.1+);
           `attention_bias` / `mlp_bias` as in config.json.
  mistral  Llama's maths. Its sliding window (4096 tokens) never binds for a
           sentence: `max_tokens` is capped at the window, so it is not
           implemented.
  qwen2    biases on q, k and v (not on o). Its optional sliding window is
           capped the same way.
  qwen3    RMSNorm on each head of q and k before RoPE (`q_norm`, `k_norm`),
           no biases, head_dim from config.json.
  gemma    RMSNorm scaled by (1 + weight), embeddings times sqrt(hidden) (in
           the compute dtype, as transformers), gelu-tanh gated MLP, head_dim
           from config.json (256 for Gemma 7B, where heads x head_dim !=
           hidden). The MLP activation is `hidden_activation` where set,
           else `hidden_act`, as GemmaConfig documents and Google's and
           transformers' Flax code do: the published folders say
           hidden_act "gelu" (legacy) and hidden_activation
           "gelu_pytorch_tanh". transformers 4.57's PyTorch GemmaModel reads
           hidden_act alone, so on those folders it runs exact gelu and
           differs from this module by the gap between the two gelus.

Positions are counted over real tokens (`cumsum(mask) - 1`), so a sentence
gets the same vectors alone, right-padded or left-padded in a batch.

`hidden_states` follows transformers' `output_hidden_states`: the embeddings,
then the output of each block, except that the LAST entry is after the final
norm (`last_hidden_state`); layer -1 is thus what a model's head reads.

Parameter names are the PyTorch ones (`layers/0/self_attn/q_proj/kernel` for
`model.layers.0.self_attn.q_proj.weight`, transposed), read tensor by tensor
from model.safetensors or a sharded checkpoint (`hf_checkpoint.
SafetensorsFolder`) in the compute dtype: bfloat16 weights for bfloat16
compute, float32 otherwise.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Mapping

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np

from blm_jax.encoders import hf_checkpoint
from blm_jax.encoders.blocks import ACTIVATIONS, attention

ROPE_TYPES = ("default", "linear", "llama3")


@dataclasses.dataclass(frozen=True)
class Member:
  """What one member of the family changes in the shared layout."""

  defaults: dict  # transformers' config defaults, for fields left out
  qkv_bias: bool = False  # q, k, v biases whatever config.json says
  qk_norm: bool = False  # Qwen3's per-head RMSNorm of q and k
  unit_offset_norm: bool = False  # Gemma's RMSNorm: x * (1 + weight)
  scale_embeddings: bool = False  # Gemma: embeddings * sqrt(hidden)


_LLAMA = dict(vocab_size=32000, hidden_size=4096, intermediate_size=11008,
              num_hidden_layers=32, num_attention_heads=32,
              num_key_value_heads=None, head_dim=None, hidden_act="silu",
              max_position_embeddings=2048, rms_norm_eps=1e-6,
              rope_theta=10000.0, rope_scaling=None, attention_bias=False,
              mlp_bias=False, sliding_window=None, pad_token_id=None)

MEMBERS = {
    "llama": Member(_LLAMA),
    "mistral": Member({**_LLAMA, "intermediate_size": 14336,
                       "num_key_value_heads": 8,
                       "max_position_embeddings": 4096 * 32,
                       "rms_norm_eps": 1e-6, "sliding_window": 4096}),
    "qwen2": Member({**_LLAMA, "vocab_size": 151936, "intermediate_size": 22016,
                     "num_key_value_heads": 32,
                     "max_position_embeddings": 32768,
                     "use_sliding_window": False}, qkv_bias=True),
    "qwen3": Member({**_LLAMA, "vocab_size": 151936, "intermediate_size": 22016,
                     "num_key_value_heads": 32, "head_dim": 128,
                     "max_position_embeddings": 32768,
                     "use_sliding_window": False}, qk_norm=True),
    "gemma": Member({**_LLAMA, "vocab_size": 256000, "hidden_size": 3072,
                     "intermediate_size": 24576, "num_hidden_layers": 28,
                     "num_attention_heads": 16, "num_key_value_heads": 16,
                     "head_dim": 256, "hidden_act": "gelu_pytorch_tanh",
                     "max_position_embeddings": 8192, "pad_token_id": 0},
                    unit_offset_norm=True, scale_embeddings=True),
}
MODEL_TYPES = tuple(sorted(MEMBERS))


@dataclasses.dataclass(frozen=True)
class DecoderConfig:
  """The config.json fields the maths uses (defaults: transformers')."""

  model_type: str
  vocab_size: int
  hidden_size: int
  intermediate_size: int
  num_hidden_layers: int
  num_attention_heads: int
  num_key_value_heads: int
  head_dim: int
  hidden_act: str
  max_position_embeddings: int
  rms_norm_eps: float
  rope_theta: float
  rope_scaling: tuple | None  # sorted (key, value) pairs: hashable
  attention_bias: bool
  mlp_bias: bool
  sliding_window: int | None
  pad_token_id: int | None

  @classmethod
  def from_json(cls, d: Mapping[str, Any], where: str) -> "DecoderConfig":
    model_type = d.get("model_type")
    if model_type not in MEMBERS:
      raise ValueError(f"{where}: model_type {model_type!r} is not of the "
                       f"Llama layout {MODEL_TYPES}")
    defaults = MEMBERS[model_type].defaults
    names = [f.name for f in dataclasses.fields(cls)]
    v = {n: d.get(n, defaults.get(n)) for n in names}
    v["model_type"] = model_type
    if v["num_key_value_heads"] is None:
      v["num_key_value_heads"] = v["num_attention_heads"]
    if v["head_dim"] is None:
      v["head_dim"] = v["hidden_size"] // v["num_attention_heads"]
    if model_type.startswith("qwen") and not d.get("use_sliding_window"):
      v["sliding_window"] = None
    if model_type == "gemma" and d.get("hidden_activation"):
      v["hidden_act"] = d["hidden_activation"]
    if v["hidden_act"] not in ACTIVATIONS:
      raise ValueError(f"{where}: field hidden_act={v['hidden_act']!r} is "
                       f"not one of {sorted(ACTIVATIONS)}")
    if v["num_attention_heads"] % v["num_key_value_heads"]:
      raise ValueError(
          f"{where}: field num_attention_heads={v['num_attention_heads']} is "
          f"not a multiple of num_key_value_heads={v['num_key_value_heads']}")
    if d.get("partial_rotary_factor", 1.0) != 1.0:
      raise ValueError(f"{where}: field partial_rotary_factor="
                       f"{d['partial_rotary_factor']} is not supported (1.0)")
    v["rope_scaling"] = _rope_scaling(v["rope_scaling"], where)
    return cls(**v)

  @property
  def max_tokens(self) -> int:
    """Positions usable here: the sliding window, where set, never binds."""
    return min(self.max_position_embeddings, self.sliding_window or 1 << 62)


def _rope_scaling(scaling, where: str):
  """config.json's rope_scaling, checked: None or sorted (key, value) pairs."""
  if scaling is None:
    return None
  if not isinstance(scaling, Mapping):
    raise ValueError(f"{where}: field rope_scaling={scaling!r} is not an "
                     "object")
  kind = scaling.get("rope_type", scaling.get("type", "default"))
  if kind not in ROPE_TYPES:
    raise ValueError(
        f"{where}: field rope_scaling.rope_type={kind!r} is not supported; "
        f"supported: {ROPE_TYPES} (dynamic, yarn, longrope change positions "
        "beyond the pretraining length, which sentences do not reach; "
        "setting rope_scaling to null is exact for them only where the type "
        "leaves short positions unchanged, as dynamic does)")
  needed = {"linear": ("factor",),
            "llama3": ("factor", "low_freq_factor", "high_freq_factor",
                       "original_max_position_embeddings")}.get(kind, ())
  lacking = [k for k in needed if k not in scaling]
  if lacking:
    raise ValueError(f"{where}: field rope_scaling (type {kind}) lacks "
                     f"{lacking}")
  return tuple(sorted({**scaling, "rope_type": kind}.items()))


def inverse_frequencies(c: DecoderConfig) -> np.ndarray:
  """RoPE's inverse frequencies [head_dim / 2], float32, as transformers."""
  h = c.head_dim
  inv = 1.0 / (c.rope_theta ** (np.arange(0, h, 2, dtype=np.int64)
                                .astype(np.float32) / h))
  s = dict(c.rope_scaling or ())
  kind = s.get("rope_type", "default")
  if kind == "linear":
    inv = inv / s["factor"]
  elif kind == "llama3":
    factor, low, high = s["factor"], s["low_freq_factor"], s[
        "high_freq_factor"]
    old = s["original_max_position_embeddings"]
    wavelen = 2 * math.pi / inv
    scaled = np.where(wavelen > old / low, inv / factor, inv)
    smooth = (old / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelen < old / high) & ~(wavelen > old / low)
    inv = np.where(medium, smoothed, scaled)
  return np.asarray(inv, np.float32)


def positions_from_mask(mask):
  """Position of each token among the real ones (0 for padding)."""
  m = mask.astype(jnp.int32)
  return jnp.maximum(jnp.cumsum(m, axis=-1) - 1, 0)


def rope(x, positions, inv_freq):
  """Rotates [B, T, N, H] by position (transformers' rotate-half form)."""
  freqs = positions[..., None].astype(jnp.float32) * inv_freq  # [B, T, H/2]
  emb = jnp.concatenate([freqs, freqs], axis=-1)[:, :, None, :]
  cos, sin = jnp.cos(emb).astype(x.dtype), jnp.sin(emb).astype(x.dtype)
  half = x.shape[-1] // 2
  rotated = jnp.concatenate([-x[..., half:], x[..., :half]], axis=-1)
  return x * cos + rotated * sin


class RMSNorm(nn.Module):
  """x / rms(x) * weight (Gemma: * (1 + weight)); statistics in float32."""

  eps: float
  unit_offset: bool = False
  dtype: Any = jnp.float32
  param_dtype: Any = jnp.float32

  @nn.compact
  def __call__(self, x):
    init = nn.initializers.zeros if self.unit_offset else nn.initializers.ones
    w = self.param("scale", init, (x.shape[-1],), self.param_dtype)
    x32 = x.astype(jnp.float32)
    y = x32 * jax.lax.rsqrt(jnp.mean(x32 * x32, -1, keepdims=True) + self.eps)
    if self.unit_offset:  # Gemma multiplies before casting back.
      return (y * (1.0 + w.astype(jnp.float32))).astype(x.dtype)
    return w.astype(x.dtype) * y.astype(x.dtype)


class _Attention(nn.Module):
  config: DecoderConfig
  member: Member
  dtype: Any
  param_dtype: Any
  right_padded: bool

  @nn.compact
  def __call__(self, x, mask, positions):
    c, m = self.config, self.member
    dense = lambda n, bias, name: nn.Dense(
        n, use_bias=bias, dtype=self.dtype, param_dtype=self.param_dtype,
        name=name)
    bias = m.qkv_bias or c.attention_bias
    h, n, k = c.head_dim, c.num_attention_heads, c.num_key_value_heads
    split = lambda y, heads: y.reshape(y.shape[:2] + (heads, h))
    q = split(dense(n * h, bias, "q_proj")(x), n)
    kk = split(dense(k * h, bias, "k_proj")(x), k)
    v = split(dense(k * h, bias, "v_proj")(x), k)
    if m.qk_norm:
      norm = lambda name: RMSNorm(c.rms_norm_eps, False, self.dtype,
                                  self.param_dtype, name=name)
      q, kk = norm("q_norm")(q), norm("k_norm")(kk)
    inv = jnp.asarray(inverse_frequencies(c))
    q, kk = rope(q, positions, inv), rope(kk, positions, inv)
    a = attention(q, kk, v, mask, causal=True,
                  right_padded=self.right_padded)
    a = a.reshape(a.shape[:2] + (n * h,))
    return dense(c.hidden_size, c.attention_bias, "o_proj")(a)


class _MLP(nn.Module):
  config: DecoderConfig
  dtype: Any
  param_dtype: Any

  @nn.compact
  def __call__(self, x):
    c = self.config
    dense = lambda n, name: nn.Dense(n, use_bias=c.mlp_bias, dtype=self.dtype,
                                     param_dtype=self.param_dtype, name=name)
    g = ACTIVATIONS[c.hidden_act](dense(c.intermediate_size, "gate_proj")(x))
    return dense(c.hidden_size, "down_proj")(
        g * dense(c.intermediate_size, "up_proj")(x))


class DecoderLayer(nn.Module):
  """Pre-norm block: x + attn(norm(x)), then + mlp(norm(.))."""

  config: DecoderConfig
  member: Member
  dtype: Any = jnp.float32
  param_dtype: Any = jnp.float32
  right_padded: bool = True

  @nn.compact
  def __call__(self, x, mask, positions):
    c, m = self.config, self.member
    norm = lambda name: RMSNorm(c.rms_norm_eps, m.unit_offset_norm,
                                self.dtype, self.param_dtype, name=name)
    x = x + _Attention(c, m, self.dtype, self.param_dtype, self.right_padded,
                       name="self_attn")(norm("input_layernorm")(x), mask,
                                         positions)
    return x + _MLP(c, self.dtype, self.param_dtype, name="mlp")(
        norm("post_attention_layernorm")(x))


class _Layers(nn.Module):
  """`layers/<i>`: the PyTorch names `layers.<i>.`."""

  config: DecoderConfig
  member: Member
  dtype: Any
  param_dtype: Any
  right_padded: bool

  @nn.compact
  def __call__(self, x, mask, positions):
    hidden = [x]
    for i in range(self.config.num_hidden_layers):
      x = DecoderLayer(self.config, self.member, self.dtype, self.param_dtype,
                       self.right_padded, name=str(i))(x, mask, positions)
      hidden.append(x)
    return hidden


class LlamaFamilyModel(nn.Module):
  """Returns (last hidden state [B, T, D], hidden_states tuple).

  `right_padded=False` when batches may be left-padded (a tokenizer config
  asking for it): the GPU fused-attention path, which reads the padding as
  per-row lengths, is then not used.
  """

  config: DecoderConfig
  dtype: Any = jnp.float32
  param_dtype: Any = jnp.float32
  right_padded: bool = True

  @nn.compact
  def __call__(self, input_ids, attention_mask=None):
    c = self.config
    m = MEMBERS[c.model_type]
    if attention_mask is None:
      attention_mask = jnp.ones_like(input_ids)
    x = nn.Embed(c.vocab_size, c.hidden_size, dtype=self.dtype,
                 param_dtype=self.param_dtype, name="embed_tokens")(input_ids)
    if m.scale_embeddings:  # The normalizer in the compute dtype, as HF.
      x = x * jnp.asarray(c.hidden_size ** 0.5, self.dtype)
    positions = positions_from_mask(attention_mask)
    hidden = _Layers(c, m, self.dtype, self.param_dtype, self.right_padded,
                     name="layers")(x, attention_mask, positions)
    hidden[-1] = RMSNorm(c.rms_norm_eps, m.unit_offset_norm, self.dtype,
                         self.param_dtype, name="norm")(hidden[-1])
    return hidden[-1], tuple(hidden)


def _lookup(path: tuple) -> tuple[list[str], bool]:
  """Flax path -> (PyTorch names to try, transpose?)."""
  leaf = {"kernel": "weight", "embedding": "weight", "scale": "weight",
          "bias": "bias"}[path[-1]]
  base = ".".join(path[:-1]) + "." + leaf
  return [base, "model." + base], path[-1] == "kernel"


def build(config: dict, where: str, dtype=jnp.float32,
          right_padded: bool = True) -> LlamaFamilyModel:
  """The module of a config.json dict (weights in the compute dtype)."""
  return LlamaFamilyModel(DecoderConfig.from_json(config, where), dtype,
                          dtype, right_padded)


def abstract_params(module) -> dict:
  """The parameter tree's shapes and dtypes, computed without weights."""
  return jax.eval_shape(module.init, jax.random.key(0),
                        jnp.ones((1, 2), jnp.int32))["params"]


def load(model_dir: str, config: dict, dtype=jnp.float32,
         right_padded: bool = True):
  """(module, params as host numpy arrays, DecoderConfig) from a folder."""
  module = build(config, f"{model_dir}/config.json", dtype, right_padded)
  folder = hf_checkpoint.SafetensorsFolder(model_dir)
  params = hf_checkpoint.load_tensors(
      folder, abstract_params(module), _lookup, jnp.dtype(dtype).name,
      model_dir)
  return module, params, module.config
