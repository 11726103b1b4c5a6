"""The BERT family in Flax: BERT, Electra, RoBERTa and XLM-RoBERTa.

One module, `BertFamilyModel`, on the shared blocks (`blocks.bert_trunk`):
embeddings (word + token type + position, LayerNorm), post-LN blocks, and,
per member, what sets it apart (`MEMBERS`):

  bert         BERT, multilingual BERT, MiniLM, AlephBERT; positions 0..T-1;
               the pooler its published parameter tree carries (unused for
               sentence embeddings; part of the weights digest).
  electra      narrower embeddings (`embedding_size`) projected up to
               `hidden_size` by `embeddings_project` before the first layer,
               no pooler; `hidden_states[0]` is the projected embeddings, as
               in transformers. Discriminator checkpoints keep the trunk under
               "electra."; the prediction head is ignored.
  roberta      RoBERTa and XLM-RoBERTa (one architecture; XLM-R differs in its
               vocabulary and tokenizer): one token type, and position ids
               that count real tokens after the padding id
               (`cumsum(ids != pad) * (ids != pad) + pad`, as transformers),
               so `max_position_embeddings - pad - 1` tokens fit.

Parameter names are the Hugging Face Flax ones, so both `model.safetensors`
(PyTorch layout) and `flax_model.msgpack` folders load. `hidden_states` has
num_hidden_layers + 1 entries: the embeddings, then each layer.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import flax.linen as nn
import jax.numpy as jnp

from blm_jax.encoders import hf_checkpoint
from blm_jax.encoders.blocks import BertConfig, bert_trunk


@dataclasses.dataclass(frozen=True)
class Member:
  """What one member of the family changes in the shared trunk."""

  model_types: tuple[str, ...]  # config.json model_type values
  defaults: dict  # transformers' config defaults, for fields left out
  prefixes: tuple[str, ...]  # where head models keep the trunk
  pooler: bool
  counted_positions: bool  # RoBERTa's position ids (see the docstring)
  projected: bool = False  # Electra: embedding_size -> hidden_size


_BERT_DEFAULTS = dict(vocab_size=30522, hidden_size=768, num_hidden_layers=12,
                      num_attention_heads=12, intermediate_size=3072,
                      hidden_act="gelu", max_position_embeddings=512,
                      type_vocab_size=2, layer_norm_eps=1e-12, pad_token_id=0,
                      embedding_size=None)

MEMBERS = {
    "bert": Member(("bert",), _BERT_DEFAULTS, ("bert.",), pooler=True,
                   counted_positions=False),
    "electra": Member(
        ("electra",),
        dict(vocab_size=30522, embedding_size=128, hidden_size=256,
             num_hidden_layers=12, num_attention_heads=4,
             intermediate_size=1024, hidden_act="gelu",
             max_position_embeddings=512, type_vocab_size=2,
             layer_norm_eps=1e-12, pad_token_id=0),
        ("electra.",), pooler=False, counted_positions=False,
        projected=True),
    "roberta": Member(("roberta", "xlm-roberta"),
                      {**_BERT_DEFAULTS, "pad_token_id": 1}, ("roberta.",),
                      pooler=True, counted_positions=True),
}
BY_MODEL_TYPE = {t: name for name, m in MEMBERS.items()
                 for t in m.model_types}
MODEL_TYPES = tuple(sorted(BY_MODEL_TYPE))


def counted_position_ids(input_ids, pad_id: int):
  """RoBERTa's position ids: real tokens counted from pad_id + 1."""
  real = (input_ids != pad_id).astype(jnp.int32)
  return jnp.cumsum(real, axis=1) * real + pad_id


class BertFamilyModel(nn.Module):
  """Returns (last hidden state [B, T, D], hidden_states tuple)."""

  config: BertConfig
  member: str = "bert"
  dtype: Any = jnp.float32

  @nn.compact
  def __call__(self, input_ids, attention_mask=None):
    m, c = MEMBERS[self.member], self.config
    if attention_mask is None:
      attention_mask = jnp.ones_like(input_ids)
    if m.counted_positions:
      positions = counted_position_ids(input_ids, c.pad_token_id)
    else:
      positions = jnp.broadcast_to(jnp.arange(input_ids.shape[-1]),
                                   input_ids.shape)
    project = m.projected and c.embedding_size != c.hidden_size
    return bert_trunk(self, c, input_ids, attention_mask, positions,
                      project=project, pooler=m.pooler)


def member_of(config: dict, where: str) -> str:
  model_type = config.get("model_type")
  if model_type not in BY_MODEL_TYPE:
    raise ValueError(f"{where}: model_type {model_type!r} is not of the BERT "
                     f"family {MODEL_TYPES}")
  return BY_MODEL_TYPE[model_type]


def config_from_json(config: dict, where: str) -> BertConfig:
  return BertConfig.from_json(config, MEMBERS[member_of(config, where)]
                              .defaults, where)


def build(config: dict, where: str, dtype=jnp.float32) -> BertFamilyModel:
  """The module of a config.json dict (no weights)."""
  return BertFamilyModel(config_from_json(config, where),
                         member_of(config, where), dtype)


def max_tokens(module: BertFamilyModel) -> int:
  c = module.config
  if MEMBERS[module.member].counted_positions:
    return c.max_position_embeddings - c.pad_token_id - 1
  return c.max_position_embeddings


def load(model_dir: str, config: dict, dtype=jnp.float32):
  """(module, float32 params, BertConfig) from a folder."""
  module = build(config, model_dir, dtype)
  member = MEMBERS[module.member]
  params = hf_checkpoint.load_params(
      module, model_dir, prefixes=member.prefixes,
      optional=("pooler",) if member.pooler else ())
  return module, params, module.config
