"""The set-relative context-free scorer (blm_jax.data.context_free.set_scorer): it finds a
cue in the shape of the answer set that a one-candidate-at-a-time logit
cannot, stays near chance where there is none, and its folds keep shared
answer sets and correct answers together."""

import random

import numpy as np
import pytest

from blm_jax.data.context_free import answers_only, set_features, set_scorer

WORDS = [f"w{i}" for i in range(60)]
SLOTS = 5


def centre_sets(n: int, seed: int = 0, k: int = 6):
  """Answer sets whose correct answer is the centre: each wrong one is it
  with one word changed, in a different slot (odd-one-in's cue, invisible
  to a model of one candidate's own words)."""
  rng = random.Random(seed)
  answers, correct = [], []
  for _ in range(n):
    base = rng.sample(WORDS, SLOTS)
    cands = [" ".join(base)]
    for j in range(k - 1):
      v = list(base)
      v[j % SLOTS] = rng.choice([w for w in WORDS if w not in base])
      cands.append(" ".join(v))
    order = list(range(k))
    rng.shuffle(order)
    answers.append([cands[i] for i in order])
    correct.append(order.index(0))
  return answers, correct


def random_sets(n: int, seed: int = 0, k: int = 6):
  rng = random.Random(seed)
  answers = [[" ".join(rng.sample(WORDS, SLOTS)) for _ in range(k)]
             for _ in range(n)]
  return answers, [rng.randrange(k) for _ in range(n)]


@pytest.mark.slow
def test_finds_the_centre_of_the_set():
  answers, correct = centre_sets(120)
  s = set_scorer.score_texts(answers, correct, n_folds=3)
  assert s.best_top1 > 0.9
  assert s.effective_chance > 0.9 and s.plausible == 1


@pytest.mark.slow
def test_stays_near_chance_without_a_cue():
  answers, correct = random_sets(120)
  s = set_scorer.score_texts(answers, correct, n_folds=3)
  assert s.chance == pytest.approx(1 / 6)
  assert s.best_top1 < 1 / 6 + 0.15
  assert s.plausible >= 4


def test_containment_shares_ties():
  scores = [np.array([1.0, 1.0, 0.0, 0.0])]
  assert set_scorer.containment(scores, [0], 1) == pytest.approx(0.5)
  assert set_scorer.containment(scores, [0], 2) == 1.0
  assert set_scorer.containment(scores, [2], 3) == pytest.approx(0.5)


def test_effective_chance_and_plausible_of_a_two_way_choice():
  s = set_scorer.SetScore(n=10, chance=0.1, n_candidates=4,
                          top1={"set_logit": 0.5}, top2={"set_logit": 1.0},
                          strongest="set_logit", curve=(0.5, 1.0, 1.0, 1.0),
                          n_folds=2)
  assert s.effective_chance == 0.5 and s.plausible == 2


def test_folds_keep_answer_sets_and_correct_answers_together():
  answers, correct = centre_sets(30)
  # The same answer set in another order, and a set sharing a correct answer.
  answers += [answers[0][::-1], ["x y", answers[1][correct[1]]]]
  correct += [len(answers[0]) - 1 - correct[0], 1]
  folds = answers_only.group_folds(answers, correct, 3)
  assert folds[30] == folds[0] and folds[31] == folds[1]
  assert sorted(np.bincount(folds)) == [10, 11, 11]


def test_one_group_is_too_few_to_fit():
  answers = [["a b", "a c"]] * 50
  with pytest.raises(answers_only.TooFewToFit, match="1 group"):
    set_scorer.score_texts(answers, [0] * 50)
  with pytest.raises(answers_only.TooFewToFit, match="1 instance"):
    set_scorer.score_texts(answers[:1], [0])


def test_set_features_describe_the_centre():
  f = set_features.SetFeaturizer.fit([["a b c", "a b d", "a e c"]])
  d = f.dense(["a b c", "a b d", "a e c"])
  col = set_features.DENSE_NAMES.index
  assert list(d[:, col("n_edit_1")]) == [2, 1, 1]
  assert list(d[:, col("words_alone_has")]) == [0, 1, 1]
  assert set_features.edit_distance("a b c".split(), "b c".split()) == 1


def test_fitted_model_scores_new_sets():
  answers, correct = centre_sets(80)
  model = set_scorer.fit(answers, correct)
  held, right = centre_sets(20, seed=1)
  got = model.scores(held)
  assert set(got) == set(set_scorer.SCORERS)
  assert set_scorer.containment(got["set_trees"], right, 1) > 0.9
