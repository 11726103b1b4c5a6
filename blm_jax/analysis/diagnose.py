"""The diagnosis ladder on one design: where the signal is lost.

One config's data (one lexical type) and encoder, so one run's analysis;
the ladder across every `_seq` design is the study's
(`blm_jax.study.diagnose_suite`). Its rungs: the design analyzer
(`blm_jax.data.design`: chance, the strongest context-free scorer, the
rules and the share of test rules unseen in training), the gold ceiling
on the config's own sample of its first seed (`results.gold_ceiling`),
and per hidden state linear and MLP probes from the sentence vectors to
each attribute the design declares, with the per-instance compounding and
probe-then-solve (`blm_jax.analysis.attribute_probes`). Writes
diagnose.json, diagnose.md and diagnose.png into its folder.
"""

from __future__ import annotations

import os

import numpy as np

from blm_jax.analysis import attribute_probes, probe_figures
from blm_jax.base import files
from blm_jax.data import design, input_pipeline
from blm_jax.data.lint import sample
from blm_jax.embedding import embed
from blm_jax.embedding.spec import EncoderSettings
from blm_jax.encoders import encoder as encoders
from blm_jax.results import gold_ceiling
from blm_jax.training import config_check, variants
from data_builders.common import loading


class LadderError(ValueError):
  """A ladder that cannot run (a layer or lexical type the data lacks, data
  without attributes); the message names the flag or dataset to change."""


def parse_layers(value: str, num_layers: int) -> tuple[int, ...]:
  """'all' or '0,3,-1' (the --layers flag) -> non-negative hidden-state
  indices."""
  try:
    layers = variants.parse_layer_sweep(value, num_layers)
  except ValueError as e:
    raise LadderError(str(e).replace("config.encoder.layer_sweep",
                                     "--layers")) from None
  if not layers:
    raise LadderError("--layers='': name 'all' or hidden-state indices "
                      "such as '0,3,6'")
  return layers


def load(config, lexical_type: str | None):
  """(config narrowed to the probed type, its data with no embedding, its
  train and test split instances): what the ladder reads. Builds the data
  if it is not yet."""
  config_check.validate(config)
  t = lexical_type or tuple(config.data.train_types)[0]
  types = tuple(config.data.train_types) + tuple(config.data.test_types)
  if t not in types:
    raise LadderError(f"--lexical_type={t!r}: config.data has types "
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


def design_rung(splits: dict, size: int) -> dict:
  """The design analyzer's rung: per population of (a seeded sample of
  `size`) training instances, chance, the strongest context-free scorer
  and what decides the answer (`design.analyze`), and the rules of the
  whole train and test splits (`design.rule_coverage`; None without
  patterns)."""
  reports = design.analyze(sample(splits["train"], size))
  coverage = design.rule_coverage(splits["train"], splits["test"])
  return {"populations": [r.as_dict() for r in reports],
          "rules": coverage.as_dict() if coverage else None}


def ladder(config, data, splits: dict, layers_flag: str, out_dir: str,
           embed_layers=None, settings=None) -> dict:
  """Every rung on the config's (single) lexical type: the design
  analyzer, the gold ceiling (reference model on the config's own training
  sample of its first seed, scored on its test split), the probes per
  layer with compounding and probe-then-solve. `embed_layers(sentences,
  layers)` -> {layer: [S, D]} (default: the config's encoder). Writes
  DIR/diagnose.json, .md and .png; returns {'result', 'markdown'}."""
  t = tuple(config.data.train_types)[0]
  table = data.table
  if not table.attribute_names:
    raise LadderError(f"{config.data.name!r}: no attributes to probe: "
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


def design_ladder(config, folder: str) -> dict:
  """One design's ladder as the study runs it: lexical type I of the
  config's data (built if need be), every layer; its diagnose.json."""
  config, data, splits = load(config, "I")
  return ladder(config, data, splits, "all", folder)["result"]
