"""Sentence embeddings from frozen encoders, data-parallel, cached on disk.

Python:

  from blm_jax.embedding.embed import EncoderSpec, embed_sentences
  x = embed_sentences(table.sentences, EncoderSpec())   # MiniLM, mean pooled
  x = embed_sentences(table.sentences, EncoderSpec(
      "google/electra-base-discriminator", pooling="mean", layer=-1),
      cache_dir="~/.cache/blm_jax/embeddings")         # float32 [n, D]

A training run reads its encoder section once (`spec.EncoderSettings`) and
asks `sources` for its tables; the EncoderSpec is the one form every
function here takes.

To fill the cache ahead of training (a dataset's splits, or exactly one
run's sentences): `python -m blm_jax.cli.embed` (`blm_jax.embedding.fill`).

How it runs: the distinct sentences not yet cached are tokenized in one
batch call, sorted by token length and cut into batches padded to a few
bucket lengths (`placement.buckets`: four per octave on a CPU, where the
forward's time follows the padded length, two on an accelerator, where
compiling a shape costs more; `batch_shapes` lists a run's shapes). Every
batch is split over all local devices with `jax.jit` and a
`NamedSharding` over a 1-D mesh: parameters replicated, batch rows sharded.
That is the form this JAX version recommends (`jax.pmap` is documented as the
older API, now built on shard_map), it needs no per-device reshaping, and the
same compiled function serves one device or many. Batches are dispatched one
ahead of the host, so tokenizing/padding the next batch overlaps the device.

Models larger than one device (decoder LLMs): before the first batch the
memory a device needs is estimated (`encoders.memory`: parameters plus the
activations of a batch at its padded length) and checked against what XLA
may allocate there. Where the parameters would not fit replicated, each is
sharded over the mesh along its largest axis divisible by the device count
(`placement.param_shardings`); under jit XLA gathers each layer's weights where they
are used, so a model of P bytes needs about P / devices each, plus a layer.
`shard_params=True` forces that layout (tests, or to free memory for larger
batches). Where even that does not fit, the error names what to change.

With a cache, the embeddings are written as they are made: one shard every
`shard_batches` batches (atomically, see embedding_cache.py), in a
background thread while the next part is encoded, so the writes cost the
device nothing (at most two parts are held: one written, one encoded).
The cache is checked writable before the first batch; a killed run
finishes the write under way, keeps its finished shards, and a rerun
embeds only the rest, batched exactly as the killed run would have, so the
result is the same bit for bit.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import sys
import time
from typing import Any, Sequence

import jax
import numpy as np

from blm_jax.base import background
from blm_jax.embedding import cache as embedding_cache, placement
from blm_jax.embedding.placement import DEFAULT_BATCH_SIZE
from blm_jax.embedding.spec import (DEFAULT_CACHE_DIR, DEFAULT_MAX_LENGTH,
                                    EncoderSpec)
from blm_jax.encoders import blocks as transformer_blocks, encoder as encoders

# Batches per cache shard: the work a killed run can lose, and what the
# embedding of a dataset holds in memory before writing.
DEFAULT_SHARD_BATCHES = 16


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


def _rows_for(n: int, batch_size: int, n_dev: int) -> int:
  """Rows of a batch holding n sentences: a power of two (few shapes),
  at most batch_size, a multiple of the device count."""
  rows = 1
  while rows < n:
    rows *= 2
  rows = min(rows, batch_size)
  return -(-rows // n_dev) * n_dev


def batch_shapes(lengths: Sequence[int], batch_size: int, devices
                 ) -> list[tuple[int, int]]:
  """(rows, padded length) of each batch, in order, that embedding
  sentences of these token lengths runs (all distinct, none cached): the
  shapes it compiles and the padding it computes."""
  n_dev = len(devices)
  batch_size = -(-batch_size // n_dev) * n_dev
  platform = devices[0].platform
  ordered = np.sort(np.asarray(lengths, np.int64), kind="stable")
  return [(_rows_for(len(chunk), batch_size, n_dev),
           placement.bucket(int(chunk[-1]), platform))
          for chunk in (ordered[s:s + batch_size]
                        for s in range(0, len(ordered), batch_size))]


def _encode_batches(encoder: encoders.Encoder, ids, lengths, sel_all, *,
                    pooling: str, layers: tuple[int, ...], batch_size: int,
                    devices, bar, sharded: bool = False
                    ) -> tuple[np.ndarray, int]:
  """Embeds the sentences `sel_all` (indices into `ids`, sorted by length):
  (vectors [len(sel_all), len(layers), D], padded tokens)."""
  out = np.zeros((len(sel_all), len(layers),
                  encoders.pooled_width(pooling, encoder.hidden_size)),
                 np.float32)
  n_dev = len(devices)
  platform = devices[0].platform
  fn, params, rows_sharding = placement.compiled(encoder, pooling,
                                                 tuple(devices), sharded)
  left = encoder.padding_side == "left"
  layers = list(layers)

  def host_batch(sel):
    # No Python loop over sentences or tokens: one boolean scatter.
    n = len(sel)
    took = lengths[sel]
    t = placement.bucket(int(took.max()), platform)
    rows = _rows_for(n, batch_size, n_dev)
    cols = np.arange(t)
    real = (cols >= t - took[:, None]) if left else (cols < took[:, None])
    b_ids = np.full((rows, t), encoder.pad_id, np.int32)
    b_ids[:n][real] = np.concatenate([ids[i] for i in sel])
    b_mask = np.zeros((rows, t), np.int32)
    b_mask[:n] = real
    # Filler rows: one token, dropped afterwards.
    b_mask[n:, -1 if left else 0] = 1
    return b_ids, b_mask

  padded = 0
  pending = None  # (rows of out, device result): fetched one batch later.
  for start in range(0, len(sel_all), batch_size):
    b_ids, b_mask = host_batch(sel_all[start:start + batch_size])
    padded += b_ids.size
    result = fn(params, jax.device_put(b_ids, rows_sharding),
                jax.device_put(b_mask, rows_sharding))
    if pending is not None:
      _collect(out, *pending, layers, bar)
    pending = (slice(start, start + batch_size), result)
  if pending is not None:
    _collect(out, *pending, layers, bar)
  return out, padded


def _encode_parts(encoder: encoders.Encoder, texts: Sequence[str], *,
                  pooling: str, layers: tuple[int, ...], max_length: int,
                  batch_size: int, devices, part_batches: int, progress: bool,
                  totals: dict, sharded: bool = False):
  """Embeds `texts` (no cache) part by part, every layer of `layers` in one
  encoder pass.

  Yields (indices into texts, vectors [k, len(layers), D]) for parts of
  `part_batches` batches each, so a caller can write every part to disk
  before the next is encoded: memory holds one part, and a killed run keeps
  the parts already written. Sentences are sorted by token length over all
  parts; a part is a whole number of batches, so a rerun over the parts not
  yet written batches them exactly as this run would have. `totals`
  receives the token counts (padded, real, truncated).
  """
  n = len(texts)
  totals.update(padded=0, real=0, truncated=0)
  if n == 0:
    return
  ids = [np.asarray(x, np.int32) for x in encoder.tokenize(texts, max_length)]
  lengths = np.array([len(x) for x in ids])
  totals.update(real=int(lengths.sum()),
                truncated=int((lengths >= max_length).sum()))
  order = np.argsort(lengths, kind="stable")
  n_dev = len(devices)
  batch_size = -(-batch_size // n_dev) * n_dev
  part = batch_size * part_batches
  bar = _progress_bar(n, encoder.name, progress)
  try:
    for start in range(0, n, part):
      sel = order[start:start + part]
      vectors, padded = _encode_batches(
          encoder, ids, lengths, sel, pooling=pooling, layers=layers,
          batch_size=batch_size, devices=devices, bar=bar, sharded=sharded)
      totals["padded"] += padded
      yield sel, vectors
  finally:
    bar.close()


def _collect(out, rows: slice, result, layers: list[int], bar):
  k = len(out[rows])
  out[rows] = np.asarray(result)[:k, layers]
  bar.update(k)


def _progress_bar(total: int, name: str, enabled: bool):
  from tqdm.auto import tqdm

  return tqdm(total=total, unit="sent", dynamic_ncols=True,
              desc=f"embed [{name}]", disable=not enabled, file=sys.stderr)


def _resolve(encoder, pooling, layer, max_length):
  """(loaded Encoder, EncoderSpec) from the arguments of embed_sentences:
  an EncoderSpec (the one form a run uses), or an encoder already loaded
  (tests, benchmarks) with pooling, layer and max_length as keywords."""
  overrides = {k: v for k, v in (("pooling", pooling), ("layer", layer),
                                 ("max_length", max_length)) if v is not None}
  if isinstance(encoder, EncoderSpec):
    if overrides:
      raise ValueError(
          f"embed_sentences: {', '.join(overrides)} given beside an "
          "EncoderSpec; set them in the spec")
    spec = encoder
    loaded = encoders.load_encoder(spec.name_or_path, spec.revision,
                                   spec.dtype)
  elif isinstance(encoder, encoders.Encoder):
    spec = EncoderSpec(name_or_path=encoder.name, dtype=encoder.dtype,
                       **overrides)
    loaded = encoder
  else:
    raise TypeError(f"embed_sentences takes an EncoderSpec (or a loaded "
                    f"encoders.Encoder), not {type(encoder).__name__}")
  if spec.random_weights_seed is not None:
    loaded = encoders.randomized(loaded, spec.random_weights_seed)
  return loaded, spec


def embed_with_stats(
    sentences: Sequence[str],
    encoder: EncoderSpec | encoders.Encoder,
    *,
    pooling: str | None = None,
    layer: int | None = None,
    max_length: int | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    cache_dir: str | None = None,
    progress: bool = True,
    devices: Sequence[Any] | None = None,
    shard_batches: int = DEFAULT_SHARD_BATCHES,
    return_embeddings: bool = True,
    shard_params: bool | None = None,
) -> tuple[np.ndarray | None, EmbedStats]:
  """`embed_sentences`, plus what it did (counts, throughput).

  `return_embeddings=False` (with a cache_dir) only fills the cache: the
  vectors are written shard by shard and never all held in memory, and
  cached sentences are not even read.
  """
  enc, spec = _resolve(encoder, pooling, layer, max_length)
  k = enc.layer_index(spec.layer)
  by_layer, stats = _embed_layers(
      sentences, enc, spec, (k,), batch_size=batch_size, cache_dir=cache_dir,
      progress=progress, devices=devices, shard_batches=shard_batches,
      return_embeddings=return_embeddings, shard_params=shard_params)
  return (by_layer[k] if by_layer is not None else None), stats


def embed_layers(
    sentences: Sequence[str],
    encoder: EncoderSpec | encoders.Encoder,
    layers: Sequence[int] | None = None,
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    cache_dir: str | None = None,
    progress: bool = True,
    devices: Sequence[Any] | None = None,
    shard_batches: int = DEFAULT_SHARD_BATCHES,
    shard_params: bool | None = None,
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
  return _embed_layers(sentences, enc, spec, ks, batch_size=batch_size,
                       cache_dir=cache_dir, progress=progress,
                       devices=devices, shard_batches=shard_batches,
                       shard_params=shard_params)


def _embed_layers(sentences, enc, spec, ks: tuple[int, ...], *, batch_size,
                  cache_dir, progress, devices, shard_batches,
                  return_embeddings=True, shard_params=None):
  """The cached embedding of `sentences` at hidden states `ks`: ({k: [n, D]}
  or None without return_embeddings, stats). The cache of every layer is
  written part by part as the encoder goes."""
  if isinstance(sentences, str):
    raise TypeError("embed_sentences takes a sequence of sentences, not a str")
  texts = list(sentences)
  for i, t in enumerate(texts):
    if not isinstance(t, str):
      raise TypeError(f"sentence {i} is a {type(t).__name__}, not a str")
  if not return_embeddings and cache_dir is None:
    raise ValueError("return_embeddings=False needs a cache_dir (the "
                     "embeddings would be computed and thrown away)")
  if spec.max_length is None:
    spec = dataclasses.replace(
        spec, max_length=min(DEFAULT_MAX_LENGTH, enc.max_tokens))
  if spec.max_length > enc.max_tokens:
    raise ValueError(
        f"encoder {enc.name!r}: max_length={spec.max_length} exceeds the "
        f"{enc.max_tokens} positions the model has")
  if batch_size < 0:
    raise ValueError(f"batch_size={batch_size} must be >= 1 (or 0: chosen "
                     "from the devices' memory)")
  if shard_batches < 1:
    raise ValueError(f"shard_batches={shard_batches} must be >= 1")
  devices = list(devices or jax.local_devices())
  if batch_size == 0:
    batch_size = placement.choose_batch_size(enc, devices, spec.max_length,
                                   shard_params)

  distinct = list(dict.fromkeys(texts))
  hashes = [embedding_cache.text_hash(t) for t in distinct]
  dim = encoders.pooled_width(spec.pooling, enc.hidden_size)
  vectors = ({k: np.zeros((len(distinct), dim), np.float32) for k in ks}
             if return_embeddings else None)  # One row per distinct sentence.
  caches: dict[int, embedding_cache.EmbeddingCache] = {}
  present: dict[int, set] = {k: set() for k in ks}
  if cache_dir is not None:
    row = {h: i for i, h in enumerate(hashes)}
    for k in ks:
      key = embedding_cache.cache_key(enc.identity, spec.pooling, k,
                                      spec.max_length)
      caches[k] = embedding_cache.EmbeddingCache(cache_dir, key,
                                                 source=enc.name)
      if return_embeddings:
        found = caches[k].lookup(hashes)
        for h, v in found.items():
          vectors[k][row[h]] = v
        present[k] = set(found)
        del found
      else:
        present[k] = set(caches[k].contains(hashes))
  # A sentence any layer lacks runs once, for every layer.
  todo = [i for i, h in enumerate(hashes)
          if any(h not in present[k] for k in ks)]
  sharded = False
  if todo:  # Before the encoding work, not after it.
    sharded = placement.plan_params(enc, devices, -(-batch_size // len(devices))
                          * len(devices), spec.max_length, shard_params)
    for cache in caches.values():
      cache.check_writable()

  def write(rows, new):
    for j, k in enumerate(ks):
      lacking = [p for p, r in enumerate(rows) if hashes[r] not in present[k]]
      if lacking:
        caches[k].add([hashes[rows[p]] for p in lacking], new[lacking, j])

  totals: dict = {}
  start = time.perf_counter()
  # A part's shards are written beside the next part's encoding, one part
  # at a time; the writes under way are finished before returning or
  # raising (a killed run keeps them).
  writing = None
  try:
    for sel, new in _encode_parts(
        enc, [distinct[i] for i in todo], pooling=spec.pooling, layers=ks,
        max_length=spec.max_length, batch_size=batch_size, devices=devices,
        # Without a cache, one part: nothing is gained by cutting.
        part_batches=shard_batches if caches else len(todo),
        progress=progress, totals=totals, sharded=sharded):
      rows = [todo[j] for j in sel]
      if vectors is not None:
        for j, k in enumerate(ks):
          vectors[k][rows] = new[:, j]
      if caches:
        previous, writing = writing, None
        if previous is not None:
          previous.result()
        writing = background.Background(
            functools.partial(write, rows, new), what="embedding cache writes")
  finally:
    if writing is not None:
      writing.result()
  seconds = time.perf_counter() - start
  if totals.get("truncated"):
    logging.warning("%d sentences reached max_length=%d tokens (cut there)",
                    totals["truncated"], spec.max_length)

  out = None
  if vectors is not None:
    if len(distinct) == len(texts):
      out = vectors
    else:
      index = [{t: i for i, t in enumerate(distinct)}[t] for t in texts]
      out = {k: (v[index] if texts else v[:0]) for k, v in vectors.items()}
  stats = EmbedStats(
      requested=len(texts), distinct=len(distinct),
      cached=len(distinct) - len(todo), embedded=len(todo), seconds=seconds,
      padded_tokens=totals.get("padded", 0), real_tokens=totals.get("real", 0),
      truncated=totals.get("truncated", 0), devices=len(devices),
      platform=devices[0].platform, max_length=spec.max_length)
  return out, stats


def embed_sentences(
    sentences: Sequence[str],
    encoder: EncoderSpec | encoders.Encoder,
    *,
    pooling: str | None = None,
    layer: int | None = None,
    max_length: int | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    cache_dir: str | None = None,
    progress: bool = True,
    devices: Sequence[Any] | None = None,
    shard_batches: int = DEFAULT_SHARD_BATCHES,
    shard_params: bool | None = None,
) -> np.ndarray:
  """Frozen-encoder embeddings of `sentences`, float32 [len(sentences), D].

  Args:
    sentences: texts; repeats are embedded once.
    encoder: the `EncoderSpec` of the vectors (a run's comes from its
      config: `EncoderSettings(**config.encoder).spec`), or an already
      loaded `encoders.Encoder` (tests, benchmarks).
    pooling, layer, max_length: with a loaded encoder only ('mean', -1 and
      64 or the model's limit when None); an EncoderSpec carries its own.
    batch_size: sentences per device step, over all devices together
      (rounded up to a multiple of the device count); 0 chooses the largest
      that fits the devices' memory (`choose_batch_size`).
    cache_dir: root of the embedding cache; None computes without caching.
    progress: show a progress bar (sentences/s) on stderr.
    devices: devices to split batches over; all local devices by default.
    shard_batches: with a cache, batches per shard written (a killed run
      keeps every finished shard; a rerun embeds only the rest).
    shard_params: shard the encoder's parameters over the devices (True),
      replicate them (False), or None: shard only when replicated ones
      would not fit (see `plan_params`).

  Raises:
    encoders.EncoderUnavailableError: weights not on disk nor downloadable.
    embedding_cache.CacheMismatchError: the cache folder holds another
      encoder's files.
    embedding_cache.CacheNotWritableError: the cache cannot be written
      (raised before any encoding) or the disk filled up.
    memory.MemoryEstimateError: the encoder would not fit the devices with
      this batch size and max length (raised before any encoding).
  """
  return embed_with_stats(
      sentences, encoder, pooling=pooling, layer=layer, max_length=max_length,
      batch_size=batch_size, cache_dir=cache_dir, progress=progress,
      devices=devices, shard_batches=shard_batches,
      shard_params=shard_params)[0]
