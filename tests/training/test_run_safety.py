"""Runs that never mislabel: reused grids are checked, fresh starts set the
previous outputs aside, one run per workdir, SIGTERM is a clean stop, and
the faults a user acts on are one line."""

import copy
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import jax
import numpy as np
import pytest

from blm_jax.cli import config_files
from blm_jax.results.experiment import run_experiment
from blm_jax.study import grid_reuse
from blm_jax.training import (checkpoints, memory_fit, progress, run_health,
                              set_aside, trainer as train, workdir_lock)
from tests import ROOT, synthetic

ENV = dict(os.environ, JAX_PLATFORMS="cpu")


@pytest.fixture(scope="module")
def data():
  return synthetic.data(n_train=60, n_dev=20, n_test=30)


@pytest.fixture(scope="module")
def finished(tmp_path_factory, data):
  """A finished run of the synthetic FFNN (2 epochs): its config, results
  and workdir. Tests that start from such a run copy the workdir
  (`_copy_of`) instead of training it again."""
  cfg = synthetic.config("ffnn", epochs=2)
  work = tmp_path_factory.mktemp("finished") / "w"
  return cfg, run_experiment(cfg, str(work), data=data), work


def _copy_of(finished, tmp_path):
  """A workdir of its own holding the finished run."""
  work = tmp_path / "w"
  shutil.copytree(finished[2], work, symlinks=True)
  return work


def _run(*args, timeout=120):
  return subprocess.run([sys.executable, *args], cwd=ROOT, env=ENV,
                        capture_output=True, text=True, timeout=timeout)


class Notices(progress.Progress):
  def __init__(self, stop_after_epoch=None):
    self.lines, self.stop = [], stop_after_epoch

  def on_notice(self, message):
    self.lines.append(message)

  def on_epoch_end(self, epoch, measurements):
    if epoch == self.stop:
      raise KeyboardInterrupt


# ---- 1. reproduce reuses only a grid of the config it would run ----------

@pytest.mark.slow
def test_results_record_the_config_and_reuse_compares_it(tmp_path,
                                                         finished):
  cfg, results, _ = finished
  work = str(_copy_of(finished, tmp_path))
  assert results["run"]["config"]["train.epochs"] == 2
  assert results["run"]["resume_forced"] == []
  assert grid_reuse.reuse_problem(work, cfg) is None
  longer = synthetic.config("ffnn", epochs=5)
  problem = grid_reuse.reuse_problem(work, longer)
  assert "config.train.epochs: 2 -> 5" in problem
  other = synthetic.config("ffnn", epochs=2)
  other.data.num_train = 300
  assert "config.data.num_train" in grid_reuse.reuse_problem(work, other)


@pytest.mark.slow
def test_reproduce_refuses_a_cpu_grid_for_the_paper_command(tmp_path):
  out = tmp_path / "out"
  work = out / "agreement_en" / "ffnn"
  work.mkdir(parents=True)
  cpu = config_files.load(os.path.join(ROOT, "configs"), "ffnn",
                          "dataset=agreement_en,cpu")
  cpu.data.seed_follows_grid = True
  (work / "results.json").write_text(json.dumps(
      {"run": {"config": grid_reuse.run_identity.flatten(cpu.to_dict())}}))
  proc = _run("-m", "blm_jax.cli.reproduce", "--datasets=agreement_en",
              "--models=ffnn", f"--out={out}")
  assert proc.returncode != 0
  err = proc.stderr.strip()
  assert "\n" not in err and "Traceback" not in err, err[-2000:]
  assert err.startswith(f"error: {work} holds a finished grid that another "
                        "config produced")
  assert "config.train.epochs" in err
  assert not (out / "report.md").exists()


# ---- 2. a fresh start sets the previous outputs aside ---------------------

@pytest.mark.slow
def test_killed_restart_leaves_no_results_of_the_old_run(tmp_path, data,
                                                        finished):
  old = finished[0]
  work = _copy_of(finished, tmp_path)
  new = synthetic.config("ffnn", epochs=3)
  new.train.learning_rate = 0.01
  new.train.resume = "restart"
  notices = Notices(stop_after_epoch=1)
  with pytest.raises(KeyboardInterrupt):
    run_experiment(new, str(work), data=data, progress=notices)
  for name in set_aside.RESULTS:
    assert not (work / name).exists(), name
  assert json.loads((work / "config.json").read_text())["train"][
      "learning_rate"] == 0.01
  [previous] = [p for p in work.iterdir() if p.name.startswith("previous-")]
  assert (previous / "results.json").exists()
  assert json.loads((previous / "config.json").read_text())["train"][
      "learning_rate"] == old.train.learning_rate
  assert notices.lines == [f"train.resume=restart: moved the previous run's "
                           f"outputs to {previous}"]


@pytest.mark.slow
def test_all_checkpoints_quarantined_sets_the_results_aside(tmp_path, data,
                                                           finished):
  cfg = copy.deepcopy(finished[0])
  work = _copy_of(finished, tmp_path)
  for root, _, names in os.walk(work / "checkpoints"):
    for name in names:
      open(os.path.join(root, name), "wb").close()  # every file emptied
  notices = Notices()
  run_experiment(cfg, str(work), data=data, progress=notices)
  assert any(line.startswith("checkpoint step 1 is damaged: moved to ")
             for line in notices.lines), notices.lines
  assert notices.lines[-1].startswith(
      "no intact checkpoint of the finished run: moved the previous run's "
      "outputs to ")
  [previous] = [p for p in work.iterdir() if p.name.startswith("previous-")]
  assert (previous / "results.json").exists()
  assert (work / "results.json").exists()  # this run's, trained afresh


# ---- 3. one run per workdir ----------------------------------------------

def _lock_holder(work) -> subprocess.Popen:
  """Another live process holding `work`'s lock (kill it when done)."""
  holder = subprocess.Popen(
      [sys.executable, "-c",
       "import sys, time; from blm_jax.training import workdir_lock; "
       f"workdir_lock.acquire({str(work)!r}); print('locked', flush=True); "
       "time.sleep(120)"], cwd=ROOT, env=ENV, stdout=subprocess.PIPE,
      text=True)
  assert holder.stdout.readline().strip() == "locked"
  return holder


@pytest.mark.slow
def test_a_live_holder_is_named_and_a_dead_ones_lock_taken_over(tmp_path,
                                                                 data):
  work = tmp_path / "w"
  work.mkdir()
  holder = _lock_holder(work)
  try:
    cfg = synthetic.config("ffnn", epochs=1)
    with pytest.raises(workdir_lock.WorkdirLockedError) as e:
      run_experiment(cfg, str(work), data=data)
    assert f"is in use by another run (PID {holder.pid} on " in str(e.value)
    assert not (work / "config.json").exists()
    import launch
    assert launch.error_line(e.value).count("\n") == 0
  finally:
    holder.kill()
    holder.wait()
  notices = Notices()
  run_experiment(cfg, str(work), data=data, progress=notices)
  assert notices.lines == [f"{work} was locked by a process that no longer "
                           f"runs (PID {holder.pid}): lock taken over"]
  assert (work / ".lock").read_text() == ""  # released after the report
  # Released: a second process now gets it at once.
  proc = _run("-c", "from blm_jax.training import workdir_lock; "
              f"print(workdir_lock.acquire({str(work)!r}))")
  assert proc.returncode == 0 and proc.stdout.strip() == "None", proc.stderr


@pytest.mark.slow
def test_a_locked_workdir_is_refused_before_any_data_work(tmp_path,
                                                         monkeypatch):
  """The lock comes first: a second run does not spend the data loading,
  embedding and compiling before it is refused."""
  from blm_jax.data import input_pipeline

  def no_data_work(data_cfg):
    raise AssertionError("the data work started")

  monkeypatch.setattr(input_pipeline, "build_data_once", no_data_work)
  work = tmp_path / "w"
  work.mkdir()
  holder = _lock_holder(work)
  try:
    with pytest.raises(workdir_lock.WorkdirLockedError, match=str(
        holder.pid)):
      train.train_and_evaluate(synthetic.config("ffnn", epochs=1), str(work))
  finally:
    holder.kill()
    holder.wait()


@pytest.mark.slow
def test_a_run_failing_before_training_leaves_no_workdir(tmp_path,
                                                        monkeypatch):
  from blm_jax.data import input_pipeline

  def fails(data_cfg):
    raise ValueError("no such dataset")

  monkeypatch.setattr(input_pipeline, "build_data_once", fails)
  cfg = synthetic.config("ffnn", epochs=1)
  work = tmp_path / "new"
  with pytest.raises(ValueError, match="no such dataset"):
    train.train_and_evaluate(cfg, str(work))
  assert not work.exists()
  kept = tmp_path / "kept"  # A workdir the run did not make stays.
  kept.mkdir()
  with pytest.raises(ValueError, match="no such dataset"):
    train.train_and_evaluate(cfg, str(kept))
  assert kept.is_dir()
  # Unlocked: the next run takes it without a notice.
  assert workdir_lock.acquire(str(kept)) in (None, "")
  workdir_lock.release(str(kept))


# ---- 4. SIGTERM is a clean stop ------------------------------------------

def test_sigterm_during_a_save_takes_effect_after_it():
  order = []

  def handler(signum, frame):
    order.append("handled")

  previous = signal.signal(signal.SIGTERM, handler)
  try:
    with checkpoints._interrupt_after():
      os.kill(os.getpid(), signal.SIGTERM)
      time.sleep(0.1)
      order.append("saved")
  finally:
    signal.signal(signal.SIGTERM, previous)
  assert order == ["saved", "handled"]


# ---- 5. recovery in one line --------------------------------------------

@pytest.mark.slow
def test_a_damaged_newest_step_is_one_notice_with_orbax_in_the_log(
    tmp_path, data, caplog):
  work = tmp_path / "w"
  cfg = synthetic.config("ffnn", epochs=2)
  cfg.train.keep_checkpoints = 2
  run_experiment(cfg, str(work), data=data)
  for root, _, names in os.walk(work / "checkpoints" / "1"):
    for name in names:  # a kill mid-write: every file cut in half
      path = os.path.join(root, name)
      with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)
  cfg.train.epochs = 3
  notices = Notices()
  caplog.clear()
  run_experiment(cfg, str(work), data=data, progress=notices)
  assert [r for r in caplog.records if r.name == "absl"] == []
  [line] = notices.lines
  assert line.startswith("checkpoint step 1 is damaged: moved to ")
  assert line.endswith("(details in log.txt)")
  assert "orbax, reading checkpoints: Failed to json parse" in (work / "log.txt").read_text()


# ---- 6. typed values and one config file, checked before any data -------

@pytest.mark.slow
def test_untyped_overrides_and_a_repeated_config_are_one_line(tmp_path):
  work = tmp_path / "w"
  for override, key in (("--config.grid.seeds=[0;1]", "config.grid.seeds"),
                        ("--config.model.channels=8,x,8",
                         "config.model.channels")):
    proc = _run("launch.py", "--config=configs/cnn.py", f"--workdir={work}",
                override)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    assert f"{key}=(" in proc.stderr and "expected a tuple of integers" in (
        proc.stderr), proc.stderr[-2000:]
  proc = _run("launch.py", "--config=configs/ffnn.py",
              "--config=configs/vae2.py", f"--workdir={work}")
  assert proc.returncode != 0
  assert proc.stderr.strip() == (
      "error: --config is given 2 times (--config=configs/ffnn.py, "
      "--config=configs/vae2.py); give one config file and override its "
      "keys with --config.<key>=<value>")
  assert not work.exists()


# ---- 7. damaged data named -----------------------------------------------

def test_a_damaged_record_file_is_named_with_how_to_rebuild(tmp_path,
                                                            capfd):
  import glob

  import launch
  from data_builders.common import loading
  from tests import release_fixtures

  release = str(tmp_path / "release")
  release_fixtures.write_release(os.path.join(release, "all.tsv"),
                                 release_fixtures.release_rows(30))
  tfds_dir = str(tmp_path / "tfds")
  args = ("blm_published/folder", "train", tfds_dir, release)
  assert loading.load_instances(*args)
  out, err = capfd.readouterr()
  assert "Downloading and preparing" not in out + err
  assert "building dataset blm_published/folder into " in err
  [path] = glob.glob(os.path.join(tfds_dir, "**", "*-train.array_record*"),
                     recursive=True)
  raw = bytearray(open(path, "rb").read())
  for i in range(len(raw) // 2, len(raw) // 2 + 64):
    raw[i] ^= 0xFF
  open(path, "wb").write(bytes(raw))
  with pytest.raises(loading.CorruptDatasetError) as e:
    loading.load_instances(*args)
  line = launch.error_line(e.value)
  assert line.startswith("error: dataset 'blm_published/folder', split "
                         f"'train': damaged record file {path} (Corrupted ")
  assert line.endswith(f"rebuild it: remove {os.path.dirname(path)} and "
                       "rerun") and "\n" not in line
  # A truncated file: records TFDS cannot decode, not a checksum error.
  shutil.rmtree(os.path.dirname(path))  # Rebuilt as the error says.
  assert loading.load_instances(*args)
  os.truncate(path, os.path.getsize(path) // 2)
  with pytest.raises(loading.CorruptDatasetError) as e:
    loading.load_instances(*args)
  assert launch.error_line(e.value).startswith(
      "error: dataset 'blm_published/folder', split 'train': damaged record "
      f"file {path} (")


@pytest.mark.slow
def test_divergence_and_a_tiny_test_set_are_warned(tmp_path, monkeypatch):
  from blm_jax.training import grid as grid_lib

  run_epoch = grid_lib.Grid.run_epoch

  def exploding(self, state, epoch):
    state, measured = run_epoch(self, state, epoch)
    if epoch == 2:  # a finite loss 1e8 times what it was
      measured = {**measured, "train": {
          **measured["train"], "loss": measured["train"]["loss"] * 1e8}}
    return state, measured

  monkeypatch.setattr(grid_lib.Grid, "run_epoch", exploding)
  tiny = synthetic.data(n_train=60, n_dev=20, n_test=1)
  notices = Notices()
  run_experiment(synthetic.config("ffnn", epochs=3), str(tmp_path / "w"),
                 data=tiny, progress=notices)
  assert notices.lines[:2] == [
      f"test type {u} has 1 instance(s): its F1 means little (fewer than "
      f"{run_health.MIN_TEST_INSTANCES})" for u in ("I", "II")]
  [line] = notices.lines[2:]
  assert line.startswith("training diverges (seed=0,train=I: loss "), line
  assert "at epoch 2" in line and "3 more cells" in line, line
  assert line.endswith("consider a lower config.train.learning_rate")


@pytest.mark.slow
def test_a_non_finite_loss_is_one_line(tmp_path, monkeypatch, data):
  from blm_jax.training import grid as grid_lib

  run_epoch = grid_lib.Grid.run_epoch

  def nan_at_epoch_1(self, state, epoch):
    state, measured = run_epoch(self, state, epoch)
    if epoch == 1:
      measured = {**measured, "train": {
          **measured["train"], "loss": measured["train"]["loss"] * np.nan}}
    return state, measured

  monkeypatch.setattr(grid_lib.Grid, "run_epoch", nan_at_epoch_1)
  with pytest.raises(FloatingPointError) as e:
    run_experiment(synthetic.config("ffnn", epochs=3), str(tmp_path / "w"),
                   data=data)
  import launch

  line = launch.error_line(e.value)
  assert line == f"error: {e.value}" and "\n" not in line
  assert line.startswith("error: non-finite loss (nan) in cell seed=0,"
                         "train=I at epoch 1")


def test_instances_per_second_count_each_instance_once(data):
  cfg = synthetic.config("ffnn", epochs=1)
  cfg.train.batch_size = 500  # larger than the 60 training instances
  grid = train.build_grid(cfg, data)
  assert grid.solver.steps_per_epoch * grid.solver.batch_size == 500
  assert train.epoch_instances(grid, data) == grid.num_cells * 60


# ---- 8. the memory check counts what a save holds -------------------------

@pytest.mark.slow
def test_the_memory_check_counts_what_a_save_holds(tmp_path, data):
  cfg = synthetic.config("ffnn", epochs=1)
  cfg.grid.mode = "vmap"
  grid = train.build_grid(cfg, data)
  need, save = grid.compile_epoch(), memory_fit.save_bytes(grid)
  # The host copy of every leaf, and one leaf more in flight.
  leaves = [x.size * x.dtype.itemsize
            for x in jax.tree.leaves(grid.abstract_state())]
  assert save == sum(leaves) + max(leaves)
  cfg.grid.memory_limit_gb = (need + save / 2) / 2**30  # epoch fits, save not
  with pytest.raises(MemoryError) as e:
    run_experiment(cfg, str(tmp_path / "w"), data=data)
  assert "or lower config.train.batch_size (now " in str(e.value)
  assert str(e.value).endswith(
      f"(of the {cfg.grid.memory_limit_gb:.2f} GiB set by "
      f"config.grid.memory_limit_gb, {save / 2**30:.2f} GiB are kept for the "
      "host copy of the state a checkpoint save makes)")
  assert not (tmp_path / "w").exists()
  from blm_jax.encoders.memory import gib
  cfg.grid.memory_limit_gb = save / 2 / 2**30  # below the save alone
  with pytest.raises(MemoryError) as e:
    run_experiment(cfg, str(tmp_path / "w"), data=data)
  # Not "0.00 GiB available": the width keys, and sane numbers.
  assert str(e.value).startswith(
      "the training state does not fit: one cell's parameters and optimizer "
      "moments take "), str(e.value)
  assert str(e.value).endswith(
      f"over the {gib(cfg.grid.memory_limit_gb * 2**30)} set by config.grid."
      "memory_limit_gb: lower the model's width (config.model.hidden_factor="
      f"{cfg.model.hidden_factor}) or train fewer cells, or raise "
      "config.grid.memory_limit_gb"), str(e.value)
  cfg.grid.memory_limit_gb = (need + save) * 1.01 / 2**30
  run_experiment(cfg, str(tmp_path / "w"), data=data)
  assert "checkpoint saves: " in (tmp_path / "w" / "log.txt").read_text()


# ---- 9. forced resumes recorded, one-line errors -------------------------

@pytest.mark.slow
def test_forced_resume_is_recorded_in_results(tmp_path, data, finished):
  work = str(_copy_of(finished, tmp_path))
  cfg = copy.deepcopy(finished[0])
  cfg.train.learning_rate = 0.01
  cfg.train.resume = "force"
  results = run_experiment(cfg, work, data=data)
  assert results["run"]["resume_forced"] == [
      "config.train.learning_rate: 0.001 -> 0.01"]
  with open(os.path.join(work, "results.json")) as f:
    assert json.load(f)["run"]["resume_forced"] == results["run"][
        "resume_forced"]


@pytest.mark.slow
def test_probe_and_export_path_errors_are_one_line(tmp_path):
  proc = _run("-m", "blm_jax.cli.probe", f"--workdir={tmp_path / 'none'}")
  assert proc.returncode != 0
  assert proc.stderr.strip() == (f"error: --workdir={tmp_path / 'none'}: no "
                                 "such folder (the workdir of a run of "
                                 "launch.py)")
  from types import SimpleNamespace

  from blm_jax.cli import export as export_cli
  from tests import release_fixtures

  release = str(tmp_path / "release")
  release_fixtures.write_release(os.path.join(release, "all.tsv"),
                                 release_fixtures.release_rows(30))
  (tmp_path / "a_file").write_text("")
  out = str(tmp_path / "a_file" / "out")
  with pytest.raises(SystemExit) as e:
    export_cli.run(SimpleNamespace(
        dataset="blm_published/folder", format="jsonl", out=out, split=None,
        data_dir=str(tmp_path / "tfds"), manual_dir=release))
  assert str(e.value) == f"error: --out={out}: Not a directory: {out}"


def test_errors_a_user_acts_on_are_one_line(tmp_path):
  import launch

  class StaleBuildError(ValueError):
    pass

  stale = StaleBuildError("blm_published/folder 1.0.0 in /d was built from "
                          "another release; rebuild it")
  assert launch.error_line(stale) == f"error: {stale}"
  mem = MemoryError("the grid needs 9.0 GiB; config.grid.memory_limit_gb=1")
  assert launch.error_line(mem) == f"error: {mem}"
  (tmp_path / "file").write_text("")
  with pytest.raises(OSError) as e:
    os.makedirs(tmp_path / "file" / "w")
  assert launch.error_line(e.value) == (
      f"error: Not a directory: {tmp_path / 'file' / 'w'}")


def test_fewer_than_30_test_instances_per_cell_are_warned():
  assert run_health.MIN_TEST_INSTANCES == 30
  assert run_health.small_test_sets(synthetic.data(n_test=30)) == []
  assert run_health.small_test_sets(synthetic.data(n_test=29)) == [
      f"test type {u} has 29 instance(s): its F1 means little (fewer than "
      "30)" for u in ("I", "II")]


@pytest.mark.slow
def test_the_log_says_what_the_checkpoints_hold(tmp_path, data):
  """Their size follows the model, not the data: the log says so, with
  the bytes on disk and the parameters per cell (FFNN 32 -> 16 -> 16 -> 8:
  936)."""
  work = tmp_path / "w"
  run_experiment(synthetic.config("ffnn", epochs=1), str(work), data=data)
  size = checkpoints.folder_bytes(str(work / "checkpoints"))
  assert size > 0
  line = (f"checkpoints: {size / 1e6:.1f} MB on disk, the last and best "
          "state of 4 cells of 936 parameters each (with the optimizer's "
          "state)")
  assert line in (work / "log.txt").read_text()
