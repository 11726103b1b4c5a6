"""The `blm` command: a thin dispatcher over the command-line modules,
installed as a console script; config files found from any folder, with
near misses named; `launch.py` the same as `blm train`."""

import json
import os
import subprocess
import sys
import tomllib

import pytest

from blm_jax.cli import blm, train
from tests import ROOT


def _blm(*args, cwd=ROOT):
  env = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu")
  return subprocess.run([sys.executable, "-m", "blm_jax.cli.blm", *args],
                        cwd=cwd, env=env, capture_output=True, text=True,
                        timeout=300)


@pytest.mark.slow
def test_blm_help_lists_every_command():
  proc = _blm("--help")
  assert proc.returncode == 0, proc.stderr
  listed = [line.split()[0] for line in proc.stdout.splitlines()
            if line.startswith("  ")]
  assert listed == list(blm.COMMANDS)
  for name in ("train", "reproduce", "embed", "lint", "export", "doctor",
               "records"):
    assert name in listed


def test_the_console_script_is_installed_by_pyproject():
  with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
    scripts = tomllib.load(f)["project"]["scripts"]
  assert scripts == {"blm": "blm_jax.cli.blm:main"}
  for module, _ in blm.COMMANDS.values():
    assert os.path.isfile(os.path.join(ROOT, "blm_jax", "cli",
                                       f"{module}.py")), module


@pytest.mark.slow
def test_an_unknown_command_names_the_near_miss():
  proc = _blm("tran")
  assert proc.returncode == 2
  assert proc.stderr.startswith("error: blm: unknown command 'tran' (did you "
                                "mean train?); the commands are: train, ")


@pytest.mark.slow
def test_a_config_file_typo_names_the_near_misses(tmp_path):
  proc = _blm("train", "--config=configs/fnn.py", f"--workdir={tmp_path}")
  assert proc.returncode == 1
  assert proc.stderr.strip().splitlines() == [
      "error: --config=configs/fnn.py: no such config file (did you mean "
      "configs/ffnn.py or configs/cnn.py or configs/cnn_seq.py?); the config "
      "files are: " + ", ".join(train.config_files())]
  assert not os.listdir(tmp_path)


@pytest.mark.slow
def test_configs_are_found_from_any_folder(tmp_path):
  """From a folder without configs/, the package's configs are read: a
  misspelled key is reported against the loaded config's keys."""
  proc = _blm("train", "--config=configs/ffnn.py:cpu",
              "--config.train.epoch=3", f"--workdir={tmp_path / 'w'}",
              cwd=tmp_path)
  assert proc.returncode == 1, proc.stderr
  assert proc.stderr.startswith(
      "error: unknown config key 'config.train.epoch' (did you mean "
      "'config.train.epochs'"), proc.stderr
  assert train.resolve_config("configs/vae2.py:cpu") == "configs/vae2.py:cpu"
  assert train.resolve_config("configs/vae2.py:cpu", configs_dir=os.path.join(
      ROOT, "configs")) == "configs/vae2.py:cpu"


@pytest.mark.slow
def test_commands_keep_their_exit_status(tmp_path):
  own = tmp_path / "own"
  own.mkdir()
  line = {"context": ["The cats sleep ."], "answers": ["The cat sleep .",
                                                        "The cat sleeps ."],
          "correct": 1}
  (own / "mine.jsonl").write_text(json.dumps(line) + "\n")
  proc = _blm("lint", str(own / "mine.jsonl"))
  assert proc.returncode == 0, proc.stderr
  assert "-> OK" in proc.stdout
  line["context"] = ["The cat sleeps ."]  # the correct answer in context
  (own / "mine.jsonl").write_text(json.dumps(line) + "\n")
  assert _blm("lint", str(own / "mine.jsonl")).returncode == 1
  assert _blm("lint", str(tmp_path / "absent.tsv")).returncode == 2


def test_launch_is_blm_train():
  import launch
  assert launch.error_line is train.error_line
  assert launch.Console is train.Console
