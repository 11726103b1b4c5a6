"""RoBERTa and XLM-RoBERTa in Flax (model_types "roberta", "xlm-roberta").

The two share one architecture: BERT's blocks, one token type, and position
ids that count real tokens starting after the padding id
(`cumsum(ids != pad) * (ids != pad) + pad`, computed from the ids as
transformers does), so `max_position_embeddings - pad - 1` tokens fit.
XLM-R differs only in its vocabulary and tokenizer.
"""

from __future__ import annotations

from typing import Any

import flax.linen as nn
import jax.numpy as jnp

from blm_jax.transformer_blocks import BertConfig, bert_trunk, load_trunk

MODEL_TYPES = ("roberta", "xlm-roberta")
# transformers.RobertaConfig / XLMRobertaConfig defaults.
DEFAULTS = dict(vocab_size=30522, hidden_size=768, num_hidden_layers=12,
                num_attention_heads=12, intermediate_size=3072,
                hidden_act="gelu", max_position_embeddings=512,
                type_vocab_size=2, layer_norm_eps=1e-12, pad_token_id=1,
                embedding_size=None)
PREFIXES = ("roberta.",)


def position_ids(input_ids, pad_id: int):
  real = (input_ids != pad_id).astype(jnp.int32)
  return jnp.cumsum(real, axis=1) * real + pad_id


class RobertaModel(nn.Module):
  """Returns (last hidden state [B, T, D], hidden_states tuple)."""

  config: BertConfig
  dtype: Any = jnp.float32

  @nn.compact
  def __call__(self, input_ids, attention_mask=None):
    if attention_mask is None:
      attention_mask = jnp.ones_like(input_ids)
    positions = position_ids(input_ids, self.config.pad_token_id)
    return bert_trunk(self, self.config, input_ids, attention_mask, positions,
                      project=False, pooler=True)


def max_tokens(config: BertConfig) -> int:
  return config.max_position_embeddings - config.pad_token_id - 1


MODULE = RobertaModel


def config_from_json(config: dict, where: str) -> BertConfig:
  return BertConfig.from_json(config, DEFAULTS, where)


def load(model_dir: str, config: dict, dtype=jnp.float32):
  """(module, float32 params, BertConfig) from a folder."""
  return load_trunk(RobertaModel, DEFAULTS, PREFIXES, model_dir, config,
                    dtype, optional=("pooler",))
