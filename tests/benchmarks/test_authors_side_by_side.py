"""benchmarks/authors_side_by_side.py: its usage and argument errors work
without the authors' checkout (or torch), before anything heavy loads."""

import os
import subprocess
import sys

import pytest

from tests import ROOT

pytestmark = pytest.mark.slow

SCRIPT = os.path.join("benchmarks", "authors_side_by_side.py")


def run(*args):
  return subprocess.run([sys.executable, SCRIPT, *args], cwd=ROOT,
                        capture_output=True, text=True, timeout=60)


def test_help_lists_the_models_flag():
  proc = run("--help")
  assert proc.returncode == 0, proc.stderr
  assert "--models" in proc.stdout and "--authors" in proc.stdout


def test_unknown_model_is_named(tmp_path):
  proc = run(f"--authors={tmp_path}", "--models=vae,two_level_vae")
  assert proc.returncode == 2
  assert "error: --models: unknown two_level_vae (known: vae2, ffnn, " \
         "cnn_seq, vae, vae_1d_2level, two_level_vae_subnets)" in proc.stderr
  assert "Traceback" not in proc.stderr


def test_a_folder_that_is_not_their_checkout_is_refused(tmp_path):
  proc = run(f"--authors={tmp_path}", "--models=cnn_seq")
  assert proc.returncode == 2 and "Traceback" not in proc.stderr
  assert f"error: --authors='{tmp_path}' is not a checkout of " \
         "CLCL-Geneva/BLM-SNFDisentangling (no vaes/VAE.py)" in proc.stderr


def test_the_authors_flag_is_required():
  proc = run()
  assert proc.returncode == 2
  assert "error: --authors=CHECKOUT is required (or --table=RECORD)" \
      in proc.stderr


def test_table_prints_a_committed_record_without_their_checkout():
  proc = run("--table=benchmarks/results/authors_side_by_side_D768.json")
  assert proc.returncode == 0, proc.stderr
  assert "| vae2 | ours, 3x3 grid (scan) | 515 | 2.08 | 2.04, 2.12, 2.08 " \
      "| 19.94 | 51% |" in proc.stdout


def test_the_readme_tables_are_the_new_solvers_record():
  proc = run("--table=benchmarks/results/"
             "authors_side_by_side_new_solvers_D768.json")
  assert proc.returncode == 0, proc.stderr
  with open(os.path.join(ROOT, "benchmarks", "README.md")) as f:
    readme = f.read()
  rows = [r for r in proc.stdout.splitlines() if r.startswith("| ")]
  assert len(rows) > 14 and not [r for r in rows if r not in readme]
