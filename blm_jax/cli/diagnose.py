"""Where the signal is lost: encoder probes tied to a BLM design.

  python -m blm_jax.cli.diagnose \\
      --config=configs/ffnn.py:dataset=agreement_en_seq,cpu --out=DIR

For one lexical type of the config's data (default its first train type;
its sampled training instances and its test instances, frames held out
across both), every hidden state of the config's encoder (or --layers):
linear and MLP probes from the sentence vectors to each attribute the
design declares, trained and tested on disjoint lexical frames, the
per-instance compounding, and probe-then-solve
(`blm_jax.analysis.attribute_probes`); with them the design analyzer
(`blm_jax.data.design`: chance, the strongest context-free scorer, the
rules and the share of test rules unseen in training) and the gold
ceiling on the config's own sample of its first seed
(`results.gold_ceiling`),
and the builder versions of the data. Writes DIR/diagnose.json,
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


def load(config, lexical_type: str | None):
  """(config narrowed to the probed type, its data with no embedding, its
  train and test split instances): what the ladder reads. Builds the data
  if it is not yet."""
  import numpy as np

  from blm_jax.data import input_pipeline
  from data_builders.common import loading

  config_check.validate(config)
  t = lexical_type or tuple(config.data.train_types)[0]
  types = tuple(config.data.train_types) + tuple(config.data.test_types)
  if t not in types:
    raise UsageError(f"--lexical_type={t!r}: config.data has types "
                     f"{sorted(set(types))}")
  with config.unlocked():
    config.data.train_types = (t,)
    config.data.test_types = (t,)
  input_pipeline.build_data_once(config.data)
  data = input_pipeline.load(config.data, lambda s: np.zeros((len(s), 1),
                                                             np.float32),
                             config.data.data_dir or None,
                             seeds=tuple(int(s) for s in config.grid.seeds))
  name = input_pipeline.dataset_name(config.data.name, t)
  splits = {s: loading.load_instances(name, s, config.data.data_dir or None)
            for s in ("train", "test")}
  return config, data, splits


def design_rung(splits: dict, sample: int) -> dict:
  """The design analyzer's rung: per population of (a seeded sample of
  `sample`) training instances, chance, the strongest context-free scorer
  and what decides the answer (`design.analyze`), and the rules of the
  whole train and test splits (`design.rule_coverage`; None without
  patterns)."""
  from blm_jax.cli import lint
  from blm_jax.data import design

  reports = design.analyze(lint.sample(splits["train"], sample))
  coverage = design.rule_coverage(splits["train"], splits["test"])
  return {"populations": [r.as_dict() for r in reports],
          "rules": coverage.as_dict() if coverage else None}


def ladder(config, data, splits: dict, layers_flag: str, out_dir: str,
           embed_layers=None, settings=None) -> dict:
  """Every rung on the config's (single) lexical type: the design
  analyzer, the gold ceiling (reference model on the config's own training
  sample of its first seed, scored on its test split), the probes per layer with
  compounding and probe-then-solve. `embed_layers(sentences, layers)` ->
  {layer: [S, D]} (default: the config's encoder). Writes DIR/diagnose.json,
  .md and .png; returns {'result', 'markdown'}."""
  import numpy as np

  from blm_jax.analysis import attribute_probes, probe_figures
  from blm_jax.data import input_pipeline
  from blm_jax.embedding import embed
  from blm_jax.encoders import encoder as encoders
  from blm_jax.results import gold_ceiling
  from blm_jax.embedding.spec import EncoderSettings
  from data_builders.common import loading

  t = tuple(config.data.train_types)[0]
  table = data.table
  if not table.attribute_names:
    raise UsageError(f"{config.data.name!r}: no attributes to probe: "
                     f"{table.attributes_missing}")
  encoder = EncoderSettings(**config.encoder)
  spec = encoder.spec
  enc = encoders.load_encoder(spec.name_or_path, spec.revision, spec.dtype)
  layers = parse_layers(layers_flag, enc.num_layers)
  if embed_layers is None:
    embed_layers = lambda sentences, ks: embed.embed_layers(
        sentences, spec, ks, batch_size=encoder.batch_size,
        cache_dir=encoder.cache_root)[0]
  by_layer = embed_layers(list(table.sentences), layers)
  result = attribute_probes.diagnose_layers(
      {f"layer={k}": by_layer[k] for k in layers}, table,
      **({"settings": settings} if settings else {}))
  name = input_pipeline.dataset_name(config.data.name, t)
  seeds = (int(tuple(config.grid.seeds)[0]),)  # A ceiling: one fit.
  result.update(
      dataset=name, encoder=config.encoder.name,
      pooling=config.encoder.pooling,
      design=design_rung(splits, int(config.data.num_train)),
      gold_ceiling=gold_ceiling.gold_ceiling(data, seeds, (t,), (t,)),
      data={"builder_versions": {name: loading.version(name)}},
      tables=attribute_probes.tables(result))
  os.makedirs(out_dir, exist_ok=True)
  files.write_json(os.path.join(out_dir, "diagnose.json"), result)
  text = attribute_probes.markdown(result, title=f"{name}, "
                                   f"{config.encoder.name}")
  files.write_text(os.path.join(out_dir, "diagnose.md"), text)
  chance = float(np.mean(1 / table.answer_mask.sum(1)))
  probe_figures.plot_attribute_ladder(
      result, os.path.join(out_dir, "diagnose.png"),
      f"where the signal is lost: {name}, {config.encoder.name}", chance)
  return {"result": result, "markdown": text}


def diagnose(config, lexical_type: str | None, layers_flag: str,
             out_dir: str, settings=None) -> dict:
  """Loads the data, embeds every asked layer, runs the ladder; writes the
  files."""
  config, data, splits = load(config, lexical_type)
  return ladder(config, data, splits, layers_flag, out_dir,
                settings=settings)


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
