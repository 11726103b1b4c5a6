"""A run that fails while loading its data leaves no half-made workdir, and
never touches a workdir that was already there."""

import os

import pytest

from blm_jax.training import trainer as train
from tests import release_fixtures, synthetic

pytestmark = pytest.mark.slow


def _published_config(tmp_path, manual_dir):
  cfg = synthetic.config("ffnn", epochs=1, seeds=(0,), types=("I",))
  cfg.data.name = "blm_published/folder"
  cfg.data.manual_dir = str(manual_dir)
  cfg.data.data_dir = str(tmp_path / "tfds")
  return cfg


def _snapshot(folder):
  return {os.path.relpath(os.path.join(d, f), folder):
          open(os.path.join(d, f), "rb").read()
          for d, _, fs in os.walk(folder) for f in fs}


def test_failed_data_load_leaves_no_workdir(tmp_path):
  work = tmp_path / "work"
  # A dataset name that does not exist.
  cfg = synthetic.config("ffnn", epochs=1, seeds=(0,), types=("I",))
  cfg.data.name = "blm_no_such_family/x_type_{}"
  cfg.data.data_dir = str(tmp_path / "tfds")
  with pytest.raises(Exception, match="blm_no_such_family"):
    train.train_and_evaluate(cfg, str(work))
  assert not work.exists()

  # A release folder that is not there (manual_dir).
  cfg = _published_config(tmp_path, tmp_path / "no_release")
  with pytest.raises(Exception, match="no_release"):
    train.train_and_evaluate(cfg, str(work))
  assert not work.exists()

  # The data builds, but embedding it fails.
  release = tmp_path / "release"
  release_fixtures.write_release(release / "all.tsv",
                                 release_fixtures.release_rows(40))
  cfg = _published_config(tmp_path, release)

  def broken_encoder(sentences):
    raise RuntimeError(f"encoder died after {len(sentences)} sentences")

  with pytest.raises(RuntimeError, match="encoder died"):
    train.train_and_evaluate(cfg, str(work), embed_fn=broken_encoder)
  assert not work.exists()

  # A workdir that was there before is left exactly as it was.
  work.mkdir()
  (work / "notes.txt").write_text("my notes")
  before = _snapshot(work)
  with pytest.raises(RuntimeError, match="encoder died"):
    train.train_and_evaluate(cfg, str(work), embed_fn=broken_encoder)
  assert _snapshot(work) == before
