"""BERT in Flax: BERT, multilingual BERT, MiniLM, AlephBERT (model_type "bert").

Embeddings (word + token type + position, LayerNorm), post-LN blocks, and the
pooler that the published parameter tree carries (unused for sentence
embeddings). Blocks are `transformer_blocks`' shared ones; parameter names
are the Hugging Face Flax ones, so both `model.safetensors` (PyTorch layout)
and `flax_model.msgpack` folders load. `hidden_states` has
num_hidden_layers + 1 entries: the embeddings, then each layer.
"""

from __future__ import annotations

from typing import Any

import flax.linen as nn
import jax.numpy as jnp

from blm_jax.transformer_blocks import BertConfig, bert_trunk, load_trunk

MODEL_TYPES = ("bert",)
# transformers.BertConfig's defaults, for fields a config.json leaves out.
DEFAULTS = dict(vocab_size=30522, hidden_size=768, num_hidden_layers=12,
                num_attention_heads=12, intermediate_size=3072,
                hidden_act="gelu", max_position_embeddings=512,
                type_vocab_size=2, layer_norm_eps=1e-12, pad_token_id=0,
                embedding_size=None)
PREFIXES = ("bert.",)  # BertForMaskedLM & co. store the trunk under "bert.".


class BertModel(nn.Module):
  """Returns (last hidden state [B, T, D], hidden_states tuple)."""

  config: BertConfig
  dtype: Any = jnp.float32

  @nn.compact
  def __call__(self, input_ids, attention_mask=None):
    if attention_mask is None:
      attention_mask = jnp.ones_like(input_ids)
    positions = jnp.broadcast_to(jnp.arange(input_ids.shape[-1]),
                                 input_ids.shape)
    return bert_trunk(self, self.config, input_ids, attention_mask, positions,
                      project=False, pooler=True)


def max_tokens(config: BertConfig) -> int:
  return config.max_position_embeddings


MODULE = BertModel


def config_from_json(config: dict, where: str) -> BertConfig:
  return BertConfig.from_json(config, DEFAULTS, where)


def load(model_dir: str, config: dict, dtype=jnp.float32):
  """(module, float32 params, BertConfig) from a folder."""
  return load_trunk(BertModel, DEFAULTS, PREFIXES, model_dir, config,
                    dtype, optional=("pooler",))
