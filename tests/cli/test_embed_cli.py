"""`python -m blm_jax.cli.embed` as a user runs it: quiet, one-line errors."""

import os
import re
import subprocess
import sys

import pytest

from tests import ROOT, release_fixtures, tiny_checkpoints

pytestmark = pytest.mark.slow

ENV = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu")


def _embed(*args):
  return subprocess.run([sys.executable, "-m", "blm_jax.cli.embed", *args],
                        cwd=ROOT, env=ENV, capture_output=True, text=True,
                        timeout=300)


def test_fills_the_cache_quietly(tmp_path):
  release = tmp_path / "release"
  release_fixtures.write_release(release / "all.tsv",
                                 release_fixtures.release_rows(30))
  encoder = tiny_checkpoints.write_bert(str(tmp_path / "bert"))
  args = ["--dataset=blm_published/folder", f"--manual_dir={release}",
          f"--data_dir={tmp_path / 'tfds'}", f"--encoder={encoder}",
          f"--cache_dir={tmp_path / 'cache'}"]
  proc = _embed(*args)
  assert proc.returncode == 0, proc.stderr[-3000:]
  last = proc.stdout.strip().splitlines()[-1]
  assert re.match(r"encoder \S+ pooling=mean layer=-1 max_length=64 "
                  r"dtype=float32: 0 from the cache, (\d+) embedded", last)
  # No absl INFO lines (TFDS writers) and no dataset generation bars.
  assert not re.search(r"^I\d{4} ", proc.stderr, re.M), proc.stderr[:2000]
  assert "Generating" not in proc.stderr
  again = _embed(*args)
  assert re.search(r": (\d+) from the cache, 0 embedded", again.stdout)


def test_errors_are_one_line():
  proc = _embed("--config=configs/ffnn.py", "--layer=3",
                "--config.encoder.pooling=avg")
  assert proc.returncode != 0 and "Traceback" not in proc.stderr
  assert proc.stderr.strip() == (
      "error: with --config, --layer is set by the config: use "
      "--config.encoder.layer=...")
  proc = _embed("--config=configs/ffnn.py", "--config.encoder.pooling=avg")
  assert proc.returncode != 0 and "Traceback" not in proc.stderr
  assert proc.stderr.startswith("error: invalid config:\n")
  assert "config.encoder.pooling='avg' is not known" in proc.stderr
