"""The embedding cache: reuse, atomic writes, corrupt and foreign files."""

import os

import numpy as np
import pytest

from blm_jax.embedding import cache as ec

IDENTITY = {"model_type": "bert", "weights_sha256": "a" * 64,
            "tokenizer_sha256": "b" * 64}
OTHER = dict(IDENTITY, weights_sha256="c" * 64)


def _key(identity=IDENTITY, **kw):
  args = dict(pooling="mean", layer=6, max_length=128)
  args.update(kw)
  return ec.cache_key(identity, **args)


def _data(texts, dim=8, seed=0):
  rng = np.random.default_rng(seed)
  return ([ec.text_hash(t) for t in texts],
          rng.normal(size=(len(texts), dim)).astype(np.float32))


def _shards(cache):
  return sorted(f for f in os.listdir(cache.dir) if f.startswith("shard-")
                and f.endswith(".npz"))


def test_round_trip_across_instances(tmp_path):
  cache = ec.EmbeddingCache(str(tmp_path), _key())
  hashes, vectors = _data(["a", "b", "c"])
  assert cache.lookup(hashes) == {}
  cache.add(hashes, vectors)
  again = ec.EmbeddingCache(str(tmp_path), _key())
  found = again.lookup(hashes + [ec.text_hash("new")])
  assert len(found) == 3 and len(again) == 3
  for h, v in zip(hashes, vectors):
    np.testing.assert_array_equal(found[h], v)
  more_h, more_v = _data(["d"], seed=1)
  again.add(more_h, more_v)
  assert len(ec.EmbeddingCache(str(tmp_path), _key())) == 4
  assert len(_shards(again)) == 2  # Each write is a new shard.


def test_key_fields_separate_caches(tmp_path):
  dirs = {ec.EmbeddingCache(str(tmp_path), k).dir for k in (
      _key(), _key(OTHER), _key(pooling="first"), _key(layer=3),
      _key(max_length=64))}
  assert len(dirs) == 5


def test_truncated_shard_is_detected_and_rebuilt(tmp_path, caplog):
  cache = ec.EmbeddingCache(str(tmp_path), _key())
  hashes, vectors = _data(["a", "b"])
  cache.add(hashes, vectors)
  keep_h, keep_v = _data(["c"], seed=2)
  cache.add(keep_h, keep_v)
  victim = os.path.join(cache.dir, _shards(cache)[0])
  size = os.path.getsize(victim)
  with open(victim, "r+b") as f:
    f.truncate(size // 2)
  fresh = ec.EmbeddingCache(str(tmp_path), _key())
  found = fresh.lookup(hashes + keep_h)
  assert set(found) == set(keep_h)  # The damaged shard's rows are gone.
  assert fresh.rebuilt == [victim]
  assert "moving it aside and embedding its sentences again" in caplog.text
  assert not os.path.exists(victim)
  assert any(f.startswith(os.path.basename(victim) + ".corrupt")
             for f in os.listdir(cache.dir))
  fresh.add(hashes, vectors)  # Rebuilt.
  assert len(ec.EmbeddingCache(str(tmp_path), _key())) == 3


def test_wrong_shape_shard_is_detected(tmp_path):
  cache = ec.EmbeddingCache(str(tmp_path), _key())
  hashes, vectors = _data(["a", "b"])
  cache.add(hashes, vectors)
  # A shard whose vectors have the wrong width for this cache (8).
  bad_h, bad_v = _data(["x", "y"], dim=5)
  path = os.path.join(cache.dir, "shard-99999999999999999999-bad.npz")
  import json
  np.savez(path, hashes=np.frombuffer(b"".join(bad_h), np.uint8).reshape(2, 32),
           vectors=bad_v, key=np.array(json.dumps(cache.key, sort_keys=True)))
  fresh = ec.EmbeddingCache(str(tmp_path), _key())
  assert set(fresh.lookup(hashes + bad_h)) == set(hashes)
  assert fresh.rebuilt == [path]
  with pytest.raises(ValueError, match="vectors of width 5, but the cache"):
    fresh.add(bad_h, bad_v)


def test_files_of_another_encoder_are_rejected(tmp_path):
  mine = ec.EmbeddingCache(str(tmp_path), _key())
  mine.add(*_data(["a"]))
  other = ec.EmbeddingCache(str(tmp_path), _key(OTHER))
  other.add(*_data(["a"], seed=3))
  # Another encoder's shard moved into this folder.
  shard = _shards(other)[0]
  os.replace(os.path.join(other.dir, shard), os.path.join(mine.dir, shard))
  with pytest.raises(ec.CacheMismatchError,
                     match="written for key .*" + "c" * 64 + ".*another "
                     "encoder or setting was moved in"):
    ec.EmbeddingCache(str(tmp_path), _key()).lookup([ec.text_hash("a")])
  # Another encoder's whole folder under this key's name.
  os.remove(os.path.join(mine.dir, shard))
  os.replace(os.path.join(other.dir, "meta.json"),
             os.path.join(mine.dir, "meta.json"))
  with pytest.raises(ec.CacheMismatchError, match="another encoder's cache "
                     "was put in this folder"):
    ec.EmbeddingCache(str(tmp_path), _key()).lookup([ec.text_hash("a")])


def test_killed_write_leaves_old_cache_intact(tmp_path, monkeypatch):
  cache = ec.EmbeddingCache(str(tmp_path), _key())
  hashes, vectors = _data(["a", "b"])
  cache.add(hashes, vectors)
  before = sorted(os.listdir(cache.dir))

  def dies_mid_write(f, **arrays):
    f.write(b"PK\x03\x04 half a zip file")
    raise KeyboardInterrupt("killed")

  monkeypatch.setattr(np, "savez", dies_mid_write)
  new_h, new_v = _data(["c"], seed=1)
  with pytest.raises(KeyboardInterrupt):
    cache.add(new_h, new_v)
  monkeypatch.undo()
  assert sorted(os.listdir(cache.dir)) == before  # No temp file left behind.
  fresh = ec.EmbeddingCache(str(tmp_path), _key())
  found = fresh.lookup(hashes + new_h)
  assert set(found) == set(hashes) and fresh.rebuilt == []
  # A hard kill (no cleanup) leaves a temp file: readers ignore it.
  with open(os.path.join(cache.dir, ".abc.tmp"), "wb") as f:
    f.write(b"PK\x03\x04 half")
  assert len(ec.EmbeddingCache(str(tmp_path), _key())) == 2


def test_bad_additions_are_refused(tmp_path):
  cache = ec.EmbeddingCache(str(tmp_path), _key())
  hashes, vectors = _data(["a", "b"])
  with pytest.raises(ValueError, match="2 hashes but vectors of shape"):
    cache.add(hashes, vectors[:1])
  vectors[0, 0] = np.nan
  with pytest.raises(ValueError, match="non-finite embeddings"):
    cache.add(hashes, vectors)
  assert not os.path.exists(cache.dir) or not _shards(cache)


def test_damaged_vectors_are_caught_when_read(tmp_path, caplog):
  """Opening a cache reads only hashes and headers; bit damage inside a
  shard's vectors is caught by lookup (zip CRC), which then treats those
  sentences as absent, to be embedded again."""
  cache = ec.EmbeddingCache(str(tmp_path), _key())
  hashes, vectors = _data(["a", "b", "c", "d"], dim=256)
  cache.add(hashes, vectors)
  keep_h, keep_v = _data(["e"], seed=2)
  keep_v = np.repeat(keep_v, 32, axis=1)  # width 256
  cache.add(keep_h, keep_v)
  victim = os.path.join(cache.dir, _shards(cache)[0])
  raw = bytearray(open(victim, "rb").read())
  start = raw.index(b"vectors.npy") + 200  # inside the vector data
  for i in range(start, start + 16):
    raw[i] ^= 0xFF
  open(victim, "wb").write(bytes(raw))
  fresh = ec.EmbeddingCache(str(tmp_path), _key())
  assert len(fresh) == 5  # The index still reads.
  assert fresh.contains(hashes + keep_h) == set(hashes + keep_h)
  found = fresh.lookup(hashes + keep_h)
  assert set(found) == set(keep_h)
  np.testing.assert_array_equal(found[keep_h[0]], keep_v[0])
  assert fresh.rebuilt == [victim] and "Bad CRC" in caplog.text
  assert fresh.contains(hashes) == set() and len(fresh) == 1


def test_unwritable_or_full_cache_is_one_clear_error(tmp_path, monkeypatch):
  blocker = tmp_path / "file"
  blocker.write_text("x")
  cache = ec.EmbeddingCache(str(blocker / "cache"), _key())
  with pytest.raises(ec.CacheNotWritableError,
                     match=f"embedding cache {blocker}/cache/.* is not "
                     "writable: NotADirectoryError.*BLM_EMBED_CACHE"):
    cache.check_writable()
  ok = ec.EmbeddingCache(str(tmp_path / "ok"), _key())
  ok.check_writable()
  assert os.listdir(ok.dir) == []  # The probe file is gone.

  def full_disk(f, **arrays):
    raise OSError(28, "No space left on device")

  monkeypatch.setattr(np, "savez", full_disk)
  with pytest.raises(ec.CacheNotWritableError,
                     match="could not be written: the disk is full. Free "
                     "some space and rerun: the shards already written are "
                     "kept"):
    ok.add(*_data(["a"]))
  assert [f for f in os.listdir(ok.dir) if f != "meta.json"] == []


def test_files_are_written_644_whatever_the_umask(tmp_path):
  old = os.umask(0o002)
  try:
    cache = ec.EmbeddingCache(str(tmp_path), _key())
    cache.add(*_data(["a"]))
  finally:
    os.umask(old)
  for name in os.listdir(cache.dir):
    assert os.stat(os.path.join(cache.dir, name)).st_mode & 0o777 == 0o644


@pytest.mark.parametrize("how,why", [
    ("group-writable", "writable by group (mode 664)"),
    ("hard link", "a hard link (2 names for one file)")])
def test_a_shard_not_trusted_is_ignored_with_a_warning(tmp_path, caplog,
                                                       how, why):
  cache = ec.EmbeddingCache(str(tmp_path), _key())
  hashes, vectors = _data(["a", "b"])
  cache.add(hashes, vectors)
  (shard,) = _shards(cache)
  path = os.path.join(cache.dir, shard)
  if how == "group-writable":
    os.chmod(path, 0o664)
  else:
    os.link(path, tmp_path / "victim.npz")
  before = (tmp_path / "victim.npz").read_bytes() if how == "hard link" else b""
  again = ec.EmbeddingCache(str(tmp_path), _key())
  assert again.lookup(hashes) == {}  # Embedded again, not read.
  assert f"embedding cache file {path} ignored: it is {why}" in caplog.text
  again.add(hashes, vectors)
  if how == "hard link":
    assert (tmp_path / "victim.npz").read_bytes() == before


def test_a_shard_of_another_key_is_one_error_line(tmp_path):
  from blm_jax.cli import errors

  cache = ec.EmbeddingCache(str(tmp_path), _key())
  cache.add(*_data(["a"]))
  other = ec.EmbeddingCache(str(tmp_path / "o"), _key(OTHER))
  other.add(*_data(["b"]))
  (shard,) = _shards(other)
  os.replace(os.path.join(other.dir, shard), os.path.join(cache.dir, shard))
  with pytest.raises(ec.CacheMismatchError) as e:
    len(ec.EmbeddingCache(str(tmp_path), _key()))
  line = errors.error_line(e.value)
  assert line.startswith(f"error: embedding cache file {cache.dir}/{shard}: "
                         "written for key") and "\n" not in line
