"""Tiny random checkpoints in the transformers folder layout, for tests.

Each writer saves a randomly initialised PyTorch-layout model (safetensors, as
the hub publishes them) or a Flax one, plus a real tokenizer of the family's
kind trained or listed on a tiny vocabulary, so the loading code runs exactly
as it does on published weights. Nothing is fetched from a hub.
"""

import json
import os
import string

WORDS = ("the girl boy sprayed loaded paint hay onto into wall truck with "
         "cat cats of neighbour eats eat mouse le la les chat chats du voisin "
         "mange mangent souris a an").split()
PUNCT = list(".,!?'")


def _wordpiece_vocab(folder):
  specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
  chars = list(string.ascii_lowercase) + PUNCT
  pieces = ["##" + c for c in string.ascii_lowercase]
  vocab = specials + WORDS + chars + pieces
  path = os.path.join(folder, "vocab.txt")
  with open(path, "w") as f:
    f.write("\n".join(dict.fromkeys(vocab)) + "\n")
  return path, len(dict.fromkeys(vocab))


def _byte_bpe(folder, sentences):
  from tokenizers import ByteLevelBPETokenizer

  tok = ByteLevelBPETokenizer()
  tok.train_from_iterator(list(sentences) * 3, vocab_size=400, min_frequency=1,
                          special_tokens=["<s>", "<pad>", "</s>", "<unk>",
                                          "<mask>"])
  vocab, merges = tok.save_model(folder)
  return vocab, merges, tok.get_vocab_size()


def _have_torch():
  try:
    import torch  # noqa: F401
    return True
  except ImportError:
    return False


def _flax_or_pt_save(model_cls_name, config, folder, flax):
  """Random weights: a PyTorch model saved as safetensors where torch exists
  (the published layout; `flax=True` then converts them to
  flax_model.msgpack through our loader), else our own Flax module's init."""
  import jax
  import jax.numpy as jnp
  import transformers
  from flax import serialization

  from blm_jax.encoders import bert_family
  from blm_jax.encoders import encoder as encoders

  if _have_torch():
    import torch
    torch.manual_seed(0)
    model = getattr(transformers, model_cls_name)(config).eval()
    model.save_pretrained(folder, safe_serialization=True)
    if not flax:
      return
    params = encoders._load_family(folder, folder, jnp.float32).params
    os.remove(os.path.join(folder, "model.safetensors"))
  else:
    config.save_pretrained(folder)
    module = bert_family.build(config.to_dict(), folder)
    params = jax.jit(module.init)(jax.random.key(0),
                                  jnp.ones((1, 4), jnp.int32))["params"]
  with open(os.path.join(folder, "flax_model.msgpack"), "wb") as f:
    f.write(serialization.msgpack_serialize(
        jax.tree_util.tree_map(lambda x: __import__("numpy").asarray(x),
                               params)))


def write_bert(folder, flax=False, electra=False):
  """A 2-layer BERT (or Electra) with a lowercase WordPiece tokenizer."""
  import transformers

  os.makedirs(folder, exist_ok=True)
  vocab_file, n = _wordpiece_vocab(folder)
  kw = dict(vocab_size=n, hidden_size=32, num_hidden_layers=2,
            num_attention_heads=4, intermediate_size=64,
            max_position_embeddings=64)
  if electra:
    config = transformers.ElectraConfig(embedding_size=16, **kw)
    tok = transformers.ElectraTokenizerFast(vocab_file=vocab_file)
    name = "ElectraModel"
  else:
    config = transformers.BertConfig(**kw)
    tok = transformers.BertTokenizerFast(vocab_file=vocab_file)
    name = "BertModel"
  tok.save_pretrained(folder)
  _flax_or_pt_save(name, config, folder, flax)
  return folder


def write_roberta(folder, sentences, flax=False, xlm=False):
  """A 2-layer RoBERTa / XLM-RoBERTa with a byte-level BPE tokenizer.

  (The real XLM-R tokenizer is a sentencepiece model; the model class is what
  this exercises, so both get the RoBERTa tokenizer.)
  """
  import transformers

  os.makedirs(folder, exist_ok=True)
  vocab, merges, n = _byte_bpe(folder, sentences)
  kw = dict(vocab_size=n, hidden_size=32, num_hidden_layers=2,
            num_attention_heads=4, intermediate_size=64,
            max_position_embeddings=66, pad_token_id=1, bos_token_id=0,
            eos_token_id=2)
  tok = transformers.RobertaTokenizerFast(vocab_file=vocab, merges_file=merges)
  tok.save_pretrained(folder)
  if xlm:
    config, name = transformers.XLMRobertaConfig(**kw), "XLMRobertaModel"
  else:
    config, name = transformers.RobertaConfig(**kw), "RobertaModel"
  _flax_or_pt_save(name, config, folder, flax)
  return folder


def write_gpt_tokenizer(folder):
  """A character-level OpenAI-GPT BPE vocabulary (</w> marks word ends)."""
  import transformers

  symbols = list(string.ascii_lowercase) + PUNCT
  vocab = {"<unk>": 0}
  for s in symbols + [c + "</w>" for c in symbols]:
    vocab.setdefault(s, len(vocab))
  with open(os.path.join(folder, "vocab.json"), "w") as f:
    json.dump(vocab, f)
  with open(os.path.join(folder, "merges.txt"), "w") as f:
    f.write("#version: 0.2\n")
  tok = transformers.OpenAIGPTTokenizer(
      vocab_file=os.path.join(folder, "vocab.json"),
      merges_file=os.path.join(folder, "merges.txt"))
  tok.save_pretrained(folder)
  return len(vocab)


def write_openai_gpt(folder, seed=0, n_layer=2):
  """A tiny random PyTorch OpenAIGPTModel saved as safetensors (needs torch)."""
  import torch
  import transformers

  os.makedirs(folder, exist_ok=True)
  n = write_gpt_tokenizer(folder)
  config = transformers.OpenAIGPTConfig(vocab_size=n, n_positions=64,
                                        n_embd=32, n_layer=n_layer, n_head=4)
  torch.manual_seed(seed)
  model = transformers.OpenAIGPTModel(config).eval()
  model.save_pretrained(folder, safe_serialization=True)
  return model


def write_openai_gpt_flax(folder, seed=0, n_layer=2):
  """The same tiny GPT-1 made by the Flax port itself (no torch needed)."""
  import jax
  import jax.numpy as jnp
  import transformers

  from blm_jax.encoders import openai_gpt

  os.makedirs(folder, exist_ok=True)
  n = write_gpt_tokenizer(folder)
  config = transformers.OpenAIGPTConfig(vocab_size=n, n_positions=64,
                                        n_embd=32, n_layer=n_layer, n_head=4)
  module = openai_gpt.OpenAIGPTModule.from_config(config)
  params = jax.jit(module.init)(jax.random.key(seed),
                                jnp.zeros((1, 4), jnp.int32))
  openai_gpt.save(folder, params["params"], config)
  return folder


# -- Decoders: GPT-2 and the Llama layout (tokenizer.json only) --------------

DECODER_CLASSES = {
    "gpt2": ("GPT2Config", "GPT2Model"),
    "llama": ("LlamaConfig", "LlamaModel"),
    "mistral": ("MistralConfig", "MistralModel"),
    "qwen2": ("Qwen2Config", "Qwen2Model"),
    "qwen3": ("Qwen3Config", "Qwen3Model"),
    "gemma": ("GemmaConfig", "GemmaModel"),
}


def decoder_config(family, vocab_size):
  """A tiny config of each family: 2 layers, hidden 32, 4 heads, 2 KV heads
  (GQA) where the family has them; what sets each member apart is on."""
  import transformers

  if family == "gpt2":
    return transformers.GPT2Config(vocab_size=vocab_size, n_positions=64,
                                   n_embd=32, n_layer=2, n_head=4)
  kw = dict(vocab_size=vocab_size, hidden_size=32, intermediate_size=64,
            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
            max_position_embeddings=64, rms_norm_eps=1e-5,
            bos_token_id=0, eos_token_id=1)
  if family == "llama-linear":  # Linear rope scaling, every bias on.
    kw.update(rope_scaling=dict(rope_type="linear", factor=2.0),
              attention_bias=True, mlp_bias=True)
  if family == "llama":  # Llama 3.1's rope scaling, binding at head_dim 8.
    kw.update(rope_theta=10.0, rope_scaling=dict(
        rope_type="llama3", factor=8.0, low_freq_factor=1.0,
        high_freq_factor=4.0, original_max_position_embeddings=16))
  if family in ("qwen3", "gemma"):
    kw.update(head_dim=16)  # Heads x head_dim != hidden.
  return getattr(transformers, DECODER_CLASSES[_base(family)][0])(**kw)


def _base(family):
  """'llama-linear' -> 'llama': variants of a family's config."""
  return family.split("-")[0]


def write_decoder_tokenizer(folder, sentences, bos=True, padding_side=None):
  """A byte-level BPE tokenizer.json (Llama-style: <s> prepended)."""
  from tokenizers import ByteLevelBPETokenizer, processors

  tok = ByteLevelBPETokenizer()
  tok.train_from_iterator(list(sentences) * 3, vocab_size=300,
                          min_frequency=1,
                          special_tokens=["<s>", "</s>", "<unk>"])
  if bos:
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A", pair="<s> $A <s> $B", special_tokens=[("<s>", 0)])
  tok.save(os.path.join(folder, "tokenizer.json"))
  config = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}
  if padding_side:
    config["padding_side"] = padding_side
  with open(os.path.join(folder, "tokenizer_config.json"), "w") as f:
    json.dump(config, f)
  return tok.get_vocab_size()


def write_decoder(folder, family, sentences, *, seed=0, shards=1,
                  padding_side=None):
  """A tiny random PyTorch decoder saved as safetensors (needs torch).

  Weights are redrawn wider than transformers' init (std 0.1, norm weights
  near their identity) so parity checks see every term. `shards=2` writes a
  sharded checkpoint: two files and model.safetensors.index.json.
  """
  import torch
  import transformers
  from safetensors.torch import save_file

  os.makedirs(folder, exist_ok=True)
  n = write_decoder_tokenizer(folder, sentences, bos=family != "gpt2",
                              padding_side=padding_side)
  config = decoder_config(family, n)
  torch.manual_seed(seed)
  model = getattr(transformers,
                  DECODER_CLASSES[_base(family)][1])(config).eval()
  with torch.no_grad():
    for name, p in model.named_parameters():
      noise = 0.1 * torch.randn_like(p)
      norm = "norm" in name or ".ln_" in name or name.startswith("ln_")
      offset = 1.0 if norm and family != "gemma" and name.endswith(
          "weight") else 0.0
      p.copy_(offset + noise)
  model.save_pretrained(folder, safe_serialization=True)
  if shards > 1:
    state = {k: v.contiguous() for k, v in model.state_dict().items()
             if not k.endswith((".attn.bias", ".attn.masked_bias"))}
    os.remove(os.path.join(folder, "model.safetensors"))
    names = sorted(state)
    weight_map = {}
    for s in range(shards):
      part = names[s::shards]
      fname = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
      save_file({k: state[k] for k in part}, os.path.join(folder, fname),
                metadata={"format": "pt"})
      weight_map.update({k: fname for k in part})
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
      json.dump({"metadata": {}, "weight_map": weight_map}, f, indent=1)
  return model
