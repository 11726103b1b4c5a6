"""train_and_evaluate(config, workdir): a whole grid trained in one jitted pass.

Sections: data and embeddings; model, optimizer and grid; checkpoint resume;
the epoch loop (one jitted, vmapped epoch for all cells); predictions of
every cell on every test type. It writes config.json, log.txt and
checkpoints/, tells a `Progress` of resumes, epochs and checkpoints, and
returns a `TrainingOutcome`; results.json and the plots are the results
layer's (`blm_jax.results.report`). The per-cell step is in `solver.py`, the
vmapping in `grid.py`; where the embeddings come from in
`blm_jax.embedding.sources` (asked through `variants.default_sources`), the
memory check in `memory_fit.py`, the checkpoint resume in `resume.py`.

The config is read once, at the top of `train_and_evaluate`: its sections
become typed values (`EncoderSettings`, `DataSpec`, `GridSettings`,
`TrainSettings`) that are handed down in its place; the whole config goes
only to its checks, the run's identity and resume, and the solver's own
sections to the model.
"""

from __future__ import annotations

import dataclasses
import math
import os
import time

import jax
import ml_collections
import numpy as np
import tqdm

from blm_jax import models
from blm_jax.base import files
from blm_jax.base.stage_clock import StageClock, split_compile
from blm_jax.data import input_pipeline
from blm_jax.data.input_pipeline import DataSpec
from blm_jax.embedding import sources as embedding_sources
from blm_jax.embedding.spec import EncoderSettings
from blm_jax.training import (checkpoints, config_check, distributed,
                              memory_fit, run_health, run_identity, run_log,
                              variants, workdir_lock)
from blm_jax.training.grid import Grid, GridSpec, resolve_mode
from blm_jax.training.resume import restore_run
from blm_jax.training.optimizers import create_optimizer
from blm_jax.training.progress import Progress
from blm_jax.training.settings import GridSettings, TrainSettings
from blm_jax.training.solver import Solver
from blm_jax.training.variants import Sources, SourcesFn


class DataMismatchError(ValueError):
  """The config does not fit the data it loaded (a user's error: the
  command line shows it as one line)."""


def check_compatible(config, data: input_pipeline.BLMData) -> None:
  """Data/model mismatches, reported before anything is compiled, as
  DataMismatchError (a solver's `check_data` raises plain ValueErrors)."""
  try:
    _check_compatible(config, data)
  except DataMismatchError:
    raise
  except ValueError as e:
    raise DataMismatchError(str(e)) from None


def _check_compatible(config, data: input_pipeline.BLMData) -> None:
  spec = models.registry.get(config.model.name)
  expected = config.data.num_answers
  if expected and expected != data.num_answers:
    raise ValueError(
        f"config.data.num_answers={expected} but {config.data.name!r} has "
        f"{data.num_answers} candidate answers per instance")
  if config.data.seed_follows_grid:
    missing = [(int(s), t) for s in config.grid.seeds
               for t in config.data.train_types
               if (int(s), t) not in data.train_by_seed]
    if missing:
      raise ValueError(
          f"config.data.seed_follows_grid=True but the data has no sample "
          f"for (seed, train type) {missing}: load it with "
          "input_pipeline.load(..., seeds=config.grid.seeds)")
  if spec.check_data is not None:
    spec.check_data(config, data)


def loss_weights(config, embed_dim: int) -> tuple[tuple[str, float], ...]:
  """(term, weight) for the answer margin and every loss term the solver
  returns, as its spec scales them (the VAEs' `loss.kl_scale`)."""
  spec = models.registry.get(config.model.name)
  return (("answer_margin", float(config.loss.answer_margin)),) + tuple(
      spec.weights(config, embed_dim).items())


def build_solver(config, data: input_pipeline.BLMData) -> Solver:
  """One cell's solver: the model of `config.model` and its loss terms
  (`config.loss`) on `data`, trained by `config.train`."""
  train = TrainSettings(**config.train)
  model = models.create_model(config.model, embed_dim=data.embed_dim,
                              num_context=data.num_context,
                              score=train.score, loss_cfg=config.loss)
  largest = max(t.num_instances for t in (*data.train.values(),
                                           *data.train_by_seed.values()))
  return Solver(
      model=model, tx=create_optimizer(train),
      score=train.score,
      predict_score=train.predict_score,
      answer_reduction=config.loss.answer_reduction,
      loss_weights=loss_weights(config, data.embed_dim),
      batch_size=train.batch_size,
      steps_per_epoch=max(1, math.ceil(largest / train.batch_size)),
      select_by=train.select_by,
      eval_chunk=train.eval_chunk)


def grid_spec(settings: GridSettings, train_types: tuple[str, ...],
              sources: Sources) -> GridSpec:
  """Seeds x train types, times the real run, every control and the swept
  layers of `sources` (`variants.py`)."""
  return GridSpec(settings.seeds, tuple(train_types),
                  variants.grid_variants(settings.controls,
                                         sources.sweep_layers,
                                         sources.main_layer))


def build_grid(config, data: input_pipeline.BLMData, mesh=None,
               sources: Sources | None = None) -> Grid:
  """The grid of `config` on `data` (what `train_and_evaluate` trains;
  tests, benchmarks and restoring a run build it here)."""
  settings = GridSettings(controls=config.controls, **config.grid)
  sources = sources or Sources({})
  mode = resolve_mode(settings.mode, config.model.name,
                      (mesh.devices.flat[0] if mesh is not None
                       else jax.devices()[0]).platform)
  return Grid(build_solver(config, data),
              grid_spec(settings, config.data.train_types, sources), data,
              mesh, sources.tables, mode)


def epoch_instances(grid: Grid, data: input_pipeline.BLMData) -> int:
  """Distinct training instances one epoch of all cells reads: a batch
  larger than a cell's data repeats rows, which are not counted."""
  def table(s, t):
    return (data.train_by_seed[s, t] if (s, t) in data.train_by_seed
            else data.train[t])

  return sum(table(s, t).num_instances
             for s, t in grid.spec.cells[:grid.num_cells])


@dataclasses.dataclass(frozen=True)
class Predictions:
  """Every cell's chosen answers on one test type, and what scores them.

  pred: [cells, instances] chosen answer index per cell.
  correct: [instances] index of the correct answer.
  labels: [instances, answers] label index (into `label_names`) per answer.
  ids: the instances' ids, so that two runs' predictions can be paired.
  """

  pred: np.ndarray
  correct: np.ndarray
  labels: np.ndarray
  ids: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class TrainingOutcome:
  """What a training run measured, for the results layer to report.

  Per-cell arrays follow `spec.cells` (the real run's cells, then each
  variant's). `history` holds per-epoch lists of per-cell values:
  {'train': {term: [[cell mean] per epoch]}, 'dev_accuracy': ...,
  'dev_loss': ...}, the epochs of resumed runs included.
  """

  spec: GridSpec
  test_types: tuple[str, ...]
  label_names: tuple[str, ...]
  num_answers: int
  data_sizes: dict  # results.json's 'data' section.
  loss_weights: tuple[tuple[str, float], ...]
  best_dev_accuracy: np.ndarray  # [cells]
  best_dev_loss: np.ndarray  # [cells]
  best_epoch: np.ndarray  # [cells]
  history: dict
  test: dict[str, Predictions]
  sweep_layers: tuple[int, ...]  # Swept hidden states, () without a sweep.
  main_layer: int | None  # The real cells' hidden state, with a sweep.
  train_instances_per_s: float | None  # None: no epoch after the first.
  devices: tuple[str, ...]
  data_seconds: float  # Loading, building and embedding the data.
  # Wall seconds per stage so far (data, embedding, compile, training,
  # checkpoints, evaluation); the results layer adds its own stages.
  clock: StageClock = dataclasses.field(default_factory=StageClock)
  # The embeddings and tables the grid read: the results layer fits its
  # context-free baselines on them. None: report without them.
  data: input_pipeline.BLMData | None = None
  # With train.resume=force: the differences the resumed checkpoint had.
  resume_forced: tuple[str, ...] = ()


def train_and_evaluate(config: ml_collections.ConfigDict, workdir: str,
                       embed_fn: input_pipeline.EmbedFn | None = None,
                       data: input_pipeline.BLMData | None = None,
                       sources_fn: SourcesFn | None = None,
                       progress: Progress | None = None) -> TrainingOutcome:
  """Trains every grid cell and predicts every test type with it.

  Writes config.json, log.txt and checkpoints/ to `workdir`; results.json
  and the plots are the results layer's (`blm_jax.results.experiment`).

  Args:
    config: an experiment config (see configs/).
    workdir: where everything of this run goes; re-running with the same
      workdir resumes from the last checkpoint.
    embed_fn: sentences -> [n, D] embeddings; default: config.encoder's
      (`embedding.sources.embed_fn`).
    data: already loaded data (tests and benchmarks); default: config.data.
    sources_fn: (EncoderSettings, controls, sentences) -> the `Sources` of
      the random-encoder control and the layer sweep; default:
      `variants.default_sources`.
    progress: told of resumes, epochs and checkpoints as they happen.

  Returns:
    What the run measured: best-dev statistics, histories and test
    predictions of every cell.
  """
  config_check.validate(config)  # Before any data is built or embedded.
  # The typed values the run is made of, read once from the config.
  encoder = EncoderSettings(**config.encoder)
  data_spec = DataSpec(**config.data)
  grid_settings = GridSettings(controls=config.controls, **config.grid)
  train = TrainSettings(**config.train)
  show_progress = bool(config.progress)
  progress = progress or Progress()

  # The workdir is locked before any data work, so that a second run on it
  # is refused at once; a run that fails before training (a bad name, a
  # missing manual_dir, a build or embedding error, a model that does not
  # fit) removes the workdir it made (or the lock file it added to one that
  # was there), leaving none half-made behind. Held
  # until the caller releases it (run_experiment, after the report) or the
  # process ends; in a multi-process run the first process holds it.
  made = not os.path.isdir(workdir)
  had_lock = os.path.lexists(os.path.join(workdir, workdir_lock.LOCK_NAME))
  os.makedirs(workdir, exist_ok=True)
  try:
    stale = (workdir_lock.acquire(workdir) if jax.process_index() == 0
             else None)
    # ---- Data and embeddings ------------------------------------------------
    clock = StageClock()
    t0 = time.perf_counter()
    if data is None:
      input_pipeline.build_data_once(data_spec)
      embed = embed_fn or embedding_sources.embed_fn(encoder)

      def timed_embed(sentences):
        with clock.measure("embedding"):
          return embed(sentences)

      data = input_pipeline.load(data_spec, timed_embed,
                                 data_spec.data_dir or None,
                                 seeds=grid_settings.seeds)
    check_compatible(config, data)
    t1 = time.perf_counter()
    clock.add("data", t1 - t0 - clock.seconds("embedding"))
    with clock.measure("variant_embeddings"):
      sources = (sources_fn or variants.default_sources)(
          encoder, grid_settings.controls, data.table.sentences)
      try:
        sources = variants.with_gold_attributes(
            grid_settings.controls, data_spec.name, data, sources)
      except ValueError as e:
        raise DataMismatchError(str(e)) from None
    variant_seconds = clock.seconds("variant_embeddings")
    data_seconds = time.perf_counter() - t0

    # ---- Model, optimizer and grid -----------------------------------------
    mode = resolve_mode(grid_settings.mode, config.model.name,
                        jax.devices()[0].platform)
    grid = Grid(build_solver(config, data),
                grid_spec(grid_settings, data_spec.train_types, sources),
                data, None, sources.tables, mode)
    widths = memory_fit.model_widths(config.model)
    with clock.measure("compile"):  # fit_memory compiles the epoch.
      memory_notes = memory_fit.fit_memory(grid, grid_settings,
                                           train.batch_size, widths)
  except BaseException:
    workdir_lock.undo(workdir, remove_lock=not had_lock, remove_dir=made)
    raise
  log = run_log.open_log(workdir)
  if stale:
    log.info("took over the lock of a process that no longer runs (%s)",
             stale)
    progress.on_notice(f"{workdir} was locked by a process that no longer "
                       f"runs (PID {stale.split()[0]}): lock taken over")
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
  if distributed.is_writer():  # The one process that writes the report.
    progress.on_data_ready(data)
  ckpt_dir = os.path.join(workdir, "checkpoints")
  meta = {"grid": grid.spec.to_json(), "model": config.model.name,
          "embed_dim": data.embed_dim, "num_context": data.num_context,
          "num_answers": data.num_answers,
          "label_names": list(data.label_names),
          "identity": run_identity.fingerprint(config, data)}

  # ---- Resume ---------------------------------------------------------------
  # The saved identity (config + data; the grid is part of the config) is
  # checked before any state is restored, and config.json written after.
  forced: list[str] = []
  restored = restore_run(config, workdir, ckpt_dir, grid, meta["identity"],
                         log, forced, progress)
  if distributed.is_writer():
    files.write_text(os.path.join(workdir, "config.json"),
                     config.to_json_best_effort(indent=2, sort_keys=True))
  epochs = train.epochs
  start_epoch = 0
  history = {"train": {}, "dev_accuracy": [], "dev_loss": []}
  if restored is not None:
    last_epoch, state, saved_meta = restored
    start_epoch = last_epoch + 1
    history = saved_meta.get("history", history)
    log.info("resumed from epoch %d", last_epoch)
    progress.on_resume(last_epoch)
    if start_epoch >= epochs:
      log.info("already trained: evaluating only")
  else:
    state = grid.init()
  grid.start_test_compile()  # Beside the epochs.
  progress.on_train_start(start_epoch, epochs)

  # ---- Train ----------------------------------------------------------------
  mgr = checkpoints.manager(ckpt_dir, train.keep_checkpoints)
  per_epoch = epoch_instances(grid, data)
  for line in run_health.small_test_sets(data):
    log.warning("%s", line)
    progress.on_notice(line)
  warned_divergence = False
  train_seconds, trained_epochs = 0.0, 0
  epoch_seconds: list[float] = []
  last_save = time.monotonic()
  min_gap = float(train.checkpoint_min_seconds)
  bar = tqdm.tqdm(range(start_epoch, epochs), initial=start_epoch,
                  total=epochs, desc=f"{grid.num_cells} cells", unit="epoch",
                  disable=not show_progress or not distributed.is_writer())
  try:
    for epoch in bar:
      t = time.perf_counter()
      state, measured = grid.run_epoch(state, epoch)
      measured = jax.tree.map(lambda x: np.asarray(x)[:grid.num_cells],
                              measured)
      dt = time.perf_counter() - t
      epoch_seconds.append(dt)
      run_health.check_finite(measured["train"]["loss"], grid, epoch)
      if epoch > start_epoch:  # The first epoch includes compilation.
        train_seconds += dt
        trained_epochs += 1
      _append_history(history, measured)
      diverging = run_health.diverging_cells(history, grid)
      if diverging and not warned_divergence:
        warned_divergence = True
        log.warning("training diverges: %s", "; ".join(diverging))
        progress.on_notice(
            f"training diverges ({diverging[0]}"
            + (f"; {len(diverging) - 1} more cells" if len(diverging) > 1
               else "") + "): consider a lower config.train.learning_rate")
      loss = float(measured["train"]["loss"].mean())
      bar.set_postfix(loss=f"{loss:.4f}", inst_per_s=f"{per_epoch / dt:.0f}")
      log.info("epoch %d loss %.5f %.1f instances/s", epoch, loss,
               per_epoch / dt)
      for i in range(grid.num_cells):
        log.info("  %s %s dev_acc %.4f dev_loss %.5f", grid.spec.cell_name(i),
                 " ".join(f"{k} {v[i].mean():.5f}"
                          for k, v in measured["train"].items()),
                 measured["dev_accuracy"][i], measured["dev_loss"][i])
      progress.on_epoch_end(epoch, {"loss": loss,
                                    "instances_per_s": per_epoch / dt,
                                    **measured})
      if epoch == epochs - 1 or (
          (epoch + 1) % train.checkpoint_every_epochs == 0
          and time.monotonic() - last_save >= min_gap):
        last_save = time.monotonic()
        try:
          with clock.measure("checkpoints"):
            checkpoints.save(mgr, epoch, state, {**meta, "history": history})
        except KeyboardInterrupt:
          # A Ctrl-C during the save takes effect once the step is written;
          # one just before it began leaves the last saved epoch as it was.
          if checkpoints.has_step(mgr, epoch):
            progress.on_checkpoint(epoch)
          raise
        progress.on_checkpoint(epoch)
  finally:
    with clock.measure("checkpoints"):
      mgr.close()  # Waits for the last save to be written.
  compile_s, train_s = split_compile(epoch_seconds)
  clock.add("compile", compile_s)
  clock.add("training", train_s)
  log.info("%s", checkpoints.size_line(ckpt_dir, state, grid.num_cells))

  # ---- Evaluate every cell on every test type ------------------------------
  test_types = data_spec.test_types
  test = {}
  with clock.measure("evaluation"):
    predicted = grid.predict_tests(state.best_params)
    for u in test_types:
      test[u] = Predictions(predicted[u]["pred"], data.test[u].correct,
                            data.test[u].labels,
                            tuple(data.test[u].instance_ids))
  return TrainingOutcome(
      spec=grid.spec, test_types=test_types,
      label_names=tuple(data.label_names), num_answers=data.num_answers,
      data_sizes={
          "distinct_sentences": len(data.table.sentences),
          "dedup_ratio": data.table.dedup_ratio,
          "embed_dim": data.embed_dim,
          "train_sizes": {t: s.num_instances for t, s in data.train.items()},
          "sample_seed": ("the grid seed" if data.train_by_seed
                          else data_spec.seed),
          "dev_sizes": {t: s.num_instances for t, s in data.dev.items()},
          "dev_source": dict(data.dev_source),
          "test_sizes": {t: s.num_instances for t, s in data.test.items()}},
      loss_weights=grid.solver.loss_weights,
      best_dev_accuracy=grid.cell_values(state.best_dev_accuracy),
      best_dev_loss=grid.cell_values(state.best_dev_loss),
      best_epoch=grid.cell_values(state.best_epoch),
      history=history, test=test, sweep_layers=sources.sweep_layers,
      main_layer=sources.main_layer,
      train_instances_per_s=(per_epoch * trained_epochs / train_seconds
                             if train_seconds else None),
      devices=tuple(str(d) for d in grid.mesh.devices.flat),
      data_seconds=data_seconds, clock=clock, data=data,
      resume_forced=tuple(forced))



def _append_history(history: dict, measured: dict) -> None:
  """One epoch's per-cell means: history[...] is a list over epochs of
  per-cell lists (JSON-ready, so it travels in the checkpoint meta)."""
  for name, steps in measured["train"].items():
    history["train"].setdefault(name, []).append(
        [float(x) for x in steps.mean(axis=-1)])
  for name in ("dev_accuracy", "dev_loss"):
    history[name].append([float(x) for x in measured[name]])
