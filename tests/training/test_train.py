"""train_and_evaluate end to end: outputs, learning, resume, determinism, faults."""

import json
import os
import re
import shutil

import numpy as np
import pytest

from blm_jax.results.experiment import run_experiment
from blm_jax.training import grid as grid_lib, resume, trainer as train
from tests import synthetic

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def data():
  return synthetic.data(n_train=200, n_dev=40, n_test=60)


def _ffnn_run(tmp_path_factory, data, keep_checkpoints=None):
  """A finished 2-epoch FFNN workdir, trained once for the module: tests
  that start from such a run copy it (`_copy`) instead of training it."""
  cfg = synthetic.config("ffnn", epochs=2)
  if keep_checkpoints:
    cfg.train.keep_checkpoints = keep_checkpoints
  work = tmp_path_factory.mktemp("ffnn_run") / "run"
  run_experiment(cfg, str(work), data=data)
  return work


@pytest.fixture(scope="module")
def ffnn_run(tmp_path_factory, data):
  return _ffnn_run(tmp_path_factory, data)


@pytest.fixture(scope="module")
def ffnn_run_keeping_2(tmp_path_factory, data):
  return _ffnn_run(tmp_path_factory, data, keep_checkpoints=2)


def _copy(finished, workdir):
  shutil.copytree(finished, workdir, symlinks=True, dirs_exist_ok=True)


def _cells(results):
  return [(c["seed"], c["train_type"], c["test"], c["best_dev_accuracy"],
           c["best_epoch"]) for c in results["cells"]]


def test_outputs_and_learning(tmp_path):
  cfg = synthetic.config("ffnn", epochs=20, seeds=(0, 1))
  cfg.train.score = "cosine"  # the synthetic wrong answers have larger norms
  cfg.train.learning_rate = 1e-2
  cfg.train.batch_size = 50
  res = run_experiment(
      cfg, str(tmp_path), data=synthetic.data(n_train=400, n_test=60))
  for f in ("config.json", "results.json", "heatmap.png", "errors.png",
            "log.txt"):
    assert os.path.getsize(tmp_path / f) > 0, f
  assert os.listdir(tmp_path / "checkpoints")
  on_disk = json.loads((tmp_path / "results.json").read_text())
  assert on_disk["summary"].keys() == {"I", "II"}
  # Chance is 1/4; the diagonal must be well above it.
  assert res["summary"]["I"]["I"]["f1_mean"] > 0.35
  cell = res["cells"][0]["test"]["I"]
  assert sum(cell["chosen"].values()) == cell["n"] == 60
  assert cell["chosen"]["CORRECT"] == round(cell["accuracy"] * 60)
  assert "instances/s" in (tmp_path / "log.txt").read_text()


def test_same_config_same_results(tmp_path, data):
  cfg = synthetic.config("vae2", epochs=2)
  a = run_experiment(cfg, str(tmp_path / "a"), data=data)
  b = run_experiment(cfg, str(tmp_path / "b"), data=data)
  assert _cells(a) == _cells(b)


def test_killed_run_resumes_to_the_same_results(tmp_path, data, monkeypatch):
  cfg = synthetic.config("ffnn", epochs=4)
  full = run_experiment(cfg, str(tmp_path / "full"), data=data)

  real = grid_lib.Grid.run_epoch

  def dies_at_epoch_2(self, state, epoch):
    if epoch == 2:
      raise KeyboardInterrupt("killed")
    return real(self, state, epoch)

  monkeypatch.setattr(grid_lib.Grid, "run_epoch", dies_at_epoch_2)
  with pytest.raises(KeyboardInterrupt):
    run_experiment(cfg, str(tmp_path / "killed"), data=data)
  assert not (tmp_path / "killed" / "results.json").exists()
  monkeypatch.setattr(grid_lib.Grid, "run_epoch", real)
  resumed = run_experiment(cfg, str(tmp_path / "killed"), data=data)
  assert "resumed from epoch 1" in (tmp_path / "killed" / "log.txt").read_text()
  assert _cells(resumed) == _cells(full)


def test_nan_loss_names_cell_and_step(tmp_path):
  bad = synthetic.data(n_train=40, n_dev=10, n_test=10)
  emb = bad.embeddings.copy()
  emb[bad.train["II"].context[0, 0]] = np.inf
  bad = type(bad)(embeddings=emb, table=bad.table, train=bad.train,
                  dev=bad.dev, test=bad.test)
  cfg = synthetic.config("ffnn", epochs=2, seeds=(5,))
  with pytest.raises(FloatingPointError,
                     match=r"non-finite loss .* in cell seed=5,train=II at "
                     r"epoch 0, step \d"):
    run_experiment(cfg, str(tmp_path), data=bad)


def test_mismatches_fail_before_compiling(tmp_path, data):
  cfg = synthetic.config("ffnn")
  cfg.data.num_answers = 9
  with pytest.raises(ValueError, match="config.data.num_answers=9 but "
                     "'synthetic_{}' has 4 candidate answers"):
    run_experiment(cfg, str(tmp_path), data=data)
  cfg = synthetic.config("vae2")
  cfg.model.grid_shape = (3, 5)
  with pytest.raises(ValueError, match=r"grid_shape=\(3, 5\) does not "
                     "reshape an embedding of dimension 8"):
    run_experiment(cfg, str(tmp_path), data=data)
  cfg = synthetic.config("cnn")
  with pytest.raises(ValueError, match="need at least 7 context sentences; "
                     "the data has 4"):
    run_experiment(cfg, str(tmp_path), data=data)
  assert not (tmp_path / "checkpoints").exists()


def test_changed_config_or_data_is_never_resumed(tmp_path, data, ffnn_run):
  cfg = synthetic.config("ffnn", epochs=2)
  workdir = str(tmp_path / "run")
  _copy(ffnn_run, workdir)  # run_experiment(cfg, workdir, data=data)
  config_json = (tmp_path / "run" / "config.json").read_text()

  changed = synthetic.config("ffnn", epochs=2)
  changed.train.learning_rate = 0.01
  changed.loss.answer_reduction = "mean"
  with pytest.raises(resume.RunMismatchError) as e:
    run_experiment(changed, workdir, data=data)
  msg = str(e.value)
  assert "config.train.learning_rate: 0.001 -> 0.01" in msg
  assert "config.loss.answer_reduction: 'sum' -> 'mean'" in msg
  assert "--config.train.resume=restart" in msg
  assert (tmp_path / "run" / "config.json").read_text() == config_json

  other = synthetic.data(n_train=40, n_dev=20, n_test=20, seed=3)
  with pytest.raises(resume.RunMismatchError, match=r"data train/I: '"):
    run_experiment(cfg, workdir, data=other)
  vae = synthetic.config("vae2", epochs=2)
  with pytest.raises(resume.RunMismatchError,
                     match="config.model.name: 'ffnn' -> 'vae2'"):
    run_experiment(vae, workdir, data=data)

  changed.train.resume = "restart"
  results = run_experiment(changed, workdir, data=data)
  assert results["config"]["loss_weights"]["answer_margin"] == 1.0
  assert '"learning_rate": 0.01' in (tmp_path / "run" / "config.json").read_text()


def test_more_epochs_resume_the_same_run(tmp_path, data, ffnn_run):
  cfg = synthetic.config("ffnn", epochs=2)
  _copy(ffnn_run, tmp_path)  # run_experiment(cfg, str(tmp_path), data=data)
  cfg.train.epochs = 3
  results = run_experiment(cfg, str(tmp_path), data=data)
  assert "resumed from epoch 1" in (tmp_path / "log.txt").read_text()
  cell = results["cells"][0]
  assert len(cell["history"]["dev_accuracy"]) == 3
  assert set(cell["history"]["train"]) == {"loss", "answer_margin"}


def _largest_data_file(step_dir):
  files = [os.path.join(r, f) for r, _, fs in os.walk(step_dir / "state")
           for f in fs]
  return max(files, key=os.path.getsize)


def test_bit_damage_in_a_checkpoint_falls_back_to_an_older_step(
    tmp_path, data, ffnn_run_keeping_2):
  cfg = synthetic.config("ffnn", epochs=3)
  cfg.train.keep_checkpoints = 2
  full = run_experiment(cfg, str(tmp_path / "ref"), data=data)
  work = tmp_path / "run"
  cfg.train.epochs = 2
  _copy(ffnn_run_keeping_2, work)  # run_experiment(cfg, str(work), data=data)
  steps = sorted(os.listdir(work / "checkpoints"))
  assert steps == ["0", "1"]
  path = _largest_data_file(work / "checkpoints" / "1")
  raw = bytearray(open(path, "rb").read())
  for i in range(len(raw) // 2, len(raw) // 2 + 64):
    raw[i] ^= 0xFF
  open(path, "wb").write(bytes(raw))
  cfg.train.epochs = 3
  resumed = run_experiment(cfg, str(work), data=data)
  log = (work / "log.txt").read_text()
  # Where the flipped bytes land depends on how orbax laid out the file
  # (its writes run concurrently): inside a compressed chunk the reader
  # fails; in raw bytes only the digest can tell. Both must quarantine.
  assert re.search(r"checkpoint step 1 in \S+ is damaged \((its bytes do "
                   r"not match the saved digest|unreadable state: )", log), log
  assert "resumed from epoch 0" in log
  assert os.listdir(tmp_path / "run" / "checkpoints-quarantine")
  # Epochs 1-2 retrained from the intact epoch 0 give the reference run.
  assert _cells(resumed) == _cells(full)
  assert sorted(os.listdir(work / "checkpoints")) == ["1", "2"]


def test_digest_mismatch_falls_back_to_an_older_step(tmp_path, data,
                                                     monkeypatch,
                                                     ffnn_run_keeping_2):
  """Damage the reader cannot see (the bytes decode, but are not those
  saved) is caught by the digest: the newest step's restored state gets a
  wrong digest once."""
  from blm_jax.training import checkpoints
  cfg = synthetic.config("ffnn", epochs=2)
  cfg.train.keep_checkpoints = 2
  _copy(ffnn_run_keeping_2, tmp_path)  # run_experiment(cfg, str(tmp_path), ...)
  real, calls = checkpoints.digest, []

  def digest_once_wrong(state):
    calls.append(1)
    return "0" * 64 if len(calls) == 1 else real(state)

  monkeypatch.setattr(checkpoints, "digest", digest_once_wrong)
  cfg.train.epochs = 3
  run_experiment(cfg, str(tmp_path), data=data)
  log = (tmp_path / "log.txt").read_text()
  assert re.search(r"checkpoint step 1 in \S+ is damaged \(its bytes do not "
                   r"match the saved digest\); moved to", log), log
  assert "resumed from epoch 0" in log


def test_structure_mismatch_is_an_error_not_a_fresh_start(tmp_path, data):
  from blm_jax.training import checkpoints
  cfg = synthetic.config("ffnn", epochs=1)
  run_experiment(cfg, str(tmp_path), data=data)
  cfg.model.hidden_factor = 3.0
  cfg.train.resume = "force"  # past the config check: the state must say it
  with pytest.raises(checkpoints.CheckpointMismatchError,
                     match=r"step 0 holds a state of another structure .*"
                     r"layer1.*\[4, 32, 16\] -> \[4, 32, 24\]"):
    run_experiment(cfg, str(tmp_path), data=data)
  assert os.listdir(tmp_path / "checkpoints") == ["0"]


def test_one_checkpoint_is_kept_by_default(tmp_path, data):
  cfg = synthetic.config("ffnn", epochs=3)
  run_experiment(cfg, str(tmp_path), data=data)
  assert os.listdir(tmp_path / "checkpoints") == ["2"]
