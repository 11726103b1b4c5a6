"""Context-free baselines catch a planted cue and stay near chance without.

The data: 4 candidates per instance, random embeddings and random word
strings; with a cue the correct candidate's embedding has a marker dimension
and its text a marker word. Chance is 1/4.
"""

import numpy as np
import pytest

from blm_jax.data import input_pipeline
from blm_jax.data.context_free import scorers
from blm_jax.results import context_free
from data_builders.common import schema

DIM = 16
NUM_ANSWERS = 4
CHANCE = 1 / NUM_ANSWERS
VOCAB = tuple(f"w{i}" for i in range(40))
SETTINGS = context_free.MLPSettings(hidden=32, steps=200)


def _instances(n, split, rng, vectors, cue):
  out = []
  for i in range(n):
    key = f"{split}-{i}"
    ctx = tuple(schema.Sentence(f"{key} c{j}", "P") for j in range(3))
    correct = int(rng.integers(NUM_ANSWERS))
    answers = []
    for j in range(NUM_ANSWERS):
      words = list(rng.choice(VOCAB, 5))
      v = rng.normal(size=DIM)
      if cue and j == correct:
        words.insert(2, "marker")
        v[0] += 4.0
      text = f"{key} a{j} " + " ".join(words)
      vectors[text] = v
      answers.append(schema.Sentence(text, "x"))
    for s in ctx:
      vectors[s.text] = rng.normal(size=DIM)
    out.append(schema.BLMInstance(
        id=key, family="toy", language="en", lexical_type="I", subset="toy",
        context=ctx, answers=tuple(answers), correct=correct,
        labels=tuple("CORRECT" if j == correct else "WRONG"
                     for j in range(NUM_ANSWERS))))
  return out


def _data(cue: bool, seed: int = 0) -> input_pipeline.BLMData:
  rng = np.random.default_rng(seed)
  vectors, parts = {}, {}
  for t in ("I", "II"):
    # Train sizes differ, so the stacked MLP fit pads one type.
    n_train = 200 if t == "I" else 150
    for split, n in (("train", n_train), ("dev", 10), ("test", 200)):
      parts[t, split] = _instances(n, f"{t}{split}", rng, vectors, cue)
  return input_pipeline.from_parts(
      parts, lambda sents: np.stack([vectors[s] for s in sents]))


def _summary(f1, types=("I", "II")):
  return {t: {u: {"f1_mean": f1} for u in types} for t in types}


@pytest.fixture(scope="module")
def with_cue():
  return context_free.context_free(_data(cue=True), _summary(1.0),
                                   ("I", "II"), ("I", "II"), SETTINGS)


@pytest.fixture(scope="module")
def without_cue():
  return context_free.context_free(_data(cue=False), _summary(0.9),
                                   ("I", "II"), ("I", "II"), SETTINGS)


@pytest.mark.slow
def test_a_planted_cue_is_caught(with_cue):
  for t in ("I", "II"):
    for u in ("I", "II"):
      cell = with_cue[t][u]
      assert cell["candidate_mlp"] > 0.9, cell
      assert cell["word_logit"] > 0.9, cell
      assert cell["best"] == max(cell[b] for b in context_free.BASELINES)
      assert cell["context_gain"] == pytest.approx(1.0 - cell["best"])


def test_without_a_cue_every_baseline_is_near_chance(without_cue):
  for t in ("I", "II"):
    for u in ("I", "II"):
      cell = without_cue[t][u]
      for b in context_free.BASELINES:
        # 200 test instances: 3 binomial standard errors are about 0.09.
        assert abs(cell[b] - CHANCE) < 0.1, (b, cell)
      assert cell["context_gain"] == pytest.approx(0.9 - cell["best"])


def test_results_have_every_key(with_cue):
  assert set(with_cue) == {"I", "II"}
  for row in with_cue.values():
    assert set(row) == {"I", "II"}
    for cell in row.values():
      assert set(cell) == {*context_free.BASELINES, "best", "best_baseline",
                           "context_gain"}
      assert cell["best_baseline"] in context_free.BASELINES


def test_odd_one_in_picks_the_centre_of_minimal_variants():
  # Every wrong answer is the correct one with one word changed.
  base = "the farmer loaded the truck with hay".split()
  swaps = [(1, "girl"), (2, "sprayed"), (4, "wall"), (6, "paint")]
  rows, rng = [], np.random.default_rng(0)
  for i in range(50):
    wrong = [" ".join(base[:k] + [w] + base[k + 1:]) for k, w in swaps[:3]]
    answers = wrong + [" ".join(base)]
    order = rng.permutation(len(answers))
    rows.append(([answers[k] for k in order], int(np.argmax(order == 3))))
  table = _table(rows)
  assert scorers.odd_one_in_accuracy(table, table.sentences) == 1.0


def test_odd_one_in_is_near_chance_on_unrelated_candidates():
  data = _data(cue=False)
  assert abs(scorers.odd_one_in_accuracy(data.test["I"],
                                         data.table.sentences)
             - CHANCE) < 0.1


def _table(rows):
  from blm_jax.data.sentence_table import build_sentence_table

  insts = [schema.BLMInstance(
      id=f"x{i}", family="toy", language="en", lexical_type="I",
      subset="toy", context=(schema.Sentence("c", "P"),),
      answers=tuple(schema.Sentence(a, "x") for a in answers),
      correct=correct, labels=("x",) * len(answers))
      for i, (answers, correct) in enumerate(rows)]
  return build_sentence_table(insts)


def test_the_mlp_is_deterministic_and_fits_each_type_as_alone():
  data = _data(cue=True, seed=1)
  both = context_free.candidate_mlp_accuracy(
      data.embeddings, {t: data.train[t] for t in ("I", "II")},
      {"I": data.test["I"]}, SETTINGS)
  again = context_free.candidate_mlp_accuracy(
      data.embeddings, {t: data.train[t] for t in ("I", "II")},
      {"I": data.test["I"]}, SETTINGS)
  alone = context_free.candidate_mlp_accuracy(
      data.embeddings, {"II": data.train["II"]}, {"I": data.test["I"]},
      SETTINGS)
  assert both == again
  assert both["II"]["I"] == pytest.approx(alone["II"]["I"], abs=0.01)


@pytest.fixture(scope="module")
def outcome(tmp_path_factory):
  from blm_jax.training import trainer
  from tests import synthetic

  cfg = synthetic.config("ffnn", epochs=2, seeds=(0,))
  cfg.results.context_free = True
  return cfg, trainer.train_and_evaluate(
      cfg, str(tmp_path_factory.mktemp("run")), data=_data(cue=True))


@pytest.mark.slow
def test_results_json_and_heatmap_carry_the_baselines(outcome, tmp_path,
                                                     monkeypatch):
  import json

  from blm_jax.results import plots, report

  cfg, out = outcome
  drawn = []
  real_heatmap = plots.heatmap
  monkeypatch.setattr(plots, "heatmap", lambda *a, **k: (
      drawn.append(("f1", k.get("context_free"))), real_heatmap(*a, **k)))
  report.write_report(cfg, str(tmp_path), out)
  res = json.loads((tmp_path / "results.json").read_text())
  free = res["context_free"]
  for t in ("I", "II"):
    for u in ("I", "II"):
      cell = free[t][u]
      assert cell["word_logit"] > 0.9 and cell["candidate_mlp"] > 0.9
      assert cell["context_gain"] == pytest.approx(
          res["summary"][t][u]["f1_mean"] - cell["best"])
  assert drawn == [("f1", free)]
  assert "context-free train I: test I best 1.000" in (
      tmp_path / "log.txt").read_text()
  assert (tmp_path / "heatmap.png").stat().st_size > 0


@pytest.mark.slow
def test_the_context_gain_heatmap_is_drawn(outcome, tmp_path, monkeypatch):
  from blm_jax.results import plots, report

  cfg, out = outcome
  cfg = cfg.copy_and_resolve_references()
  cfg.results.heatmap = "context_gain"
  drawn = []
  real_gain = plots.context_gain
  monkeypatch.setattr(plots, "context_gain", lambda free, *a, **k: (
      drawn.append(free["I"]["II"]["context_gain"]),
      real_gain(free, *a, **k)))
  res = report.write_report(cfg, str(tmp_path), out)
  assert drawn == [res["context_free"]["I"]["II"]["context_gain"]]
  assert (tmp_path / "heatmap.png").stat().st_size > 0


@pytest.mark.slow
def test_the_baselines_can_be_switched_off(outcome, tmp_path):
  from blm_jax.results import report

  cfg, out = outcome
  cfg = cfg.copy_and_resolve_references()
  cfg.results.context_free = False
  assert "context_free" not in report.write_report(cfg, str(tmp_path), out)
  assert (tmp_path / "heatmap.png").stat().st_size > 0
  cfg.results.heatmap = "context_gain"
  (tmp_path / "gain").mkdir()
  with pytest.raises(ValueError, match="config.results.context_free=True"):
    report.write_report(cfg, str(tmp_path / "gain"), out)
  assert not list((tmp_path / "gain").iterdir())  # Nothing half-written.


@pytest.mark.slow
def test_a_second_report_reads_the_baselines_from_the_cache(
    outcome, tmp_path, monkeypatch):
  from blm_jax.results import report

  calls = []
  monkeypatch.setattr(context_free, "baseline_scores", lambda d, ts, us, s: (
      calls.append(s), {t: {u: dict.fromkeys(context_free.BASELINES, 0.5)
                            for u in us} for t in ts})[1])
  cfg, out = outcome
  cfg = cfg.copy_and_resolve_references()
  cfg.results.context_free_cache = str(tmp_path / "cf")
  logs = []
  for run in ("a", "b"):
    (tmp_path / run).mkdir()
    res = report.write_report(cfg, str(tmp_path / run), out)
    assert res["context_free"]["I"]["II"]["best"] == 0.5
    logs.append((tmp_path / run / "log.txt").read_text())
  assert len(calls) == 1
  (path,) = (tmp_path / "cf").iterdir()
  assert "read from the cache" not in logs[0]
  assert f"context-free baselines read from the cache: {path}" in logs[1]


def test_results_keys_are_checked_and_left_out_of_the_run_identity():
  from blm_jax.training import config_check, config_defaults, run_identity
  from tests import synthetic

  cfg = config_defaults.default_config("ffnn")
  assert cfg.results.context_free is True and cfg.results.heatmap == "f1"
  # Type-safe fields refuse a str for a bool: a config.json could hold one.
  # (Types are checked first, alone: a later check may rely on them.)
  cfg.results = {"heatmap": "f1", "context_free": "yes",
                 "figure_formats": "png", "context_free_cache": "auto",
                 "gold_ceiling": True, "tensorboard": True}
  assert "config.results.context_free='yes'" in "\n".join(
      config_check.problems(cfg))
  cfg.results = {"heatmap": "gain", "context_free": True,
                 "figure_formats": "png", "context_free_cache": "auto",
                 "gold_ceiling": True, "tensorboard": True}
  assert "config.results.heatmap='gain' is not known" in "\n".join(
      config_check.problems(cfg))
  cfg.results = {"heatmap": "context_gain", "context_free": False,
                 "figure_formats": "png", "context_free_cache": "auto",
                 "gold_ceiling": True, "tensorboard": True}
  assert config_check.problems(cfg) == [
      "config.results.heatmap='context_gain' needs the context-free "
      "baselines: config.results.context_free=True"]
  cfg.results = {"heatmap": "f1", "context_free": True,
                 "figure_formats": "png,gif", "context_free_cache": "auto",
                 "gold_ceiling": True, "tensorboard": True}
  assert config_check.problems(cfg) == [
      "config.results.figure_formats='gif' is not known; expected one of "
      "'png', 'svg', 'pdf'"]
  cfg.results = {"heatmap": "f1", "context_free": True,
                 "figure_formats": "png", "context_free_cache": "auto",
                 "gold_ceiling": "yes", "tensorboard": True}
  assert "config.results.gold_ceiling='yes'" in "\n".join(
      config_check.problems(cfg))
  data = synthetic.data(n_train=10, n_dev=4, n_test=4)
  a = synthetic.config("ffnn")
  b = a.copy_and_resolve_references()
  b.results.heatmap = "context_gain"
  b.results.context_free = False
  assert run_identity.fingerprint(a, data) == run_identity.fingerprint(
      b, data)


def test_the_cross_fitted_probe_finds_a_cue_and_stays_near_chance_without():
  from blm_jax.data.sentence_table import build_sentence_table

  for cue, check in ((True, lambda a: a > 0.9),
                     (False, lambda a: abs(a - CHANCE) < 0.1)):
    rng = np.random.default_rng(3)
    vectors = {}
    xs = _instances(400, "p", rng, vectors, cue)
    table = build_sentence_table(xs)
    emb = np.stack([vectors.get(s, np.zeros(DIM)) for s in table.sentences])
    folds = np.array([i % 2 for i in range(len(xs))])
    acc = context_free.cross_fitted_mlp_accuracy(emb, table, folds, SETTINGS)
    assert check(acc), (cue, acc)
  with pytest.raises(ValueError, match="both folds"):
    context_free.cross_fitted_mlp_accuracy(emb, table, np.zeros(len(xs)),
                                           SETTINGS)
