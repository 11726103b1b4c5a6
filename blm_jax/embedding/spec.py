"""What an embedding is made of: the typed values the embedding road takes.

`EncoderSpec` names the vectors (encoder, pooling, layer, max length,
dtype: what the cache key depends on); `EncoderSettings` is a config's
whole `encoder` section, read once where a run starts
(`EncoderSettings(**config.encoder)`), each bad value refused in one line
that names its config key; its `spec` is the EncoderSpec every embedding
function takes.
"""

from __future__ import annotations

import dataclasses
import os

from blm_jax.encoders import blocks as transformer_blocks, encoder as encoders

# The max_length training uses (configs' encoder.max_length; a test keeps
# the two equal), so the command line fills the cache training reads.
DEFAULT_MAX_LENGTH = 64
DEFAULT_CACHE_DIR = os.environ.get(
    "BLM_EMBED_CACHE", os.path.expanduser("~/.cache/blm_jax/embeddings"))


@dataclasses.dataclass(frozen=True)
class EncoderSpec:
  """Which embeddings: what a training config carries to name its inputs.

  Attributes:
    name_or_path: registry name ('minilm', 'google/electra-base-discriminator',
      'openai-community/openai-gpt', ...), an alias, a hub id, or a folder.
    pooling: 'mean' (over the attention mask), 'first' ([CLS]/<s>) or 'last'.
    layer: which hidden state: -1 the last layer, 0 the embeddings layer.
    max_length: tokens kept per sentence (special tokens included); None:
      DEFAULT_MAX_LENGTH or the model's limit if that is lower.
    revision: hub revision (branch, tag or commit) for hub ids.
    dtype: compute dtype, 'float32' or 'bfloat16' (faster on accelerators;
      embeddings differ from float32 by about 1%, so they are cached under
      their own key).
    random_weights_seed: None for the published weights; a seed for the
      same architecture and tokenizer with freshly initialised weights (the
      random-encoder control, `encoders.randomized`), cached under its own
      key.
  """

  name_or_path: str = encoders.DEFAULT_ENCODER
  pooling: str = "mean"
  layer: int = -1
  max_length: int | None = None
  revision: str | None = None
  dtype: str = "float32"
  random_weights_seed: int | None = None

  def __post_init__(self):
    if self.pooling not in encoders.POOLINGS:
      raise ValueError(f"EncoderSpec.pooling={self.pooling!r} is not one of "
                       f"{encoders.POOLINGS}")
    if not _is_int(self.layer):
      raise ValueError(f"EncoderSpec.layer={self.layer!r} is not an int")
    if self.max_length is not None and (
        not _is_int(self.max_length) or self.max_length < 2):
      raise ValueError(f"EncoderSpec.max_length={self.max_length!r} must be "
                       "an int >= 2")
    if self.dtype not in transformer_blocks.COMPUTE_DTYPES:
      raise ValueError(f"EncoderSpec.dtype={self.dtype!r} is not one of "
                       f"{sorted(transformer_blocks.COMPUTE_DTYPES)}")
    if self.random_weights_seed is not None and not _is_int(
        self.random_weights_seed):
      raise ValueError(f"EncoderSpec.random_weights_seed="
                       f"{self.random_weights_seed!r} is not None or an int")

  def to_dict(self) -> dict:
    return dataclasses.asdict(self)


def _is_int(value) -> bool:
  return isinstance(value, int) and not isinstance(value, bool)


def parse_layer_sweep(value: str, num_layers: int | None = None
                      ) -> tuple[int, ...] | str:
  """`config.encoder.layer_sweep` -> hidden-state indices, in order.

  '' = no sweep, 'all' = every hidden state 0..num_layers (the embedding
  layer and each block), or a comma-separated list such as '0,3,6'
  (negative indices count from the last layer). Without `num_layers` (the
  encoder is not loaded yet) only the syntax is checked and 'all' is
  returned as is.
  """
  key = "config.encoder.layer_sweep"
  if not isinstance(value, str):
    raise ValueError(f"{key}={value!r}: expected a string: '', 'all' or "
                     "comma-separated layer indices such as '0,3,6'")
  value = value.strip()
  if not value:
    return ()
  if value == "all":
    return "all" if num_layers is None else tuple(range(num_layers + 1))
  try:
    layers = [int(s) for s in value.split(",")]
  except ValueError:
    raise ValueError(f"{key}={value!r}: expected '', 'all' or comma-separated"
                     " layer indices such as '0,3,6'") from None
  if num_layers is None:
    return tuple(layers)
  n = num_layers + 1
  bad = [k for k in layers if not -n <= k < n]
  if bad:
    raise ValueError(f"{key}={value!r}: layer(s) {bad} out of range; the "
                     f"encoder has hidden states 0..{num_layers} (0 = "
                     "embeddings, -1 = last)")
  return tuple(dict.fromkeys(k % n for k in layers))


@dataclasses.dataclass(frozen=True)
class EncoderSettings:
  """A config's `encoder` section as one typed value: the spec of the
  vectors plus how to make them (batch size, cache folder, layer sweep).

  Built as `EncoderSettings(**config.encoder)`; a bad value raises a
  ValueError of one line naming `config.encoder.<key>`.
  """

  name: str = encoders.DEFAULT_ENCODER  # '' = the offline default
  pooling: str = "mean"
  layer: int = -1
  max_length: int = DEFAULT_MAX_LENGTH
  batch_size: int = 128  # sentences per step; 0 = the largest that fits
  dtype: str = "float32"
  cache_dir: str = ""  # '' = DEFAULT_CACHE_DIR
  layer_sweep: str = ""  # '' | 'all' | '0,3,6'

  def __post_init__(self):
    key = "config.encoder"
    if not isinstance(self.name, str):
      raise ValueError(f"{key}.name={self.name!r}: expected a registry name, "
                       "a hub id or a model folder")
    if self.pooling not in encoders.POOLINGS:
      raise ValueError(f"{key}.pooling={self.pooling!r} is not known; "
                       f"expected one of {', '.join(encoders.POOLINGS)}")
    if not _is_int(self.layer):
      raise ValueError(f"{key}.layer={self.layer!r}: expected an integer "
                       "(-1 the last hidden state, 0 the embeddings)")
    if not _is_int(self.max_length) or self.max_length < 2:
      raise ValueError(f"{key}.max_length={self.max_length!r}: must be an "
                       "integer >= 2")
    if not _is_int(self.batch_size) or self.batch_size < 0:
      raise ValueError(f"{key}.batch_size={self.batch_size!r}: must be an "
                       "integer >= 0 (0 = the largest that fits)")
    if self.dtype not in transformer_blocks.COMPUTE_DTYPES:
      raise ValueError(f"{key}.dtype={self.dtype!r} is not known; expected "
                       f"one of {', '.join(sorted(transformer_blocks.COMPUTE_DTYPES))}")
    if not isinstance(self.cache_dir, str):
      raise ValueError(f"{key}.cache_dir={self.cache_dir!r}: expected a "
                       "folder or '' (the default cache)")
    parse_layer_sweep(self.layer_sweep)

  @property
  def spec(self) -> EncoderSpec:
    """The vectors these settings name (the cache key's part)."""
    return EncoderSpec(name_or_path=self.name or encoders.DEFAULT_ENCODER,
                       pooling=self.pooling, layer=self.layer,
                       max_length=self.max_length, dtype=self.dtype)

  @property
  def cache_root(self) -> str:
    return self.cache_dir or DEFAULT_CACHE_DIR

  @property
  def sweeps(self) -> bool:
    return bool(parse_layer_sweep(self.layer_sweep))
