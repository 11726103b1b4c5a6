"""A trained grid's report: results.json, the plots and the F1 log lines.

`write_report(config, workdir, outcome)` turns what the trainer measured
(`trainer.TrainingOutcome`: best-dev statistics, histories, test
predictions) into per-cell metrics, the summary of every variant, the
controls' selectivity, the layer sweep and the context-free baselines
(`context_free.py`: what the candidates alone give, and the context gain),
and writes them to the workdir.
"""

from __future__ import annotations

import os

import ml_collections

from blm_jax.base import files
from blm_jax.base.background import Background
from blm_jax.base.stage_clock import StageClock, stages_line
from blm_jax.data import input_pipeline
from blm_jax.results import (context_free, gold_ceiling, metrics, plots,
                             predictions, tables, tensorboard)
from blm_jax.embedding.spec import EncoderSettings
from blm_jax.training import run_identity, run_log, trainer, variants


def _cell_results(outcome: trainer.TrainingOutcome) -> list[dict]:
  """results.json's entry of every cell, variants included."""
  history = outcome.history
  cells = []
  for i, (seed, train_type) in enumerate(outcome.spec.cells):
    cells.append({
        "seed": seed, "train_type": train_type,
        "best_dev_accuracy": float(outcome.best_dev_accuracy[i]),
        "best_dev_loss": float(outcome.best_dev_loss[i]),
        "best_epoch": int(outcome.best_epoch[i]),
        "history": {
            "train": {k: [e[i] for e in v]
                      for k, v in history["train"].items()},
            "dev_accuracy": [e[i] for e in history["dev_accuracy"]],
            "dev_loss": [e[i] for e in history["dev_loss"]]},
        "test": {}})
    if outcome.spec.cell_variants[i]:
      cells[-1]["variant"] = outcome.spec.cell_variants[i]
  for u in outcome.test_types:
    t = outcome.test[u]
    for i, cell in enumerate(cells):
      cell["test"][u] = metrics.cell_metrics(
          t.pred[i], t.correct, t.labels, outcome.label_names)
  return cells


def _variant_summaries(outcome: trainer.TrainingOutcome
                       ) -> tuple[dict, dict]:
  """({variant: its cells' results}, {variant: summary}), '' the real run."""
  spec = outcome.spec
  cells = _cell_results(outcome)
  by_variant = {v: [cells[i] for i in spec.variant_cells(v)]
                for v in spec.variants}
  return by_variant, {
      v: metrics.summarize(spec, by_variant[v], outcome.test_types)
      for v in spec.variants}


def context_free_cache_dir(config: ml_collections.ConfigDict) -> str:
  """The folder of the context-free score cache ('' = none):
  `config.results.context_free_cache`, where 'auto' (and a config saved
  before the key existed) is 'context_free' beside the run's embedding
  cache."""
  value = config.results.get("context_free_cache", "auto")
  if value != "auto":
    return os.path.expanduser(value)
  root = EncoderSettings(**config.encoder).cache_root
  return os.path.join(os.path.dirname(os.path.abspath(
      os.path.expanduser(root))), "context_free")


def start_context_free(config: ml_collections.ConfigDict,
                       data: input_pipeline.BLMData, workdir: str
                       ) -> Background | None:
  """The context-free baselines' scores (`context_free.cached_scores`) of
  `config` on `data`, computed in a background thread: they depend on the
  data only, so they can run while the grid trains. Its result is
  (scores, [the cache file they were read from, if they were]); None when
  `config.results.context_free` is off."""
  if not config.results.context_free:
    return None
  settings = context_free.MLPSettings(
      reduction=config.loss.get("answer_reduction", "sum"))
  log = run_log.open_log(workdir)
  train_types = tuple(config.data.train_types)
  test_types = tuple(config.data.test_types)
  cache_dir = context_free_cache_dir(config)

  def scores():
    read_from: list[str] = []
    return context_free.cached_scores(
        data, train_types, test_types, settings, cache_dir=cache_dir,
        log=lambda line: log.info("%s", line), read_from=read_from
    ), read_from

  return Background(scores, what="the context-free baselines")


def _context_free(config: ml_collections.ConfigDict,
                  outcome: trainer.TrainingOutcome,
                  summary: dict, workdir: str, read_from: list[str],
                  pending: Background | None = None) -> dict | None:
  """results.json's `context_free` section, or None when switched off or
  the outcome does not carry its data; the cache file it was read from,
  if it was, is added to `read_from`. `pending`: the scores already being
  computed (`start_context_free`), else they are computed here."""
  if not config.results.context_free or outcome.data is None:
    return None
  if pending is None:
    pending = start_context_free(config, outcome.data, workdir)
  scores, read = pending.result()
  read_from.extend(read)
  return context_free.with_gain(scores, summary)


def _gold_ceiling(config: ml_collections.ConfigDict,
                  outcome: trainer.TrainingOutcome, summaries: dict,
                  log) -> dict | None:
  """results.json's `gold_ceiling` section; None when switched off or
  when the data was not kept; {'skipped': one line} (also logged) when the
  data has no attributes."""
  if not config.results.get("gold_ceiling", True) or outcome.data is None:
    return None
  if not outcome.data.table.attribute_names:
    line = gold_ceiling.missing_line(outcome.data.table)
    log.info("%s", line)
    return {"skipped": line}
  return gold_ceiling.gold_ceiling(
      outcome.data, outcome.spec.seeds, outcome.spec.train_types,
      outcome.test_types,
      solver_summary=summaries.get(gold_ceiling.CONTROL))


def _results(config: ml_collections.ConfigDict,
             outcome: trainer.TrainingOutcome, by_variant: dict,
             summaries: dict, log, workdir: str,
             pending_context_free: Background | None = None) -> dict:
  """The dict written to results.json; `log` is the run's logger."""
  spec, test_types = outcome.spec, outcome.test_types
  summary = summaries[""]
  results = {
      "config": {"model": config.model.name, "dataset": config.data.name,
                 "encoder": config.encoder.name, "score": config.train.score,
                 "predict_score": config.train.predict_score
                 or config.train.score,
                 "select_by": config.train.select_by,
                 "loss_weights": dict(outcome.loss_weights)},
      "grid": {**spec.to_json(), "test_types": list(test_types)},
      "label_names": list(outcome.label_names),
      "correct_labels": metrics.correct_labels(outcome.test.values(),
                                               outcome.label_names),
      "cells": by_variant[""],
      "summary": summary,
      "data": {**outcome.data_sizes, "num_answers": outcome.num_answers,
               "builder_versions": input_pipeline.builder_versions(
                   config.data)},
      "throughput": {"train_instances_per_s": outcome.train_instances_per_s,
                     "devices": list(outcome.devices),
                     "data_and_embedding_s": outcome.data_seconds},
      # Filled by write_report once every stage has run.
      "stage_seconds": {},
      # The whole config, so that a finished grid can be checked before it
      # is reused (blm_jax.cli.reproduce), and what a forced resume ignored.
      "run": {"config": run_identity.flatten(config.to_dict()),
              "resume_forced": list(outcome.resume_forced)},
  }
  controls = [v for v in spec.variants if v in variants.CONTROLS]
  if controls:
    results["controls"] = {
        c: {"summary": summaries[c], "cells": by_variant[c],
            "selectivity": metrics.selectivity(summary, summaries[c])}
        for c in controls}
  read_from = []
  with outcome.clock.measure("context_free"):
    free = _context_free(config, outcome, summary, workdir, read_from,
                         pending_context_free)
  if free is not None:
    results["context_free"] = free
    # Read from a cache file, not computed: the console says so.
    results["run"]["context_free_from_cache"] = "".join(read_from[:1])
  with outcome.clock.measure("gold_ceiling"):
    ceiling = _gold_ceiling(config, outcome, summaries, log)
  if ceiling is not None:
    results["gold_ceiling"] = ceiling
  if outcome.sweep_layers:
    results["layer_sweep"] = metrics.layer_sweep(
        {k: summaries[variants.layer_variant(k)]
         if k != outcome.main_layer else summary
         for k in outcome.sweep_layers}, outcome.main_layer)
  return results


def write_plots(results: dict, workdir: str) -> None:
  """heatmap.png (the controls beside it, if any; each cell with its best
  context-free score and the gold ceiling, or the context gain instead with
  `config.results.heatmap='context_gain'`), layers.png (with a layer
  sweep) and errors.png, drawn from `results` alone (a results.json or a
  kept record of one), so a grid whose workdir is gone is drawn again."""
  grid, named = results["grid"], results["config"]
  run = results.get("run", {}).get("config", {})
  train_types, test_types = grid["train_types"], grid["test_types"]
  summary = results["summary"]
  title = f"{named['model']} on " + plots.run_dataset_title(
      named["dataset"], run.get("data.manual_dir") or "")
  sizes = dict(test_sizes=results["data"].get("test_sizes"))
  formats = tuple(f.strip() for f in str(
      run.get("results.figure_formats", "png")).split(",") if f.strip())
  # A record written before results.json had num_answers: no chance mark.
  plot_kw = dict(encoder=named["encoder"],
                 num_answers=results["data"].get("num_answers", 0),
                 n_seeds=len(grid["seeds"]), formats=formats)
  heatmap = os.path.join(workdir, "heatmap.png")
  free = results.get("context_free")
  gold = results.get("gold_ceiling")
  if run.get("results.heatmap") == "context_gain":
    plots.context_gain(free, train_types, test_types, heatmap,
                       title=f"Context gain (F1 - best context-free): "
                       f"{title}", **plot_kw, **sizes)
  elif "controls" in results:
    plots.heatmap_with_controls(summary, results["controls"], train_types,
                                test_types, heatmap, title=f"F1: {title}",
                                context_free=free, gold_ceiling=gold,
                                **plot_kw, **sizes)
  else:
    plots.heatmap(summary, train_types, test_types, heatmap,
                  title=f"F1: {title}", context_free=free,
                  gold_ceiling=gold, **plot_kw, **sizes)
  if "layer_sweep" in results:
    plots.layer_sweep(results["layer_sweep"], train_types, test_types,
                      os.path.join(workdir, "layers.png"),
                      title=f"F1 by layer: {title}", **plot_kw)
  plots.error_bars(summary, train_types, test_types,
                   tuple(results["label_names"]),
                   os.path.join(workdir, "errors.png"),
                   correct=metrics.correct_label(results),
                   title=f"Chosen answers: {title}", **plot_kw)


def write_tensorboard(workdir: str, outcome: trainer.TrainingOutcome) -> str:
  """tensorboard/<cell>/ event files of every cell, variants included."""
  spec = outcome.spec
  test_f1 = {u: [metrics.cell_metrics(t.pred[i], t.correct, t.labels,
                                      outcome.label_names)["f1"]
                 for i in range(len(spec.cells))]
             for u, t in outcome.test.items()}
  return tensorboard.write(
      workdir, [spec.cell_name(i) for i in range(len(spec.cells))],
      outcome.history, test_f1)


def f1_lines(outcome: trainer.TrainingOutcome, summaries: dict) -> list[str]:
  """'[variant] train T: test U F1 mean±std ...' for every variant (the
  real run first, without a prefix) and train type."""
  lines = []
  for v in outcome.spec.variants:
    for t in outcome.spec.train_types:
      row = summaries[v][t]
      lines.append((f"[{v}] " if v else "") + f"train {t}: " + "  ".join(
          f"test {u} F1 {row[u]['f1_mean']:.3f}±{row[u]['f1_std']:.3f}"
          for u in outcome.test_types))
  return lines


def context_free_lines(free: dict) -> list[str]:
  """'context-free train T: test U best 0.412 (word_logit) gain +0.301
  ...' per train type."""
  return [f"context-free train {t}: " + "  ".join(
      f"test {u} best {c['best']:.3f} ({c['best_baseline']}) gain "
      f"{c['context_gain']:+.3f}" for u, c in row.items())
          for t, row in free.items()]


def write_report(config: ml_collections.ConfigDict, workdir: str,
                 outcome: trainer.TrainingOutcome,
                 pending_context_free: Background | None = None) -> dict:
  """Writes results.json, results.csv (one row per cell,
  `tables.COLUMNS`), predictions.npz (per-instance choices, for the
  claims' confidence intervals) and the plots to `workdir`, the F1 of
  every variant to its log.txt; returns the results dict.
  `pending_context_free`: the context-free scores started beside training
  (`start_context_free`); without it they are computed here."""
  if (config.results.heatmap == "context_gain"
      and not config.results.context_free):
    raise ValueError("config.results.heatmap='context_gain' needs the "
                     "context-free baselines: "
                     "config.results.context_free=True")
  clock: StageClock = outcome.clock
  log = run_log.open_log(workdir)
  with clock.measure("report"):
    by_variant, summaries = _variant_summaries(outcome)
  results = _results(config, outcome, by_variant, summaries, log, workdir,
                     pending_context_free)
  # The figures are drawn from the numbers alone, in a thread beside the
  # writes of the numbers (and TensorBoard's event files); the run ends
  # once they are drawn, and results.json is written again with their
  # time (a figure that fails raises here, after the numbers are on disk).
  figures = Background(lambda: write_plots(results, workdir),
                       what="the figures")
  with clock.measure("report"):
    predictions.write(workdir, outcome)
    results["stage_seconds"] = clock.as_dict()
    files.write_json(os.path.join(workdir, "results.json"), results)
    files.write_text(os.path.join(workdir, "results.csv"),
                     tables.to_csv(tables.cell_rows(results)))
  if config.results.get("tensorboard", False):
    with clock.measure("tensorboard"):
      write_tensorboard(workdir, outcome)
  with clock.measure("plots"):  # The wait for the figures after the rest.
    figures.result()
  results["stage_seconds"] = clock.as_dict()
  files.write_json(os.path.join(workdir, "results.json"), results)
  for line in f1_lines(outcome, summaries) + context_free_lines(
      results.get("context_free", {})) + gold_ceiling.lines(
          results.get("gold_ceiling", {})):
    log.info("%s", line)
  log.info("%s", stages_line(results["stage_seconds"]))
  return results
