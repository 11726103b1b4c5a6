"""Restoring a finished run and probing it reproduces its test predictions."""

import numpy as np
import pytest

from blm_jax.analysis import restore as probe
from blm_jax.data.sentence_table import build_sentence_table
from blm_jax.results.experiment import run_experiment
from data_builders.common import loading as data_lib
from tests import synthetic


def test_probe_reproduces_results(tmp_path, monkeypatch):
  d = synthetic.data(n_train=60, n_dev=20, n_test=30)
  cfg = synthetic.config("vae2", epochs=2, seeds=(0, 1))
  res = run_experiment(cfg, str(tmp_path), data=d)
  # Serve the synthetic test split of type II as if it were a TFDS dataset.
  insts = synthetic.instances(30, "II", 0 * 1000 + 1 * 10 + 4)[0]
  assert build_sentence_table(insts).num_instances == 30
  monkeypatch.setattr(data_lib, "load_instances", lambda *a, **k: insts)
  vectors = synthetic.instances(30, "II", 14)[1]
  cells = probe.predict(str(tmp_path), "synthetic_II", embed_fn=lambda s:
                        np.stack([vectors[x] for x in s]).astype(np.float32))
  assert set(cells) == {"seed=0,train=I", "seed=0,train=II",
                        "seed=1,train=I", "seed=1,train=II"}
  for i, c in enumerate(res["cells"]):
    got = cells[f"seed={c['seed']},train={c['train_type']}"]
    acc = float(np.mean(got["pred"] == got["correct"]))
    assert acc == pytest.approx(c["test"]["II"]["accuracy"])
    assert got["latent"].shape == (30, 5)
    assert got["sentence_latent"].shape == (30, 4, 5)  # [N, C, latent]
    assert got["scores"].shape == (30, 4)


def test_probe_missing_workdir(tmp_path):
  with pytest.raises(FileNotFoundError, match="is not a workdir written by"):
    probe.predict(str(tmp_path / "nothing"), "x")


def test_probe_refuses_a_run_with_variant_cells(tmp_path):
  """Control and layer-sweep cells read other embedding tables: probing
  them through the real table would be silently wrong."""
  import json

  from configs import ffnn
  c = ffnn.get_config("cpu")
  c.controls = "answer_only"
  (tmp_path / "config.json").write_text(json.dumps(c.to_dict()))
  with pytest.raises(ValueError, match=r"config\.controls: probing reads "
                     r"the real cells of runs without variant cells"):
    probe.restore(str(tmp_path), data=None)  # refused before data is read
