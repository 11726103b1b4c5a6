"""launch.py's console: one-line errors before any workdir, quiet logs,
resume news from the trainer's events, and a Ctrl-C that says how to resume
instead of a traceback."""

import os
import re
import signal
import subprocess
import sys
import time

import pytest

from tests import ROOT, release_fixtures, synthetic


def _launch(*args, timeout=300):
  env = dict(os.environ, JAX_PLATFORMS="cpu")
  return subprocess.run([sys.executable, "launch.py", *args], cwd=ROOT,
                        env=env, capture_output=True, text=True,
                        timeout=timeout)


@pytest.mark.slow
def test_variant_typos_are_one_error_line(tmp_path):
  work = tmp_path / "work"
  proc = _launch("--config=configs/ffnn.py:cpux", f"--workdir={work}")
  assert proc.returncode != 0
  assert proc.stderr.strip() == (
      "error: --config=configs/ffnn.py:cpux: config variant 'cpux' is not "
      "known; variants: ['cpu', 'dataset']")
  proc = _launch("--config=configs/ffnn.py:cpu=maybe", f"--workdir={work}")
  assert proc.stderr.strip().startswith(
      "error: --config=configs/ffnn.py:cpu=maybe: config variant "
      "cpu='maybe' is not a boolean; accepted: cpu (= true)")
  proc = _launch("--config=configs/fnn.py", f"--workdir={work}")
  assert proc.stderr.strip().startswith(
      "error: --config=configs/fnn.py: no such config file (did you mean "
      "configs/ffnn.py or ")
  assert not work.exists()


@pytest.mark.slow
def test_bad_config_and_dataset_name_fail_before_the_workdir(tmp_path):
  work = tmp_path / "work"
  proc = _launch("--config=configs/vae2.py", f"--workdir={work}",
                 "--config.train.epochs=0", "--config.train.score=cos")
  assert proc.returncode != 0
  assert "Traceback" not in proc.stderr
  assert "config.train.epochs=0: must be an integer > 0" in proc.stderr
  assert "config.train.score='cos' is not known" in proc.stderr
  proc = _launch("--config=configs/ffnn.py", f"--workdir={work}",
                 "--config.data.name=blm_spray_lod/ALT-ATL_type_{}")
  assert proc.returncode != 0
  assert proc.stderr.strip() == (
      "error: config.data.name='blm_spray_lod/ALT-ATL_type_{}': no dataset "
      "'blm_spray_lod'; did you mean 'blm_spray_load'?")
  assert not work.exists()


@pytest.fixture(scope="module")
def launch_inputs(tmp_path_factory):
  """What the interrupted launches read, shared by them: the release, a
  tiny BERT, the built dataset and its embedding cache (the first launch
  builds and embeds; the other reads them)."""
  return release_fixtures.launch_inputs(tmp_path_factory.mktemp("inputs"))


@pytest.mark.slow
@pytest.mark.parametrize("signum,status,what", [
    (signal.SIGINT, 130, "interrupted"),
    # What batch schedulers send before they kill (preemption).
    (signal.SIGTERM, 143, r"terminated \(SIGTERM\)")])
def test_ctrl_c_and_sigterm_say_how_to_resume(tmp_path, launch_inputs, signum,
                                              status, what):
  release, encoder, data_dir, cache = launch_inputs
  work = tmp_path / "work"
  env = dict(os.environ, JAX_PLATFORMS="cpu")
  proc = subprocess.Popen(
      [sys.executable, "launch.py", "--config=configs/ffnn.py",
       f"--workdir={work}", "--config.data.name=blm_published/folder",
       f"--config.data.manual_dir={release}",
       f"--config.data.data_dir={data_dir}",
       "--config.data.train_types=('I',)", "--config.data.test_types=('I',)",
       f"--config.encoder.name={encoder}",
       f"--config.encoder.cache_dir={cache}",
       "--config.grid.seeds=(0,)", "--config.train.epochs=1000000",
       "--config.train.checkpoint_every_epochs=2",
       "--config.train.checkpoint_min_seconds=0",
       "--config.train.batch_size=16", "--config.progress=False"],
      cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
      text=True,
      # A user's terminal run: Ctrl-C is not ignored, even when this suite
      # runs as a background job (whose children inherit SIGINT ignored).
      preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
  log = work / "log.txt"
  deadline = time.time() + 400
  while time.time() < deadline and proc.poll() is None:
    if log.exists() and re.search(r" epoch 4 loss ", log.read_text()):
      break
    time.sleep(0.5)
  assert proc.poll() is None, proc.communicate()[1][-3000:]
  proc.send_signal(signum)
  _, err = proc.communicate(timeout=120)
  assert proc.returncode == status, err[-3000:]
  assert "Traceback" not in err, err[-3000:]
  # Its own line; a background job still running may add one after it
  # ("waiting for the context-free baselines ...").
  m = re.search(what + r" after epoch (\d+); rerun the same command to "
                r"resume from epoch (\d+)$", err, re.M)
  assert m, err[-3000:]
  done, resume_from = int(m.group(1)), int(m.group(2))
  assert done >= 5 and resume_from <= done and resume_from % 2 == 0
  assert os.path.isdir(work / "checkpoints" / str(resume_from - 1))
  # Quiet by default: no absl INFO lines from orbax or TFDS.
  assert not re.search(r"^I\d{4} ", err, re.M), err[:3000]


def test_ctrl_c_message_counts_the_trainer_events(tmp_path):
  import launch

  work = tmp_path / "work"  # Not made yet: the data was still loading.
  console = launch.Console()
  assert launch.interrupted_message(str(work), console) == (
      "interrupted before training started (while loading or embedding the "
      f"data; {work} was not made); rerun the same command: the embedding "
      "shards already written are reused")
  work.mkdir()  # A rerun's workdir, interrupted while loading again.
  assert launch.interrupted_message(str(work), console) == (
      "interrupted before training started (while loading or embedding the "
      "data); rerun the same command: the embedding shards already written "
      "are reused")
  console.on_train_start(0, 10)
  assert launch.interrupted_message(str(work), console) == (
      "interrupted after epoch 0; no checkpoint was written yet, so rerunning "
      "the same command starts from the beginning")
  console.on_epoch_end(0, {})
  assert launch.interrupted_message(str(work), console).startswith(
      "interrupted after epoch 1; no checkpoint was written yet")
  console.on_epoch_end(1, {})
  console.on_checkpoint(1)
  console.on_epoch_end(2, {})
  assert launch.interrupted_message(str(work), console) == (
      "interrupted after epoch 3; rerun the same command to resume from "
      "epoch 2")
  # A resumed run starts from what its checkpoint holds.
  resumed = launch.Console()
  resumed.on_resume(3)
  resumed.on_train_start(4, 10)
  assert launch.interrupted_message(str(work), resumed) == (
      "interrupted after epoch 4; rerun the same command to resume from "
      "epoch 4")


def test_launch_never_reads_the_log():
  with open(os.path.join(ROOT, "launch.py")) as f:
    assert "log.txt" not in f.read()


@pytest.mark.slow
def test_resume_news_is_printed_from_the_trainer_events(tmp_path, capsys):
  import launch  # Defines absl flags: imported once, here only.
  from blm_jax.results.experiment import run_experiment

  cfg = synthetic.config("ffnn", epochs=2, seeds=(0,), types=("I",))
  data = synthetic.data(n_train=40, n_dev=10, n_test=10, types=("I",))

  def news():
    return [line for line in capsys.readouterr().err.splitlines()
            if line.startswith(("resumed", "already"))]

  run_experiment(cfg, str(tmp_path), data=data, progress=launch.Console())
  assert news() == []
  console = launch.Console()
  run_experiment(cfg, str(tmp_path), data=data, progress=console)
  # The console counts completed epochs; the trainer's events, 0-based ones.
  assert news() == ["resumed from epoch 2", "already trained: evaluating only"]
  assert (console.epochs_done, console.epochs_saved) == (2, 2)


def test_a_terminal_hears_when_training_ends_and_the_report_starts(
    monkeypatch, capsys):
  """The tens of seconds after the last epoch are announced on a terminal
  only (pipes and logs keep their one-line outcomes)."""
  sys.path.insert(0, ROOT)
  import launch

  console = launch.Console()
  console.on_train_start(0, 2)
  monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
  console.on_epoch_end(0, {})
  assert capsys.readouterr().err == ""
  console.on_epoch_end(1, {})
  assert capsys.readouterr().err == launch.REPORT_NOTICE + "\n"
  monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
  console.on_epoch_end(1, {})
  assert capsys.readouterr().err == ""


def test_the_error_line_comes_after_the_wait_for_background_work(capsys):
  """A run that fails while its context-free baselines still run waits
  for them before its error line, so the line stays the last one (the
  wait's notice, printed at exit, came after it)."""
  import time

  from blm_jax.base import background
  from blm_jax.cli import errors

  work = background.Background(lambda: time.sleep(2.5),
                               what="the context-free baselines")
  with pytest.raises(SystemExit) as e:
    errors.exit_with("error: no space left on the device of /w")
  assert work.done() and not background.live()
  assert e.value.code == "error: no space left on the device of /w"
  assert capsys.readouterr().err == (
      "waiting for the context-free baselines to finish before exiting "
      "(Ctrl-C stops it now)\n")
