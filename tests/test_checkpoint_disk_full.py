"""A full disk while checkpointing: one line saying what ran out and that the
run resumes, not orbax's reports (one traceback per writer thread)."""

import errno
import logging

import numpy as np
import orbax.checkpoint as ocp
import pytest
from absl import logging as absl_logging

from blm_jax.results.experiment import run_experiment
from blm_jax.training import checkpoints
from tests import synthetic

# What orbax 0.12 raised on a 48 KiB tmpfs (tensorstore's error text).
FULL = ("RESOURCE_EXHAUSTED: Error writing local file \"{d}/_sharding\": "
        "Failed to write 2413 bytes to file 5: No space left on device "
        "[os_error_code='28']")


def test_full_disk_is_one_line(tmp_path, monkeypatch, caplog):
  real_save = ocp.CheckpointManager.save

  def full_disk(self, step, *args, **kwargs):
    if step == 1:
      absl_logging.error("[thread=array_type_handler] _SignalingThread.run() "
                         "raised an exception: %s", FULL.format(d=tmp_path))
      raise ValueError(FULL.format(d=tmp_path))
    return real_save(self, step, *args, **kwargs)

  monkeypatch.setattr(ocp.CheckpointManager, "save", full_disk)
  cfg = synthetic.config("ffnn", epochs=3, seeds=(0,))
  cfg.train.checkpoint_every_epochs = 1
  cfg.progress = False
  work = tmp_path / "work"
  with caplog.at_level(logging.INFO):
    with pytest.raises(OSError) as e:
      run_experiment(cfg, str(work), data=synthetic.data(
          n_train=40, n_dev=10, n_test=10))
  assert e.value.errno == errno.ENOSPC
  assert e.value.strerror == (
      f"no space left on the device of {work}/checkpoints while saving the "
      "checkpoint of epoch 1; free some space and rerun the same command to "
      "resume from the last saved epoch")
  assert "RESOURCE_EXHAUSTED" not in caplog.text  # orbax's report dropped

  import launch

  assert launch.error_line(e.value) == "error: " + e.value.strerror
  # The run resumes from the step saved before the disk filled up.
  monkeypatch.setattr(ocp.CheckpointManager, "save", real_save)
  run_experiment(cfg, str(work), data=synthetic.data(
      n_train=40, n_dev=10, n_test=10))
  assert "resumed from epoch 0" in (work / "log.txt").read_text()


def test_other_save_errors_keep_their_report(tmp_path, monkeypatch, caplog):
  def broken(self, step, *args, **kwargs):
    absl_logging.error("orbax says: something else broke")
    raise ValueError("something else broke")

  monkeypatch.setattr(ocp.CheckpointManager, "save", broken)
  mgr = checkpoints.manager(str(tmp_path / "c"))
  try:
    with caplog.at_level(logging.INFO):
      with pytest.raises(ValueError, match="something else broke"):
        checkpoints.save(mgr, 0, {"x": np.zeros(2)}, {})
  finally:
    mgr.close()
  assert "orbax says: something else broke" in caplog.text


@pytest.fixture
def sigint_handler():
  """Restores this process's SIGINT handler after a test that sets it (the
  suite may run with SIGINT ignored, as a background job)."""
  import signal
  before = signal.getsignal(signal.SIGINT)
  yield
  signal.signal(signal.SIGINT, before)


def test_ctrl_c_during_a_save_takes_effect_once_the_save_is_done(
    sigint_handler):
  """A SIGINT inside the save block is deferred: the block finishes (the
  step is whole) and KeyboardInterrupt comes after it, with the usual
  handler back in place."""
  import os
  import signal

  from blm_jax.training.checkpoints import _interrupt_after

  signal.signal(signal.SIGINT, signal.default_int_handler)
  finished = []
  with pytest.raises(KeyboardInterrupt):
    with _interrupt_after():
      os.kill(os.getpid(), signal.SIGINT)
      finished.append(True)  # still runs: the interrupt waits
  assert finished == [True]
  assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_deferred_ctrl_c_goes_to_the_handler_in_place(sigint_handler):
  import os
  import signal

  from blm_jax.training.checkpoints import _interrupt_after

  calls = []
  handler = lambda signum, frame: calls.append(signum)
  signal.signal(signal.SIGINT, handler)
  with _interrupt_after():
    os.kill(os.getpid(), signal.SIGINT)
    assert calls == []  # deferred
  assert calls == [signal.SIGINT]
  assert signal.getsignal(signal.SIGINT) is handler


def test_an_ignored_ctrl_c_stays_ignored_during_a_save(sigint_handler):
  """A run started in the background ignores SIGINT: a save must not turn
  it into a KeyboardInterrupt that kills the run."""
  import os
  import signal

  from blm_jax.training.checkpoints import _interrupt_after

  signal.signal(signal.SIGINT, signal.SIG_IGN)
  finished = []
  with _interrupt_after():
    os.kill(os.getpid(), signal.SIGINT)
    finished.append(True)
  assert finished == [True]
  assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
