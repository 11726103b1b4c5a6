"""The embedding cache is filled as encoding goes: shards on disk before the
end, a killed run resumed from its finished shards, an unwritable cache
refused before any encoding; the command line's --config keys the cache as
training does."""

import errno
import os
import re

import numpy as np
import pytest
import tensorflow_datasets as tfds

from blm_jax.base import background
from blm_jax.data import input_pipeline
from blm_jax.embedding import cache as embedding_cache, embed, placement
from blm_jax.encoders import encoder as encoders
from blm_jax.embedding import sources as embedding_sources
from blm_jax.embedding.spec import EncoderSettings
from tests import ROOT, tiny_checkpoints
from tests.embedding.test_embed import EmbedToyBlm
from blm_jax.cli import embed as embed_cli

WORDS = tiny_checkpoints.WORDS


def _sentences(n, seed=0):
  rng = np.random.default_rng(seed)
  out = []
  while len(out) < n:  # Distinct sentences of 2-30 words.
    s = " ".join(rng.choice(WORDS, size=rng.integers(2, 30))) + " ."
    if s not in out:
      out.append(s)
  return out


@pytest.fixture(scope="module")
def bert(tmp_path_factory):
  folder = str(tmp_path_factory.mktemp("bert"))
  return encoders.load_encoder(tiny_checkpoints.write_bert(folder))


def _shards(root):
  return sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs
                if f.startswith("shard-") and f.endswith(".npz"))


@pytest.fixture
def encoder_calls(monkeypatch, tmp_path):
  """Records every batch the encoder runs: (rows, shards on disk then);
  `calls.kill_at = k` makes the k-th call die like a killed process."""

  class Calls(list):
    kill_at = None
    cache = str(tmp_path / "cache")

  calls = Calls()
  real = placement.compiled

  def counting(*args, **kwargs):
    fn, params, rows = real(*args, **kwargs)

    def wrapped(p, ids, mask):
      calls.append((ids.shape[0], len(_shards(calls.cache))))
      if calls.kill_at == len(calls):
        raise KeyboardInterrupt("killed")
      return fn(p, ids, mask)

    return wrapped, params, rows

  monkeypatch.setattr(placement, "compiled", counting)
  return calls


@pytest.mark.slow
def test_shards_are_written_as_encoding_goes(bert, encoder_calls):
  texts = _sentences(40)
  x, stats = embed.embed_with_stats(
      texts, bert, batch_size=4, shard_batches=2, progress=False,
      cache_dir=encoder_calls.cache)
  assert stats.embedded == 40 and len(encoder_calls) == 10
  # One shard per 2 batches, written beside the next part's encoding and
  # on disk before the part after it starts: the run holds at most two
  # shards of new embeddings.
  on_disk = [shards for _, shards in encoder_calls]
  assert all(part - 1 <= shards <= part
             for part, shards in zip([0, 0, 1, 1, 2, 2, 3, 3, 4, 4], on_disk))
  assert len(_shards(encoder_calls.cache)) == 5
  # Filling only (the command line's path) returns nothing to hold.
  more = _sentences(48)[40:]
  none, stats = embed.embed_with_stats(
      texts + more, bert, batch_size=4, shard_batches=2, progress=False,
      cache_dir=encoder_calls.cache, return_embeddings=False)
  assert none is None and (stats.cached, stats.embedded) == (40, 8)
  again = embed.embed_sentences(texts, bert, cache_dir=encoder_calls.cache,
                                progress=False)
  np.testing.assert_array_equal(again, x)


@pytest.mark.slow
def test_killed_run_resumes_from_its_finished_shards(bert, encoder_calls,
                                                     tmp_path):
  texts = _sentences(40, seed=1)
  texts.insert(9, texts[2])  # A repeat: embedded once.
  kw = dict(batch_size=4, shard_batches=2, progress=False)
  reference = embed.embed_sentences(texts, bert, **kw)
  encoder_calls.clear()

  encoder_calls.kill_at = 7  # The first batch of the 4th shard.
  with pytest.raises(KeyboardInterrupt):
    embed.embed_sentences(texts, bert, cache_dir=encoder_calls.cache, **kw)
  assert len(_shards(encoder_calls.cache)) == 3
  (folder,) = os.listdir(encoder_calls.cache)
  # Nothing half-written is visible: the shards and meta.json only.
  leftovers = [f for f in os.listdir(os.path.join(encoder_calls.cache,
                                                  folder))
               if not (f.startswith("shard-") or f == "meta.json")]
  assert leftovers == []

  encoder_calls.clear()
  encoder_calls.kill_at = None
  resumed, stats = embed.embed_with_stats(
      texts, bert, cache_dir=encoder_calls.cache, **kw)
  # 3 shards of 8 sentences were kept: only the other 16 are encoded.
  assert (stats.cached, stats.embedded) == (24, 16)
  assert len(encoder_calls) == 4
  np.testing.assert_array_equal(resumed, reference)
  assert len(_shards(encoder_calls.cache)) == 5


@pytest.mark.slow
def test_a_disk_filling_mid_run_is_the_caches_error_in_the_caller(
    bert, encoder_calls, monkeypatch):
  """Shards are written in a background thread: its error still reaches
  the caller as the one clear line, after the shards written before it,
  and no write is left running."""
  real = embedding_cache.files.atomic_write
  written = []

  def filling(path, *args, **kwargs):
    if os.path.basename(path).startswith("shard-"):
      if written:
        raise OSError(errno.ENOSPC, "No space left on device")
      written.append(path)
    return real(path, *args, **kwargs)

  monkeypatch.setattr(embedding_cache.files, "atomic_write", filling)
  with pytest.raises(embedding_cache.CacheNotWritableError,
                     match="could not be written: the disk is full"):
    embed.embed_sentences(_sentences(24, seed=3), bert, batch_size=4,
                          shard_batches=2, progress=False,
                          cache_dir=encoder_calls.cache)
  assert len(_shards(encoder_calls.cache)) == 1
  assert not background.live()


def test_unwritable_cache_fails_before_encoding(bert, encoder_calls,
                                                tmp_path):
  texts = _sentences(6, seed=2)
  blocker = tmp_path / "a_file"
  blocker.write_text("not a folder")
  where = str(blocker / "cache")
  with pytest.raises(embedding_cache.CacheNotWritableError) as e:
    embed.embed_sentences(texts, bert, cache_dir=where, progress=False)
  msg = str(e.value)
  assert f"embedding cache {where}/" in msg and "is not writable" in msg
  assert "BLM_EMBED_CACHE" in msg
  assert encoder_calls == []  # Refused before the encoding work.
  if os.geteuid() != 0:  # Permission bits do not stop root.
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
      with pytest.raises(embedding_cache.CacheNotWritableError,
                         match=f"embedding cache {locked}/.* is not "
                         "writable: PermissionError"):
        embed.embed_sentences(texts, bert, cache_dir=str(locked),
                              progress=False)
    finally:
      locked.chmod(0o755)
    assert encoder_calls == []


class EmbedCliToyBlm(EmbedToyBlm):
  """The same toy family under another name, for the command line."""

  ID_PREFIX = "c"


def _flags(argv):
  from absl import flags

  fv = flags.FlagValues()
  embed_cli.define_flags(fv, ["embed"] + argv)
  fv(["embed"] + argv)
  return fv


@pytest.mark.slow
def test_command_line_config_fills_the_cache_training_reads(bert, tmp_path,
                                                            capsys):
  data_dir, cache = tmp_path / "data", tmp_path / "cache"
  EmbedCliToyBlm(data_dir=str(data_dir),
                 file_format="array_record").download_and_prepare()
  config = [f"--config={ROOT}/configs/ffnn.py",
            "--config.data.name=embed_cli_toy_blm/only",
            f"--config.data.data_dir={data_dir}",
            "--config.data.num_train=5", "--config.data.max_test=2",
            f"--config.encoder.name={bert.model_dir}",
            f"--config.encoder.cache_dir={cache}"]
  fv = _flags(config)
  report = embed_cli.run(fv)
  # The run's sample: 4 train + 1 dev instances and 2 test instances.
  assert {k: v["instances"] for k, v in report.splits.items()} == {
      "train/I": 4, "train/II": 4, "train/III": 4, "dev/I": 1, "dev/II": 1,
      "dev/III": 1, "test/I": 2, "test/II": 2, "test/III": 2}
  assert 0 < report.stats.embedded == report.sentences < 52
  assert report.stats.max_length == 64
  assert "max_length=64" in capsys.readouterr().out
  (key_dir,) = os.listdir(cache)
  shards = _shards(cache)

  # Training with the same config reads every sentence from that cache:
  # the same sentences, the same key folder, no new shard.
  cfg = fv["config"].value
  data = input_pipeline.load(
      cfg.data, embedding_sources.embed_fn(EncoderSettings(**cfg.encoder)),
      str(data_dir))
  assert len(data.table.sentences) == report.sentences
  assert os.listdir(cache) == [key_dir] and _shards(cache) == shards
  # --split: whole splits (here all 52 sentences), under the same key.
  whole = embed_cli.run(_flags(config + ["--split=train,dev,test"]))
  assert whole.sentences == 52 and whole.stats.cached == report.sentences
  assert os.listdir(cache) == [key_dir]
  # The plain --dataset form defaults to training's max_length too.
  plain = embed_cli.run(_flags([
      "--dataset=embed_cli_toy_blm/only", f"--encoder={bert.model_dir}",
      f"--data_dir={data_dir}", f"--cache_dir={cache}"]))
  assert (plain.stats.cached, plain.stats.embedded) == (52, 0)
  assert os.listdir(cache) == [key_dir]
  # A config override changes the key: another folder, embedded afresh.
  other = embed_cli.run(_flags(config + ["--config.encoder.max_length=32"]))
  assert other.stats.embedded == report.sentences
  assert len(os.listdir(cache)) == 2

  with pytest.raises(embed_cli.UsageError,
                     match=r"with --config, --max_length is set by the "
                     r"config: use --config.encoder.max_length=\.\.\.; "
                     r"--cache_dir is set by the config: use "
                     r"--config.encoder.cache_dir=\.\.\."):
    embed_cli.run(_flags(config + ["--max_length=128", f"--cache_dir={cache}"]))
  with pytest.raises(embed_cli.UsageError, match=r"give --dataset=<short or "
                     r"TFDS name> \(e.g. --dataset=spray_load or "
                     r"--dataset=blm_spray_load/ALT-ATL_type_I\) or "
                     r"--config="):
    embed_cli.run(_flags([]))


def test_defaults_and_help_match_training_and_real_datasets():
  from configs import common
  import data_builders  # noqa: F401  Registers the project's builders.

  assert embed.DEFAULT_MAX_LENGTH == common.base("ffnn").encoder.max_length
  from absl import flags

  fv = flags.FlagValues()
  embed_cli.define_flags(fv)
  text = embed.__doc__ + fv["dataset"].help + fv["max_length"].help
  assert f"default {common.base('ffnn').encoder.max_length}" in text
  names = set(re.findall(r"(?:--dataset=|e\.g\. )(blm_\w+/[\w.-]*\w)", text))
  assert "blm_spray_load/ALT-ATL_type_I" in names
  for name in names:  # Every example is a registered builder config.
    b, _, cfg = name.partition("/")
    configs = [c.name for c in tfds.builder_cls(b).BUILDER_CONFIGS]
    assert cfg in configs, f"{name}: {b} has no config {cfg}"
  for spec in re.findall(r"--config=(configs/\S+)", text):
    path, _, arg = spec.partition(":")
    assert os.path.isfile(os.path.join(ROOT, path)), spec
    assert re.search(r"^def get_config", open(os.path.join(ROOT, path)).read(),
                     re.M), spec

