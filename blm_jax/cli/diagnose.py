"""Where the signal is lost: encoder probes tied to a BLM design.

  python -m blm_jax.cli.diagnose \\
      --config=configs/ffnn.py:dataset=agreement_en_seq,cpu --out=DIR

For one lexical type of the config's data (default its first train type;
its sampled training instances and its test instances, frames held out
across both), every hidden state of the config's encoder (or --layers):
linear and MLP probes from the sentence vectors to each attribute the
design declares, trained and tested on disjoint lexical frames, the
per-instance compounding, and probe-then-solve
(`blm_jax.analysis.attribute_probes`). Writes DIR/diagnose.json,
DIR/diagnose.md and DIR/diagnose.png (probe accuracy by layer; by layer
probe-then-solve and compounding under the gold ceiling and chance) and
prints the table. Data without attributes (own data,
the release) stops with one line saying why.
"""

from __future__ import annotations

import os
from typing import Sequence

from blm_jax.base import files
from blm_jax.training import config_check


class UsageError(ValueError):
  """A command line that cannot run; the message says what to change."""


def parse_layers(value: str, num_layers: int) -> tuple[int, ...]:
  """'all' or '0,3,-1' -> non-negative hidden-state indices."""
  from blm_jax.training import variants

  try:
    layers = variants.parse_layer_sweep(value, num_layers)
  except ValueError as e:
    raise UsageError(str(e).replace("config.encoder.layer_sweep",
                                    "--layers")) from None
  if not layers:
    raise UsageError("--layers='': name 'all' or hidden-state indices "
                     "such as '0,3,6'")
  return layers


def diagnose(config, lexical_type: str | None, layers_flag: str,
             out_dir: str, settings=None) -> dict:
  """Loads the data, embeds every asked layer, probes; writes the files."""
  import numpy as np

  from blm_jax.analysis import attribute_probes
  from blm_jax.data import input_pipeline
  from blm_jax.embedding import embed
  from blm_jax.encoders import encoder as encoders
  from blm_jax.training import distributed, embedding_sources

  config_check.validate(config)
  t = lexical_type or tuple(config.data.train_types)[0]
  types = tuple(config.data.train_types) + tuple(config.data.test_types)
  if t not in types:
    raise UsageError(f"--lexical_type={t!r}: config.data has types "
                     f"{sorted(set(types))}")
  with config.unlocked():
    config.data.train_types = (t,)
    config.data.test_types = (t,)
  distributed.build_data_once(config.data)
  data = input_pipeline.load(config.data, lambda s: np.zeros((len(s), 1),
                                                             np.float32),
                             config.data.data_dir or None)
  table = data.table
  if not table.attribute_names:
    raise UsageError(f"{config.data.name!r}: no attributes to probe: "
                     f"{table.attributes_missing}")
  spec = embedding_sources.encoder_spec(config.encoder)
  enc = encoders.load_encoder(spec.name_or_path, spec.revision, spec.dtype)
  layers = parse_layers(layers_flag, enc.num_layers)
  by_layer, _ = embed.embed_layers(
      list(table.sentences), spec, layers,
      batch_size=config.encoder.batch_size,
      cache_dir=embedding_sources.embedding_cache_dir(config.encoder))
  result = attribute_probes.diagnose_layers(
      {f"layer={k}": by_layer[k] for k in layers}, table,
      **({"settings": settings} if settings else {}))
  name = input_pipeline.dataset_name(config.data.name, t)
  result.update(dataset=name, encoder=config.encoder.name,
                pooling=config.encoder.pooling,
                tables=attribute_probes.tables(result))
  os.makedirs(out_dir, exist_ok=True)
  files.write_json(os.path.join(out_dir, "diagnose.json"), result)
  text = attribute_probes.markdown(result, title=f"{name}, "
                                   f"{config.encoder.name}")
  files.write_text(os.path.join(out_dir, "diagnose.md"), text)
  from blm_jax.analysis import probe_figures

  chance = float(np.mean(1 / table.answer_mask.sum(1)))
  probe_figures.plot_attribute_ladder(
      result, os.path.join(out_dir, "diagnose.png"),
      f"where the signal is lost: {name}, {config.encoder.name}", chance)
  return {"result": result, "markdown": text}


def main(argv: Sequence[str]) -> None:
  from absl import flags

  from blm_jax.cli import quiet

  quiet.quiet_logs()
  if len(argv) > 1:
    raise SystemExit(f"unexpected arguments: {argv[1:]}")
  f = flags.FLAGS
  if f.config is None:
    raise SystemExit("error: give --config=configs/<model>.py:dataset=<name>"
                     " (its data and encoder are probed)")
  try:
    out = diagnose(f.config, f.lexical_type, f.layers, f.out)
  except (UsageError, config_check.ConfigError) as e:
    raise SystemExit(f"error: {e}") from None
  print(out["markdown"])
  print(f"wrote {os.path.join(f.out, 'diagnose.json')}, diagnose.md and "
        "diagnose.png")


def define_flags(fv=None) -> None:
  from absl import flags
  from ml_collections import config_flags

  fv = flags.FLAGS if fv is None else fv
  config_flags.DEFINE_config_file(
      "config", None, "A training config (configs/<name>.py[:variant]): its "
      "data and encoder are probed; --config.<key>=<value> overrides.",
      flag_values=fv, lock_config=True)
  flags.DEFINE_string("lexical_type", None, "The lexical type probed "
                      "(default: the config's first train type).",
                      flag_values=fv)
  flags.DEFINE_string("layers", "all", "Hidden states: 'all' or indices "
                      "such as '0,3,-1' (0 = embeddings).", flag_values=fv)
  flags.DEFINE_string("out", "diagnose", "Folder of diagnose.json and "
                      "diagnose.md.", flag_values=fv)


if __name__ == "__main__":
  define_flags()
  from blm_jax.cli import usage

  usage.run(main)
