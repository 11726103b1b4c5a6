"""What the trainer tells its caller while it runs.

`train_and_evaluate` calls a `Progress` at fixed points of a run, so a
command line (launch.py) can show resume news and say, after a Ctrl-C, how
many epochs were done and saved, without reading the workdir's log.txt.
Epochs are 0-based indices, as in log.txt and the checkpoint folders.
"""

from __future__ import annotations

from typing import Any


class Progress:
  """Events of one training run; every method does nothing by default.

  `on_notice` may come at any time with a one-line recovery event (a
  damaged checkpoint moved aside, a previous run's outputs set aside, a
  stale workdir lock taken over); log.txt has the details. Order:
  `on_data_ready`, `on_resume` (only when a checkpoint was restored),
  `on_train_start`, then per epoch `on_epoch_end` followed by
  `on_checkpoint` when that epoch was saved.
  """

  def on_data_ready(self, data: Any) -> None:
    """The data is loaded and embedded (an `input_pipeline.BLMData`) and
    the grid built; training has not started. Work that needs the data
    but not the trained cells (the context-free baselines) can start."""

  def on_resume(self, epoch: int) -> None:
    """The checkpoint of `epoch` was restored; training goes on after it."""

  def on_train_start(self, first_epoch: int, epochs: int) -> None:
    """The workdir exists and the epoch loop runs `first_epoch`..`epochs-1`
    (none when `first_epoch >= epochs`: the run is only evaluated)."""

  def on_epoch_end(self, epoch: int, measurements: dict[str, Any]) -> None:
    """`epoch` is trained. measurements: 'loss' (the mean over cells and
    steps), 'instances_per_s', and per cell (the real run's and the
    variants') 'train' {term: [cells, steps]}, 'dev_accuracy' [cells] and
    'dev_loss' [cells]."""

  def on_checkpoint(self, epoch: int) -> None:
    """The state after `epoch` is saved: a rerun resumes after it."""

  def on_notice(self, message: str) -> None:
    """One line about a recovery event, for the user to see."""
