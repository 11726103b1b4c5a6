"""Transformer pieces the encoder families share (BERT family, GPT-1/2, Llama).

What is really shared:
  * `attention`: multi-head scaled dot-product attention over [B, T, N, H]
    through `jax.nn.dot_product_attention`, with a key padding mask and an
    optional causal mask (every family).
  * `ACTIVATIONS`: the Hugging Face activation names (`hidden_act`).
  * `BertLayer` / `BertEncoder` / `BertEmbeddings`: the post-layer-norm block
    and embeddings of BERT, which Electra, RoBERTa and XLM-R reuse unchanged
    (they differ only in embedding width and position ids). Submodule names
    follow the Hugging Face Flax parameter tree (`encoder/layer/0/attention/
    self/query/kernel`, ...), so a `flax_model.msgpack` loads as is and the
    weights digest that keys the embedding cache is the one transformers'
    Flax classes gave.

GPT-1 shares `attention` and the activations; its block (fused qkv, no
intermediate/output split) keeps its own parameter names in `openai_gpt`.

`dtype` is the compute dtype (float32 or bfloat16); parameters stay float32.
Layer norms reduce in float32 and attention softmaxes in float32 whatever the
compute dtype.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, Callable, Mapping

import flax.linen as nn
import jax
import jax.numpy as jnp

# transformers' ACT2FN names -> functions ("gelu" is the exact erf form).
ACTIVATIONS: dict[str, Callable] = {
    "gelu": functools.partial(nn.gelu, approximate=False),
    "gelu_new": functools.partial(nn.gelu, approximate=True),
    "gelu_pytorch_tanh": functools.partial(nn.gelu, approximate=True),
    "gelu_fast": functools.partial(nn.gelu, approximate=True),
    "relu": nn.relu,
    "silu": nn.silu,
    "swish": nn.silu,
    "tanh": jnp.tanh,
}

COMPUTE_DTYPES = {"float32": jnp.float32, "bfloat16": jnp.bfloat16}


def compute_dtype(name: str):
  """'float32' | 'bfloat16' -> the jnp dtype, with a clear error otherwise."""
  try:
    return COMPUTE_DTYPES[name]
  except KeyError:
    raise ValueError(f"compute dtype {name!r} is not one of "
                     f"{sorted(COMPUTE_DTYPES)}") from None


def attention(q, k, v, mask, *, causal: bool = False,
              right_padded: bool = True):
  """Scaled dot-product attention, [B, T, N, H] each -> [B, T, N, H].

  k and v may have fewer heads than q (grouped-query attention: N a multiple
  of theirs). `mask` [B, T] (1 real, 0 padding) hides padded keys. On a GPU
  with a half-precision compute dtype and `right_padded` inputs (what the
  embedding code produces unless a tokenizer asks for left padding) the
  cuDNN fused kernel is used, given the padding as per-row key lengths;
  elsewhere XLA's implementation with the mask itself.
  """
  if (right_padded and q.dtype in (jnp.bfloat16, jnp.float16)
      and jax.default_backend() == "gpu"):
    lengths = mask.astype(jnp.int32).sum(-1)
    try:
      return jax.nn.dot_product_attention(
          q, k, v, is_causal=causal, key_value_seq_lengths=lengths,
          implementation="cudnn")
    except Exception:  # Shape/dtype/GPU the kernel does not support.
      pass
  return jax.nn.dot_product_attention(
      q, k, v, mask=(mask > 0)[:, None, None, :], is_causal=causal)


@dataclasses.dataclass(frozen=True)
class BertConfig:
  """The fields of a Hugging Face BERT-style config.json that the maths uses.

  Missing fields take the defaults of the family's transformers config class
  (passed by each family module).
  """

  model_type: str
  vocab_size: int
  hidden_size: int
  num_hidden_layers: int
  num_attention_heads: int
  intermediate_size: int
  hidden_act: str
  max_position_embeddings: int
  type_vocab_size: int
  layer_norm_eps: float
  pad_token_id: int
  embedding_size: int  # Electra: the (narrower) embedding width.
  position_embedding_type: str = "absolute"

  @classmethod
  def from_json(cls, d: Mapping[str, Any], defaults: Mapping[str, Any],
                where: str) -> "BertConfig":
    names = [f.name for f in dataclasses.fields(cls)]
    values = {n: d.get(n, defaults.get(n)) for n in names}
    if values["embedding_size"] is None:
      values["embedding_size"] = values["hidden_size"]
    if values["pad_token_id"] is None:
      values["pad_token_id"] = 0
    missing = [n for n, v in values.items() if v is None]
    if missing:
      raise ValueError(f"{where}: config.json lacks {missing}")
    if values["hidden_act"] not in ACTIVATIONS:
      raise ValueError(f"{where}: hidden_act={values['hidden_act']!r} is not "
                       f"one of {sorted(ACTIVATIONS)}")
    if values["position_embedding_type"] != "absolute":
      raise ValueError(
          f"{where}: position_embedding_type="
          f"{values['position_embedding_type']!r} is not supported (only "
          "'absolute')")
    if values["hidden_size"] % values["num_attention_heads"]:
      raise ValueError(f"{where}: hidden_size {values['hidden_size']} is not "
                       "a multiple of num_attention_heads "
                       f"{values['num_attention_heads']}")
    return cls(**values)


def _dense(features, dtype, name):
  return nn.Dense(features, dtype=dtype, name=name)


def _norm(eps, dtype, name="LayerNorm"):
  return nn.LayerNorm(epsilon=eps, dtype=dtype, name=name)


class _SelfAttention(nn.Module):
  """attention/self: query, key, value projections + `attention`."""

  num_heads: int
  dtype: Any

  @nn.compact
  def __call__(self, x, mask):
    d = x.shape[-1]
    split = lambda y: y.reshape(y.shape[:2] + (self.num_heads, -1))
    q = split(_dense(d, self.dtype, "query")(x))
    k = split(_dense(d, self.dtype, "key")(x))
    v = split(_dense(d, self.dtype, "value")(x))
    return attention(q, k, v, mask).reshape(x.shape)


class _Residual(nn.Module):
  """dense -> LayerNorm(dense(x) + residual): BERT's "output" sub-layers."""

  features: int
  eps: float
  dtype: Any

  @nn.compact
  def __call__(self, x, residual):
    y = _dense(self.features, self.dtype, "dense")(x)
    return _norm(self.eps, self.dtype)(y + residual)


class _Attention(nn.Module):
  config: BertConfig
  dtype: Any

  @nn.compact
  def __call__(self, x, mask):
    c = self.config
    a = _SelfAttention(c.num_attention_heads, self.dtype, name="self")(x, mask)
    return _Residual(c.hidden_size, c.layer_norm_eps, self.dtype,
                     name="output")(a, x)


class _Intermediate(nn.Module):
  config: BertConfig
  dtype: Any

  @nn.compact
  def __call__(self, x):
    c = self.config
    return ACTIVATIONS[c.hidden_act](
        _dense(c.intermediate_size, self.dtype, "dense")(x))


class BertLayer(nn.Module):
  """Post-LN block: n = LN(x + attn(x)); LN(n + W2 act(W1 n))."""

  config: BertConfig
  dtype: Any = jnp.float32

  @nn.compact
  def __call__(self, x, mask):
    c = self.config
    a = _Attention(c, self.dtype, name="attention")(x, mask)
    h = _Intermediate(c, self.dtype, name="intermediate")(a)
    return _Residual(c.hidden_size, c.layer_norm_eps, self.dtype,
                     name="output")(h, a)


class _LayerStack(nn.Module):
  config: BertConfig
  dtype: Any

  @nn.compact
  def __call__(self, x, mask):
    hidden = [x]
    for i in range(self.config.num_hidden_layers):
      x = BertLayer(self.config, self.dtype, name=str(i))(x, mask)
      hidden.append(x)
    return tuple(hidden)


class BertEncoder(nn.Module):
  """The layer stack; returns (input, output of each layer)."""

  config: BertConfig
  dtype: Any = jnp.float32

  @nn.compact
  def __call__(self, x, mask):
    return _LayerStack(self.config, self.dtype, name="layer")(x, mask)


class BertEmbeddings(nn.Module):
  """word + token type + position embeddings, then LayerNorm.

  Position ids are given by the caller: 0.. for BERT and Electra, offset past
  the padding id for RoBERTa.
  """

  config: BertConfig
  dtype: Any = jnp.float32

  @nn.compact
  def __call__(self, input_ids, position_ids, token_type_ids):
    c = self.config
    embed = lambda n, name: nn.Embed(n, c.embedding_size, dtype=self.dtype,
                                     name=name)
    words = embed(c.vocab_size, "word_embeddings")(input_ids)
    positions = embed(c.max_position_embeddings,
                      "position_embeddings")(position_ids)
    types = embed(c.type_vocab_size, "token_type_embeddings")(token_type_ids)
    return _norm(c.layer_norm_eps, self.dtype)(words + types + positions)


class Pooler(nn.Module):
  """tanh(W h[:, 0]): BERT's next-sentence pooler.

  Not used for sentence embeddings here; it is part of the published
  parameter tree (and so of the weights digest the embedding cache is keyed
  on), so BERT and RoBERTa modules keep it.
  """

  hidden_size: int
  dtype: Any = jnp.float32

  @nn.compact
  def __call__(self, x):
    return jnp.tanh(_dense(self.hidden_size, self.dtype, "dense")(x[:, 0]))


def bert_trunk(module: nn.Module, config: BertConfig, input_ids, mask,
               position_ids, project: bool, pooler: bool):
  """embeddings (-> projection) -> encoder [-> pooler], inside `module`'s
  compact call. Returns (last hidden state, hidden_states tuple)."""
  token_types = jnp.zeros_like(input_ids)
  x = BertEmbeddings(config, module.dtype, name="embeddings")(
      input_ids, position_ids, token_types)
  if project:
    x = _dense(config.hidden_size, module.dtype, "embeddings_project")(x)
  hidden = BertEncoder(config, module.dtype, name="encoder")(x, mask)
  if pooler:
    Pooler(config.hidden_size, module.dtype, name="pooler")(hidden[-1])
  return hidden[-1], hidden
