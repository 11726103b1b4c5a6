"""The stages after training, made faster, give the numbers they gave.

The word logits of all train types fitted in one jitted, vmapped scan
(`stacked_logit`) against the numpy fit one at a time; the set features'
edit distances of every answer set in one dynamic programme against one
set at a time; the context-free baselines with the MLP in a thread against
the same scorers run one after another; and a grid run that starts the
baselines beside training reports what a report computing them afterwards
gives.
"""

import numpy as np
import pytest

from blm_jax.base.background import Background
from blm_jax.data import input_pipeline
from blm_jax.data.context_free import (answers_only, scorers, set_features,
                                       set_scorer, stacked_logit)
from blm_jax.results import context_free, experiment, report
from blm_jax.training.progress import Progress
from data_builders.common import schema

VOCAB = tuple(f"w{i}" for i in range(30))


def _answer_sets(n, rng, cue=True, sizes=(4,)):
  """(candidate texts per instance, correct index): random word strings,
  the correct one with a marker word when `cue`; candidate counts drawn
  from `sizes`."""
  answers, correct = [], []
  for i in range(n):
    k = int(rng.choice(sizes))
    c = int(rng.integers(k))
    texts = []
    for j in range(k):
      words = list(rng.choice(VOCAB, int(rng.integers(2, 7))))
      if cue and j == c:
        words.insert(1, "marker")
      texts.append(" ".join(words))
    answers.append(texts)
    correct.append(c)
  return answers, correct


def test_stacked_logits_equal_the_numpy_fit_one_at_a_time():
  rng = np.random.default_rng(0)
  # Different instance counts (padded) and candidate counts (masked).
  batches = [answers_only.batch_texts(*_answer_sets(n, rng, sizes=sizes))
             for n, sizes in ((60, (4,)), (45, (3, 5)), (30, (2, 4)))]
  stacked = stacked_logit.fit_logits(batches, steps=120)
  for b, w in zip(batches, stacked):
    alone = answers_only.fit_logit(b, steps=120)
    assert np.abs(w - alone).max() < 1e-9
    assert answers_only.held_out_accuracy(w, b) == (
        answers_only.held_out_accuracy(alone, b))
  assert stacked_logit.fit_logits([]) == []


def test_edit_distances_of_many_sets_equal_one_set_at_a_time(monkeypatch):
  rng = np.random.default_rng(1)
  answers, _ = _answer_sets(25, rng, sizes=(1, 3, 6))
  answers += [["", "a b"], ["a b c", "c b a", "a c"]]
  sets = [[tuple(answers_only.tokens(t)) for t in texts]
          for texts in answers]
  # Several chunks of pairs, each padded to its own longest sequence.
  monkeypatch.setattr(set_features, "_PAIRS_PER_CHUNK", 7)
  many = set_features.pairwise_edit_distances(sets)
  assert len(many) == len(sets)
  for toks, got in zip(sets, many):
    k = len(toks)
    want = np.array([[set_features.edit_distance(toks[i], toks[j])
                      for j in range(k)] for i in range(k)], float)
    np.testing.assert_array_equal(got, want)
  f = set_features.SetFeaturizer.fit(answers)
  for texts, dense in zip(answers, f.dense_many(answers)):
    np.testing.assert_array_equal(dense, f.dense(texts))


def test_background_returns_the_value_or_raises_the_error():
  assert Background(lambda: 41 + 1).result() == 42

  def fails():
    raise ValueError("scorer broke")

  job = Background(fails)
  with pytest.raises(ValueError, match="scorer broke"):
    job.result()
  assert job.done() and job.seconds >= 0


def _instances(n, split, rng, vectors):
  out = []
  for i in range(n):
    key = f"{split}-{i}"
    ctx = tuple(schema.Sentence(f"{key} c{j}", "P") for j in range(3))
    correct = int(rng.integers(4))
    answers = []
    for j in range(4):
      words = list(rng.choice(VOCAB, 5))
      v = rng.normal(size=8)
      if j == correct:
        words.insert(2, "marker")
        v[0] += 2.0
      text = f"{key} a{j} " + " ".join(words)
      vectors[text] = v
      answers.append(schema.Sentence(text, "x"))
    for s in ctx:
      vectors[s.text] = rng.normal(size=8)
    out.append(schema.BLMInstance(
        id=key, family="toy", language="en", lexical_type="I", subset="toy",
        context=ctx, answers=tuple(answers), correct=correct,
        labels=tuple("CORRECT" if j == correct else "WRONG"
                     for j in range(4))))
  return out


@pytest.fixture(scope="module")
def data():
  rng = np.random.default_rng(2)
  vectors, parts = {}, {}
  for t in ("I", "II"):
    for split, n in (("train", 50 if t == "I" else 40), ("dev", 8),
                     ("test", 40)):
      parts[t, split] = _instances(n, f"{t}{split}", rng, vectors)
  return input_pipeline.from_parts(
      parts, lambda sents: np.stack([vectors[s] for s in sents]))


SETTINGS = context_free.MLPSettings(hidden=8, steps=30)


def _one_after_another(data, types):
  """The baselines as computed before they were vectorised: each scorer
  in turn, the word logits by the numpy fit, the set features one answer
  set at a time."""
  sentences = data.table.sentences
  train = {t: data.train[t] for t in types}
  test = {u: data.test[u] for u in types}
  mlp = context_free.candidate_mlp_accuracy(data.embeddings, train, test,
                                            SETTINGS)
  held = {u: scorers._word_batch(tab, sentences)
          for u, tab in test.items()}
  words = {}
  for t, tab in train.items():
    w = answers_only.fit_logit(scorers._word_batch(tab, sentences))
    words[t] = {u: answers_only.held_out_accuracy(w, b)
                for u, b in held.items()}
  sets = {}
  for t, tab in train.items():
    texts = scorers._answer_texts(tab, sentences)
    featurizer = set_features.SetFeaturizer.fit(texts)
    dense = [featurizer.dense(x) for x in texts]
    x = set_scorer._Featured(dense, [featurizer.sparse(s, d)
                                     for s, d in zip(texts, dense)])
    model = set_scorer._fit(featurizer, x, scorers._real_correct(tab))
    for u, utab in test.items():
      got = model.scores(scorers._answer_texts(utab, sentences))
      for s in set_scorer.SCORERS:
        sets.setdefault(s, {}).setdefault(t, {})[u] = (
            set_scorer.containment(got[s], scorers._real_correct(utab), 1))
  return {t: {u: {"candidate_mlp": mlp[t][u], "word_logit": words[t][u],
                  "odd_one_in": scorers.odd_one_in_accuracy(
                      test[u], sentences),
                  **{s: sets[s][t][u] for s in set_scorer.SCORERS}}
              for u in types} for t in types}


@pytest.mark.slow
def test_the_baselines_give_the_numbers_they_gave_one_after_another(data):
  types = ("I", "II")
  new = context_free.baseline_scores(data, types, types, SETTINGS)
  old = _one_after_another(data, types)
  for t in types:
    for u in types:
      for name in context_free.BASELINES:
        assert new[t][u][name] == pytest.approx(old[t][u][name], abs=1e-6)


class _Events(Progress):

  def __init__(self):
    self.events = []

  def on_data_ready(self, data):
    self.events.append("data_ready")

  def on_train_start(self, first_epoch, epochs):
    self.events.append("train_start")


@pytest.mark.slow
def test_a_grid_starts_its_baselines_beside_training(data, tmp_path,
                                                     monkeypatch):
  """run_experiment starts the context-free scores when the data is ready,
  before the first epoch, and its report gives what a report computing
  them afterwards gives."""
  from tests import synthetic

  started = []
  real_start = report.start_context_free

  def start(*args):
    started.append(len(events.events))
    return real_start(*args)

  monkeypatch.setattr(report, "start_context_free", start)
  cfg = synthetic.config("ffnn", epochs=2, seeds=(0,))
  cfg.results.context_free = True
  cfg.results.context_free_cache = ""
  events = _Events()
  beside = experiment.run_experiment(cfg, str(tmp_path / "run"), data=data,
                                     progress=events)
  # Started once, before the user's progress heard of the data or training.
  assert started == [0]
  assert events.events == ["data_ready", "train_start"]
  monkeypatch.setattr(report, "start_context_free", real_start)
  after = context_free.context_free(
      data, beside["summary"], tuple(cfg.data.train_types),
      tuple(cfg.data.test_types), context_free.MLPSettings(
          reduction=cfg.loss.get("answer_reduction", "sum")))
  assert beside["context_free"] == after
  assert (tmp_path / "run" / "heatmap.png").exists()


def test_every_test_type_predicted_in_one_call_as_one_by_one(tmp_path):
  """`Grid.predict_tests` (one call over the test types joined, compiled
  beside the epochs) gives each type's per-cell predictions as
  `Grid.predict` of that type alone."""
  from blm_jax.training import trainer
  from tests import synthetic

  data = synthetic.data(n_train=30, n_dev=6, n_test=11, types=("I", "II"))
  cfg = synthetic.config("ffnn", epochs=1, seeds=(0, 1))
  cfg.train.eval_chunk = 8  # Several chunks; the padding after type II.
  grid = trainer.build_grid(cfg, data)
  state = grid.init()
  grid.start_test_compile()
  joint = grid.predict_tests(state.params)
  assert list(joint) == ["I", "II"]
  for u in ("I", "II"):
    alone = grid.predict(state.params, grid.test[u])
    assert joint[u]["pred"].shape == (grid.num_cells, 11)
    np.testing.assert_array_equal(joint[u]["pred"], alone["pred"])
    np.testing.assert_allclose(joint[u]["scores"], alone["scores"],
                               atol=1e-5)


def test_the_cross_fitted_probe_fits_both_folds_at_once_as_one_by_one(data):
  """Both folds' MLPs in one vmapped fit give the accuracy of one fit per
  fold, to the rounding a batched sum allows (one flipped prediction)."""
  table = data.train["I"]
  folds = np.arange(table.num_instances) % 2
  both = context_free.cross_fitted_mlp_accuracy(data.embeddings, table,
                                                folds, SETTINGS)
  rows = [np.flatnonzero(folds == k) for k in (0, 1)]
  alone = sum(context_free.candidate_mlp_accuracy(
      data.embeddings, {"fit": table.select(rows[1 - k])},
      {"held": table.select(rows[k])}, SETTINGS)["fit"]["held"]
              * len(rows[k]) for k in (0, 1)) / table.num_instances
  assert both == pytest.approx(alone, abs=1.5 / table.num_instances)
