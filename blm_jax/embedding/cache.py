"""A crash-safe on-disk cache of sentence embeddings.

Layout: one folder per cache key under the cache root,

  <root>/<model_type>-<pooling>-L<layer>-T<max_length>-<key digest>/
    meta.json               the full key, the embedding width
    shard-<time>-<id>.npz   text hashes [n, 32] uint8, vectors [n, D] float32,
                            and the key again

The key is the encoder identity (model type, sha256 of the weights and of the
tokenizer files), the pooling, the layer, the max length and this format's
version; sentences are found by the sha256 of their UTF-8 text. Every write is
a NEW shard, written to a temporary file in the same folder, fsynced, then
renamed into place: a run killed mid-write leaves at most a `*.tmp` file that
readers ignore, and the shards already there stay complete.

Memory stays bounded by what a caller asks for, not by the cache's size:
opening a cache reads only each shard's hashes and array headers, `lookup`
reads the vectors of the shards that hold requested rows (one shard at a
time) and keeps only those rows, and `add` keeps nothing but the index. So
an embedding run can write a shard every few batches (`blm_jax.embedding.embed` does)
without the cache growing in RAM, and a killed run keeps its finished shards.
`check_writable` is meant to run before any encoding: a read-only or
misplaced cache then fails at once, not after the embedding work.

A file of the cache is read only when it is trusted (`safe_io.trusted`:
owned by the running user, not writable by group or others, one name, no
symbolic link); any other is ignored with a warning and its sentences are
embedded again. Files are written with mode 644 (less the umask).

When reading, a shard that cannot be read whole (truncated, bad zip CRC) or
whose arrays have the wrong shape or dtype is moved aside to `*.corrupt` and
its sentences are embedded again (rebuilt, with a warning). A shard or a
meta.json that carries another key (another encoder's files copied or moved
in) is rejected with `CacheMismatchError`: the cache is never silently mixed.
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import os
import tempfile
import time
import uuid
import zipfile
from typing import Iterable, Mapping, Sequence

import numpy as np
from blm_jax.base import files
from data_builders.common import safe_io

FORMAT_VERSION = 1
# The version of the program that computes the vectors (blm_jax.embedding.embed): a
# change that moves them, even in the last float bits, bumps it, so that a
# cache never mixes vectors of two programs. 2: every hidden state pooled
# in one program, whichever layers are asked for.
PROGRAM_VERSION = 2
_HASH_BYTES = 32
MAX_META_BYTES = 1 << 20


class CacheMismatchError(ValueError):
  """Cache files were written for another key (encoder, pooling, ...)."""


class CacheNotWritableError(OSError):
  """The cache folder cannot be created or written (read-only, full, ...)."""


def text_hash(text: str) -> bytes:
  return hashlib.sha256(text.encode("utf-8")).digest()


def cache_key(encoder_identity: Mapping[str, str], pooling: str, layer: int,
              max_length: int) -> dict:
  """Everything the embedding of a sentence depends on, as plain JSON."""
  return {"format": FORMAT_VERSION, "program": PROGRAM_VERSION,
          "encoder": dict(encoder_identity),
          "pooling": pooling, "layer": int(layer),
          "max_length": int(max_length)}


def _digest(key: Mapping) -> str:
  return hashlib.sha256(
      json.dumps(key, sort_keys=True).encode()).hexdigest()[:20]


class EmbeddingCache:
  """The cached embeddings of one key.

  Usage: `found = cache.lookup(hashes)` (hash -> vector for those present),
  `cache.check_writable()` before encoding the rest, then `cache.add(...)`
  for each finished part (one new shard per call).
  """

  def __init__(self, root: str, key: Mapping, source: str = ""):
    self.key = json.loads(json.dumps(dict(key), sort_keys=True))
    self.digest = _digest(self.key)
    enc = self.key.get("encoder", {})
    layer = self.key.get("layer")
    name = (f"{enc.get('model_type', 'encoder')}-{self.key.get('pooling')}-"
            f"L{layer}-T{self.key.get('max_length')}-{self.digest}")
    self.root = os.path.expanduser(root)
    self.dir = os.path.join(self.root, name)
    self.source = source
    # hash -> (shard number, row); shard number -> path. No vectors are
    # kept: they are read from disk when looked up.
    self._index: dict[bytes, tuple[int, int]] | None = None
    self._paths: list[str | None] = []
    self._rows: list[int] = []
    self.dim: int | None = None
    self.rebuilt: list[str] = []  # Shards moved aside as corrupt.

  # -- reading ---------------------------------------------------------------

  def _check_meta(self) -> None:
    path = os.path.join(self.dir, "meta.json")
    if not os.path.lexists(path):
      return
    untrusted = safe_io.trusted(path)
    if untrusted:
      logging.warning("embedding cache %s ignored: %s (a cache file is "
                      "trusted only when it is this user's and no one "
                      "else can write it)", path, untrusted)
      return
    try:
      meta = files.read_json(path, MAX_META_BYTES)
      key, dim = meta["key"], meta["dim"]
    except (ValueError, KeyError, TypeError, OSError) as e:
      logging.warning("embedding cache %s: unreadable meta.json (%s); "
                      "rewriting it", path, e)
      os.replace(path, path + f".corrupt-{int(time.time())}")
      return
    if key != self.key:
      raise CacheMismatchError(
          f"embedding cache {path}: written for key {json.dumps(key)}, but "
          f"this run's key is {json.dumps(self.key)} (another encoder's cache "
          "was put in this folder). Remove the folder or use another "
          "cache_dir.")
    self.dim = int(dim)

  def _load(self) -> None:
    if self._index is not None:
      return
    self._index, self._paths, self._rows = {}, [], []
    if not os.path.isdir(self.dir):
      return
    self._check_meta()
    for fname in sorted(os.listdir(self.dir)):
      if not (fname.startswith("shard-") and fname.endswith(".npz")):
        continue  # Temp files of killed writes, quarantined shards, meta.
      path = os.path.join(self.dir, fname)
      untrusted = safe_io.trusted(path)
      if untrusted:
        logging.warning("embedding cache file %s ignored: %s (a cache file "
                        "is trusted only when it is this user's and no one "
                        "else can write it); its sentences are embedded "
                        "again", path, untrusted)
        continue
      hashes = self._read_index(path)
      if hashes is not None:
        self._register(path, hashes)

  def _register(self, path: str, hashes) -> None:
    s = len(self._paths)
    self._paths.append(path)
    self._rows.append(len(hashes))
    for row, h in enumerate(hashes):
      self._index[bytes(h)] = (s, row)

  def _read_index(self, path: str):
    """The hashes of one shard after checking its key and array headers
    (the vectors themselves are not read)."""
    try:
      with np.load(path, allow_pickle=False) as z:
        key = json.loads(str(z["key"]))
        hashes = z["hashes"]
      with zipfile.ZipFile(path) as zf, zf.open("vectors.npy") as f:
        version = np.lib.format.read_magic(f)
        read_header = (np.lib.format.read_array_header_1_0
                       if version == (1, 0) else
                       np.lib.format.read_array_header_2_0)
        vshape, _, vdtype = read_header(f)
    except (zipfile.BadZipFile, ValueError, KeyError, EOFError, OSError) as e:
      return self._quarantine(path, f"unreadable ({type(e).__name__}: {e})")
    if key != self.key:
      raise CacheMismatchError(
          f"embedding cache file {path}: written for key {json.dumps(key)}, "
          f"but this folder holds key {json.dumps(self.key)} (a file from "
          "another encoder or setting was moved in). Remove it or use "
          "another cache_dir.")
    dim = self.dim if self.dim is not None else (
        vshape[-1] if len(vshape) == 2 else -1)
    ok = (hashes.dtype == np.uint8 and hashes.ndim == 2
          and hashes.shape[1] == _HASH_BYTES and vdtype == np.float32
          and tuple(vshape) == (hashes.shape[0], dim))
    if not ok:
      return self._quarantine(
          path, f"wrong shape or dtype: hashes {hashes.dtype}{hashes.shape}, "
          f"vectors {vdtype}{tuple(vshape)}, expected width {dim}")
    self.dim = dim
    return hashes

  def _read_vectors(self, path: str, rows: int):
    """One shard's vectors, or None (quarantined) if they do not read."""
    try:
      with np.load(path, allow_pickle=False) as z:
        vectors = z["vectors"]
    except (zipfile.BadZipFile, ValueError, KeyError, EOFError, OSError) as e:
      return self._quarantine(path, f"unreadable ({type(e).__name__}: {e})")
    if vectors.shape != (rows, self.dim) or not np.isfinite(vectors).all():
      return self._quarantine(path, f"damaged: vectors {vectors.shape}, "
                              "expected finite values")
    return vectors

  def _quarantine(self, path: str, why: str):
    logging.warning("embedding cache file %s is %s; moving it aside and "
                    "embedding its sentences again", path, why)
    os.replace(path, path + f".corrupt-{int(time.time())}")
    self.rebuilt.append(path)
    return None

  def __len__(self) -> int:
    self._load()
    return len(self._index)

  def contains(self, hashes: Iterable[bytes]) -> set[bytes]:
    """The hashes that are cached (nothing is read but the index)."""
    self._load()
    return {h for h in hashes if h in self._index}

  def lookup(self, hashes: Iterable[bytes]) -> dict[bytes, np.ndarray]:
    """The cached vector of each hash that is present.

    Reads only the shards holding requested rows, one at a time, and keeps
    only those rows. A shard whose vectors turn out damaged is quarantined
    and its sentences count as absent (they are embedded again).
    """
    self._load()
    by_shard: dict[int, list[tuple[bytes, int]]] = {}
    for h in dict.fromkeys(hashes):
      loc = self._index.get(h)
      if loc is not None:
        by_shard.setdefault(loc[0], []).append((h, loc[1]))
    out = {}
    for s, wanted in sorted(by_shard.items()):
      vectors = self._read_vectors(self._paths[s], self._rows[s])
      if vectors is None:
        self._index = {h: loc for h, loc in self._index.items()
                       if loc[0] != s}
        self._paths[s] = None
        continue
      taken = vectors[[r for _, r in wanted]]  # A copy: the shard is freed.
      del vectors
      out.update((h, taken[j]) for j, (h, _) in enumerate(wanted))
    return out

  # -- writing ---------------------------------------------------------------

  def _not_writable(self, e: OSError, doing: str) -> CacheNotWritableError:
    full = e.errno == errno.ENOSPC or "No space left" in str(e)
    why = "the disk is full" if full else f"{type(e).__name__}: {e}"
    more = (" Free some space and rerun: the shards already written are "
            "kept, only the rest is embedded." if full else "")
    return CacheNotWritableError(
        e.errno, f"embedding cache {self.dir} {doing}: {why}.{more} Set "
        "BLM_EMBED_CACHE (or --cache_dir / config.encoder.cache_dir) to a "
        "writable folder to cache elsewhere.")

  def check_writable(self) -> None:
    """Raises CacheNotWritableError unless a shard could be written now."""
    try:
      os.makedirs(self.dir, exist_ok=True)
      fd, probe = tempfile.mkstemp(dir=self.dir, prefix=".", suffix=".tmp")
      try:
        os.write(fd, b"probe")
      finally:
        os.close(fd)
        os.remove(probe)
    except OSError as e:
      raise self._not_writable(e, "is not writable") from None

  def add(self, hashes: Sequence[bytes], vectors: np.ndarray) -> str | None:
    """Writes one new shard atomically; returns its path (None if empty)."""
    self._load()
    vectors = np.asarray(vectors, np.float32)
    if len(hashes) == 0:
      return None
    if vectors.ndim != 2 or vectors.shape[0] != len(hashes):
      raise ValueError(f"add: {len(hashes)} hashes but vectors of shape "
                       f"{vectors.shape}")
    if self.dim is not None and vectors.shape[1] != self.dim:
      raise ValueError(f"add: vectors of width {vectors.shape[1]}, but the "
                       f"cache {self.dir} holds width {self.dim}")
    if not np.isfinite(vectors).all():
      raise ValueError("add: non-finite embeddings; not caching them")
    hash_array = np.frombuffer(b"".join(hashes), np.uint8).reshape(
        len(hashes), _HASH_BYTES)
    name = f"shard-{time.time_ns():020d}-{uuid.uuid4().hex[:8]}.npz"
    path = os.path.join(self.dir, name)
    key = np.array(json.dumps(self.key, sort_keys=True))
    try:
      os.makedirs(self.dir, exist_ok=True)
      meta = os.path.join(self.dir, "meta.json")
      if not os.path.exists(meta):
        body = json.dumps({"key": self.key, "dim": int(vectors.shape[1]),
                           "source": self.source}, indent=1, sort_keys=True)
        files.atomic_write(meta, lambda f: f.write(body.encode()),
                           files.CACHE_MODE)
      files.atomic_write(path, lambda f: np.savez(f, hashes=hash_array,
                                                  vectors=vectors, key=key),
                         files.CACHE_MODE)
    except OSError as e:
      raise self._not_writable(e, "could not be written") from None
    self._register(path, hash_array)
    self.dim = int(vectors.shape[1])
    return path
