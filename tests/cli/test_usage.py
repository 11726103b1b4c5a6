"""--help of the commands: exit 0, the flags, the dataset short names and
the config files."""

import os
import subprocess
import sys

import pytest

from blm_jax.cli import usage
from tests import ROOT


def test_datasets_text_lists_short_names_and_config_files():
  text = usage.datasets_text()
  assert "configs/ffnn.py" in text and "configs/vae2.py" in text
  assert "spray_load_ctx" in text and "own_jsonl" in text
  elsewhere = usage.datasets_text("/nonexistent/configs")
  assert "config files" not in elsewhere and "spray_load_ctx" in elsewhere


@pytest.mark.slow
@pytest.mark.parametrize("command", [["launch.py", "--help"],
                                     ["-m", "blm_jax.cli.probe", "-h"],
                                     ["-m", "blm_jax.cli.diagnose", "-h"]])
def test_help_exits_zero_with_the_dataset_names(command):
  proc = subprocess.run([sys.executable, *command], cwd=ROOT,
                        env=dict(os.environ, JAX_PLATFORMS="cpu"),
                        capture_output=True, text=True, timeout=300)
  assert proc.returncode == 0, proc.stderr
  assert "dataset short names" in proc.stdout
  assert "agreement_fr_ctx" in proc.stdout
  assert "flags:" in proc.stdout
