"""Length buckets: finer ones on a CPU, the same vectors in the same order,
caches of either bucket set read by the other, and `batch_shapes` naming
exactly the shapes a run computes."""

import types

import jax
import numpy as np
import pytest

from blm_jax.embedding import cache as embedding_cache, embed, placement
from blm_jax.encoders import encoder as encoders
from tests import tiny_checkpoints

WORDS = tiny_checkpoints.WORDS
GPU = types.SimpleNamespace(platform="gpu")


def _sentences(n, seed=0):
  rng = np.random.default_rng(seed)
  return [" ".join(rng.choice(WORDS, size=rng.integers(2, 24))) + " ."
          for _ in range(n)]


def test_cpu_buckets_are_finer_and_accelerators_keep_theirs():
  assert [placement.bucket(n, "cpu") for n in (3, 8, 9, 13, 17, 33, 600)] \
      == [8, 8, 10, 14, 20, 40, 600]
  assert [placement.bucket(n, "gpu") for n in (3, 9, 13, 17, 33, 600)] \
      == [8, 16, 16, 24, 48, 600]
  for platform in ("cpu", "gpu", "tpu"):
    b = placement.buckets(platform)
    assert list(b) == sorted(set(b)) and b[-1] == 512
  assert set(placement.ACCELERATOR_BUCKETS) < set(placement.CPU_BUCKETS)


def test_batch_shapes_sort_by_length_and_round_the_last_batch():
  cpu = jax.local_devices()[:1]
  lengths = [17, 3, 3, 17, 3, 3, 3, 17, 9]
  # Sorted: 3 3 3 3 | 3 9 17 17 | 17 -> one sentence, one row.
  assert embed.batch_shapes(lengths, 4, cpu) == [(4, 8), (4, 20), (1, 20)]
  assert embed.batch_shapes(lengths, 4, [GPU]) == [(4, 8), (4, 24), (1, 24)]
  assert embed.batch_shapes(lengths, 4, [GPU, GPU, GPU]) == [(6, 16), (6, 24)]
  assert embed.batch_shapes([], 4, cpu) == []


@pytest.fixture(scope="module")
def bert(tmp_path_factory):
  folder = str(tmp_path_factory.mktemp("bert"))
  return encoders.load_encoder(tiny_checkpoints.write_bert(folder))


@pytest.mark.slow
def test_finer_buckets_give_the_same_vectors_in_order_and_caches(
    bert, tmp_path, monkeypatch):
  texts = _sentences(40)
  shapes = []
  real = placement.compiled

  def recording(*args, **kwargs):
    fn, params, rows = real(*args, **kwargs)

    def wrapped(p, ids, mask):
      shapes.append(tuple(ids.shape))
      return fn(p, ids, mask)

    return wrapped, params, rows

  monkeypatch.setattr(placement, "compiled", recording)
  new, s_new = embed.embed_with_stats(texts, bert, batch_size=8,
                                      cache_dir=str(tmp_path / "new"),
                                      shard_batches=2, progress=False)
  lengths = [len(x) for x in bert.tokenize(texts, 64)]
  assert shapes == embed.batch_shapes(lengths, 8, jax.local_devices())
  assert {t for _, t in shapes} <= set(placement.CPU_BUCKETS)
  with monkeypatch.context() as m:  # The buckets CPUs had before.
    m.setattr(placement, "CPU_BUCKETS", placement.ACCELERATOR_BUCKETS)
    old, s_old = embed.embed_with_stats(texts, bert, batch_size=8,
                                        cache_dir=str(tmp_path / "old"),
                                        shard_batches=2, progress=False)
  assert s_new.real_tokens == s_old.real_tokens
  assert s_new.padded_tokens < s_old.padded_tokens
  # Row i is sentence i in both, equal within float32 rounding.
  np.testing.assert_allclose(new, old, rtol=1e-5, atol=1e-6)
  alone = embed.embed_sentences([texts[5]], bert, progress=False)
  np.testing.assert_allclose(alone[0], new[5], rtol=1e-5, atol=1e-6)
  # The cache reader returns what the run returned, sentence by sentence.
  key = embedding_cache.cache_key(bert.identity, "mean",
                                  bert.layer_index(-1), 64)
  hashes = [embedding_cache.text_hash(t) for t in texts]
  found = embedding_cache.EmbeddingCache(str(tmp_path / "new"),
                                         key).lookup(hashes)
  np.testing.assert_array_equal(np.stack([found[h] for h in hashes]), new)
  # A cache filled with the old buckets serves the new ones whole.
  again, s = embed.embed_with_stats(texts, bert, batch_size=8,
                                    cache_dir=str(tmp_path / "old"),
                                    progress=False)
  assert (s.embedded, s.cached) == (0, 40)
  np.testing.assert_array_equal(again, old)
