"""Features of each candidate relative to its answer set, for context-free scorers.

A scorer that sees one candidate at a time (`answers_only.logit`) misses
cues in the shape of the answer set: where every wrong answer is the correct
one with one change, the correct answer shares the most words with the
others, lacks no word that all the others have, and is one word away from
many of them. These features describe each candidate by how it sits in its
set, never by the context:

- words and word bigrams: how many other candidates share them, how many it
  alone has, how many all (or most) others have and it alone lacks;
- token edit distance to each other candidate (min, mean, max, its rank in
  the set) and how many others differ from it by one or two tokens, or are
  its tokens in another order;
- a function-word skeleton (each content word replaced by `_`; function
  words are the most frequent tokens of the candidates the featurizer was
  fitted on): how many others share it, and the skeleton itself as a word
  feature of the logit;
- its length relative to the set.

`SetFeaturizer.dense` gives a float matrix per instance (the tree model's
input); `SetFeaturizer.sparse` hashed ids (the conditional logit's input:
each candidate's own words, its skeleton and the binned dense features).
"""

from __future__ import annotations

import collections
import dataclasses
import zlib
from typing import Sequence

import numpy as np

from blm_jax.data.context_free.answers_only import (DIM,
                                                    features as word_features,
                                                    tokens)

# A token is a function word when it occurs in at least this share of the
# fitted candidates (at most MAX_FUNCTION_WORDS of them).
FUNCTION_WORD_SHARE = 0.05
MAX_FUNCTION_WORDS = 80

DENSE_NAMES = (
    "n_candidates", "length", "length_minus_mean", "length_rank",
    "word_share_mean", "word_share_min", "words_alone_has",
    "words_alone_lacks", "words_majority_lacks",
    "bigram_share_sum", "bigram_share_rank", "bigrams_alone_has",
    "bigrams_alone_lacks",
    "edit_min", "edit_mean", "edit_max", "edit_mean_rank", "n_edit_1",
    "n_edit_2", "n_permutations",
    "skeleton_shared", "content_shared", "skeleton_length",
)


def edit_distance(a: Sequence[str], b: Sequence[str]) -> int:
  """Levenshtein distance between two token sequences."""
  return int(pairwise_edit_distance([tuple(a), tuple(b)])[0, 1])


def pairwise_edit_distance(toks: Sequence[tuple[str, ...]]) -> np.ndarray:
  """[k, k] token-level Levenshtein distances, all pairs in one dynamic
  programme vectorized over the pairs (Python loops only over positions)."""
  return pairwise_edit_distances([toks])[0]


# Pairs per dynamic programme: bounds its table ([pairs, n + 1, n + 1]).
_PAIRS_PER_CHUNK = 1 << 14


def pairwise_edit_distances(sets: Sequence[Sequence[tuple[str, ...]]]
                            ) -> list[np.ndarray]:
  """`pairwise_edit_distance` of every set of token sequences, the pairs of
  all sets in one dynamic programme (in chunks of `_PAIRS_PER_CHUNK`
  pairs): the Python loops over positions run once for all instances
  instead of once per instance."""
  vocab: dict[str, int] = {}
  flat = [t for toks in sets for t in toks]
  length = np.array([len(t) for t in flat], np.int64)
  n = max(1, int(length.max()) if len(flat) else 1)
  ids = np.full((len(flat), n), -1)
  for i, t in enumerate(flat):
    ids[i, :len(t)] = [vocab.setdefault(w, len(vocab)) for w in t]
  starts = np.cumsum([0] + [len(toks) for toks in sets])
  pairs = [np.triu_indices(len(toks), 1) for toks in sets]
  left = np.concatenate([s + p[0] for s, p in zip(starts, pairs)] or [[]])
  right = np.concatenate([s + p[1] for s, p in zip(starts, pairs)] or [[]])
  left, right = left.astype(np.int64), right.astype(np.int64)
  found = np.zeros(len(left), np.int64)
  for c in range(0, len(left), _PAIRS_PER_CHUNK):
    lo, hi = left[c:c + _PAIRS_PER_CHUNK], right[c:c + _PAIRS_PER_CHUNK]
    # Only as many positions as the chunk's longest sequence.
    m = max(1, int(max(length[lo].max(), length[hi].max())))
    a, b = ids[lo, :m], ids[hi, :m]  # [P, m]
    table = np.zeros((len(lo), m + 1, m + 1), np.int32)
    table[:, :, 0] = np.arange(m + 1)
    table[:, 0, :] = np.arange(m + 1)
    for i in range(1, m + 1):
      for j in range(1, m + 1):
        table[:, i, j] = np.minimum(
            np.minimum(table[:, i - 1, j], table[:, i, j - 1]) + 1,
            table[:, i - 1, j - 1] + (a[:, i - 1] != b[:, j - 1]))
    found[c:c + len(lo)] = table[np.arange(len(lo)), length[lo],
                                 length[hi]]
  out, offset = [], 0
  for toks, (pl, pr) in zip(sets, pairs):  # Each set's run of pairs.
    dist = np.zeros((len(toks), len(toks)))
    dist[pl, pr] = dist[pr, pl] = found[offset:offset + len(pl)]
    offset += len(pl)
    out.append(dist)
  return out


def _rank(values: np.ndarray) -> np.ndarray:
  """Each value's rank in the set, scaled to [0, 1] (ties share the mean
  rank): comparable across set sizes."""
  order = values.argsort(kind="stable")
  ranks = np.empty(len(values))
  ranks[order] = np.arange(len(values))
  for v in np.unique(values):
    at = values == v
    ranks[at] = ranks[at].mean()
  return ranks / max(1, len(values) - 1)


def _presence(items: list[set]) -> tuple[np.ndarray, ...]:
  """Per candidate: mean and min number of others sharing each of its
  items, items it alone has, items all others have and it lacks, and items
  at least half the others have and it lacks."""
  k = len(items)
  count = collections.Counter(g for s in items for g in s)
  out = np.zeros((k, 5))
  for i, s in enumerate(items):
    others = [count[g] - 1 for g in s]
    out[i, 0] = np.mean(others) / max(1, k - 1) if others else 0.0
    out[i, 1] = min(others) / max(1, k - 1) if others else 0.0
    out[i, 2] = sum(c == 0 for c in others)
    missing = [c for g, c in count.items() if g not in s]
    out[i, 3] = sum(c == k - 1 for c in missing) if k > 1 else 0
    out[i, 4] = sum(2 * c >= k - 1 for c in missing) if k > 1 else 0
  return out[:, 0], out[:, 1], out[:, 2], out[:, 3], out[:, 4]


@dataclasses.dataclass(frozen=True)
class SetFeaturizer:
  """Fitted on candidate texts only (no labels): the function words."""

  function_words: frozenset[str]

  @classmethod
  def fit(cls, answers: Sequence[Sequence[str]]) -> "SetFeaturizer":
    texts = [t for texts in answers for t in texts]
    df = collections.Counter(w for t in texts for w in set(tokens(t)))
    common = [w for w, c in df.most_common(MAX_FUNCTION_WORDS)
              if c >= FUNCTION_WORD_SHARE * max(1, len(texts))]
    return cls(frozenset(common))

  def skeleton(self, toks: Sequence[str]) -> tuple[str, ...]:
    return tuple(w if w in self.function_words else "_" for w in toks)

  def dense(self, texts: Sequence[str],
            dist: np.ndarray | None = None) -> np.ndarray:
    """[k, len(DENSE_NAMES)] features of one answer set's candidates;
    `dist`: their `pairwise_edit_distance`, if already computed."""
    toks = [tuple(tokens(t)) for t in texts]
    k = len(toks)
    length = np.array([len(t) for t in toks], float)
    w_mean, w_min, w_alone, w_lacks, w_major = _presence(
        [set(t) for t in toks])
    bigrams = [set(zip(("<s>",) + t, t + ("</s>",))) for t in toks]
    count = collections.Counter(g for s in bigrams for g in s)
    b_shared = np.array([sum(count[g] - 1 for g in s) for s in bigrams],
                        float)
    _, _, b_alone, b_lacks, _ = _presence(bigrams)
    dist = pairwise_edit_distance(toks) if dist is None else dist
    off = ~np.eye(k, dtype=bool)
    others = [dist[i][off[i]] for i in range(k)]
    e_min = np.array([o.min() if len(o) else 0 for o in others])
    e_mean = np.array([o.mean() if len(o) else 0 for o in others])
    e_max = np.array([o.max() if len(o) else 0 for o in others])
    sorted_toks = [tuple(sorted(t)) for t in toks]
    perms = np.array([sum(sorted_toks[j] == sorted_toks[i] and j != i
                          for j in range(k)) for i in range(k)])
    skel = [self.skeleton(t) for t in toks]
    content = [tuple(sorted(w for w in t if w not in self.function_words))
               for t in toks]
    same = lambda xs: np.array([sum(x == y for y in xs) - 1 for x in xs])
    return np.stack([
        np.full(k, k), length, length - length.mean(), _rank(length),
        w_mean, w_min, w_alone, w_lacks, w_major,
        b_shared / max(1, k - 1), _rank(b_shared), b_alone, b_lacks,
        e_min, e_mean, e_max, _rank(e_mean),
        (dist == 1).sum(1), ((dist > 0) & (dist <= 2)).sum(1), perms,
        same(skel), same(content), np.array([len(s) for s in skel]),
    ], axis=1).astype(np.float32)

  def dense_many(self, answers: Sequence[Sequence[str]]
                 ) -> list[np.ndarray]:
    """`dense` of every answer set, their edit distances computed together
    (`pairwise_edit_distances`)."""
    dists = pairwise_edit_distances([[tuple(tokens(t)) for t in texts]
                                     for texts in answers])
    return [self.dense(t, d) for t, d in zip(answers, dists)]

  def sparse(self, texts: Sequence[str],
             dense: np.ndarray | None = None) -> list[np.ndarray]:
    """Per candidate: hashed ids of its words (`answers_only.features`), its
    skeleton, and each dense feature binned (name=value, values rounded to
    a tenth and capped), so the logit sees non-linear set effects."""
    dense = self.dense(texts) if dense is None else dense
    out = []
    for text, row in zip(texts, dense):
      extra = ["skel " + " ".join(self.skeleton(tokens(text)))]
      for name, v in zip(DENSE_NAMES, row):
        v = float(v)
        v = round(v, 1) if abs(v) < 1.5 else min(round(v), 12)
        extra.append(f"{name}={v}")
      ids = {zlib.crc32(g.encode("utf-8")) % DIM for g in extra}
      out.append(np.array(sorted(ids | set(word_features(text).tolist())),
                          np.int64))
    return out
