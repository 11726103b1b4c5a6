"""embed_sentences: bucketing, cache reuse, specs, multi-device, the CLI path."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import tensorflow_datasets as tfds

from blm_jax.embedding import cache as embedding_cache, embed
from blm_jax.encoders import encoder as encoders
from data_builders.common import builder, instances, schema
from tests import ROOT, tiny_checkpoints, xla_flags_with_devices
from blm_jax.cli import embed as embed_cli

WORDS = tiny_checkpoints.WORDS


def _sentences(n, seed=0):
  rng = np.random.default_rng(seed)
  return [" ".join(rng.choice(WORDS, size=rng.integers(2, 30))) + " ."
          for _ in range(n)]


@pytest.fixture(scope="module")
def bert(tmp_path_factory):
  folder = str(tmp_path_factory.mktemp("bert"))
  return encoders.load_encoder(tiny_checkpoints.write_bert(folder))


@pytest.mark.slow
def test_bucketed_batches_equal_one_by_one(bert):
  texts = _sentences(40)
  texts[7] = texts[3]  # A repeat.
  x, stats = embed.embed_with_stats(texts, bert, batch_size=16,
                                    progress=False)
  assert x.shape == (40, 32) and x.dtype == np.float32
  assert stats.distinct == 39 and stats.embedded == 39
  np.testing.assert_array_equal(x[7], x[3])
  # Sorted by length and bucketed: fewer padded tokens than padding every
  # sentence to the longest (32 tokens here), although batches are rounded up.
  longest = max(len(t) for t in bert.tokenize(texts, 64))
  assert longest == 32 and stats.padded_tokens < 39 * 32
  for i in (0, 5, 21):
    alone = embed.embed_sentences([texts[i]], bert, progress=False)
    np.testing.assert_allclose(alone[0], x[i], atol=1e-5)


@pytest.mark.slow
def test_second_run_embeds_nothing_new(bert, tmp_path):
  texts = _sentences(20)
  first, s1 = embed.embed_with_stats(texts, bert, cache_dir=str(tmp_path),
                                     progress=False)
  second, s2 = embed.embed_with_stats(texts, bert, cache_dir=str(tmp_path),
                                      progress=False)
  assert (s1.embedded, s2.embedded, s2.cached) == (20, 0, 20)
  np.testing.assert_array_equal(first, second)
  more = texts[:5] + ["the cat eats the girl ."]
  third, s3 = embed.embed_with_stats(more, bert, cache_dir=str(tmp_path),
                                     progress=False)
  assert (s3.embedded, s3.cached) == (1, 5)
  np.testing.assert_array_equal(third[:5], first[:5])
  # Another pooling is another cache: embeds everything again.
  _, s4 = embed.embed_with_stats(texts, bert, pooling="first",
                                 cache_dir=str(tmp_path), progress=False)
  assert s4.embedded == 20


@pytest.mark.slow
def test_cache_of_another_encoder_is_rejected(bert, tmp_path):
  other = encoders.load_encoder(tiny_checkpoints.write_bert(
      str(tmp_path / "other"), electra=True))
  texts = _sentences(3)
  embed.embed_sentences(texts, bert, cache_dir=str(tmp_path / "c"),
                        progress=False)
  embed.embed_sentences(texts, other, cache_dir=str(tmp_path / "c"),
                        progress=False)
  a, b = sorted(os.listdir(tmp_path / "c"))
  for f in os.listdir(tmp_path / "c" / b):  # Electra's files under BERT's key.
    os.replace(tmp_path / "c" / b / f, tmp_path / "c" / a / f)
  with pytest.raises(embedding_cache.CacheMismatchError,
                     match="another encoder"):
    embed.embed_sentences(texts, bert, cache_dir=str(tmp_path / "c"),
                          progress=False)


@pytest.mark.slow
def test_bf16_is_close_and_cached_apart(bert, tmp_path):
  """bfloat16 compute: near the float32 embeddings, under its own cache key
  (the float32 key stays the one earlier versions wrote)."""
  texts = _sentences(12)
  f32 = embed.embed_sentences(texts, bert, cache_dir=str(tmp_path),
                              progress=False)
  spec = embed.EncoderSpec(bert.model_dir, dtype="bfloat16")
  b16, stats = embed.embed_with_stats(texts, spec, cache_dir=str(tmp_path),
                                      progress=False)
  assert stats.embedded == 12 and b16.dtype == np.float32
  assert 0 < np.abs(b16 - f32).max() < 0.05
  cos = (b16 * f32).sum(1) / np.linalg.norm(b16, axis=1) / np.linalg.norm(
      f32, axis=1)
  assert cos.min() > 0.999
  assert len(os.listdir(tmp_path)) == 2
  with pytest.raises(ValueError, match="dtype='fp16' is not one of"):
    embed.EncoderSpec(dtype="fp16")


@pytest.mark.slow
def test_spec_forms_and_conflicts(bert):
  spec = embed.EncoderSpec("minilm", pooling="first")
  assert embed.EncoderSpec(**spec.to_dict()) == spec
  with pytest.raises(ValueError, match="pooling='avg' is not one of"):
    embed.EncoderSpec(pooling="avg")
  with pytest.raises(ValueError, match="pooling given beside an "
                     "EncoderSpec; set them in the spec"):
    embed.embed_sentences(["a"], spec, pooling="mean")
  with pytest.raises(TypeError, match="takes an EncoderSpec .* not str"):
    embed.embed_sentences(["a"], "minilm")
  with pytest.raises(TypeError, match="not a str"):
    embed.embed_sentences("a sentence", bert)
  with pytest.raises(TypeError, match="sentence 1 is a int"):
    embed.embed_sentences(["a", 3], bert)
  assert embed.embed_sentences([], bert).shape == (0, 32)


@pytest.mark.slow
def test_four_devices_equal_one(bert, tmp_path):
  script = textwrap.dedent(f"""
      import jax, numpy as np
      from blm_jax.embedding import embed
      from blm_jax.encoders import encoder as encoders
      assert len(jax.local_devices()) == 4, jax.local_devices()
      enc = encoders.load_encoder({bert.model_dir!r})
      texts = {_sentences(37, seed=5)!r}
      many, stats = embed.embed_with_stats(texts, enc, batch_size=10,
                                           progress=False)
      assert stats.devices == 4
      one = embed.embed_sentences(texts, enc, batch_size=10, progress=False,
                                  devices=jax.local_devices()[:1])
      np.testing.assert_allclose(many, one, atol=1e-5)
      np.save({str(tmp_path / "x.npy")!r}, many)
      print("OK", np.abs(many - one).max())
      """)
  env = dict(os.environ, PYTHONPATH=ROOT, XLA_FLAGS=xla_flags_with_devices(4))
  out = subprocess.run([sys.executable, "-c", script], env=env, cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
  assert out.returncode == 0 and "OK" in out.stdout, out.stderr[-3000:]
  here = embed.embed_sentences(_sentences(37, seed=5), bert, progress=False)
  np.testing.assert_allclose(np.load(tmp_path / "x.npy"), here, atol=1e-5)


class EmbedToyBlm(builder.GeneratedBLMBuilder):
  """A toy family whose contexts share sentences (dedup ratio > 1)."""

  ID_PREFIX = "t"
  VERSION = tfds.core.Version("1.0.0")
  BUILDER_CONFIGS = [builder.GeneratedConfig(name="only", seed=1)]

  def generate(self, config):
    out = []
    for i in range(20):
      ctx = [schema.Sentence(f"the cat {w} eats the mouse .")
             for w in WORDS[i % 10:i % 10 + 3]]
      cands = [("OK", schema.Sentence(f"the girl {WORDS[i]} sprayed .")),
               ("BAD", schema.Sentence(f"the boy {WORDS[i]} loaded ."))]
      out.append(instances.make_instance(
          id=f"{self.ID_PREFIX}-{i:02d}", family="toy", language="en", lexical_type="I",
          subset="only", context=ctx, candidates=cands, correct_label="OK",
          seed=config.seed))
    return out


@pytest.mark.slow
def test_command_line_fills_the_cache(bert, tmp_path, capsys):
  from absl import flags

  EmbedToyBlm(data_dir=str(tmp_path / "data"),
              file_format="array_record").download_and_prepare()
  argv = ["embed", "--dataset=embed_toy_blm/only",
          f"--encoder={bert.model_dir}", f"--data_dir={tmp_path / 'data'}",
          f"--cache_dir={tmp_path / 'cache'}"]
  fv = flags.FlagValues()
  embed_cli.define_flags(fv)
  fv(argv)
  report = embed_cli.run(fv)
  printed = capsys.readouterr().out
  # 20 instances x 5 sentence slots; the contexts share 12 sentences.
  assert report.sentences == 12 + 20 + 20
  assert report.references == 100
  assert set(report.splits) == {"train", "dev", "test"}
  assert sum(r["instances"] for r in report.splits.values()) == 20
  assert report.stats.embedded == 52
  assert "52 distinct sentences over 3 splits, dedup ratio 1.92" in printed
  assert "sentences/s" in printed
  again = embed_cli.run(fv)
  assert (again.stats.cached, again.stats.embedded) == (52, 0)
  assert "52 from the cache, 0 embedded" in capsys.readouterr().out
