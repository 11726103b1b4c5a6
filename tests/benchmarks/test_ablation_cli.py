"""studies/vae2_ablation.py refuses a bad --dataset in one line, when a
run first needs it (recorded runs are read before)."""

import os
import subprocess
import sys

import pytest

from tests import ROOT


@pytest.mark.slow
def test_unknown_dataset_is_one_line(tmp_path):
  p = subprocess.run(
      [sys.executable, os.path.join(ROOT, "studies", "vae2_ablation.py"),
       "--dataset=spray_lod", f"--out={tmp_path}"],
      capture_output=True, text=True, cwd=ROOT, timeout=300)
  assert p.returncode == 1
  lines = p.stderr.strip().splitlines()
  assert lines == [lines[-1]] and lines[0].startswith(
      "error: --dataset: no dataset short name 'spray_lod'"), p.stderr
  assert "spray_load" in lines[0]  # the closest name is offered
  assert os.listdir(tmp_path) == []
