"""launch.py's console: one-line errors before any workdir, quiet logs,
resume news, and a Ctrl-C that says how to resume instead of a traceback."""

import logging
import os
import re
import signal
import subprocess
import sys
import time

from tests import release_fixtures, tiny_checkpoints

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _launch(*args, timeout=300):
  env = dict(os.environ, JAX_PLATFORMS="cpu")
  return subprocess.run([sys.executable, "launch.py", *args], cwd=ROOT,
                        env=env, capture_output=True, text=True,
                        timeout=timeout)


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
  assert proc.stderr.strip() == ("error: --config=configs/fnn.py: no such "
                                 "config file")
  assert not work.exists()


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


def test_resume_news_is_echoed_from_the_trainer_log(tmp_path, capsys):
  import launch  # Defines absl flags: imported once, here only.

  path = str(tmp_path / "log.txt")
  handler = launch._ConsoleEcho(path, delay=True)
  log = logging.getLogger("test_console_echo")
  log.propagate = False
  log.addHandler(handler)
  try:
    log.warning("resumed from epoch %d", 4)
    log.warning("epoch %d loss %.5f", 5, 0.1)
    log.warning("already trained: evaluating only")
  finally:
    log.removeHandler(handler)
    handler.close()
  assert capsys.readouterr().err.splitlines() == [
      "resumed from epoch 5", "already trained: evaluating only"]
  assert "epoch 5 loss" in open(path).read()


def test_ctrl_c_says_how_to_resume(tmp_path):
  release = tmp_path / "release"
  release_fixtures.write_release(release / "all.tsv",
                                 release_fixtures.release_rows(60))
  encoder = tiny_checkpoints.write_bert(str(tmp_path / "tiny_bert"))
  work = tmp_path / "work"
  env = dict(os.environ, JAX_PLATFORMS="cpu")
  proc = subprocess.Popen(
      [sys.executable, "launch.py", "--config=configs/ffnn.py",
       f"--workdir={work}", "--config.data.name=blm_published/folder",
       f"--config.data.manual_dir={release}",
       f"--config.data.data_dir={tmp_path / 'tfds'}",
       "--config.data.train_types=('I',)", "--config.data.test_types=('I',)",
       f"--config.encoder.name={encoder}",
       f"--config.encoder.cache_dir={tmp_path / 'cache'}",
       "--config.grid.seeds=(0,)", "--config.train.epochs=1000000",
       "--config.train.checkpoint_every_epochs=2",
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
  proc.send_signal(signal.SIGINT)
  _, err = proc.communicate(timeout=120)
  assert proc.returncode != 0
  assert "Traceback" not in err, err[-3000:]
  m = re.search(r"interrupted after epoch (\d+); rerun the same command to "
                r"resume from epoch (\d+)$", err.strip())
  assert m, err[-3000:]
  done, resume_from = int(m.group(1)), int(m.group(2))
  assert done >= 5 and resume_from <= done and resume_from % 2 == 0
  assert os.path.isdir(work / "checkpoints" / str(resume_from - 1))
  # Quiet by default: no absl INFO lines from orbax or TFDS.
  assert not re.search(r"^I\d{4} ", err, re.M), err[:3000]


def test_ctrl_c_before_training_says_so(tmp_path):
  import launch

  work = tmp_path / "work"  # Not made yet: the data was still loading.
  assert launch.interrupted_message(str(work)) == (
      "interrupted before training started (while loading or embedding the "
      f"data; {work} was not made); rerun the same command: the embedding "
      "shards already written are reused")
  work.mkdir()
  (work / "log.txt").write_text("2026-01-01 epoch 0 loss 1.0\n")
  assert launch.interrupted_message(str(work)).startswith(
      "interrupted after epoch 1; no checkpoint was written yet")
