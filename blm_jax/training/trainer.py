"""train_and_evaluate(config, workdir): a whole F1 heatmap in one jitted pass.

Sections: data and embeddings; model, optimizer and grid; checkpoint resume;
the epoch loop (one jitted, vmapped epoch for all cells); evaluation of every
cell on every test type; outputs (config.json, results.json, heatmap.png,
errors.png, log.txt, checkpoints/). The per-cell step is in `solver.py`, the
vmapping in `grid.py`.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import os
import shutil
import time
from typing import Callable, Sequence

import jax
import ml_collections
import numpy as np
import tqdm

from blm_jax import models
from blm_jax.base import files
from blm_jax.data import input_pipeline
from blm_jax.results import metrics as evaluate, plots
from blm_jax.training import checkpoints, config_check, run_identity, variants
from blm_jax.training.grid import available_bytes, Grid, GridSpec, resolve_mode
from blm_jax.training.optimizers import create_optimizer
from blm_jax.training.solver import Solver


def encoder_spec(encoder_cfg, **overrides):
  """The `embed.EncoderSpec` of a config's encoder section."""
  from blm_jax.embedding import embed  # Imported lazily: loads the encoder stack.

  spec, _ = embed.from_config(encoder_cfg)
  return dataclasses.replace(spec, **overrides)


def _cache_dir(encoder_cfg) -> str:
  from blm_jax.embedding import embed

  return embed.from_config(encoder_cfg)[1]["cache_dir"]


def default_embed_fn(encoder_cfg) -> input_pipeline.EmbedFn:
  """Embeds with the configured frozen encoder (cached on disk).

  With `encoder.layer_sweep` set, the one encoder pass also fills the cache
  of every swept layer, which `default_sources` then only reads.
  """
  from blm_jax.embedding import embed
  from blm_jax.encoders import encoder as encoders

  def fn(sentences):
    # embed.from_config: the same cache keys as `python -m blm_jax.cli.embed
    # --config=...` computes.
    spec, options = embed.from_config(encoder_cfg)
    sweep = encoder_cfg.get("layer_sweep", "")
    if not variants.parse_layer_sweep(sweep):
      return embed.embed_sentences(list(sentences), encoder=spec, **options)
    enc = encoders.load_encoder(spec.name_or_path, spec.revision, spec.dtype)
    main = enc.layer_index(spec.layer)
    layers = variants.parse_layer_sweep(sweep, enc.num_layers) + (main,)
    by_layer, _ = embed.embed_layers(list(sentences), spec, layers,
                                     **options)
    return by_layer[main]

  return fn


@dataclasses.dataclass(frozen=True)
class Sources:
  """The embedding tables the grid's variants read besides the real one.

  tables: {'random_encoder' | 'layer=k': [S, D]}, rows as the real table's.
  sweep_layers: the swept hidden states (non-negative), () without a sweep.
  main_layer: the hidden state of the real cells (non-negative).
  """

  tables: dict
  sweep_layers: tuple[int, ...] = ()
  main_layer: int | None = None


SourcesFn = Callable[[ml_collections.ConfigDict, Sequence[str]], Sources]
RANDOM_ENCODER_SEED = 0  # The random encoder's weights: one fixed draw.


def default_sources(config, sentences: Sequence[str]) -> Sources:
  """The random encoder's and every swept layer's embeddings (cached)."""
  controls = variants.parse_controls(config.get("controls", ""))
  sweep = config.encoder.get("layer_sweep", "")
  if "random_encoder" not in controls and not variants.parse_layer_sweep(
      sweep):
    return Sources({})
  from blm_jax.embedding import embed
  from blm_jax.encoders import encoder as encoders

  enc_cfg = config.encoder
  spec = encoder_spec(enc_cfg)
  enc = encoders.load_encoder(spec.name_or_path, spec.revision, spec.dtype)
  main = enc.layer_index(spec.layer)
  tables, layers = {}, variants.parse_layer_sweep(sweep, enc.num_layers)
  if layers:
    by_layer, _ = embed.embed_layers(
        list(sentences), spec, layers + (main,),
        batch_size=enc_cfg.batch_size, cache_dir=_cache_dir(enc_cfg))
    tables.update({variants.layer_variant(k): by_layer[k] for k in layers})
  if "random_encoder" in controls:
    tables["random_encoder"] = embed.embed_sentences(
        list(sentences), encoder_spec(
            enc_cfg, random_weights_seed=RANDOM_ENCODER_SEED),
        batch_size=enc_cfg.batch_size, cache_dir=_cache_dir(enc_cfg))
  return Sources(tables, layers, main)


def check_compatible(config, data: input_pipeline.BLMData) -> None:
  """Data/model mismatches, reported before anything is compiled."""
  spec = models.registry.get(config.model.name)
  expected = config.data.num_answers
  if expected and expected != data.num_answers:
    raise ValueError(
        f"config.data.num_answers={expected} but {config.data.name!r} has "
        f"{data.num_answers} candidate answers per instance")
  if spec.check_data is not None:
    spec.check_data(config, data)


def loss_weights(config, embed_dim: int) -> tuple[tuple[str, float], ...]:
  """(term, weight) for the answer margin and every loss term the solver
  returns, as its spec scales them (the VAEs' `loss.kl_scale`)."""
  spec = models.registry.get(config.model.name)
  return (("answer_margin", float(config.loss.answer_margin)),) + tuple(
      spec.weights(config, embed_dim).items())


def build_grid(config, data: input_pipeline.BLMData, mesh=None,
               sources: Sources | None = None) -> Grid:
  """The grid of `config` on `data`: seeds x train types, times the real
  run, every control of `config.controls` and the swept layers of
  `sources` (`variants.py`)."""
  model = models.create_model(config.model, embed_dim=data.embed_dim,
                              num_context=data.num_context,
                              score=config.train.score, loss_cfg=config.loss)
  largest = max(t.num_instances for t in data.train.values())
  solver = Solver(
      model=model, tx=create_optimizer(config.train),
      score=config.train.score,
      predict_score=config.train.predict_score,
      answer_reduction=config.loss.answer_reduction,
      loss_weights=loss_weights(config, data.embed_dim),
      batch_size=config.train.batch_size,
      steps_per_epoch=max(1, math.ceil(largest / config.train.batch_size)),
      select_by=config.train.select_by,
      eval_chunk=config.train.eval_chunk)
  sources = sources or Sources({})
  spec = GridSpec(tuple(int(s) for s in config.grid.seeds),
                  tuple(config.data.train_types),
                  variants.grid_variants(
                      variants.parse_controls(config.controls),
                      sources.sweep_layers, sources.main_layer))
  mode = resolve_mode(config.grid.mode, config.model.name,
                      (mesh.devices.flat[0] if mesh is not None
                       else jax.devices()[0]).platform)
  return Grid(solver, spec, data, mesh, sources.tables, mode)


def memory_budget(config, grid: Grid) -> int:
  """Bytes the grid's epoch may use: config.grid.memory_limit_gb, or (0)
  what the first device has available now."""
  limit = config.grid.get("memory_limit_gb", 0)
  if limit:
    return int(limit * 2**30)
  return available_bytes(grid.mesh.devices.flat[0])


class RunMismatchError(ValueError):
  """A workdir holds a run that another config or other data produced."""


def check_resume(config, workdir: str, step: int, saved: dict,
                 identity: dict, log: logging.Logger) -> None:
  """Refuses to resume a checkpoint of another config or data.

  Called with the metadata of the checkpoint about to be restored.
  train.resume 'auto': resume only an identical run; 'force': resume
  anyway, logging the differences ('restart' never gets here: the
  checkpoints are gone).
  """
  if "identity" not in saved:
    diffs = ["the checkpoint has no run identity (written by an older "
             "version of blm_jax), so it cannot be checked"]
  else:
    diffs = run_identity.differences(saved["identity"], identity)
  if not diffs:
    return
  if config.train.get("resume", "auto") == "force":
    log.warning("train.resume=force: resuming epoch %d despite:\n  %s", step,
                "\n  ".join(diffs))
    return
  raise RunMismatchError(
      f"{workdir} holds a run (checkpoint of epoch {step}) that another "
      f"config or other data produced; it differs in:\n  "
      + "\n  ".join(diffs)
      + "\nUse a new --workdir, or --config.train.resume=restart to discard "
      "that run (--config.train.resume=force resumes it anyway).")


def restore_run(config, workdir: str, ckpt_dir: str, grid: Grid,
                identity: dict, log: logging.Logger):
  """(last epoch, state, meta) of this run's newest intact checkpoint, or
  None; 'restart' discards the workdir's checkpoints first."""
  mode = config.train.get("resume", "auto")
  if mode not in run_identity.RESUME_MODES:
    raise ValueError(f"config.train.resume={mode!r}; expected one of "
                     f"{run_identity.RESUME_MODES}")
  if mode == "restart" and os.path.isdir(ckpt_dir):
    shutil.rmtree(ckpt_dir)
    log.info("train.resume=restart: removed %s", ckpt_dir)
  return checkpoints.restore_latest(
      ckpt_dir, grid.abstract_state(),
      check_meta=lambda step, saved: check_resume(config, workdir, step,
                                                  saved, identity, log))


def _setup_logging(workdir: str) -> logging.Logger:
  log = logging.getLogger("blm_jax.training.trainer")
  log.setLevel(logging.INFO)
  log.propagate = False  # The file gets the log; the terminal, the progress bar.
  path = os.path.abspath(os.path.join(workdir, "log.txt"))
  if not any(getattr(h, "baseFilename", None) == path for h in log.handlers):
    for h in list(log.handlers):
      log.removeHandler(h)
    handler = logging.FileHandler(path)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    log.addHandler(handler)
  return log


def _check_finite(step_losses: np.ndarray, grid: Grid, epoch: int) -> None:
  bad = ~np.isfinite(step_losses[:grid.num_cells])
  if bad.any():
    cell, step = map(int, np.argwhere(bad)[0])
    global_step = epoch * grid.solver.steps_per_epoch + step
    raise FloatingPointError(
        f"non-finite loss ({step_losses[cell, step]}) in cell "
        f"{grid.spec.cell_name(cell)} at epoch {epoch}, step {global_step}; "
        "lower config.train.learning_rate or check the embeddings")


def train_and_evaluate(config: ml_collections.ConfigDict, workdir: str,
                       embed_fn: input_pipeline.EmbedFn | None = None,
                       data: input_pipeline.BLMData | None = None,
                       sources_fn: SourcesFn | None = None) -> dict:
  """Trains every grid cell, evaluates it on every test type, writes outputs.

  Args:
    config: an experiment config (see configs/).
    workdir: where everything of this run goes; re-running with the same
      workdir resumes from the last checkpoint.
    embed_fn: sentences -> [n, D] embeddings; default: config.encoder.
    data: already loaded data (tests and benchmarks); default: config.data.
    sources_fn: (config, sentences) -> the `Sources` of the random-encoder
      control and the layer sweep; default: `default_sources`.

  Returns:
    The results dict also written to results.json.
  """
  config_check.validate(config)  # Before any data is built or embedded.

  # ---- Data and embeddings --------------------------------------------------
  t0 = time.perf_counter()
  if data is None:
    data = input_pipeline.load(
        config.data, embed_fn or default_embed_fn(config.encoder),
        config.data.get("data_dir") or None)
  check_compatible(config, data)
  t1 = time.perf_counter()
  sources = (sources_fn or default_sources)(config, data.table.sentences)
  variant_seconds = time.perf_counter() - t1
  data_seconds = time.perf_counter() - t0

  # ---- Model, optimizer and grid -------------------------------------------
  grid = build_grid(config, data, sources=sources)
  memory_notes = grid.fit_memory(memory_budget(config, grid),
                                 may_scan=config.grid.get("mode") == "auto")
  # The workdir is made only now: a run that fails to load its data (a bad
  # name, a missing manual_dir, a build or embedding error) or to build its
  # model leaves no half-made workdir behind.
  os.makedirs(workdir, exist_ok=True)
  log = _setup_logging(workdir)
  log.info("data: %d distinct sentences (dedup ratio %.2f), D=%d, %d context "
           "x %d answers, train sizes %s, test sizes %s (%.1fs)",
           len(data.table.sentences), data.table.dedup_ratio, data.embed_dim,
           data.num_context, data.num_answers,
           {t: s.num_instances for t, s in data.train.items()},
           {t: s.num_instances for t, s in data.test.items()}, data_seconds)
  if sources.tables:
    log.info("variant embeddings %s (%.1fs)", sorted(sources.tables),
             variant_seconds)
  for note in memory_notes:
    log.info("%s", note)
  ckpt_dir = os.path.join(workdir, "checkpoints")
  meta = {"grid": grid.spec.to_json(), "model": config.model.name,
          "embed_dim": data.embed_dim, "num_context": data.num_context,
          "num_answers": data.num_answers,
          "label_names": list(data.label_names),
          "identity": run_identity.fingerprint(config, data)}

  # ---- Resume ---------------------------------------------------------------
  # The saved identity (config + data; the grid is part of the config) is
  # checked before any state is restored, and config.json written after.
  restored = restore_run(config, workdir, ckpt_dir, grid, meta["identity"],
                         log)
  files.write_text(os.path.join(workdir, "config.json"),
              config.to_json_best_effort(indent=2, sort_keys=True))
  start_epoch = 0
  history = {"train": {}, "dev_accuracy": [], "dev_loss": []}
  if restored is not None:
    last_epoch, state, saved_meta = restored
    start_epoch = last_epoch + 1
    history = saved_meta.get("history", history)
    log.info("resumed from epoch %d", last_epoch)
    if start_epoch >= config.train.epochs:
      log.info("already trained: evaluating only")
  else:
    state = grid.init()

  # ---- Train ----------------------------------------------------------------
  epochs = config.train.epochs
  mgr = checkpoints.manager(ckpt_dir,
                            config.train.get("keep_checkpoints", 1))
  per_epoch = (grid.num_cells * grid.solver.steps_per_epoch
               * grid.solver.batch_size)
  train_seconds, trained_epochs = 0.0, 0
  bar = tqdm.tqdm(range(start_epoch, epochs), initial=start_epoch,
                  total=epochs, desc=f"{grid.num_cells} cells", unit="epoch",
                  disable=not config.get("progress", True))
  try:
    for epoch in bar:
      t = time.perf_counter()
      state, measured = grid.run_epoch(state, epoch)
      measured = jax.tree.map(lambda x: np.asarray(x)[:grid.num_cells],
                              measured)
      dt = time.perf_counter() - t
      _check_finite(measured["train"]["loss"], grid, epoch)
      if epoch > start_epoch:  # The first epoch includes compilation.
        train_seconds += dt
        trained_epochs += 1
      _append_history(history, measured)
      loss = float(measured["train"]["loss"].mean())
      bar.set_postfix(loss=f"{loss:.4f}", inst_per_s=f"{per_epoch / dt:.0f}")
      log.info("epoch %d loss %.5f %.1f instances/s", epoch, loss,
               per_epoch / dt)
      for i in range(grid.num_cells):
        log.info("  %s %s dev_acc %.4f dev_loss %.5f", grid.spec.cell_name(i),
                 " ".join(f"{k} {v[i].mean():.5f}"
                          for k, v in measured["train"].items()),
                 measured["dev_accuracy"][i], measured["dev_loss"][i])
      if (epoch + 1) % config.train.checkpoint_every_epochs == 0 or (
          epoch == epochs - 1):
        checkpoints.save(mgr, epoch, state, {**meta, "history": history})
  finally:
    mgr.close()

  # ---- Evaluate every cell on every test type ------------------------------
  params = state.best_params
  best_dev = np.asarray(state.best_dev_accuracy)[:grid.num_cells]
  best_dev_loss = np.asarray(state.best_dev_loss)[:grid.num_cells]
  best_epoch = np.asarray(state.best_epoch)[:grid.num_cells]
  test_types = tuple(config.data.test_types)
  per_cell = []
  for i, (seed, train_type) in enumerate(grid.spec.cells):
    per_cell.append({
        "seed": seed, "train_type": train_type,
        "best_dev_accuracy": float(best_dev[i]),
        "best_dev_loss": float(best_dev_loss[i]),
        "best_epoch": int(best_epoch[i]),
        "history": {
            "train": {k: [e[i] for e in v]
                      for k, v in history["train"].items()},
            "dev_accuracy": [e[i] for e in history["dev_accuracy"]],
            "dev_loss": [e[i] for e in history["dev_loss"]]},
        "test": {}})
    if grid.spec.cell_variants[i]:
      per_cell[-1]["variant"] = grid.spec.cell_variants[i]
  for u in test_types:
    table = data.test[u]
    out = grid.predict(params, grid.test[u])
    for i, cell in enumerate(per_cell):
      cell["test"][u] = evaluate.cell_metrics(
          out["pred"][i], table.correct, table.labels, data.label_names)
  by_variant = {v: [per_cell[i] for i in grid.spec.variant_cells(v)]
                for v in grid.spec.variants}
  summaries = {v: evaluate.summarize(grid.spec, cells, test_types)
               for v, cells in by_variant.items()}
  summary = summaries[""]
  per_cell = by_variant[""]
  throughput = per_epoch * trained_epochs / train_seconds if train_seconds else None
  results = {
      "config": {"model": config.model.name, "dataset": config.data.name,
                 "encoder": config.encoder.name, "score": config.train.score,
                 "predict_score": config.train.predict_score
                 or config.train.score,
                 "select_by": config.train.select_by,
                 "loss_weights": dict(grid.solver.loss_weights)},
      "grid": {**grid.spec.to_json(), "test_types": list(test_types)},
      "label_names": list(data.label_names),
      "cells": per_cell,
      "summary": summary,
      "data": {"distinct_sentences": len(data.table.sentences),
               "dedup_ratio": data.table.dedup_ratio,
               "embed_dim": data.embed_dim,
               "train_sizes": {t: s.num_instances
                               for t, s in data.train.items()},
               "dev_sizes": {t: s.num_instances for t, s in data.dev.items()},
               "dev_source": dict(data.dev_source),
               "test_sizes": {t: s.num_instances
                              for t, s in data.test.items()}},
      "throughput": {"train_instances_per_s": throughput,
                     "devices": [str(d) for d in grid.mesh.devices.flat],
                     "data_and_embedding_s": data_seconds},
  }
  controls = [v for v in grid.spec.variants if v in variants.CONTROLS]
  if controls:
    results["controls"] = {
        c: {"summary": summaries[c], "cells": by_variant[c],
            "selectivity": evaluate.selectivity(summary, summaries[c])}
        for c in controls}
  if sources.sweep_layers:
    results["layer_sweep"] = evaluate.layer_sweep(
        {k: summaries[variants.layer_variant(k)]
         if k != sources.main_layer else summary
         for k in sources.sweep_layers}, sources.main_layer)
  files.write_json(os.path.join(workdir, "results.json"), results)
  title = f"{config.model.name} on {config.data.name}"
  if controls:
    plots.heatmap_with_controls(
        summary, results["controls"], grid.spec.train_types, test_types,
        os.path.join(workdir, "heatmap.png"), title=f"F1: {title}",
        encoder=config.encoder.name, num_answers=data.num_answers)
  else:
    plots.heatmap(summary, grid.spec.train_types, test_types,
                  os.path.join(workdir, "heatmap.png"), title=f"F1: {title}",
                  encoder=config.encoder.name, num_answers=data.num_answers)
  if sources.sweep_layers:
    plots.layer_sweep(results["layer_sweep"], grid.spec.train_types,
                      test_types, os.path.join(workdir, "layers.png"),
                      title=f"F1 by layer: {title}",
                      encoder=config.encoder.name,
                      num_answers=data.num_answers)
  plots.error_bars(summary, grid.spec.train_types, test_types,
                   data.label_names, os.path.join(workdir, "errors.png"),
                   title=f"Chosen answers: {title}",
                   encoder=config.encoder.name, num_answers=data.num_answers)
  for v in grid.spec.variants:
    for t in grid.spec.train_types:
      log.info("%strain %s: %s", f"[{v}] " if v else "", t, "  ".join(
          f"test {u} F1 {summaries[v][t][u]['f1_mean']:.3f}±"
          f"{summaries[v][t][u]['f1_std']:.3f}" for u in test_types))
  return results


def _append_history(history: dict, measured: dict) -> None:
  """One epoch's per-cell means: history[...] is a list over epochs of
  per-cell lists (JSON-ready, so it travels in the checkpoint meta)."""
  for name, steps in measured["train"].items():
    history["train"].setdefault(name, []).append(
        [float(x) for x in steps.mean(axis=-1)])
  for name in ("dev_accuracy", "dev_loss"):
    history[name].append([float(x) for x in measured[name]])
