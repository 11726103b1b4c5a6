"""Resuming a run: the newest intact checkpoint, only of the same config
and data (run_identity), with the previous run's outputs set aside when it
starts afresh."""

from __future__ import annotations

import logging
import os

from blm_jax.training import (checkpoints, distributed, run_identity,
                              set_aside)
from blm_jax.training.grid import Grid
from blm_jax.training.progress import Progress


class RunMismatchError(ValueError):
  """A workdir holds a run that another config or other data produced."""


def check_resume(config, workdir: str, step: int, saved: dict,
                 identity: dict, log: logging.Logger,
                 forced: list | None = None) -> None:
  """Refuses to resume a checkpoint of another config or data.

  Called with the metadata of the checkpoint about to be restored.
  train.resume 'auto': resume only an identical run; 'force': resume
  anyway, logging the differences and adding them to `forced` ('restart'
  never gets here: the checkpoints are gone).
  """
  if "identity" not in saved:
    diffs = ["the checkpoint has no run identity (written by an older "
             "version of blm_jax), so it cannot be checked"]
  else:
    diffs = run_identity.differences(saved["identity"], identity)
  if not diffs:
    return
  if config.train.resume == "force":
    log.warning("train.resume=force: resuming epoch %d despite:\n  %s", step,
                "\n  ".join(diffs))
    if forced is not None:
      forced[:] = diffs
    return
  raise RunMismatchError(
      f"{workdir} holds a run (checkpoint of epoch {step}) that another "
      f"config or other data produced; it differs in:\n  "
      + "\n  ".join(diffs)
      + "\nUse a new --workdir, or --config.train.resume=restart to discard "
      "that run (--config.train.resume=force resumes it anyway).")


def restore_run(config, workdir: str, ckpt_dir: str, grid: Grid,
                identity: dict, log: logging.Logger,
                forced: list | None = None, progress: Progress | None = None):
  """(last epoch, state, meta) of this run's newest intact checkpoint, or
  None. A run that starts afresh ('restart', or no intact checkpoint left
  beside another run's results) first moves the workdir's outputs aside
  (`set_aside.py`). Damaged steps moved aside and outputs set aside are
  told to `progress` in one line each."""
  progress = progress or Progress()
  mode = config.train.resume
  if mode not in run_identity.RESUME_MODES:
    raise ValueError(f"config.train.resume={mode!r}; expected one of "
                     f"{run_identity.RESUME_MODES}")

  def move_aside(why):
    # Process 0 alone moves the outputs of a shared workdir.
    dest = set_aside.move_aside(workdir) if distributed.is_writer() else None
    if dest is not None:
      log.info("%s: moved the previous run's outputs to %s", why, dest)
      removed = set_aside.prune(workdir)
      note = (f" (removed the oldest, {', '.join(removed)}: a workdir keeps "
              f"the {set_aside.KEEP_PREVIOUS} latest)" if removed else "")
      if removed:
        log.info("removed %s: a workdir keeps the %d latest previous-*",
                 removed, set_aside.KEEP_PREVIOUS)
      progress.on_notice(f"{why}: moved the previous run's outputs to "
                         f"{dest}{note}")

  if mode == "restart":
    move_aside("train.resume=restart")
    distributed.barrier("restart")
  quarantine = ckpt_dir.rstrip("/") + "-quarantine"
  before = set(os.listdir(quarantine)) if os.path.isdir(quarantine) else set()
  restored = checkpoints.restore_latest(
      ckpt_dir, grid.abstract_state(),
      check_meta=lambda step, saved: check_resume(config, workdir, step,
                                                  saved, identity, log,
                                                  forced))
  if distributed.is_writer() and os.path.isdir(quarantine):
    for name in sorted(set(os.listdir(quarantine)) - before):
      progress.on_notice(
          f"checkpoint step {name.split('-')[0]} is damaged: moved to "
          f"{os.path.join(quarantine, name)} (details in log.txt)")
  if restored is None and set_aside.present(workdir, set_aside.RESULTS):
    move_aside("no intact checkpoint of the finished run")
  distributed.barrier("restored")  # Before any process saves a step.
  return restored
