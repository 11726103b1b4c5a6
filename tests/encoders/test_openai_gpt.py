"""The Flax GPT-1 port against transformers' PyTorch OpenAIGPTModel."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp

from blm_jax.encoders import openai_gpt
from tests import tiny_checkpoints

try:
  import torch
except ImportError:  # CI installs the CPU wheel: pip install torch==2.13.0
  torch = None

needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is not installed (pip install torch==2.13.0 "
    "gives the CPU build); the parity check needs the PyTorch reference")


def _inputs():
  ids = np.array([[3, 4, 5, 6, 7, 8, 9, 10], [11, 12, 13, 14, 0, 0, 0, 0]])
  mask = (np.arange(8)[None] < np.array([[8], [4]])).astype(np.int64)
  return ids, mask


@pytest.mark.slow
@needs_torch
def test_hidden_states_match_pytorch(tmp_path):
  ref = tiny_checkpoints.write_openai_gpt(str(tmp_path), n_layer=3)
  module, params, config = openai_gpt.load(str(tmp_path))
  ids, mask = _inputs()
  with torch.no_grad():
    want = ref(torch.tensor(ids), attention_mask=torch.tensor(mask),
               output_hidden_states=True).hidden_states
  last, got = jax.jit(module.apply)({"params": params}, jnp.asarray(ids),
                           jnp.asarray(mask))
  assert len(got) == config.n_layer + 1 == len(want)
  for layer, (w, g) in enumerate(zip(want, got)):
    w, g = w.numpy(), np.asarray(g)
    real = mask.astype(bool)
    np.testing.assert_allclose(g[real], w[real], atol=1e-5, rtol=1e-5,
                               err_msg=f"hidden state {layer}")
  np.testing.assert_array_equal(np.asarray(last), np.asarray(got[-1]))
  # bfloat16 compute (documented tolerance, as for the encoder families).
  module16, params16, _ = openai_gpt.load(str(tmp_path), jnp.bfloat16)
  _, got16 = jax.jit(module16.apply)({"params": params16}, jnp.asarray(ids),
                                     jnp.asarray(mask))
  for layer, (w, g) in enumerate(zip(want, got16)):
    assert g.dtype == jnp.bfloat16
    np.testing.assert_allclose(np.asarray(g, np.float32)[real],
                               w.numpy()[real], atol=0.06, rtol=0.02,
                               err_msg=f"bf16 hidden state {layer}")


@needs_torch
def test_lm_head_checkpoint_loads(tmp_path):
  """The published checkpoint is an LM-head model: `transformer.` prefixes."""
  import transformers
  base = tiny_checkpoints.write_openai_gpt(str(tmp_path / "base"))
  lm = transformers.OpenAIGPTLMHeadModel(base.config).eval()
  lm.transformer.load_state_dict(base.state_dict())
  lm.save_pretrained(str(tmp_path / "lm"), safe_serialization=True)
  tiny_checkpoints.write_gpt_tokenizer(str(tmp_path / "lm"))
  _, a, _ = openai_gpt.load(str(tmp_path / "base"))
  _, b, _ = openai_gpt.load(str(tmp_path / "lm"))
  for x, y in zip(jax_leaves(a), jax_leaves(b)):
    np.testing.assert_array_equal(x, y)


def jax_leaves(tree):
  return [np.asarray(x) for x in jax.tree_util.tree_leaves(tree)]


@pytest.mark.slow
def test_causal_and_padding_do_not_leak(tmp_path):
  """A token's state depends only on earlier tokens, never on padding."""
  tiny_checkpoints.write_openai_gpt_flax(str(tmp_path))
  module, params, _ = openai_gpt.load(str(tmp_path))
  ids, mask = _inputs()
  _, full = jax.jit(module.apply)({"params": params}, jnp.asarray(ids[:1]),
                         jnp.asarray(mask[:1]))
  _, prefix = jax.jit(module.apply)({"params": params}, jnp.asarray(ids[:1, :4]),
                           jnp.asarray(mask[:1, :4]))
  np.testing.assert_allclose(np.asarray(full[-1])[:, :4],
                             np.asarray(prefix[-1]), atol=1e-5)
  other = ids.copy()
  other[1, 4:] = 20  # Different padding ids, same mask.
  _, a = jax.jit(module.apply)({"params": params}, jnp.asarray(ids), jnp.asarray(mask))
  _, b = jax.jit(module.apply)({"params": params}, jnp.asarray(other), jnp.asarray(mask))
  np.testing.assert_allclose(np.asarray(a[-1])[1, :4], np.asarray(b[-1])[1, :4],
                             atol=1e-6)


def test_save_load_round_trip_and_bad_checkpoints(tmp_path):
  folder = str(tmp_path / "gpt")
  tiny_checkpoints.write_openai_gpt_flax(folder)
  _, params, config = openai_gpt.load(folder)
  state = openai_gpt.state_dict_from_params(params)
  back = openai_gpt.params_from_state_dict(state, config.n_layer)
  for x, y in zip(jax_leaves(params), jax_leaves(back)):
    np.testing.assert_array_equal(x, y)
  del state["h.1.ln_2.bias"]
  with pytest.raises(KeyError, match="'h.1.ln_2.bias' is missing"):
    openai_gpt.params_from_state_dict(state, config.n_layer)
  with pytest.raises(KeyError, match="unexpected parameters"):
    openai_gpt.params_from_state_dict(
        openai_gpt.state_dict_from_params(params), 1)
  empty = tmp_path / "empty"
  empty.mkdir()
  config.save_pretrained(str(empty))
  with pytest.raises(OSError, match="no model.safetensors or pytorch_model.bin"):
    openai_gpt.load(str(empty))
