"""`python -m blm_jax.cli.doctor`: one line per check, a failed check named
with what to do and exit status 1, a tiny grid trained end to end."""

import os
import subprocess
import sys

import pytest

from blm_jax.cli import doctor
from tests import ROOT


def _doctor(*args, **env):
  return subprocess.run([sys.executable, "-m", "blm_jax.cli.doctor", *args],
                        cwd=ROOT, env=dict(os.environ, JAX_PLATFORMS="cpu",
                                           **env),
                        capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_quick_checks_pass_and_name_the_devices(tmp_path):
  proc = _doctor("--quick", BLM_DATA_DIR=str(tmp_path / "tfds"),
                 BLM_EMBED_CACHE=str(tmp_path / "cache"))
  assert proc.returncode == 0, proc.stdout + proc.stderr
  lines = proc.stdout.splitlines()
  assert lines[-1] == "all checks passed"
  assert any(l.startswith("ok   devices: cpu backend: ") for l in lines)
  assert f"ok   data dir: {tmp_path / 'tfds'} ($BLM_DATA_DIR)" in proc.stdout


@pytest.mark.slow
def test_a_cache_under_a_file_fails_naming_the_variable(tmp_path):
  blocker = tmp_path / "file"
  blocker.write_text("")
  proc = _doctor("--quick", BLM_DATA_DIR=str(tmp_path / "tfds"),
                 BLM_EMBED_CACHE=str(blocker / "cache"))
  assert proc.returncode == 1
  assert (f"FAIL embedding cache: {blocker / 'cache'} ($BLM_EMBED_CACHE)"
          in proc.stdout)
  assert f"{blocker} is not a writable folder: set $BLM_EMBED_CACHE" in (
      proc.stdout)
  assert proc.stdout.splitlines()[-1] == (
      "1 check(s) failed: embedding cache")


@pytest.mark.slow
def test_the_tiny_grid_trains(tmp_path, capsys):
  r = doctor.Report()
  doctor.check_grid(r, str(tmp_path / "work"))
  out = capsys.readouterr().out
  assert not r.failed, out
  assert out.startswith("ok   tiny grid: ffnn, 4 cells (2 seeds x 2 types)")
