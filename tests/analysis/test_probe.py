"""Restoring a finished run and probing it reproduces its test predictions."""

import numpy as np
import pytest

from blm_jax.analysis import restore as probe
from blm_jax.data.sentence_table import build_sentence_table
from blm_jax.results.experiment import run_experiment
from data_builders.common import loading as data_lib
from tests import synthetic


@pytest.mark.slow
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


def _short_answer_sets(d_fn):
  """The synthetic data with every other instance's last wrong candidate
  dropped, so candidate sets are padded (the mask matters)."""
  import dataclasses

  parts, vectors = {}, {}
  for k, t in enumerate(("I", "II")):
    for split, n in (("train", 40), ("dev", 20), ("test", 30)):
      insts, vecs = synthetic.instances(n, t, k * 10 + len(split))
      vectors.update(vecs)
      out = []
      for i, x in enumerate(insts):
        if i % 2:
          drop = max(j for j in range(len(x.answers)) if j != x.correct)
          keep = [j for j in range(len(x.answers)) if j != drop]
          x = dataclasses.replace(
              x, answers=tuple(x.answers[j] for j in keep),
              labels=tuple(x.labels[j] for j in keep), raw_labels=(),
              correct=keep.index(x.correct))
        out.append(x)
      parts[t, split] = out
  return d_fn(parts, lambda s: np.stack([vectors[x] for x in s]))


@pytest.mark.slow
def test_probe_scores_with_the_candidate_mask(tmp_path):
  """Probing scores candidates as evaluation does: with the 'normalized'
  score, padded candidates are left out of the normalization."""
  import jax
  import jax.numpy as jnp

  from blm_jax.data import input_pipeline
  from blm_jax.models import losses

  d = _short_answer_sets(input_pipeline.from_parts)
  assert not d.test["I"].answer_mask.all()
  cfg = synthetic.config("ffnn", epochs=1, seeds=(0,))
  cfg.train.score = "normalized"
  res = run_experiment(cfg, str(tmp_path), data=d)
  run = probe.restore(str(tmp_path), d)
  table = d.test["I"]
  got = run.apply(d.embeddings, table)
  emb = jnp.asarray(d.embeddings)
  cell0 = jax.tree.map(lambda x: x[0], run.params)
  pred = run.model.apply(cell0, emb[table.context], table.context_mask,
                         False).pred
  mask = jnp.asarray(table.answer_mask)
  want = jnp.where(mask, losses.score(pred, emb[table.answers], "normalized",
                                      mask), -jnp.inf)
  np.testing.assert_allclose(got["scores"][0], np.asarray(want), rtol=1e-5,
                             atol=1e-6)
  acc = float(np.mean(got["pred"][0] == table.correct))
  assert acc == pytest.approx(res["cells"][0]["test"]["I"]["accuracy"])
