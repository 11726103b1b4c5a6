"""A full disk while checkpointing: one line saying what ran out and that the
run resumes, not orbax's reports (one traceback per writer thread)."""

import errno
import gc
import logging
import os
import subprocess
import sys
import warnings

import numpy as np
import orbax.checkpoint as ocp
import pytest
from absl import logging as absl_logging

from blm_jax.results.experiment import run_experiment
from blm_jax.training import checkpoints
from tests import release_fixtures, small_disk, synthetic
from tests import ROOT


# What orbax 0.12 raised on a 48 KiB tmpfs (tensorstore's error text).
FULL = ("RESOURCE_EXHAUSTED: Error writing local file \"{d}/_sharding\": "
        "Failed to write 2413 bytes to file 5: No space left on device "
        "[os_error_code='28']")


@pytest.mark.slow
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
  cfg.train.checkpoint_min_seconds = 0.0
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


@pytest.fixture
def aftermath_routing(monkeypatch):
  """The unraisable hook and the logger filters a save installs, undone
  after the test."""
  monkeypatch.setattr(sys, "unraisablehook", sys.__unraisablehook__)
  yield
  for name in ("absl", "asyncio"):
    for f in list(logging.getLogger(name).filters):
      if isinstance(f, checkpoints._AftermathToLog):
        logging.getLogger(name).removeFilter(f)


def _write_closed_loop_report():
  """What tensorstore does when a write ends after orbax closed the save's
  asyncio loop: PyErr_WriteUnraisable(NULL), a bare traceback on stderr."""
  testcapi = pytest.importorskip("_testcapi")
  testcapi.write_unraisable_exc(RuntimeError("Event loop is closed"), None,
                                None)


def _collect_a_write_never_started():
  """A write orbax queued but never started: Python warns when it collects
  the coroutine (at the process's end, in a real run)."""
  async def write_fragment():
    pass
  coroutine = write_fragment()
  del coroutine
  gc.collect()


@pytest.mark.slow
def test_a_full_disks_aftermath_goes_to_the_log(tmp_path, monkeypatch,
                                                capfd, caplog,
                                                aftermath_routing):
  """orbax closes its loop at the first failed write; the writes still in
  flight then report, during the save and after it has returned: bare
  'Event loop is closed' tracebacks, asyncio's 'Task exception was never
  retrieved' and orbax's thread errors. None reaches the console."""
  real_save = ocp.CheckpointManager.save
  full = FULL.format(d=tmp_path)

  def full_disk(self, step, *args, **kwargs):
    if step == 1:
      _write_closed_loop_report()
      raise ValueError(full)
    return real_save(self, step, *args, **kwargs)

  real_close = ocp.CheckpointManager.close
  closes = []

  def close_after_the_failure(self):
    closes.append(self)
    if len(closes) == 1:  # The failed save's threads: what orbax reports.
      _write_closed_loop_report()
      logging.getLogger("asyncio").error(
          "Task exception was never retrieved",
          exc_info=(ValueError, ValueError(full), None))
      absl_logging.error("[thread=write_metadata_after_commits] "
                         "_SignalingThread.run() raised an exception: %s",
                         full)
      real_close(self)
      raise OSError(errno.ENOSPC, "No space left on device")
    real_close(self)

  monkeypatch.setattr(ocp.CheckpointManager, "save", full_disk)
  monkeypatch.setattr(ocp.CheckpointManager, "close", close_after_the_failure)
  cfg = synthetic.config("ffnn", epochs=3, seeds=(0,))
  cfg.train.checkpoint_every_epochs = 1
  cfg.train.checkpoint_min_seconds = 0.0
  cfg.progress = False
  work = tmp_path / "work"
  capfd.readouterr()
  with caplog.at_level(logging.INFO):
    with pytest.raises(OSError) as e:
      run_experiment(cfg, str(work), data=synthetic.data(
          n_train=40, n_dev=10, n_test=10))
    _write_closed_loop_report()  # After the save has returned.
  # The error of the failed save, not that of closing its manager.
  assert e.value.strerror.startswith("no space left on the device of ")
  err = capfd.readouterr().err
  assert "Traceback" not in err and "Event loop is closed" not in err, err
  with warnings.catch_warnings(record=True) as caught:  # the filters in force
    _collect_a_write_never_started()
  assert not [w for w in caught if "never awaited" in str(w.message)]
  assert not [r for r in caplog.records if r.levelno >= logging.WARNING
              and r.name in ("absl", "asyncio")]
  log = (work / "log.txt").read_text()
  assert log.count("RuntimeError('Event loop is closed')") == 3
  assert "Task exception was never retrieved" in log
  assert "_SignalingThread.run() raised an exception" in log


def test_a_full_log_file_loses_lines_quietly(tmp_path, capfd):
  """On a full disk log.txt cannot be written either: its lines are lost,
  not each printed as a 'Logging error' traceback."""
  from blm_jax.training import run_log

  log = run_log.open_log(str(tmp_path))
  handler = log.handlers[0]
  capfd.readouterr()

  class FullDisk:
    def write(self, text):
      raise OSError(errno.ENOSPC, "No space left on device")

    def flush(self):
      pass

  real_stream = handler.stream
  handler.stream = FullDisk()
  try:
    log.info("a line that does not fit")
  finally:
    handler.stream = real_stream
    for h in list(log.handlers):
      log.removeHandler(h)
      h.close()
  assert capfd.readouterr().err == ""


def test_a_write_on_a_full_disk_names_its_file(tmp_path):
  from blm_jax.base import files

  def write(f):
    raise OSError(errno.ENOSPC, "No space left on device")

  with pytest.raises(OSError) as e:
    files.atomic_write(str(tmp_path / "config.json"), write)
  assert e.value.filename == str(tmp_path / "config.json")
  import launch

  assert launch.error_line(e.value) == (
      f"error: No space left on device (writing {tmp_path}/config.json)")
  assert os.listdir(tmp_path) == []  # No temp file left.


@pytest.fixture(scope="module")
def launch_inputs(tmp_path_factory):
  """What the full-disk launches read, off the small disk and shared by
  them: the release, a tiny BERT, the built dataset and its embedding
  cache (the first launch builds and embeds; the others read them)."""
  return release_fixtures.launch_inputs(tmp_path_factory.mktemp("inputs"))


@pytest.mark.slow
@pytest.mark.parametrize("fill", [
    0,  # The checkpoint's files fill the disk.
    16 * 1024,  # Sooner: orbax's tasks fail as their files are opened.
    40 * 1024,  # Before any checkpoint: config.json does not fit.
])
def test_launch_on_a_full_disk_is_one_line(tmp_path, launch_inputs, fill):
  """A real full disk (a 48 KiB tmpfs; needs root): launch.py ends with one
  error line, and nothing of orbax's or tensorstore's on the console."""
  mount = tmp_path / "small"
  if not small_disk.mount_tmpfs(mount):
    pytest.skip("cannot mount a tmpfs here (needs root)")
  release, encoder, data_dir, cache = launch_inputs
  try:
    if fill:
      (mount / "filler").write_bytes(b"\0" * fill)
    work = mount / "work"
    proc = subprocess.run(
        [sys.executable, "launch.py", "--config=configs/ffnn.py",
         f"--workdir={work}", "--config.data.name=blm_published/folder",
         f"--config.data.manual_dir={release}",
         f"--config.data.data_dir={data_dir}",
         "--config.data.train_types=('I',)",
         "--config.data.test_types=('I',)",
         f"--config.encoder.name={encoder}",
         f"--config.encoder.cache_dir={cache}",
         "--config.grid.seeds=(0,)", "--config.train.epochs=3",
         "--config.train.checkpoint_every_epochs=1",
         "--config.train.checkpoint_min_seconds=0",
         "--config.train.batch_size=16", "--config.progress=False"],
        cwd=ROOT, env=dict(os.environ, JAX_PLATFORMS="cpu"),
        capture_output=True, text=True, timeout=300)
  finally:
    subprocess.run(["umount", str(mount)])
  assert proc.returncode == 1, proc.stderr[-3000:]
  err = proc.stderr
  for noise in ("Traceback", "Event loop is closed", "Logging error",
                "RESOURCE_EXHAUSTED"):
    assert noise not in err, err[-3000:]
  errors = [l for l in err.splitlines() if l.startswith("error: ")]
  assert len(errors) == 1 and err.rstrip().endswith(errors[0]), err[-3000:]
  if fill < 40 * 1024:
    assert errors[0] == (
        f"error: no space left on the device of {work}/checkpoints while "
        "saving the checkpoint of epoch 0; free some space and rerun the "
        "same command to resume from the last saved epoch")
  else:
    assert errors[0] == ("error: No space left on device (writing "
                         f"{work}/config.json)")


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


@pytest.mark.parametrize("message", [
    # The save's loop closed its executor (seen in CI at the process's end).
    "cannot schedule new futures after shutdown",
    "cannot schedule new futures after interpreter shutdown",
    "[Errno 28] No space left on device",
])
def test_orbax_thread_errors_after_a_failed_save_go_to_the_log(message):
  """orbax's `_SignalingThread` logs its write's error (with its traceback)
  through absl; after a failed save each is routed to log.txt."""
  try:
    raise RuntimeError(message)
  except RuntimeError:
    record = logging.LogRecord(
        "absl", logging.ERROR, __file__, 1,
        "_SignalingThread.run() raised an exception: %s", (message,),
        sys.exc_info())
  assert not checkpoints._AftermathToLog().filter(record)


def test_other_errors_still_reach_the_console():
  record = logging.LogRecord("absl", logging.ERROR, __file__, 1,
                             "restore failed: %s", ("bad shape",), None)
  assert checkpoints._AftermathToLog().filter(record)
