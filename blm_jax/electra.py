"""Electra discriminator trunk in Flax (model_type "electra").

BERT's blocks with narrower embeddings (`embedding_size`) projected up to
`hidden_size` by `embeddings_project` before the first layer, and no pooler.
`hidden_states[0]` is the projected embeddings, as in transformers.
Discriminator checkpoints (ElectraForPreTraining) keep the trunk under
"electra."; the prediction head is ignored.
"""

from __future__ import annotations

from typing import Any

import flax.linen as nn
import jax.numpy as jnp

from blm_jax.transformer_blocks import BertConfig, bert_trunk, load_trunk

MODEL_TYPES = ("electra",)
# transformers.ElectraConfig's defaults.
DEFAULTS = dict(vocab_size=30522, embedding_size=128, hidden_size=256,
                num_hidden_layers=12, num_attention_heads=4,
                intermediate_size=1024, hidden_act="gelu",
                max_position_embeddings=512, type_vocab_size=2,
                layer_norm_eps=1e-12, pad_token_id=0)
PREFIXES = ("electra.",)


class ElectraModel(nn.Module):
  """Returns (last hidden state [B, T, D], hidden_states tuple)."""

  config: BertConfig
  dtype: Any = jnp.float32

  @nn.compact
  def __call__(self, input_ids, attention_mask=None):
    if attention_mask is None:
      attention_mask = jnp.ones_like(input_ids)
    positions = jnp.broadcast_to(jnp.arange(input_ids.shape[-1]),
                                 input_ids.shape)
    c = self.config
    return bert_trunk(self, c, input_ids, attention_mask, positions,
                      project=c.embedding_size != c.hidden_size,
                      pooler=False)


def max_tokens(config: BertConfig) -> int:
  return config.max_position_embeddings


MODULE = ElectraModel


def config_from_json(config: dict, where: str) -> BertConfig:
  return BertConfig.from_json(config, DEFAULTS, where)


def load(model_dir: str, config: dict, dtype=jnp.float32):
  """(module, float32 params, BertConfig) from a folder."""
  return load_trunk(ElectraModel, DEFAULTS, PREFIXES, model_dir, config,
                    dtype, optional=())
