"""Fills the embedding cache: every split of a dataset, or one run's sentences.

  python -m blm_jax.cli.embed --dataset=blm_spray_load/ALT-ATL_type_I \\
      --encoder=minilm [--split=train,dev] [--cache_dir=...]
  python -m blm_jax.cli.embed --dataset=spray_load   # every lexical type
  python -m blm_jax.cli.embed --config=configs/ffnn.py:dataset=cos_en,cpu

With --config the encoder settings (name, pooling, layer, max_length, dtype,
batch size, cache folder) come from a training config, overrides included
(--config.encoder.max_length=128), so the cache is filled under the keys
that run reads; what is embedded is exactly that run's sentences (its
sampled train/dev instances and its test instances), or with --split (and
--dataset) whole splits of every lexical type of config.data.
"""

from __future__ import annotations

import os
from typing import Sequence

from blm_jax.base import compile_cache
from blm_jax.cli import usage
from blm_jax.data import input_pipeline, names
from blm_jax.embedding import cache as embedding_cache
from blm_jax.embedding.embed import DEFAULT_BATCH_SIZE
from blm_jax.embedding.spec import (DEFAULT_CACHE_DIR, DEFAULT_MAX_LENGTH,
                                    EncoderSettings, EncoderSpec)
from blm_jax.embedding.fill import fill_cache, fill_for_run, FillReport
from blm_jax.encoders import blocks as transformer_blocks, encoder as encoders
from blm_jax.training import config_check


# Flags that --config sets; given beside it they would make the cache keys
# differ from the training run's. flag -> the config key to override instead.
_CONFIG_SETS = {
    "encoder": "encoder.name", "pooling": "encoder.pooling",
    "layer": "encoder.layer", "max_length": "encoder.max_length",
    "dtype": "encoder.dtype", "batch_size": "encoder.batch_size",
    "cache_dir": "encoder.cache_dir", "data_dir": "data.data_dir",
    "manual_dir": "data.manual_dir", "revision": None,
}


class UsageError(ValueError):
  """A command line that cannot run; the message says what to change."""


def _datasets_of(config) -> list[str]:

  types = dict.fromkeys(tuple(config.data.train_types)
                        + tuple(config.data.test_types))
  return list(dict.fromkeys(input_pipeline.dataset_name(config.data.name, t)
                            for t in types))


def _resolve(dataset: str) -> list[str]:
  """--dataset's TFDS names (a short name stands for every type)."""
  try:
    return names.resolve_datasets(dataset)
  except ValueError as e:
    raise UsageError(f"--dataset={dataset}: {e}") from None


def run(f) -> FillReport:
  """The command line's work, given parsed absl flag values `f`."""
  config = f["config"].value if "config" in f else None
  splits = f.split.split(",") if f.split else None
  if config is None:
    if not f.dataset:
      raise UsageError("give --dataset=<short or TFDS name> (e.g. "
                       "--dataset=spray_load or "
                       "--dataset=blm_spray_load/ALT-ATL_type_I) or "
                       "--config=configs/<name>.py[:variant]")
    spec = EncoderSpec(f.encoder, pooling=f.pooling, layer=f.layer,
                       max_length=f.max_length, revision=f.revision,
                       dtype=f.dtype)
    datasets = _resolve(f.dataset)
    cache_dir, batch_size = f.cache_dir, f.batch_size
    data_dir, manual_dir = f.data_dir, f.manual_dir
  else:
    clashes = [n for n in _CONFIG_SETS if f[n].present]
    if clashes:
      raise UsageError("with --config, " + "; ".join(
          f"--{n} is set by the config: use --config.{_CONFIG_SETS[n]}=..."
          if _CONFIG_SETS[n] else
          f"--{n} has no config key (training cannot use it)"
          for n in clashes))
    config_check.validate(config)
    encoder = EncoderSettings(**config.encoder)
    spec = encoder.spec
    cache_dir, batch_size = encoder.cache_root, encoder.batch_size
    datasets = _resolve(f.dataset) if f.dataset else _datasets_of(config)
    data_dir = config.data.get("data_dir") or None
    manual_dir = config.data.get("manual_dir") or None
  if config is not None and not (f.dataset or splits):
    report = fill_for_run(config)  # What that training run reads.
  else:
    report = fill_cache(datasets, spec, splits=splits, data_dir=data_dir,
                        manual_dir=manual_dir, cache_dir=cache_dir,
                        batch_size=batch_size, progress=True)
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
  print(f"{head} -> {os.path.expanduser(cache_dir)}")
  return report


def main(argv) -> None:
  from absl import flags

  if len(argv) > 1:
    raise SystemExit(f"unexpected arguments: {argv[1:]}")
  if not flags.FLAGS["verbosity"].present:
    # As launch.py: our progress bar and report, not absl INFO lines and
    # TFDS generation bars (--verbosity=0 brings them back).
    from absl import logging as absl_logging
    import tensorflow_datasets as tfds

    absl_logging.set_verbosity(absl_logging.WARNING)
    tfds.disable_progress_bar()
  compile_cache.enable()
  try:
    run(flags.FLAGS)
  except (UsageError, config_check.ConfigError,
          embedding_cache.CacheNotWritableError) + encoders.LOAD_ERRORS as e:
    raise SystemExit(f"error: {e}") from None


def define_flags(fv=None, argv: Sequence[str] | None = None) -> None:
  """Defines the command line's flags (on absl's global FLAGS by default).

  `argv`: the command line to be parsed, where it is not sys.argv (the
  --config.<key> overrides are defined from it).
  """
  from absl import flags
  from ml_collections import config_flags

  fv = flags.FLAGS if fv is None else fv
  config_flags.DEFINE_config_file(
      "config", None, "A training config (configs/<name>.py[:variant]): "
      "take the encoder settings and datasets from it, so the cache keys "
      "match that run's. Override its keys with --config.<key>=<value>.",
      flag_values=fv, lock_config=True,
      **({"sys_argv": list(argv)} if argv is not None else {}))
  flags.DEFINE_string("dataset", None, "Short name (spray_load: every "
                      "type; spray_load:II: one) or TFDS name, e.g. "
                      "blm_spray_load/ALT-ATL_type_I (with --config and "
                      "--split: default every lexical type of "
                      "config.data.name).", flag_values=fv)
  flags.DEFINE_string("encoder", encoders.DEFAULT_ENCODER,
                      "Registry name, alias, hub id or local folder.",
                      flag_values=fv)
  flags.DEFINE_enum("pooling", "mean", list(encoders.POOLINGS), "Pooling.",
                    flag_values=fv)
  flags.DEFINE_integer("layer", -1, "Hidden state (-1 last, 0 embeddings).",
                       flag_values=fv)
  flags.DEFINE_integer("max_length", None, "Tokens kept (default "
                       f"{DEFAULT_MAX_LENGTH}, as in training, or the "
                       "model's limit).", flag_values=fv)
  flags.DEFINE_string("revision", None, "Hub revision for hub ids.",
                      flag_values=fv)
  flags.DEFINE_enum("dtype", "float32", sorted(
      transformer_blocks.COMPUTE_DTYPES), "Encoder compute dtype (bfloat16: "
                    "faster on accelerators, about 1% off float32; cached "
                    "under its own key).", flag_values=fv)
  flags.DEFINE_integer("batch_size", DEFAULT_BATCH_SIZE,
                       "Sentences per step over all devices (0: the largest "
                       "that fits the devices' memory).", flag_values=fv)
  flags.DEFINE_string("split", None, "Comma-separated splits (default all; "
                      "with --config, default the run's sampled instances).",
                      flag_values=fv)
  flags.DEFINE_string("data_dir", None, "TFDS data_dir (default $BLM_DATA_DIR "
                      "or ~/tensorflow_datasets).", flag_values=fv)
  flags.DEFINE_string("manual_dir", None, "Folder of release files, for "
                      "builders that read them.", flag_values=fv)
  flags.DEFINE_string("cache_dir", DEFAULT_CACHE_DIR, "Embedding cache root "
                      "(default $BLM_EMBED_CACHE or "
                      "~/.cache/blm_jax/embeddings).", flag_values=fv)


if __name__ == "__main__":
  define_flags()
  usage.run(main)
