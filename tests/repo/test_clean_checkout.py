"""The README's and docs' commands leave the checkout clean: every output
they name lies in a git-ignored folder, and a benchmark run without
--record leaves `git status` as it was."""

import os
import shlex
import subprocess
import sys

import pytest

from tests.repo import test_readme

ROOT = test_readme.ROOT
OUTPUT_FLAGS = ("--workdir", "--out", "--data_dir", "--config.data.data_dir",
                "--config.encoder.cache_dir")


def _git(*args):
  return subprocess.run(["git", *args], cwd=ROOT, capture_output=True,
                        text=True)


pytestmark = pytest.mark.skipif(
    _git("rev-parse", "--is-inside-work-tree").returncode != 0,
    reason="not a git checkout")


def _outputs():
  for where, text in test_readme._commands():
    try:
      words = shlex.split(text)
    except ValueError:  # A command shown with shell syntax around it.
      continue
    if not words or words[0] not in ("python", "python3"):
      continue
    record = "--record" in words  # Replacing a committed record on purpose.
    for w in words:
      flag, eq, value = w.partition("=")
      if eq and flag in OUTPUT_FLAGS and value and not record and not (
          test_readme._is_placeholder(value) or value.startswith(
              ("/", "~", "$", "path/to"))):
        if flag == "--out" and value.startswith("studies/records/"):
          continue  # `records make` writes the record it is asked for.
        yield where, flag, value


@pytest.mark.slow
def test_every_documented_output_is_git_ignored():
  outputs = list(_outputs())
  assert outputs, "no command names an output"
  tracked = [f"{where}: {flag}={value}" for where, flag, value in outputs
             if _git("check-ignore", "-q", value).returncode != 0]
  assert not tracked, ("outputs in the checkout that git does not ignore:\n"
                       + "\n".join(tracked))


@pytest.mark.slow
def test_a_benchmark_without_record_leaves_the_checkout_as_it_was(tmp_path):
  before = _git("status", "--porcelain").stdout
  proc = subprocess.run(
      [sys.executable, "-m", "blm_jax.cli.bench", "--models=ffnn",
       "--dims=16", "--num_train=20", "--rounds=1", "--epochs=1",
       "--forms=vmap", "--seeds=1", "--types=1"], cwd=ROOT,
      env=dict(os.environ, JAX_PLATFORMS="cpu"), capture_output=True,
      text=True, timeout=300)
  assert proc.returncode == 0, proc.stderr[-2000:]
  assert "record: workdirs/benchmarks/grid_forms.json" in proc.stdout
  assert _git("status", "--porcelain").stdout == before
