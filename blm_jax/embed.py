"""Sentence embeddings from frozen encoders, data-parallel, cached on disk.

Python:

  from blm_jax.embed import EncoderSpec, embed_sentences
  x = embed_sentences(table.sentences)                  # MiniLM, mean pooled
  x = embed_sentences(table.sentences, encoder=EncoderSpec(
      "google/electra-base-discriminator", pooling="mean", layer=-1),
      cache_dir="~/.cache/blm_jax/embeddings")         # float32 [n, D]

Command line (fills the cache for every split of a dataset):

  python -m blm_jax.embed --dataset=blm_spray_load/ALT-ATL_type_I \
      --encoder=minilm [--split=train,dev] [--cache_dir=...]

How it runs: the distinct sentences not yet cached are tokenized, sorted by
token length and cut into batches padded to a few bucket lengths (padding is
most of the cost: MiniLM on a CPU does about 244 sentences/s at 16 tokens but
19/s at 128). Every batch is split over all local devices with `jax.jit` and a
`NamedSharding` over a 1-D mesh: parameters replicated, batch rows sharded.
That is the form this JAX version recommends (`jax.pmap` is documented as the
older API, now built on shard_map), it needs no per-device reshaping, and the
same compiled function serves one device or many. Batches are dispatched one
ahead of the host, so tokenizing/padding the next batch overlaps the device.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
import sys
import time
from typing import Any, Mapping, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

from blm_jax import embedding_cache, encoders, transformer_blocks

DEFAULT_MAX_LENGTH = 128
DEFAULT_BATCH_SIZE = 64
DEFAULT_CACHE_DIR = os.environ.get(
    "BLM_EMBED_CACHE", os.path.expanduser("~/.cache/blm_jax/embeddings"))
# Padded lengths: few distinct shapes (one compilation each), little waste.
_BUCKETS = (8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)


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
    if not isinstance(self.layer, int):
      raise ValueError(f"EncoderSpec.layer={self.layer!r} is not an int")
    if self.max_length is not None and (
        not isinstance(self.max_length, int) or self.max_length < 2):
      raise ValueError(f"EncoderSpec.max_length={self.max_length!r} must be "
                       "an int >= 2")
    if self.dtype not in transformer_blocks.COMPUTE_DTYPES:
      raise ValueError(f"EncoderSpec.dtype={self.dtype!r} is not one of "
                       f"{sorted(transformer_blocks.COMPUTE_DTYPES)}")
    if self.random_weights_seed is not None and (
        not isinstance(self.random_weights_seed, int)
        or isinstance(self.random_weights_seed, bool)):
      raise ValueError(f"EncoderSpec.random_weights_seed="
                       f"{self.random_weights_seed!r} is not None or an int")

  @classmethod
  def parse(cls, value: Any) -> "EncoderSpec":
    """From None, a name/path, a mapping (e.g. a ConfigDict) or a spec."""
    if value is None:
      return cls()
    if isinstance(value, cls):
      return value
    if isinstance(value, str):
      return cls(name_or_path=value)
    if isinstance(value, encoders.Encoder):
      return cls(name_or_path=value.name, dtype=value.dtype)
    if isinstance(value, Mapping) or hasattr(value, "to_dict"):
      d = dict(value.to_dict() if hasattr(value, "to_dict") else value)
      fields = {f.name for f in dataclasses.fields(cls)}
      unknown = sorted(set(d) - fields)
      if unknown:
        raise ValueError(f"encoder spec: unknown keys {unknown}; valid keys "
                         f"are {sorted(fields)}")
      return cls(**d)
    raise TypeError(f"cannot make an EncoderSpec from {type(value).__name__}")

  def to_dict(self) -> dict:
    return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class EmbedStats:
  """What one call did (the command line prints it; tests check it)."""

  requested: int  # sentences passed in
  distinct: int  # distinct texts among them
  cached: int  # found in the cache
  embedded: int  # run through the encoder now
  seconds: float  # encoder time for `embedded` (excludes model loading)
  padded_tokens: int  # tokens fed to the encoder, padding included
  real_tokens: int  # tokens that were not padding
  truncated: int  # sentences cut at max_length
  devices: int
  platform: str
  max_length: int  # the effective one

  @property
  def sentences_per_s(self) -> float:
    return self.embedded / self.seconds if self.seconds > 0 else float("nan")


def _bucket(n: int) -> int:
  for b in _BUCKETS:
    if n <= b:
      return b
  return n


def _rows_for(n: int, batch_size: int, n_dev: int) -> int:
  """Rows of a batch holding n sentences: a power of two (few shapes),
  at most batch_size, a multiple of the device count."""
  rows = 1
  while rows < n:
    rows *= 2
  rows = min(rows, batch_size)
  return -(-rows // n_dev) * n_dev


@functools.lru_cache(maxsize=8)
def _compiled(encoder: encoders.Encoder, pooling: str, layers: tuple,
              devices: tuple):
  """(jitted pooled forward, params replicated on the mesh, row sharding).

  The forward returns [B, len(layers), D]: one pass gives every requested
  hidden state (the layer sweep). Cached so that repeated calls (one per
  split, say) reuse the compilation and the parameters already on the
  devices.
  """
  mesh = Mesh(np.array(devices), ("data",))
  replicated = NamedSharding(mesh, P())
  rows = NamedSharding(mesh, P("data"))

  def f(params, ids, mask):
    # Pool in float32 whatever the compute dtype (a bf16 sum loses digits).
    hidden = encoder.hidden_states(params, ids, mask)
    return jnp.stack([encoders.pool(hidden[k].astype(jnp.float32), mask,
                                    pooling) for k in layers], axis=1)

  fn = jax.jit(f, in_shardings=(replicated, rows, rows), out_shardings=rows)
  return fn, jax.device_put(encoder.params, replicated), rows


def _encode(encoder: encoders.Encoder, texts: Sequence[str], *, pooling: str,
            layers: tuple[int, ...], max_length: int, batch_size: int,
            devices, progress: bool):
  """Embeds `texts` (no cache) at every hidden state of `layers` in one
  pass; returns (vectors [n, len(layers), D], token counts)."""
  n = len(texts)
  out = np.zeros((n, len(layers), encoder.hidden_size), np.float32)
  if n == 0:
    return out, (0, 0, 0)
  ids = encoder.tokenize(texts, max_length)
  lengths = np.array([len(x) for x in ids])
  truncated = int((lengths >= max_length).sum())
  order = np.argsort(lengths, kind="stable")
  n_dev = len(devices)
  batch_size = -(-batch_size // n_dev) * n_dev
  fn, params, rows_sharding = _compiled(encoder, pooling, tuple(layers),
                                        tuple(devices))

  def host_batch(sel):
    t = _bucket(int(lengths[sel].max()))
    rows = _rows_for(len(sel), batch_size, n_dev)
    b_ids = np.full((rows, t), encoder.pad_id, np.int32)
    b_mask = np.zeros((rows, t), np.int32)
    b_mask[len(sel):, 0] = 1  # Filler rows: one token, dropped afterwards.
    for r, i in enumerate(sel):
      b_ids[r, :lengths[i]] = ids[i]
      b_mask[r, :lengths[i]] = 1
    return b_ids, b_mask

  bar = _progress_bar(n, encoder.name, progress)
  padded = 0
  pending = None  # (selection, device result): fetched one batch later.
  for start in range(0, n, batch_size):
    sel = order[start:start + batch_size]
    b_ids, b_mask = host_batch(sel)
    padded += b_ids.size
    result = fn(params, jax.device_put(b_ids, rows_sharding),
                jax.device_put(b_mask, rows_sharding))
    if pending is not None:
      _collect(out, *pending, bar)
    pending = (sel, result)
  _collect(out, *pending, bar)
  bar.close()
  return out, (padded, int(lengths.sum()), truncated)


def _collect(out, sel, result, bar):
  out[sel] = np.asarray(result)[:len(sel)]
  bar.update(len(sel))


def _progress_bar(total: int, name: str, enabled: bool):
  from tqdm.auto import tqdm

  return tqdm(total=total, unit="sent", dynamic_ncols=True,
              desc=f"embed [{name}]", disable=not enabled, file=sys.stderr)


def _resolve(encoder, pooling, layer, max_length):
  """(loaded Encoder, EncoderSpec) from the arguments of embed_sentences."""
  spec = EncoderSpec.parse(encoder)
  explicit_spec = isinstance(encoder, (EncoderSpec, Mapping)) or hasattr(
      encoder, "to_dict")
  overrides = {k: v for k, v in (("pooling", pooling), ("layer", layer),
                                 ("max_length", max_length)) if v is not None}
  for k, v in overrides.items():
    if explicit_spec and getattr(spec, k) != v:
      raise ValueError(
          f"embed_sentences: {k}={v!r} contradicts the encoder spec's "
          f"{k}={getattr(spec, k)!r}; pass one or the other")
  spec = dataclasses.replace(spec, **overrides)
  if isinstance(encoder, encoders.Encoder):
    loaded = encoder
  else:
    loaded = encoders.load_encoder(spec.name_or_path, spec.revision,
                                   spec.dtype)
  if spec.random_weights_seed is not None:
    loaded = encoders.randomized(loaded, spec.random_weights_seed)
  return loaded, spec


def embed_with_stats(
    sentences: Sequence[str],
    encoder: Any = None,
    *,
    pooling: str | None = None,
    layer: int | None = None,
    max_length: int | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    cache_dir: str | None = None,
    progress: bool = True,
    devices: Sequence[Any] | None = None,
) -> tuple[np.ndarray, EmbedStats]:
  """`embed_sentences`, plus what it did (counts, throughput)."""
  enc, spec = _resolve(encoder, pooling, layer, max_length)
  k = enc.layer_index(spec.layer)
  by_layer, stats = _embed_layers(sentences, enc, spec, (k,), batch_size,
                                  cache_dir, progress, devices)
  return by_layer[k], stats


def embed_layers(
    sentences: Sequence[str],
    encoder: Any = None,
    layers: Sequence[int] | None = None,
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    cache_dir: str | None = None,
    progress: bool = True,
    devices: Sequence[Any] | None = None,
) -> tuple[dict[int, np.ndarray], EmbedStats]:
  """Embeddings at several hidden states, from ONE encoder pass.

  For the layer sweep: each layer is cached under its own key (the same key
  `embed_sentences(..., layer=k)` uses), and a sentence runs through the
  encoder once, for all the requested layers together, when any of them
  lacks it. `layers`: hidden-state indices (negative from the last; None =
  all, 0 = embeddings). Returns ({non-negative layer: [n, D]}, stats).
  """
  enc, spec = _resolve(encoder, None, None, None)
  if layers is None:
    layers = range(enc.num_layers + 1)
  ks = tuple(dict.fromkeys(enc.layer_index(int(k)) for k in layers))
  return _embed_layers(sentences, enc, spec, ks, batch_size, cache_dir,
                       progress, devices)


def _embed_layers(sentences, enc, spec, ks: tuple[int, ...], batch_size,
                  cache_dir, progress, devices):
  """The cached embedding of `sentences` at hidden states `ks`."""
  if isinstance(sentences, str):
    raise TypeError("embed_sentences takes a sequence of sentences, not a str")
  texts = list(sentences)
  for i, t in enumerate(texts):
    if not isinstance(t, str):
      raise TypeError(f"sentence {i} is a {type(t).__name__}, not a str")
  if spec.max_length is None:
    spec = dataclasses.replace(
        spec, max_length=min(DEFAULT_MAX_LENGTH, enc.max_tokens))
  if spec.max_length > enc.max_tokens:
    raise ValueError(
        f"encoder {enc.name!r}: max_length={spec.max_length} exceeds the "
        f"{enc.max_tokens} positions the model has")
  if batch_size < 1:
    raise ValueError(f"batch_size={batch_size} must be >= 1")
  devices = list(devices or jax.local_devices())

  distinct = list(dict.fromkeys(texts))
  hashes = [embedding_cache.text_hash(t) for t in distinct]
  caches: dict[int, embedding_cache.EmbeddingCache] = {}
  found: dict[int, dict[bytes, np.ndarray]] = {k: {} for k in ks}
  if cache_dir is not None:
    for k in ks:
      key = embedding_cache.cache_key(enc.identity, spec.pooling, k,
                                      spec.max_length)
      caches[k] = embedding_cache.EmbeddingCache(cache_dir, key,
                                                 source=enc.name)
      found[k] = caches[k].lookup(hashes)
  # A sentence any layer lacks runs once, for every layer.
  todo = [i for i, h in enumerate(hashes)
          if any(h not in found[k] for k in ks)]

  start = time.perf_counter()
  new, (padded, real, truncated) = _encode(
      enc, [distinct[i] for i in todo], pooling=spec.pooling, layers=ks,
      max_length=spec.max_length, batch_size=batch_size, devices=devices,
      progress=progress)
  seconds = time.perf_counter() - start
  if truncated:
    logging.warning("%d sentences reached max_length=%d tokens (cut there)",
                    truncated, spec.max_length)
  out = {}
  for j, k in enumerate(ks):
    if k in caches:
      missing = [r for r, i in enumerate(todo) if hashes[i] not in found[k]]
      if missing:
        caches[k].add([hashes[todo[r]] for r in missing], new[missing, j])
    by_hash = dict(found[k])
    by_hash.update({hashes[i]: new[r, j] for r, i in enumerate(todo)})
    row_of = {t: by_hash[h] for t, h in zip(distinct, hashes)}
    vectors = np.zeros((len(texts), enc.hidden_size), np.float32)
    for r, t in enumerate(texts):
      vectors[r] = row_of[t]
    out[k] = vectors
  stats = EmbedStats(
      requested=len(texts), distinct=len(distinct),
      cached=len(distinct) - len(todo), embedded=len(todo), seconds=seconds,
      padded_tokens=padded, real_tokens=real, truncated=truncated,
      devices=len(devices), platform=devices[0].platform,
      max_length=spec.max_length)
  return out, stats


def embed_sentences(
    sentences: Sequence[str],
    encoder: Any = None,
    *,
    pooling: str | None = None,
    layer: int | None = None,
    max_length: int | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    cache_dir: str | None = None,
    progress: bool = True,
    devices: Sequence[Any] | None = None,
) -> np.ndarray:
  """Frozen-encoder embeddings of `sentences`, float32 [len(sentences), D].

  Args:
    sentences: texts; repeats are embedded once.
    encoder: None (the offline default, MiniLM), a name/alias/hub id/folder,
      an `EncoderSpec` (or a mapping of its fields, e.g. a config section), or
      an already loaded `encoders.Encoder`.
    pooling: 'mean' | 'first' | 'last'; None means the spec's ('mean' for a
      plain name). With an EncoderSpec, a value that contradicts it raises.
    layer: hidden state to pool (-1 last, 0 embeddings); None as above (-1).
    max_length: tokens per sentence; None as above (128, or the model's
      limit if lower).
    batch_size: sentences per device step, over all devices together
      (rounded up to a multiple of the device count).
    cache_dir: root of the embedding cache; None computes without caching.
    progress: show a progress bar (sentences/s) on stderr.
    devices: devices to split batches over; all local devices by default.

  Raises:
    encoders.EncoderUnavailableError: weights not on disk nor downloadable.
    embedding_cache.CacheMismatchError: the cache folder holds another
      encoder's files.
  """
  return embed_with_stats(
      sentences, encoder, pooling=pooling, layer=layer, max_length=max_length,
      batch_size=batch_size, cache_dir=cache_dir, progress=progress,
      devices=devices)[0]


# -- filling the cache for a dataset ------------------------------------------


@dataclasses.dataclass(frozen=True)
class FillReport:
  dataset: str
  splits: dict[str, dict]  # split -> {instances, sentences, dedup_ratio}
  sentences: int  # distinct over all splits
  references: int  # sentence slots over all splits
  stats: EmbedStats

  @property
  def dedup_ratio(self) -> float:
    return self.references / max(1, self.sentences)


def fill_cache(dataset: str, encoder: Any = None, *,
               splits: Sequence[str] | None = None,
               data_dir: str | None = None, manual_dir: str | None = None,
               cache_dir: str = DEFAULT_CACHE_DIR,
               batch_size: int = DEFAULT_BATCH_SIZE,
               progress: bool = True, **spec_overrides) -> FillReport:
  """Embeds (into the cache) every distinct sentence of a dataset's splits."""
  from blm_jax import data
  from blm_jax.sentence_table import build_sentence_table

  splits = list(splits or data.split_names(dataset, data_dir, manual_dir))
  sentences: tuple[str, ...] = ()
  per_split, references = {}, 0
  for split in splits:
    instances = data.load_instances(dataset, split, data_dir, manual_dir)
    alone = build_sentence_table(instances)
    # Growing one table over the splits keeps every sentence once overall.
    sentences = build_sentence_table(instances, sentences=sentences).sentences
    references += alone.num_references
    per_split[split] = {"instances": alone.num_instances,
                        "sentences": len(alone.sentences),
                        "dedup_ratio": round(alone.dedup_ratio, 3)}
  _, stats = embed_with_stats(sentences, encoder, batch_size=batch_size,
                              cache_dir=cache_dir, progress=progress,
                              **spec_overrides)
  return FillReport(dataset=dataset, splits=per_split,
                    sentences=len(sentences), references=references,
                    stats=stats)


def run(f) -> FillReport:
  """The command line's work, given parsed absl flag values `f`."""
  spec = EncoderSpec(f.encoder, pooling=f.pooling, layer=f.layer,
                     max_length=f.max_length, revision=f.revision,
                     dtype=f.dtype)
  splits = f.split.split(",") if f.split else None
  report = fill_cache(f.dataset, spec, splits=splits, data_dir=f.data_dir,
                      manual_dir=f.manual_dir, cache_dir=f.cache_dir,
                      batch_size=f.batch_size, progress=True)
  s = report.stats
  for split, row in report.splits.items():
    print(f"{split:>8}: {row['instances']} instances, {row['sentences']} "
          f"distinct sentences, dedup ratio {row['dedup_ratio']:.2f}")
  print(f"{report.dataset}: {report.sentences} distinct sentences over "
        f"{len(report.splits)} splits, dedup ratio {report.dedup_ratio:.2f} "
        f"({report.references} sentence slots)")
  head = (f"encoder {spec.name_or_path} pooling={spec.pooling} "
          f"layer={spec.layer} max_length={s.max_length} "
          f"dtype={spec.dtype}: {s.cached} from the cache, {s.embedded} "
          "embedded")
  if s.embedded:
    pad = 1 - s.real_tokens / max(1, s.padded_tokens)
    head += (f" in {s.seconds:.1f}s ({s.sentences_per_s:.1f} sentences/s on "
             f"{s.devices} {s.platform} device(s); padding {pad:.0%} of "
             "tokens)")
  print(f"{head} -> {os.path.expanduser(f.cache_dir)}")
  return report


def main(argv) -> None:
  from absl import flags

  if len(argv) > 1:
    raise SystemExit(f"unexpected arguments: {argv[1:]}")
  run(flags.FLAGS)


def define_flags(fv=None) -> None:
  """Defines the command line's flags (on absl's global FLAGS by default)."""
  from absl import flags

  fv = flags.FLAGS if fv is None else fv
  flags.DEFINE_string("dataset", None, "TFDS name, e.g. blm_agreement/fr.",
                      flag_values=fv)
  flags.mark_flag_as_required("dataset", flag_values=fv)
  flags.DEFINE_string("encoder", encoders.DEFAULT_ENCODER,
                      "Registry name, alias, hub id or local folder.",
                      flag_values=fv)
  flags.DEFINE_enum("pooling", "mean", list(encoders.POOLINGS), "Pooling.",
                    flag_values=fv)
  flags.DEFINE_integer("layer", -1, "Hidden state (-1 last, 0 embeddings).",
                       flag_values=fv)
  flags.DEFINE_integer("max_length", None, "Tokens kept (default "
                       f"{DEFAULT_MAX_LENGTH} or the model's limit).",
                       flag_values=fv)
  flags.DEFINE_string("revision", None, "Hub revision for hub ids.",
                      flag_values=fv)
  flags.DEFINE_enum("dtype", "float32", sorted(
      transformer_blocks.COMPUTE_DTYPES), "Encoder compute dtype (bfloat16: "
                    "faster on accelerators, about 1% off float32; cached "
                    "under its own key).", flag_values=fv)
  flags.DEFINE_integer("batch_size", DEFAULT_BATCH_SIZE,
                       "Sentences per step over all devices.", flag_values=fv)
  flags.DEFINE_string("split", None, "Comma-separated splits (default all).",
                      flag_values=fv)
  flags.DEFINE_string("data_dir", None, "TFDS data_dir (default $BLM_DATA_DIR "
                      "or ~/tensorflow_datasets).", flag_values=fv)
  flags.DEFINE_string("manual_dir", None, "Folder of release files, for "
                      "builders that read them.", flag_values=fv)
  flags.DEFINE_string("cache_dir", DEFAULT_CACHE_DIR, "Embedding cache root "
                      "(default $BLM_EMBED_CACHE or "
                      "~/.cache/blm_jax/embeddings).", flag_values=fv)


if __name__ == "__main__":
  from absl import app

  define_flags()
  app.run(main)
