"""The strongest context-free scorer we have: candidates judged against their answer set.

Two models over `set_features` (features of each candidate relative to the
other candidates of its instance; no context):

- `set_logit`: a conditional logit (softmax over the candidates of an
  instance) on each candidate's words, its function-word skeleton and its
  binned set features;
- `set_trees`: boosted trees (sklearn HistGradientBoosting) on the dense set
  features, each candidate classified correct or not, ranked by the score.

Cross-fitted (`score_texts`): folds grouped so that instances sharing an
answer set or a correct answer never straddle folds
(`answers_only.group_folds`); each fold is scored by the models fitted on
the others.

What it reports (`SetScore`), per scorer: top-1 accuracy and top-k
containment (the share of instances whose correct answer is among the k
best-scored candidates; ties broken uniformly at random, in expectation).
From the strongest scorer (highest top-1):

- `effective_chance` = max over k of containment(k) / k: the best accuracy
  of "guess uniformly among the scorer's top k", k = 1 being the scorer
  itself. A solver that never reads the context reaches it; read a heatmap
  against it, not against 1/k. Uniform scores give 1/n.
- `plausible` = the smallest k with containment(k) >= 0.95: how many
  candidates the answers alone leave plausible. Uniform scores give
  ceil(0.95 n).
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

from blm_jax.data.context_free import answers_only
from blm_jax.data.context_free.set_features import SetFeaturizer

SCORERS = ("set_logit", "set_trees")
N_FOLDS = 5
PLAUSIBLE_CONTAINMENT = 0.95


def containment(scores: Sequence[np.ndarray], correct: Sequence[int],
                k: int) -> float:
  """Expected share of instances whose correct candidate is among the `k`
  best-scored ones, ties broken uniformly at random."""
  hits = []
  for s, c in zip(scores, correct):
    above = int(np.sum(s > s[c] + 1e-9))
    tied = int(np.sum(np.abs(s - s[c]) <= 1e-9)) - 1
    hits.append(min(1.0, max(0.0, (k - above) / (tied + 1))))
  return float(np.mean(hits))


@dataclasses.dataclass(frozen=True)
class SetModel:
  """The fitted scorers; `scores` gives each candidate's score per scorer."""

  featurizer: SetFeaturizer
  logit_w: np.ndarray
  trees: object  # sklearn HistGradientBoostingClassifier

  def scores(self, answers: Sequence[Sequence[str]]
             ) -> dict[str, list[np.ndarray]]:
    """{scorer: each instance's candidate scores} (higher: more likely
    correct)."""
    return self._scores(_featured(self.featurizer, answers))

  def _scores(self, x: "_Featured") -> dict[str, list[np.ndarray]]:
    batch = answers_only.batch_features(x.sparse, [0] * len(x.sparse))
    flat = answers_only.candidate_scores(self.logit_w, batch)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
      trees = self.trees.decision_function(np.concatenate(x.dense))
    cuts = np.cumsum([len(d) for d in x.dense])[:-1]
    return {"set_logit": np.split(flat, cuts),
            "set_trees": np.split(np.asarray(trees, float), cuts)}


@dataclasses.dataclass(frozen=True)
class _Featured:
  """Instances with their set features computed once."""

  dense: list[np.ndarray]
  sparse: list[list[np.ndarray]]

  def take(self, rows) -> "_Featured":
    return _Featured([self.dense[i] for i in rows],
                     [self.sparse[i] for i in rows])


def _featured(featurizer: SetFeaturizer,
              answers: Sequence[Sequence[str]]) -> _Featured:
  dense = featurizer.dense_many(answers)
  return _Featured(dense, [featurizer.sparse(t, d)
                           for t, d in zip(answers, dense)])


def _fit(featurizer: SetFeaturizer, x: _Featured,
         correct: Sequence[int]) -> SetModel:
  from sklearn.ensemble import HistGradientBoostingClassifier
  from threadpoolctl import threadpool_limits

  w = answers_only.fit_logit(answers_only.batch_features(x.sparse, correct))
  y = np.concatenate([np.arange(len(d)) == c
                      for d, c in zip(x.dense, correct)]).astype(int)
  with threadpool_limits(1):  # Threads spin on a shared 2-core machine.
    trees = HistGradientBoostingClassifier(
        max_iter=100, learning_rate=0.1, max_leaf_nodes=15,
        min_samples_leaf=10, l2_regularization=1.0, early_stopping=False,
        random_state=0).fit(np.concatenate(x.dense), y)
  return SetModel(featurizer, w, trees)


def fit(answers: Sequence[Sequence[str]], correct: Sequence[int],
        featurizer: SetFeaturizer | None = None) -> SetModel:
  """Both scorers fitted on `answers` (candidate texts per instance) and the
  correct indices; the featurizer's function words from `answers` unless
  given."""
  featurizer = featurizer or SetFeaturizer.fit(answers)
  return _fit(featurizer, _featured(featurizer, answers), correct)


@dataclasses.dataclass(frozen=True)
class SetScore:
  """Cross-fitted scores of one population (see the module docstring)."""

  n: int
  chance: float  # mean of 1 / number of candidates
  n_candidates: int  # the most candidates of an instance
  top1: dict[str, float]
  top2: dict[str, float]
  strongest: str
  curve: tuple[float, ...]  # the strongest's containment(k), k = 1..
  n_folds: int

  @property
  def effective_chance(self) -> float:
    return max(c / k for k, c in enumerate(self.curve, 1))

  @property
  def plausible(self) -> int:
    return next((k for k, c in enumerate(self.curve, 1)
                 if c >= PLAUSIBLE_CONTAINMENT - 1e-9), len(self.curve))

  @property
  def best_top1(self) -> float:
    return self.top1[self.strongest]

  @property
  def best_top2(self) -> float:
    return self.top2[self.strongest]

  def as_dict(self) -> dict:
    return {"n": self.n, "chance": round(self.chance, 4),
            "top1": {k: round(v, 4) for k, v in self.top1.items()},
            "top2": {k: round(v, 4) for k, v in self.top2.items()},
            "strongest": self.strongest,
            "effective_chance": round(self.effective_chance, 4),
            "plausible": self.plausible, "n_candidates": self.n_candidates,
            "n_folds": self.n_folds}

  def __str__(self) -> str:
    return (f"set scorer over {self.n} instances: top-1 "
            f"{self.best_top1:.3f} ({self.strongest}), top-2 "
            f"{self.best_top2:.3f}, effective chance "
            f"{self.effective_chance:.3f}, {self.plausible} of "
            f"{self.n_candidates} candidates plausible (chance "
            f"{self.chance:.3f})")


def cross_fitted_scores(answers: Sequence[Sequence[str]],
                        correct: Sequence[int], n_folds: int = N_FOLDS
                        ) -> tuple[dict[str, list[np.ndarray]], int]:
  """({scorer: per-instance candidate scores}, folds used), each instance
  scored by models fitted on the folds it is not in. Raises
  answers_only.TooFewToFit below MIN_INSTANCES or with too few groups."""
  if len(answers) < answers_only.MIN_INSTANCES:
    raise answers_only.TooFewToFit(
        f"{len(answers)} instance(s): too few to fit a context-free scorer "
        f"(at least {answers_only.MIN_INSTANCES})")
  try:
    folds = answers_only.group_folds(answers, correct, n_folds)
  except answers_only.TooFewToFit:
    n_folds = 2
    folds = answers_only.group_folds(answers, correct, n_folds)
  featurizer = SetFeaturizer.fit(answers)  # Label-free: all texts.
  x = _featured(featurizer, answers)
  out = {s: [None] * len(answers) for s in SCORERS}
  for f in range(n_folds):
    train = np.flatnonzero(folds != f)
    held = np.flatnonzero(folds == f)
    model = _fit(featurizer, x.take(train), [correct[i] for i in train])
    got = model._scores(x.take(held))
    for s in SCORERS:
      for i, v in zip(held, got[s]):
        out[s][i] = v
  return out, n_folds


def score_texts(answers: Sequence[Sequence[str]], correct: Sequence[int],
                n_folds: int = N_FOLDS) -> SetScore:
  """The cross-fitted `SetScore` of instances given as candidate texts and
  correct indices."""
  scores, used = cross_fitted_scores(answers, correct, n_folds)
  top1 = {s: containment(scores[s], correct, 1) for s in SCORERS}
  top2 = {s: containment(scores[s], correct, 2) for s in SCORERS}
  best = max(SCORERS, key=top1.get)
  n_max = max(len(t) for t in answers)
  curve = tuple(containment(scores[best], correct, k)
                for k in range(1, n_max + 1))
  return SetScore(n=len(answers),
                  chance=float(np.mean([1 / len(t) for t in answers])),
                  n_candidates=n_max, top1=top1, top2=top2, strongest=best,
                  curve=curve, n_folds=used)


def score(instances) -> SetScore:
  """`score_texts` of BLM instances."""
  return score_texts([[s.text for s in x.answers] for x in instances],
                     [x.correct for x in instances])


def sequence_bounds(chance: float) -> tuple[float, float]:
  """The `_seq` designs' bounds on (top-1, top-2) of the strongest
  context-free scorer: chance + 0.05 and 2 x chance + 0.10."""
  return chance + 0.05, 2 * chance + 0.10

