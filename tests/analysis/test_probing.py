"""Probing analyses (blm_jax.analysis.probing) and the probe CLI on tiny trained runs."""

import hashlib
import json
import os
import sys

import jax
import numpy as np
import pytest
from absl import flags

from blm_jax.analysis import probe_figures, probing, restore as probe
from blm_jax.data import input_pipeline
from blm_jax.data.sentence_table import build_sentence_table
from blm_jax.results.experiment import run_experiment
from blm_jax.study import table5
from tests import synthetic
from blm_jax.cli import probe as probe_cli

@pytest.fixture(scope="module")
def vae2_run(tmp_path_factory):
  workdir = str(tmp_path_factory.mktemp("vae2"))
  d = synthetic.data(n_train=60, n_dev=20, n_test=30)
  run_experiment(synthetic.config("vae2", epochs=2, seeds=(0, 1)), workdir,
                 data=d)
  return workdir, d


@pytest.fixture(scope="module")
def sent_vae_run(tmp_path_factory):
  workdir = str(tmp_path_factory.mktemp("sent_vae"))
  d = synthetic.chunk_data()
  c = synthetic.config("sent_vae", epochs=3, seeds=(0, 1), types=("chunks",))
  c.data.name = "blm_chunks/spray_load_ALT-ATL"
  res = run_experiment(c, workdir, data=d)
  return workdir, d, res


def _tree_hash(workdir):
  h = {}
  for root, dirs, files in os.walk(workdir):
    dirs[:] = sorted(d for d in dirs if os.path.join(root, d) !=
                     os.path.join(workdir, "probe"))
    for name in files:
      path = os.path.join(root, name)
      with open(path, "rb") as f:
        h[os.path.relpath(path, workdir)] = hashlib.sha256(f.read()).hexdigest()
    for d in dirs:
      h[os.path.relpath(os.path.join(root, d), workdir) + "/"] = "dir"
  return h


# ---- Pure functions --------------------------------------------------------

def test_confusion_rows_sum_to_counts_and_diagonal_is_accuracy():
  d = synthetic.chunk_data(n_test=12)
  table = d.test["chunks"]
  rng = np.random.default_rng(3)
  pred = table.correct.copy()
  wrong = rng.permutation(table.num_instances)[:5]
  pred[wrong] = (table.correct[wrong] + 1) % table.answers.shape[1]
  true, chosen = probing.confusion_keys("sent_vae", table, pred)
  names, m = probing.confusion_matrix(true, chosen,
                                      probing.key_names("sent_vae", table))
  assert names == sorted(synthetic.PATTERNS)
  for i, p in enumerate(names):
    assert m[i].sum() == true.count(p) == 3
  assert np.trace(m) == np.sum(pred == table.correct) == 7
  # Label level (vae2/ffnn/cnn): one row, the correct answers' label.
  true, chosen = probing.confusion_keys("ffnn", table, pred)
  names, m = probing.confusion_matrix(true, chosen,
                                      probing.key_names("ffnn", table))
  assert m[names.index("POS")].sum() == table.num_instances
  assert m[names.index("POS"), names.index("POS")] == 7
  assert m[names.index("POS"), names.index("NEG")] == 5
  with pytest.raises(ValueError, match=r"keys \['X'\] are not among"):
    probing.confusion_matrix(["X"], ["POS"], ["POS", "NEG"])


def test_traversal_values_span_min_max():
  lat = np.array([[0.0, -2.0], [1.0, 4.0], [0.5, 1.0]])
  v = probing.traversal_values(lat, 10)
  assert v.shape == (2, 10)
  np.testing.assert_allclose(v[:, 0], [0.0, -2.0])
  np.testing.assert_allclose(v[:, -1], [1.0, 4.0])
  assert np.all(np.diff(v, axis=1) > 0)
  with pytest.raises(ValueError, match="must be \\[N, L\\] with N > 0"):
    probing.traversal_values(np.zeros((0, 3)))


def test_pca_separates_planted_clusters():
  rng = np.random.default_rng(0)
  direction = rng.normal(size=12)
  direction /= np.linalg.norm(direction)
  groups = np.array(["a"] * 50 + ["b"] * 50)
  x = rng.normal(size=(100, 12)) * 0.3
  x[groups == "b"] += 4 * direction
  pts, ratio = probing.pca_2d(x)
  first = pts[:, 0]
  assert (first[groups == "a"].max() < first[groups == "b"].min()
          or first[groups == "b"].max() < first[groups == "a"].min())
  assert ratio[0] > 0.5
  assert probing.nearest_centroid_accuracy(pts, groups) == 1.0
  # No planted structure: the same score is near chance.
  shuffled = rng.permutation(groups)
  pts, _ = probing.pca_2d(rng.normal(size=(100, 12)))
  assert probing.nearest_centroid_accuracy(pts, shuffled) < 0.8


# ---- Restored runs ---------------------------------------------------------

@pytest.mark.slow
def test_vae2_sentence_latents_and_traversal_range(vae2_run):
  workdir, d = vae2_run
  run = probe.restore(workdir, d)
  out = run.apply(d.embeddings, d.test["II"])
  assert out["sentence_latent"].shape == (4, 30, 4, 5)
  assert out["latent"].shape == (4, 30, 5)
  # Sentence latents are per sentence: different sentences, different rows.
  assert np.abs(out["sentence_latent"][0, 0, 0]
                - out["sentence_latent"][0, 0, 1]).max() > 1e-4
  # encode_latent is the latent evaluation decodes (the task latent mean).
  table = d.test["II"]
  emb = d.embeddings
  cell0 = jax.tree.map(lambda x: x[0], run.params)
  z = run.model.apply(cell0, emb[table.context], table.context_mask,
                      method="encode_latent")
  np.testing.assert_allclose(z, out["latent"][0], rtol=1e-5, atol=1e-6)
  res = json.load(open(os.path.join(workdir, "results.json")))
  for i, c in enumerate(res["cells"]):
    if c["train_type"] == "II":
      acc = np.mean(out["pred"][i] == d.test["II"].correct)
      assert acc == pytest.approx(c["test"]["II"]["accuracy"])
  result = probing.analyze(workdir, ("traversal",), data=d, steps=4)
  for t in ("I", "II"):
    lat = run.apply(d.embeddings, d.train[t])["latent"]
    for i, name in enumerate(run.cell_names):
      if name.endswith(f"train={t}"):
        values = np.asarray(result["traversal"]["train_types"][t]["cells"]
                            [name]["values"])
        assert values.shape == (5, 4)
        np.testing.assert_allclose(values[:, 0], lat[i].min(axis=0),
                                   rtol=1e-6)
        np.testing.assert_allclose(values[:, -1], lat[i].max(axis=0),
                                   rtol=1e-6)
        # The context-free answer: every instance decodes the mean latent.
        z = np.broadcast_to(lat.mean(axis=1)[:, None], (4, 30, 5))
        own = "I" if t == "I" else "II"
        table = d.test[own]
        expect = np.mean(run.decode(np.ascontiguousarray(z), d.embeddings,
                                    table)[i] == table.correct)
        assert result["traversal"]["train_types"][t]["cells"][name][
            "mean_latent_accuracy"] == pytest.approx(expect)


@pytest.mark.slow
def test_probing_never_mutates_the_workdir(vae2_run):
  workdir, d = vae2_run
  # A killed save's leftover: a writing checkpoint manager would delete it.
  ckpt = os.path.join(workdir, "checkpoints")
  step = sorted(os.listdir(ckpt))[0]
  leftover = os.path.join(ckpt, f"{int(step) + 5}.orbax-checkpoint-tmp-1")
  os.makedirs(leftover, exist_ok=True)
  with open(os.path.join(leftover, "x"), "w") as f:
    f.write("partial")
  before = _tree_hash(workdir)
  probing.analyze(workdir, ("confusion", "projection"), data=d)
  assert _tree_hash(workdir) == before
  assert os.path.exists(os.path.join(workdir, "probe", "probe.json"))


@pytest.mark.slow
def test_cli_writes_three_figures_and_json(sent_vae_run, monkeypatch):
  workdir, d, res = sent_vae_run
  monkeypatch.setattr(probing.input_pipeline, "load", lambda *a, **k: d)
  fv = probe_cli.define_flags(flags.FlagValues())
  fv(["probe", f"--workdir={workdir}",
      "--analysis=confusion,traversal,projection"])
  probe_cli.main(["probe"], fv)
  out = os.path.join(workdir, "probe")
  for name in ("confusion.png", "traversal.png", "projection.png"):
    with open(os.path.join(out, name), "rb") as f:
      assert f.read(8) == b"\x89PNG\r\n\x1a\n", name
  result = json.load(open(os.path.join(out, "probe.json")))
  assert result["level"].startswith("pattern")
  conf = result["confusion"]["chunks"]
  assert conf["names"] == sorted(synthetic.PATTERNS)
  agg = np.asarray(conf["train_types"]["chunks"]["matrix"])
  # Two seeds summed: each pattern row holds 2 x 10 test inputs; only the
  # positive shares the input's pattern, so the diagonal is the accuracy.
  assert agg.sum(axis=1).tolist() == [20, 20, 20, 20]
  acc = res["summary"]["chunks"]["chunks"]["accuracy_mean"]
  assert np.trace(agg) / agg.sum() == pytest.approx(acc)
  trav = result["traversal"]["train_types"]["chunks"]
  summed = np.asarray(trav["seeds_summed"]["matrices"])
  assert summed.shape == (5, 10, 4, 4)
  assert summed.sum(axis=(2, 3)).tolist() == [[80] * 10] * 5
  assert trav["seeds_summed"]["base_accuracy"] == pytest.approx(acc)
  for c in res["cells"]:
    cell = trav["cells"][f"seed={c['seed']},train=chunks"]
    assert cell["base_accuracy"] == pytest.approx(
        c["test"]["chunks"]["accuracy"])
    assert np.asarray(cell["matrices"]).sum(axis=(2, 3)).tolist() == (
        [[40] * 10] * 5)
  (key, proj), = result["projection"].items()
  assert proj["groups"] == 4 and proj["points"] == 40


def test_traversal_refuses_models_without_a_decoder(tmp_path):
  # Refused from config.json alone, before any data is loaded.
  with open(tmp_path / "config.json", "w") as f:
    f.write(synthetic.config("ffnn").to_json())
  with pytest.raises(ValueError, match="traversal needs a run of .* holds a "
                     "'ffnn' run"):
    probing.analyze(str(tmp_path), ("traversal",))
  with pytest.raises(ValueError, match=r"unknown --analysis \['umap'\]"):
    probing.analyze(str(tmp_path), ("umap",))


@pytest.mark.slow
def test_tsne_projection(sent_vae_run, monkeypatch):
  workdir, d, _ = sent_vae_run
  result = probing.analyze(workdir, ("tsne",), data=d)
  (key, proj), = result["tsne"].items()
  assert proj["method"] == "t-SNE" and proj["groups"] == 4
  assert proj["points"] == 40 and 0 <= proj["nearest_centroid_accuracy"] <= 1
  with open(os.path.join(workdir, "probe", "tsne.png"), "rb") as f:
    assert f.read(8) == b"\x89PNG\r\n\x1a\n"
  # Above the cap, a fixed subsample: the same points every time.
  s = {"x": np.arange(50.0)[:, None], "groups": [str(i % 3) for i in range(50)]}
  monkeypatch.setattr(probing, "TSNE_MAX_POINTS", 20)
  a, b = probing.project(s, "tsne"), probing.project(s, "tsne")
  assert len(a["x"]) == 20 and a["groups"] == b["groups"]
  np.testing.assert_array_equal(a["points"], b["points"])
  monkeypatch.setitem(sys.modules, "sklearn.manifold", None)
  with pytest.raises(ImportError, match=r"--analysis=tsne needs "
                     r"scikit-learn: pip install -e '.\[probe\]'"):
    probing.tsne_2d(np.zeros((5, 2)))


@pytest.mark.slow
def test_table5_from_chunk_runs(sent_vae_run, vae2_run, tmp_path):
  workdir, _, res = sent_vae_run
  report = table5.write_table5([workdir], str(tmp_path))
  cell = res["summary"]["chunks"]["chunks"]
  assert report["ours"]["spray_load_ALT-ATL"]["f1"] == cell["f1_mean"]
  md = open(tmp_path / "table5.md").read()
  rows = {line.split("|")[1].strip(): line.split("|")[2:-1]
          for line in md.splitlines()
          if line.startswith("| ") and not line.startswith("| ---")}
  # The report's rendering: one row per run, the paper's value beside ours.
  assert [c.strip() for c in rows["Spray-load ALT-ATL"]] == [
      "0.951 (0.006)", f"{cell['f1_mean']:.3f} ({cell['f1_std']:.3f})",
      str(len(res["grid"]["seeds"]))]
  assert set(rows) == {"data", "Spray-load ALT-ATL"}  # only what ran
  with pytest.raises(ValueError, match="Table 5 needs sent_vae runs"):
    table5.table5([vae2_run[0]])


def test_confusion_cells_carry_their_fraction_and_count(
    tmp_path, saved_figures):
  made = saved_figures
  m = np.array([[6, 2, 0], [0, 0, 0], [1, 0, 3]])
  probe_figures.plot_confusions([("train I", ["Corr", "WNA", "WN1"], m)],
                                str(tmp_path / "c.png"), "t")
  texts = {t.get_text() for t in made[0].axes[0].texts}
  assert texts == {"0.75\n6", "0.25\n2", "0.25\n1", "0.75\n3"}
  assert made[0].axes[0].get_ylabel() == "true"


def test_projection_colours_are_the_same_in_every_panel(
    tmp_path, saved_figures):
  made = saved_figures
  rng = np.random.default_rng(0)
  panel = lambda groups: {
      "groups": groups, "points": rng.normal(size=(len(groups), 2)),
      "title": "p", "method": "pca", "nearest_centroid_accuracy": 0.5}
  probe_figures.plot_projections(
      [panel(["b", "c", "b"]), panel(["a", "c", "a"])],
      str(tmp_path / "p.png"), "t", cols=2)
  colour = lambda ax: {c.get_label(): tuple(c.get_facecolor()[0])
                       for c in ax.collections}
  left, right = colour(made[0].axes[0]), colour(made[0].axes[1])
  assert left["c"] == right["c"]
  assert len({left["b"], right["a"], left["c"]}) == 3
