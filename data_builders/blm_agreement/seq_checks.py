"""Pattern-level checks of a sequence-necessary design (issue 33): how well
one context sentence, or a pair, decides the answer's pattern, and whether
the whole context does. Used by the tests and by
benchmarks/agreement_seq_design.py, until the design analyzer measures
any BLM."""

from __future__ import annotations

import collections
import itertools


def majority(keys, ys) -> float:
  """Two-fold cross-fitted accuracy of the majority answer per key."""
  hit = 0
  for fold in (0, 1):
    votes = collections.defaultdict(collections.Counter)
    for i, (k, y) in enumerate(zip(keys, ys)):
      if i % 2 != fold:
        votes[k][y] += 1
    hit += sum(1 for i, (k, y) in enumerate(zip(keys, ys))
               if i % 2 == fold and k in votes
               and votes[k].most_common(1)[0][0] == y)
  return hit / len(ys)


def positions(xs) -> dict:
  """{"single": {position: accuracy}, "pairs": {(i, j): accuracy},
  "ambiguous": instances whose context patterns also occur with another
  answer pattern}; positions from 1."""
  ys = [x.answers[x.correct].pattern for x in xs]
  n = len(xs[0].context)

  def acc(pos):
    return majority([tuple(x.context[k].pattern for k in pos) for x in xs],
                    ys)

  whole = collections.defaultdict(set)
  for x, y in zip(xs, ys):
    whole[tuple(s.pattern for s in x.context)].add(y)
  return {
      "single": {k + 1: acc((k,)) for k in range(n)},
      "pairs": {(j + 1, k + 1): acc((j, k))
                for j, k in itertools.combinations(range(n), 2)},
      "ambiguous": sum(len(whole[tuple(s.pattern for s in x.context)]) > 1
                       for x in xs)}
