"""Deriving the sentence-level chunk-pattern dataset of 000 sec. 7.

From the context sentences of a BLM dataset (and, optionally, its correct
answers) and their pattern strings we draw sentences spread uniformly over the
patterns (4004 in the paper), split them 2576:630:798 with each pattern
present in every split, and pair every sentence (the input) with one
positive, another sentence of the same pattern, and negatives (7 in the
paper). Each triple is a `BLMInstance` of family `sentence_chunks`: context =
(input,), answers = the positive (POS) and the negatives (NEG) in a seeded
order.

A `ChunkView` says what a chunk pattern is for a source: which pattern roles
count (agreement keeps NP, PP1, PP2, VP, so the clause type, Prefix or RC, is
not part of the pattern: 000 sec. 7's 14 patterns NP (PP1 (PP2)) VP), which
attributes merely copy another slot's (the verb's number agrees with the
subject's, so flipping the subject's number is one change, not two), and
which optional chunks may be dropped from a sentence to obtain the shorter
patterns the source lacks (agreement sentences always have PP1; NP VP
sentences are the NP PP1 VP ones without their PP1 chunk).

Negatives (`negatives=`):
- "minimal" (default, the authors' default as 000 sec. 7 describes it): each
  negative's pattern is one of the patterns nearest to the input's (one chunk
  attribute changed, or one chunk added or removed, where the source has
  such patterns; else the nearest it has). Every nearest pattern is used once
  before any repeats, so with 7 negatives and 3-5 neighbours (agreement)
  patterns repeat; the negative sentences are always distinct.
- "uniform": negatives of distinct other patterns, drawn uniformly (the
  paper's "different from each other"; most can be rejected from fixed words
  when patterns differ in many chunks at once).

Positives and negatives are drawn from the input's own split, so no sentence
text appears in two splits. Everything is a pure function of the source
instances and the seed.

Where the paper is silent or cannot hold:
- A source whose patterns are unevenly represented gets every pattern's
  sentences up to a common level (water filling): as uniform as the source
  allows, with all of the requested total where the source has it.
- A pattern needs `MIN_SENTENCES_PER_PATTERN` distinct sentences (an input and
  its positive in each split); sparser patterns are left out, with a log line.
- 000 sec. 7 describes the spray/load data as spread over seven patterns yet
  asks for 7 negatives of 7 distinct other patterns, which needs eight:
  "uniform" negatives then need `num_negatives` <= 6; "minimal" ones repeat
  patterns and keep 7.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Callable, Mapping, Sequence

from absl import logging

from data_builders.common import labels
from data_builders.common.instances import make_instance, rng_for, stable_seed
from data_builders.common.schema import BLMInstance, Sentence

FAMILY = "sentence_chunks"
POSITIVE, NEGATIVE = labels.family_labels(FAMILY)

# 000 sec. 7: 4004 sentences split train:dev:test = 2576:630:798, 7 negatives.
PAPER_SPLIT_SIZES = {"train": 2576, "dev": 630, "test": 798}
PAPER_NUM_NEGATIVES = 7
NEGATIVE_MODES = ("minimal", "uniform")

# Every split needs an input and its positive from each pattern.
MIN_PER_SPLIT = 2


@dataclasses.dataclass(frozen=True)
class ChunkView:
  """What counts as a sentence's chunk pattern for one source.

  `roles`: the pattern roles kept (empty: all); the others (e.g. the
  agreement Prefix and RC) stay in the sentence but not in its pattern.
  `linked`: role -> role whose attributes it copies (agreement: VP -> NP);
  distances between patterns ignore the copy.
  `optional`: roles whose chunk may be dropped, last present one first, to
  derive a shorter sentence (agreement: PP1, PP2).
  `correct_answers`: take the correct answers too, not only the contexts.
  """

  roles: tuple[str, ...] = ()
  linked: tuple[tuple[str, str], ...] = ()
  optional: tuple[str, ...] = ()
  correct_answers: bool = False


ALL = ChunkView()
# 000 sec. 7: NP (PP1 (PP2)) VP, each chunk sg or pl, the verb agreeing with
# the subject: 14 patterns, whatever the clause type.
AGREEMENT = ChunkView(roles=("NP", "PP1", "PP2", "VP"), linked=(("VP", "NP"),),
                      optional=("PP1", "PP2"), correct_answers=True)
VIEWS = {"all": ALL, "agreement": AGREEMENT}


def _role(token: str) -> str:
  return token.split("-", 1)[0]


def view_pattern(pattern: str, view: ChunkView) -> str:
  """The pattern string restricted to the view's roles."""
  if not view.roles:
    return pattern
  return " ".join(t for t in pattern.split() if _role(t) in view.roles)


def distance(p: str, q: str, view: ChunkView = ALL) -> int:
  """Chunk edit distance: a changed attribute value or an added or removed
  chunk costs 1; a chunk of another role costs 2 (remove + add); linked
  attributes (copies of another slot's) cost nothing."""
  linked = {a for a, _ in view.linked}

  def chunks(x):
    out = []
    for t in x.split():
      role, *attrs = t.split("-")
      out.append((role, () if role in linked else tuple(attrs)))
    return out

  a, b = chunks(p), chunks(q)
  prev = list(range(len(b) + 1))
  for i, (ra, fa) in enumerate(a, 1):
    cur = [i] + [0] * len(b)
    for j, (rb, fb) in enumerate(b, 1):
      if ra == rb:
        sub = (sum(x != y for x, y in zip(fa, fb))
               + abs(len(fa) - len(fb)))
      else:
        sub = 2
      cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + sub)
    prev = cur
  return prev[-1]


@dataclasses.dataclass(frozen=True)
class SourceSentence:
  """A distinct sentence of the source and where it came from."""

  sentence: Sentence
  language: str
  lexical_type: str
  origin: str  # "<split>/<instance id>" of its first occurrence.


def _shortened(s: Sentence, view: ChunkView) -> Sentence | None:
  """`s` without its last optional chunk, or None when it has none.

  The pattern's slots align with the non-empty chunks before the final stop;
  a sentence whose text is not those chunks joined (no fusion across chunks)
  is not shortened.
  """
  tokens = s.pattern.split()
  words = [c for c in s.chunks if c]
  if not words or words[-1] != "." or len(words) - 1 != len(tokens):
    return None
  if " ".join(words[:-1]) + "." != s.text:
    return None
  present = [i for i, t in enumerate(tokens) if _role(t) in view.optional]
  if not present:
    return None
  drop = present[-1]
  keep = [i for i in range(len(tokens)) if i != drop]
  new_words = [words[i] for i in keep]
  text = " ".join(new_words) + "."
  text = text[:1].upper() + text[1:]
  return Sentence(text, " ".join(tokens[i] for i in keep),
                  tuple(new_words) + (".",))


def collect_sentences(
    instances_by_split: Mapping[str, Sequence[BLMInstance]], source: str,
    log: Callable[..., None] = logging.info, view: ChunkView = ALL,
) -> dict[str, list[SourceSentence]]:
  """pattern (as the view sees it) -> the distinct sentences of that pattern.

  Sentences are the contexts (and the correct answers, if the view says so),
  plus their shortened forms when the view names optional chunks. The
  recorded pattern is the view's. A text carrying two different patterns is
  a contradiction in the source and an error; sentences without a pattern
  string are left out (logged).
  """
  by_text: dict[str, SourceSentence] = {}
  unpatterned = 0

  def add(s, inst, where):
    pat = view_pattern(s.pattern, view)
    s = Sentence(s.text, pat, s.chunks)
    seen = by_text.get(s.text)
    if seen is None:
      by_text[s.text] = SourceSentence(s, inst.language, inst.lexical_type,
                                       where)
    elif seen.sentence.pattern != pat:
      raise ValueError(
          f"source {source!r}: sentence {s.text!r} has pattern "
          f"{seen.sentence.pattern!r} in {seen.origin} but pattern "
          f"{pat!r} in {where}")

  for split in sorted(instances_by_split):
    for inst in sorted(instances_by_split[split], key=lambda x: x.id):
      sents = [(s, f"context sentence {i + 1}")
               for i, s in enumerate(inst.context)]
      if view.correct_answers:
        sents.append((inst.correct_answer, "correct answer"))
      for s, what in sents:
        if not s.pattern or not view_pattern(s.pattern, view):
          unpatterned += 1
          continue
        where = f"{split}/{inst.id} ({what})"
        add(s, inst, where)
        short = _shortened(s, view) if view.optional else None
        if short is not None:
          add(short, inst, where + ", shortened")
  if unpatterned:
    log("source %r: %d sentence occurrences have no pattern string (in the "
        "view's roles) and are left out", source, unpatterned)
  out: dict[str, list[SourceSentence]] = {}
  for text in sorted(by_text):
    ss = by_text[text]
    out.setdefault(ss.sentence.pattern, []).append(ss)
  return out


def scaled_split_sizes(total: int, sizes: Mapping[str, int]) -> dict[str, int]:
  """`sizes` scaled to sum to `total` (largest remainders, in split order)."""
  full = sum(sizes.values())
  exact = {k: v * total / full for k, v in sizes.items()}
  out = {k: math.floor(x) for k, x in exact.items()}
  by_remainder = sorted(sizes, key=lambda k: -(exact[k] - out[k]))
  for k in by_remainder[:total - sum(out.values())]:
    out[k] += 1
  return out


def uniform_quota(available: Mapping[str, int], total: int,
                  seed: int | str) -> dict[str, int]:
  """How many sentences each pattern gets: equal shares, capped by supply.

  Water filling: patterns with fewer sentences than the equal share give all
  they have and the rest share what remains; leftover units of an uneven
  division go to patterns in a seeded order.
  """
  if total > sum(available.values()):
    raise ValueError(f"asked for {total} sentences, only "
                     f"{sum(available.values())} available")
  pats = sorted(available, key=lambda p: (available[p], p))
  quota: dict[str, int] = {}
  remaining = total
  while pats and available[pats[0]] <= remaining // len(pats):
    quota[pats[0]] = available[pats[0]]
    remaining -= available[pats[0]]
    pats.pop(0)
  if pats:
    share, extra = divmod(remaining, len(pats))
    pats.sort(key=lambda p: (stable_seed("quota", seed, p), p))
    for i, p in enumerate(pats):
      quota[p] = share + (1 if i < extra else 0)
  return quota


def _apportion(weights: Mapping[str, int], total: int,
               minimum: int) -> dict[str, int]:
  """`total` split over keys proportionally to weights, each >= `minimum`."""
  keys = sorted(weights)
  if total < minimum * len(keys):
    raise ValueError(f"cannot give {len(keys)} patterns {minimum} sentences "
                     f"each out of {total}")
  wsum = sum(weights.values())
  rest = total - minimum * len(keys)
  extra = {k: max(0.0, weights[k] * total / wsum - minimum) for k in keys}
  esum = sum(extra.values())
  exact = {k: (extra[k] * rest / esum if esum else rest / len(keys))
           for k in keys}
  out = {k: math.floor(exact[k]) for k in keys}
  by_remainder = sorted(keys, key=lambda k: (-(exact[k] - out[k]), k))
  for k in by_remainder[:rest - sum(out.values())]:
    out[k] += 1
  return {k: out[k] + minimum for k in keys}


def allocate(quota: Mapping[str, int],
             sizes: Mapping[str, int]) -> dict[str, dict[str, int]]:
  """split -> pattern -> count: every split's exact size, every pattern in
  every split proportionally to its quota, at least `MIN_PER_SPLIT` each.

  The first split (train) takes what the others leave.
  """
  first, *others = list(sizes)
  out = {s: _apportion(quota, sizes[s], MIN_PER_SPLIT) for s in others}
  out[first] = {p: quota[p] - sum(out[s][p] for s in others) for p in quota}
  short = sorted(p for p, n in out[first].items() if n < MIN_PER_SPLIT)
  if short:
    raise ValueError(f"patterns {short} have too few sentences left for the "
                     f"{first!r} split")
  return {s: out[s] for s in sizes}


def min_sentences_per_pattern(n_splits: int) -> int:
  return MIN_PER_SPLIT * n_splits


def derive(
    instances_by_split: Mapping[str, Sequence[BLMInstance]],
    *,
    source: str,
    seed: int | str = 0,
    sizes: Mapping[str, int] = PAPER_SPLIT_SIZES,
    num_negatives: int = PAPER_NUM_NEGATIVES,
    negatives: str = "minimal",
    view: ChunkView = ALL,
    log: Callable[..., None] = logging.info,
) -> dict[str, list[BLMInstance]]:
  """split -> sentence-level chunk instances derived from a BLM dataset."""
  if negatives not in NEGATIVE_MODES:
    raise ValueError(f"unknown negatives mode {negatives!r}; known: "
                     f"{NEGATIVE_MODES}")
  by_pattern = collect_sentences(instances_by_split, source, log, view)
  min_n = min_sentences_per_pattern(len(sizes))
  sparse = sorted(p for p, ss in by_pattern.items() if len(ss) < min_n)
  if sparse:
    log("source %r: %d pattern(s) with fewer than %d distinct sentences are "
        "left out: %s", source, len(sparse), min_n,
        ", ".join(f"{p!r} ({len(by_pattern[p])})" for p in sparse))
  usable = {p: ss for p, ss in by_pattern.items() if len(ss) >= min_n}
  if negatives == "uniform" and len(usable) < num_negatives + 1:
    raise ValueError(
        f"source {source!r} has {len(usable)} usable sentence pattern(s) "
        f"(of {len(by_pattern)} found, each needing at least {min_n} distinct "
        f"context sentences), but {num_negatives} negatives of distinct "
        f"other patterns need at least {num_negatives + 1}: "
        f"{sorted(usable)}; minimal negatives (which may repeat a "
        f"pattern) need only 2")
  if len(usable) < 2:
    raise ValueError(f"source {source!r} has {len(usable)} usable sentence "
                     f"pattern(s), negatives need another: {sorted(usable)}")

  available = sum(len(ss) for ss in usable.values())
  wanted = sum(sizes.values())
  total = min(wanted, available)
  split_sizes = dict(sizes)
  if total < wanted:
    split_sizes = scaled_split_sizes(total, sizes)
    log("source %r has only %d usable sentences (< %d): splits scaled down "
        "to %s", source, total, wanted,
        ", ".join(f"{k}={v}" for k, v in split_sizes.items()))
  if total < min_n * len(usable):
    raise ValueError(
        f"source {source!r}: {total} sentences cannot give each of its "
        f"{len(usable)} patterns the {min_n} it needs (split sizes {sizes})")
  quota = uniform_quota({p: len(ss) for p, ss in usable.items()}, total, seed)
  counts = allocate(quota, split_sizes)
  log("source %r: %d sentences over %d patterns (%d to %d per pattern); "
      "%s", source, total, len(quota), min(quota.values()),
      max(quota.values()),
      ", ".join(f"{k}={v}" for k, v in split_sizes.items()))

  # Draw each pattern's sentences, then deal them to the splits in turn.
  pools: dict[str, dict[str, list[SourceSentence]]] = {s: {} for s in sizes}
  for p in sorted(usable):
    order = rng_for("select", seed, source, p).permutation(len(usable[p]))
    chosen = [usable[p][i] for i in order[:quota[p]]]
    start = 0
    for s in sizes:
      pools[s][p] = chosen[start:start + counts[s][p]]
      start += counts[s][p]

  return {s: _pair(pools[s], split=s, source=source, seed=seed,
                   num_negatives=num_negatives, negatives=negatives,
                   view=view) for s in sizes}


def nearest_patterns(p: str, patterns: Sequence[str],
                     view: ChunkView = ALL) -> list[str]:
  """The patterns other than `p` at the smallest distance from it."""
  d = {q: distance(p, q, view) for q in patterns if q != p}
  best = min(d.values())
  return sorted(q for q in d if d[q] == best)


def _pair(pool: Mapping[str, Sequence[SourceSentence]], *, split: str,
          source: str, seed: int | str, num_negatives: int, negatives: str,
          view: ChunkView) -> list[BLMInstance]:
  """One instance per sentence of the split: positive and negatives drawn
  from the same split (negatives: see the module docstring)."""
  patterns = sorted(pool)
  near = {p: nearest_patterns(p, patterns, view) for p in patterns}
  anchors = [(p, ss) for p in patterns for ss in pool[p]]
  # Ids in a seeded order, so that reading by id does not group patterns.
  anchors.sort(key=lambda a: (stable_seed("order", seed, a[1].sentence.text),
                              a[1].sentence.text))
  out = []
  for k, (p, anchor) in enumerate(anchors):
    rng = rng_for("pair", seed, source, split, anchor.sentence.text)
    same = [ss for ss in pool[p] if ss is not anchor]
    positive = same[rng.integers(len(same))]
    if negatives == "uniform":
      others = [q for q in patterns if q != p]
      neg_patterns = [others[i] for i in rng.choice(
          len(others), num_negatives, replace=False)]
    else:
      neg_patterns = _round_robin(near[p], num_negatives, rng)
    by_distance = sorted((q for q in patterns if q != p),
                         key=lambda q: (distance(p, q, view), q))
    negs = _distinct_sentences(pool, neg_patterns, rng, split, by_distance)
    out.append(make_instance(
        id=f"{split}-{k:05d}",
        family=FAMILY,
        language=anchor.language,
        lexical_type=anchor.lexical_type,
        subset=source,
        context=(anchor.sentence,),
        candidates=[(POSITIVE, positive.sentence)]
        + [(NEGATIVE, n.sentence) for n in negs],
        correct_label=POSITIVE,
        seed=seed))
  return out


def _round_robin(patterns: Sequence[str], n: int, rng) -> list[str]:
  """`n` patterns: each of `patterns` once (seeded order) before repeats."""
  out: list[str] = []
  while len(out) < n:
    out += [patterns[i] for i in rng.permutation(len(patterns))]
  return out[:n]


def _distinct_sentences(pool, neg_patterns, rng, split, fallback=()):
  """One sentence per pattern in `neg_patterns`, no sentence twice.

  When a small split has no unused sentence of a pattern left, the first
  pattern of `fallback` (the others, nearest first) that has one is used
  instead; builds that never run out draw exactly as before.
  """
  taken: dict[str, set[int]] = {}
  out = []

  def free_of(q):
    used = taken.setdefault(q, set())
    return ([i for i in range(len(pool[q])) if i not in used] if used
            else range(len(pool[q])))

  for q in neg_patterns:
    free = free_of(q)
    if not free:
      q = next((r for r in fallback if free_of(r)), q)
      free = free_of(q)
    used = taken.setdefault(q, set())
    if not free:
      raise ValueError(f"split {split!r}: pattern {q!r} has only "
                       f"{len(pool[q])} sentences, too few for distinct "
                       "negatives")
    i = free[rng.integers(len(free))]
    used.add(i)
    out.append(pool[q][i])
  return out
