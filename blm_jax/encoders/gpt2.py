"""GPT-2 in Flax, loading the published PyTorch-layout weights.

transformers' `GPT2Model` is the reference:

  h_0 = wte[ids] + wpe[pos]
  block: x = x + c_proj(attn(c_attn(ln_1(x)))); x = x + mlp(ln_2(x))
  final: ln_f(x)

i.e. PRE-layer-norm blocks (GPT-1 normed after), causal attention scaled by
1/sqrt(head_dim), `activation_function` (gelu_new) in the MLP of width
n_inner (4 n_embd). `Conv1D` weights are stored [in, out], as `nn.Dense`
kernels, so they load untransposed.

Positions are counted over real tokens (`cumsum(mask) - 1`), so right and
left padding give a sentence's unpadded vectors.

`hidden_states` follows transformers' `output_hidden_states`: the embeddings,
then each block's output, the LAST entry after `ln_f`. Weights load tensor by
tensor in the compute dtype (`hf_checkpoint.SafetensorsFolder`, one file or a
sharded checkpoint), as for the Llama layout.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

import flax.linen as nn
import jax
import jax.numpy as jnp

from blm_jax.encoders import hf_checkpoint
from blm_jax.encoders.blocks import ACTIVATIONS, attention
from blm_jax.encoders.llama_family import abstract_params, positions_from_mask

MODEL_TYPES = ("gpt2",)


@dataclasses.dataclass(frozen=True)
class GPT2Config:
  """config.json fields of GPT2Config (its defaults where absent)."""

  vocab_size: int = 50257
  n_positions: int = 1024
  n_embd: int = 768
  n_layer: int = 12
  n_head: int = 12
  n_inner: int | None = None
  activation_function: str = "gelu_new"
  layer_norm_epsilon: float = 1e-5
  pad_token_id: int | None = None

  @classmethod
  def from_json(cls, d: Mapping[str, Any], where: str) -> "GPT2Config":
    names = {f.name for f in dataclasses.fields(cls)}
    c = cls(**{k: v for k, v in d.items() if k in names})
    if c.activation_function not in ACTIVATIONS:
      raise ValueError(f"{where}: field activation_function="
                       f"{c.activation_function!r} is not one of "
                       f"{sorted(ACTIVATIONS)}")
    for field, ok in (("scale_attn_weights", True),
                      ("scale_attn_by_inverse_layer_idx", False)):
      if d.get(field, ok) != ok:
        raise ValueError(f"{where}: field {field}={d[field]!r} is not "
                         f"supported (only {ok})")
    if c.n_embd % c.n_head:
      raise ValueError(f"{where}: field n_embd={c.n_embd} is not a multiple "
                       f"of n_head={c.n_head}")
    return c

  @property
  def inner(self) -> int:
    return self.n_inner or 4 * self.n_embd


def _dense(n, m, name):
  return nn.Dense(n, dtype=m.dtype, param_dtype=m.param_dtype, name=name)


class _Attention(nn.Module):
  """`attn/c_attn` (fused q, k, v) and `attn/c_proj`."""

  config: GPT2Config
  dtype: Any
  param_dtype: Any
  right_padded: bool

  @nn.compact
  def __call__(self, x, mask):
    d = x.shape[-1]
    q, k, v = jnp.split(_dense(3 * d, self, "c_attn")(x), 3, axis=-1)
    split = lambda t: t.reshape(t.shape[:2] + (self.config.n_head, -1))
    a = attention(split(q), split(k), split(v), mask, causal=True,
                  right_padded=self.right_padded)
    return _dense(d, self, "c_proj")(a.reshape(x.shape))


class _MLP(nn.Module):
  """`mlp/c_fc` and `mlp/c_proj`."""

  config: GPT2Config
  dtype: Any
  param_dtype: Any

  @nn.compact
  def __call__(self, x):
    c = self.config
    h = ACTIVATIONS[c.activation_function](_dense(c.inner, self, "c_fc")(x))
    return _dense(x.shape[-1], self, "c_proj")(h)


class _Block(nn.Module):
  config: GPT2Config
  dtype: Any
  param_dtype: Any
  right_padded: bool

  @nn.compact
  def __call__(self, x, mask):
    c = self.config
    norm = lambda name: nn.LayerNorm(epsilon=c.layer_norm_epsilon,
                                     dtype=self.dtype,
                                     param_dtype=self.param_dtype, name=name)
    x = x + _Attention(c, self.dtype, self.param_dtype, self.right_padded,
                       name="attn")(norm("ln_1")(x), mask)
    return x + _MLP(c, self.dtype, self.param_dtype, name="mlp")(
        norm("ln_2")(x))


class _Stack(nn.Module):
  """`h/<i>`: the PyTorch names `h.<i>.`."""

  config: GPT2Config
  dtype: Any
  param_dtype: Any
  right_padded: bool

  @nn.compact
  def __call__(self, x, mask):
    hidden = [x]
    for i in range(self.config.n_layer):
      x = _Block(self.config, self.dtype, self.param_dtype, self.right_padded,
                 name=str(i))(x, mask)
      hidden.append(x)
    return hidden


class GPT2Model(nn.Module):
  """Returns (last hidden state [B, T, D], hidden_states tuple)."""

  config: GPT2Config
  dtype: Any = jnp.float32
  param_dtype: Any = jnp.float32
  right_padded: bool = True

  @nn.compact
  def __call__(self, input_ids, attention_mask=None):
    c = self.config
    if attention_mask is None:
      attention_mask = jnp.ones_like(input_ids)
    embed = lambda n, name: nn.Embed(n, c.n_embd, dtype=self.dtype,
                                     param_dtype=self.param_dtype, name=name)
    positions = positions_from_mask(attention_mask)
    x = (embed(c.vocab_size, "wte")(input_ids)
         + embed(c.n_positions, "wpe")(positions))
    hidden = _Stack(c, self.dtype, self.param_dtype, self.right_padded,
                    name="h")(x, attention_mask)
    hidden[-1] = nn.LayerNorm(epsilon=c.layer_norm_epsilon, dtype=self.dtype,
                              param_dtype=self.param_dtype,
                              name="ln_f")(hidden[-1])
    return hidden[-1], tuple(hidden)


def _lookup(path: tuple) -> tuple[list[str], bool]:
  """Flax path -> (PyTorch names to try, transpose?): Conv1D is [in, out]."""
  leaf = "bias" if path[-1] == "bias" else "weight"
  base = ".".join(path[:-1]) + "." + leaf
  return [base, "transformer." + base], False


def build(config: dict, where: str, dtype=jnp.float32,
          right_padded: bool = True) -> GPT2Model:
  return GPT2Model(GPT2Config.from_json(config, where), dtype, dtype,
                   right_padded)


def load(model_dir: str, config: dict, dtype=jnp.float32,
         right_padded: bool = True):
  """(module, params as host numpy arrays, GPT2Config) from a folder."""
  module = build(config, f"{model_dir}/config.json", dtype, right_padded)
  folder = hf_checkpoint.SafetensorsFolder(model_dir)
  params = hf_checkpoint.load_tensors(
      folder, abstract_params(module), _lookup, jnp.dtype(dtype).name,
      model_dir)
  return module, params, module.config
