"""The trainer alone: its events in order, what it returns, and that it
needs nothing of the layers above it (results, analysis, command lines)."""

import ast
import os
import subprocess
import sys

import numpy as np
import pytest

from blm_jax.training import checkpoints, grid as grid_lib, trainer
from blm_jax.training.progress import Progress
from tests import ROOT, synthetic

pytestmark = pytest.mark.slow

ABOVE_TRAINING = ("blm_jax.results", "blm_jax.analysis", "blm_jax.cli")


class Recorder(Progress):

  def __init__(self):
    self.events = []

  def on_resume(self, epoch):
    self.events.append(("resume", epoch))

  def on_train_start(self, first_epoch, epochs):
    self.events.append(("train_start", first_epoch, epochs))

  def on_epoch_end(self, epoch, measurements):
    self.events.append(("epoch_end", epoch))
    self.measurements = measurements

  def on_checkpoint(self, epoch):
    self.events.append(("checkpoint", epoch))


@pytest.fixture(scope="module")
def data():
  return synthetic.data(n_train=40, n_dev=10, n_test=12, types=("I",))


def _config():
  cfg = synthetic.config("ffnn", epochs=3, seeds=(0, 1), types=("I",))
  cfg.train.checkpoint_every_epochs = 2
  cfg.train.checkpoint_min_seconds = 0.0
  return cfg


def test_checkpoints_wait_their_minimum_gap_but_the_last_epoch_saves(
    tmp_path, data):
  """A checkpoint epoch sooner than train.checkpoint_min_seconds after the
  last save (or the start) is skipped: on a GPU the saves, not the epochs,
  were 90% of a grid's training loop (benchmarks/device/README.md)."""
  cfg = _config()
  cfg.train.checkpoint_every_epochs = 1
  cfg.train.checkpoint_min_seconds = 3600.0
  rec = Recorder()
  out = trainer.train_and_evaluate(cfg, str(tmp_path), data=data,
                                   progress=rec)
  assert [e for e in rec.events if e[0] == "checkpoint"] == [
      ("checkpoint", 2)]
  # Where the time went: the saves are a stage of their own.
  stages = out.clock.as_dict()
  assert {"checkpoints", "compile", "training", "evaluation"} <= set(stages)


def test_events_arrive_in_order(tmp_path, data, monkeypatch):
  rec = Recorder()
  trainer.train_and_evaluate(_config(), str(tmp_path / "full"), data=data,
                             progress=rec)
  assert rec.events == [("train_start", 0, 3), ("epoch_end", 0),
                        ("epoch_end", 1), ("checkpoint", 1),
                        ("epoch_end", 2), ("checkpoint", 2)]
  m = rec.measurements
  assert np.isfinite(m["loss"]) and m["instances_per_s"] > 0
  assert m["dev_accuracy"].shape == m["dev_loss"].shape == (2,)
  assert m["train"]["loss"].shape[0] == 2

  # Killed in epoch 2: the checkpoint of epoch 1 is where a rerun resumes.
  real = grid_lib.Grid.run_epoch

  def dies_at_epoch_2(self, state, epoch):
    if epoch == 2:
      raise KeyboardInterrupt("killed")
    return real(self, state, epoch)

  work = str(tmp_path / "killed")
  monkeypatch.setattr(grid_lib.Grid, "run_epoch", dies_at_epoch_2)
  rec = Recorder()
  with pytest.raises(KeyboardInterrupt):
    trainer.train_and_evaluate(_config(), work, data=data, progress=rec)
  assert rec.events[-1] == ("checkpoint", 1)
  monkeypatch.setattr(grid_lib.Grid, "run_epoch", real)
  rec = Recorder()
  trainer.train_and_evaluate(_config(), work, data=data, progress=rec)
  assert rec.events == [("resume", 1), ("train_start", 2, 3),
                        ("epoch_end", 2), ("checkpoint", 2)]
  rec = Recorder()
  trainer.train_and_evaluate(_config(), work, data=data, progress=rec)
  assert rec.events == [("resume", 2), ("train_start", 3, 3)]


def test_a_ctrl_c_during_a_save_still_reports_the_checkpoint(
    tmp_path, data, monkeypatch):
  real = checkpoints.save

  def save_then_ctrl_c(*args, **kwargs):
    real(*args, **kwargs)  # A Ctrl-C is deferred until the step is written.
    raise KeyboardInterrupt

  monkeypatch.setattr(checkpoints, "save", save_then_ctrl_c)
  rec = Recorder()
  with pytest.raises(KeyboardInterrupt):
    trainer.train_and_evaluate(_config(), str(tmp_path), data=data,
                               progress=rec)
  assert rec.events[-2:] == [("epoch_end", 1), ("checkpoint", 1)]
  assert os.path.isdir(tmp_path / "checkpoints" / "1")


def test_a_ctrl_c_before_a_save_began_reports_the_last_written_one(
    tmp_path, data, monkeypatch):
  # Epoch 1's checkpoint is written; the Ctrl-C comes as epoch 2's save is
  # called, before it writes: the event (which the launcher's "resume from
  # epoch N" reads) must stay at epoch 1.
  real = checkpoints.save

  def ctrl_c_as_the_second_save_starts(mgr, step, *args, **kwargs):
    if step == 2:
      raise KeyboardInterrupt
    return real(mgr, step, *args, **kwargs)

  monkeypatch.setattr(checkpoints, "save", ctrl_c_as_the_second_save_starts)
  rec = Recorder()
  with pytest.raises(KeyboardInterrupt):
    trainer.train_and_evaluate(_config(), str(tmp_path), data=data,
                               progress=rec)
  assert rec.events[-2:] == [("checkpoint", 1), ("epoch_end", 2)]
  assert sorted(os.listdir(tmp_path / "checkpoints")) == ["1"]


def test_the_trainer_returns_what_it_measured_and_writes_no_report(
    tmp_path, data):
  out = trainer.train_and_evaluate(_config(), str(tmp_path), data=data)
  assert out.spec.cells == ((0, "I"), (1, "I"))
  assert out.test_types == ("I",)
  test = out.test["I"]
  assert test.pred.shape == (2, 12)
  np.testing.assert_array_equal(test.correct, data.test["I"].correct)
  assert out.best_dev_accuracy.shape == out.best_epoch.shape == (2,)
  assert len(out.history["dev_accuracy"]) == 3
  assert out.data_sizes["train_sizes"] == {"I": 40}
  assert sorted(os.listdir(tmp_path)) == [".lock", "checkpoints",
                                          "config.json", "log.txt"]


def _imports(path):
  tree = ast.parse(open(path).read(), path)
  for node in ast.walk(tree):
    if isinstance(node, ast.Import):
      yield from (a.name for a in node.names)
    elif isinstance(node, ast.ImportFrom) and node.module:
      yield node.module
      yield from (f"{node.module}.{a.name}" for a in node.names)


def test_training_imports_nothing_above_it():
  folder = os.path.join(ROOT, "blm_jax", "training")
  for name in sorted(os.listdir(folder)):
    if name.endswith(".py"):
      # Function-level imports included: ast sees them all.
      above = [m for m in _imports(os.path.join(folder, name))
               if m.startswith(ABOVE_TRAINING)]
      assert not above, f"blm_jax/training/{name} imports {above}"
  code = ("import sys, blm_jax.training.trainer; print('\\n'.join("
          f"m for m in sys.modules if m.startswith({ABOVE_TRAINING!r})))")
  proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT,
                        capture_output=True, text=True, timeout=300,
                        env=dict(os.environ, JAX_PLATFORMS="cpu"))
  assert proc.returncode == 0, proc.stderr[-2000:]
  assert proc.stdout.strip() == ""
