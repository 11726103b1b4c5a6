"""How far a BLM can be solved from its answer set alone, without the context.

A BLM must need its context: if a model that never sees the context picks the
correct candidate above chance, the answer set carries a local cue (the
correct answer is the only grammatical one, always the same pattern...).
Two answers-only solvers (the logit cross-fitted over 2 folds grouped by
answer set and correct answer, `group_folds`; each fold scored by the model
fitted on the other):

- `logit`: a conditional logit (softmax over the candidates) on hashed word
  unigrams and bigrams of each candidate on its own: local cues. It sees one
  candidate at a time, as an FFNN with a zeroed context does.
- `odd_one_in`: no fitting; the candidate sharing the most word bigrams with
  the other candidates. Where every wrong answer is the correct one with one
  change, the correct one is the centre of the set: a relational cue, which
  only solvers that compare the candidates with each other can use.

Used by `blm_jax.data.lint --answers_only` and by builder tests.
"""

from __future__ import annotations

import dataclasses
import re
import zlib
from typing import Sequence

import numpy as np

from data_builders.common.schema import BLMInstance

DIM = 1 << 14
MIN_INSTANCES = 40  # per subset; fewer: no score
# The most a context-free scorer may reach on a config designed to need its
# context (`GeneratedConfig.context_necessary`); `lint --strict` holds such
# configs to it.
CONTEXT_FREE_CEILING = 0.55
_TOKEN = re.compile(r"\w+|[^\w\s]")


def tokens(text: str) -> list[str]:
  return _TOKEN.findall(text.lower())


def features(text: str) -> np.ndarray:
  """Hashed ids of the unigrams and bigrams of `text` (with boundaries)."""
  toks = ["<s>"] + tokens(text) + ["</s>"]
  grams = toks[1:-1] + [f"{a} {b}" for a, b in zip(toks, toks[1:])]
  return np.array(sorted({zlib.crc32(g.encode("utf-8")) % DIM
                          for g in grams}), np.int64)


class TooFewToFit(ValueError):
  """Too few instances (or independent answer sets) to cross-fit a scorer."""


def group_folds(answers: Sequence[Sequence[str]], correct: Sequence[int],
                n_folds: int = 2) -> np.ndarray:
  """The cross-fitting fold of each instance (0 .. n_folds - 1), so that
  instances sharing an answer set (the same multiset of candidate texts)
  or a correct answer never straddle folds: a scorer must not meet at test
  time an answer set or a correct sentence it was fitted on (the two
  phases of one agreement ctx answer set, for one). Union-find over both
  keys; the groups go, largest first, to the fold with fewest instances
  (ties by a hash of the group, so the folds do not depend on the order of
  the instances). Raises TooFewToFit with fewer groups than folds."""
  parent: dict[str, str] = {}

  def find(a: str) -> str:
    while parent.setdefault(a, a) != a:
      parent[a] = parent[parent[a]]
      a = parent[a]
    return a

  keys = []
  for texts, k in zip(answers, correct):
    a = "set\x1f" + "\x1f".join(sorted(texts))
    b = "correct\x1f" + texts[k]
    parent[find(a)] = find(b)
    keys.append(a)
  roots = [find(a) for a in keys]
  members: dict[str, list[int]] = {}
  for i, r in enumerate(roots):
    members.setdefault(r, []).append(i)
  if len(members) < n_folds:
    raise TooFewToFit(
        f"{len(answers)} instances in {len(members)} group(s) of shared "
        f"answer sets or correct answers: too few to cross-fit over "
        f"{n_folds} folds")
  out = np.zeros(len(answers), np.int64)
  size = np.zeros(n_folds, np.int64)
  for r in sorted(members, key=lambda r: (-len(members[r]),
                                          zlib.crc32(r.encode("utf-8")))):
    f = int(size.argmin())
    out[members[r]] = f
    size[f] += len(members[r])
  return out


def instance_folds(instances: Sequence[BLMInstance],
                   n_folds: int = 2) -> np.ndarray:
  """`group_folds` of instances."""
  return group_folds([[s.text for s in x.answers] for x in instances],
                     [x.correct for x in instances], n_folds)


@dataclasses.dataclass(frozen=True)
class _Batch:
  """Candidates of several instances as flat sparse rows."""

  feat: np.ndarray  # feature ids, all candidates concatenated
  cand_of_feat: np.ndarray  # candidate index of each feature id
  n_cand: int
  inst_of_cand: np.ndarray
  n_inst: int
  target: np.ndarray  # 1 for each correct candidate


def batch_texts(answers: Sequence[Sequence[str]],
                correct: Sequence[int]) -> _Batch:
  """The batch of instances given as their candidates' texts and the
  correct index (the results layer reads them from a sentence table)."""
  return batch_features([[features(t) for t in texts] for texts in answers],
                        correct)


def batch_features(feature_ids: Sequence[Sequence[np.ndarray]],
                   correct: Sequence[int]) -> _Batch:
  """The batch of instances given as each candidate's hashed feature ids
  (below DIM) and the correct index."""
  feats, cand_of, inst_of, target = [], [], [], []
  c = 0
  for i, (cands, k) in enumerate(zip(feature_ids, correct)):
    for j, f in enumerate(cands):
      feats.append(f)
      cand_of.append(np.full(len(f), c))
      inst_of.append(i)
      target.append(float(j == k))
      c += 1
  return _Batch(np.concatenate(feats), np.concatenate(cand_of), c,
                np.array(inst_of), len(feature_ids), np.array(target))


def _batch(instances: Sequence[BLMInstance]) -> _Batch:
  return batch_texts([[s.text for s in x.answers] for x in instances],
                     [x.correct for x in instances])


def candidate_scores(w: np.ndarray, b: _Batch) -> np.ndarray:
  """The logit `w`'s score of every candidate of `b`, flat."""
  return np.bincount(b.cand_of_feat, weights=w[b.feat], minlength=b.n_cand)


def _softmax_by_instance(scores: np.ndarray, b: _Batch) -> np.ndarray:
  top = np.full(b.n_inst, -np.inf)
  np.maximum.at(top, b.inst_of_cand, scores)
  e = np.exp(scores - top[b.inst_of_cand])
  return e / np.bincount(b.inst_of_cand, weights=e)[b.inst_of_cand]


def fit_logit(b: _Batch, steps: int = 300, lr: float = 0.5,
              l2: float = 1e-2) -> np.ndarray:
  """Full-batch Adam on the mean cross-entropy of the correct candidate."""
  w = np.zeros(DIM)
  m, v = np.zeros(DIM), np.zeros(DIM)
  for t in range(1, steps + 1):
    p = _softmax_by_instance(candidate_scores(w, b), b)
    g_cand = (p - b.target) / b.n_inst
    g = np.bincount(b.feat, weights=g_cand[b.cand_of_feat], minlength=DIM)
    g += l2 * w
    m = 0.9 * m + 0.1 * g
    v = 0.999 * v + 0.001 * g * g
    w -= lr * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
  return w


def _accuracy(scores: np.ndarray, b: _Batch) -> float:
  """Expected accuracy, ties broken uniformly at random."""
  top = np.full(b.n_inst, -np.inf)
  np.maximum.at(top, b.inst_of_cand, scores)
  at_top = np.isclose(scores, top[b.inst_of_cand], rtol=0, atol=1e-9)
  n_top = np.bincount(b.inst_of_cand, weights=at_top.astype(float))
  hit = np.bincount(b.inst_of_cand, weights=(at_top * b.target))
  return float(np.mean(hit / n_top))


def held_out_accuracy(w: np.ndarray, b: _Batch) -> float:
  """Expected accuracy of the logit `w` (from `fit_logit`) on `b`."""
  return _accuracy(candidate_scores(w, b), b)


def logit_accuracy(instances: Sequence[BLMInstance]) -> float:
  which = instance_folds(instances)
  folds = [[x for x, f in zip(instances, which) if f == k] for k in (0, 1)]
  correct = 0.0
  for k in (0, 1):
    w = fit_logit(_batch(folds[1 - k]))
    correct += held_out_accuracy(w, _batch(folds[k])) * len(folds[k])
  return correct / len(instances)


def odd_one_in_hit(answers: Sequence[str], correct: int) -> float:
  """1 if the correct candidate alone shares the most word bigrams with the
  others, 1/k if it ties with k - 1 others, else 0."""
  grams = [set(zip(t, t[1:])) for t in
           (["<s>"] + tokens(s) for s in answers)]
  shared = np.array([sum(len(g & h) for j, h in enumerate(grams) if j != i)
                     for i, g in enumerate(grams)], float)
  top = shared == shared.max()
  return float(top[correct] / top.sum())


def odd_one_in_accuracy(instances: Sequence[BLMInstance]) -> float:
  return float(np.mean([odd_one_in_hit([s.text for s in x.answers],
                                       x.correct) for x in instances]))


@dataclasses.dataclass(frozen=True)
class CueScore:
  n: int
  chance: float
  logit: float
  odd_one_in: float

  @property
  def margin(self) -> float:
    """How far above chance the logit may go before it is a cue: 0.05 plus
    three binomial standard errors."""
    return 0.05 + 3 * (self.chance * (1 - self.chance) / self.n) ** 0.5

  @property
  def cue(self) -> bool:
    return self.logit > self.chance + self.margin

  def over_ceiling(self, ceiling: float = CONTEXT_FREE_CEILING) -> list[str]:
    """The scores above `ceiling`, as 'name 0.xxx' (empty when none)."""
    return [f"{name} {value:.3f}" for name, value in
            (("word logit", self.logit), ("odd-one-in", self.odd_one_in))
            if value > ceiling]

  def __str__(self) -> str:
    return (f"answers-only accuracy over {self.n} instances: logit "
            f"{self.logit:.3f}, odd-one-in {self.odd_one_in:.3f} (chance "
            f"{self.chance:.3f}; a cue above {self.chance + self.margin:.3f})")


def score(instances: Sequence[BLMInstance]) -> CueScore | None:
  """The answers-only scores of one subset (same candidate count), or None
  below MIN_INSTANCES."""
  if len(instances) < MIN_INSTANCES:
    return None
  return CueScore(
      n=len(instances),
      chance=float(np.mean([1 / len(x.answers) for x in instances])),
      logit=logit_accuracy(instances),
      odd_one_in=odd_one_in_accuracy(instances))
