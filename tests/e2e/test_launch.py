"""launch.py end to end: config file + overrides -> every output; key errors."""

import json
import os
import subprocess
import sys

import pytest

from tests import ROOT, release_fixtures, tiny_checkpoints

pytestmark = pytest.mark.slow


def _launch(*args, timeout=600):
  env = dict(os.environ, JAX_PLATFORMS="cpu")
  return subprocess.run([sys.executable, "launch.py", *args], cwd=ROOT,
                        env=env, capture_output=True, text=True,
                        timeout=timeout)


def test_misspelled_key_lists_valid_keys(tmp_path):
  proc = _launch("--config=configs/vae2.py", f"--workdir={tmp_path}",
                 "--config.train.epoch=3")
  assert proc.returncode != 0
  [line] = proc.stderr.strip().splitlines()  # not a list of every key
  assert line.startswith("error: unknown config key 'config.train.epoch' "
                         "(did you mean 'config.train.epochs'")
  assert "; config.train has: " in line and "learning_rate" in line
  assert not os.listdir(tmp_path)


def test_another_solvers_key_is_unknown_to_an_ffnn_config(tmp_path):
  proc = _launch("--config=configs/ffnn.py", f"--workdir={tmp_path}",
                 "--config.model.task_kernel=8")
  assert proc.returncode != 0
  assert "unknown config key 'config.model.task_kernel'" in proc.stderr
  [line] = proc.stderr.strip().splitlines()
  valid = line.split("; config.model has: ")[1].split(", ")
  assert "hidden_factor" in valid
  assert not any(k.startswith("task") for k in valid)
  assert not os.listdir(tmp_path)


def test_a_kernel_that_does_not_fit_grid_shape_is_one_error(tmp_path):
  proc = _launch("--config=configs/sent_vae.py", f"--workdir={tmp_path}",
                 "--config.model.grid_shape=(2,4)")
  assert proc.returncode != 0
  assert proc.stderr.strip().splitlines() == [
      "error: invalid config:",
      "  config.model.kernel=15 does not fit config.model.grid_shape=(2, 4): "
      "a 15x15 convolution needs both sides >= 15; set config.model.kernel "
      "<= 2"]
  assert not os.listdir(tmp_path)


def test_unknown_variant_is_named(tmp_path):
  proc = _launch("--config=configs/ffnn.py:dataset=klingon",
                 f"--workdir={tmp_path}")
  assert proc.returncode != 0
  assert "no dataset short name 'klingon'" in proc.stderr


def test_main_job_end_to_end(tmp_path):
  release = tmp_path / "release"
  release_fixtures.write_release(release / "all.tsv",
                                 release_fixtures.release_rows(60))
  encoder = tiny_checkpoints.write_bert(str(tmp_path / "tiny_bert"))
  work = tmp_path / "work"
  proc = _launch(
      "--config=configs/vae2.py", f"--workdir={work}",
      "--config.data.name=blm_published/folder",
      f"--config.data.manual_dir={release}",
      f"--config.data.data_dir={tmp_path / 'tfds'}",
      "--config.data.train_types=('I',)", "--config.data.test_types=('I',)",
      f"--config.encoder.name={encoder}",
      f"--config.encoder.cache_dir={tmp_path / 'cache'}",
      "--config.model.grid_shape=(8,4)", "--config.model.kernel=3",
      "--config.grid.seeds=(0,1)", "--config.train.epochs=2",
      "--config.train.batch_size=16", "--config.progress=False")
  assert proc.returncode == 0, proc.stderr[-4000:]
  assert "train I: test I F1" in proc.stdout
  # The console line carries the best context-free score and the gain.
  line = next(l for l in proc.stdout.splitlines()
              if l.startswith("train I: "))
  assert " (cf " in line and ", gain " in line, line
  assert "over 2 seed(s)" in proc.stdout
  results = json.loads((work / "results.json").read_text())
  assert [c["seed"] for c in results["cells"]] == [0, 1]
  assert results["data"]["embed_dim"] == 32
  assert results["label_names"][:1] == ["Corr"]
  # Where the time went: every stage of the run, and the console's last
  # line says it too.
  stages = results["stage_seconds"]
  assert set(stages) == {"embedding", "data", "variant_embeddings",
                         "checkpoints", "compile", "training", "evaluation",
                         "report", "context_free", "gold_ceiling", "plots",
                         "tensorboard"}
  assert all(v >= 0 for v in stages.values()) and stages["embedding"] > 0
  # (`plots` is the wait for the figures' thread after the other writes:
  # 0 when they were drawn by then.)
  assert stages["training"] > 0
  # In the order they ran (results.json's keys are sorted).
  assert proc.stdout.splitlines()[-1].startswith(
      "stages: embedding ")
  for f in ("heatmap.png", "heatmap.svg", "errors.png", "errors.svg",
            "config.json", "log.txt"):
    assert (work / f).stat().st_size > 0
  # results.csv: one row per cell, the numbers of results.json.
  rows = (work / "results.csv").read_text().splitlines()
  assert rows[0].split(",") == [
      "train", "test", "f1_mean", "f1_std", "n_seeds", "n_test",
      "best_context_free", "best_context_free_scorer", "context_gain",
      "gold_reference_f1", "gold_solver_f1"]
  (cell,) = [r.split(",") for r in rows[1:]]
  free = results["context_free"]["I"]["I"]
  assert cell[:2] == ["I", "I"] and cell[4] == "2"
  assert int(cell[5]) == results["data"]["test_sizes"]["I"]
  assert float(cell[2]) == round(results["summary"]["I"]["I"]["f1_mean"], 4)
  assert float(cell[6]) == round(free["best"], 4)
  assert cell[7] == free["best_baseline"]
  # The embedding cache was filled: a second run embeds nothing new.
  assert os.listdir(tmp_path / "cache")
