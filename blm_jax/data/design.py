"""The design analyzer: what in a BLM decides its answer.

A BLM should need its sequence (000 sec. 2: "the answer is the continuation
of this pattern"). For one population (`lint.population_key`: what a solver
trained on a config sees as one dataset) it measures:

- effective chance: the strongest context-free scorer (`set_scorer`): its
  top-1, top-2, effective chance and the number of candidates it leaves
  plausible;
- position dependence: for each context position and each pair (and, at
  pattern level, every set of positions), how well those sentences decide
  the answer. Pattern level (instances carry `pattern`s): the cross-fitted
  majority vote of the correct answer's pattern given the positions'
  patterns (unseen keys fall back to the most frequent answer pattern).
  Word level (no patterns): a conditional logit on the positions' words
  crossed with each candidate's distinctive words (those not shared by all
  candidates) and on the function-word skeletons of the positions crossed
  with the candidate's, scored on 2 of the 5 folds; singles and pairs only. Folds are grouped as
  the context-free scorer's (`answers_only.group_folds`). The smallest set
  of positions that decides the answer is the smallest set whose accuracy
  reaches DECIDES;
- determinacy (pattern level only): whether the whole context's patterns
  determine one answer pattern over the population (instances with the same
  context patterns never have different correct answer patterns; tested
  only where instances share a context pattern sequence, so the number of
  distinct sequences is reported beside it), how many
  instances have a second defensible answer (a wrong candidate whose
  pattern is the correct answer pattern of another instance with the same
  context patterns), and how many have a wrong candidate with the correct
  answer's own pattern (which patterns cannot tell apart);
- visibility (given the family's attribute schema): the instances in which
  an attribute that decides between the candidates is shown by fewer than
  `attributes.MIN_VISIBLE_TERMS` context sentences (a rule read off three
  terms needs the family's prior to continue).

Across a config's splits, `rule_coverage(train, test)` counts its rules
(context pattern sequences, `splits.rule_key`) and the share of test rules
that training never shows (all of them in a held-out-rules regime; DESIGN.md,
generalisation as PGM does).

`analyze(instances)` returns one `DesignReport` per population;
`DesignReport.sequence_violations()` holds a report to the `_seq` designs'
bounds.
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
import zlib
from typing import Sequence

import numpy as np

from blm_jax.data.context_free import answers_only, set_scorer
from blm_jax.data.context_free.answers_only import DIM, tokens
from blm_jax.data.context_free.set_features import SetFeaturizer
from blm_jax.data.lint import population_key
from data_builders.common import attributes as attributes_lib
from data_builders.common.schema import BLMInstance
from data_builders.common.splits import rule_key

# A set of positions "decides" the answer when its cross-fitted accuracy
# reaches this.
DECIDES = 0.99
N_FOLDS = 5
WORD_FOLDS = 2  # Word level: the first 2 of the 5 folds held out (time).
# The `_seq` bound on any single position's pattern.
SINGLE_POSITION_BOUND = 0.6


def has_patterns(instances: Sequence[BLMInstance]) -> bool:
  """Whether every context sentence and every candidate carries a pattern."""
  return all(s.pattern for x in instances for s in x.context + x.answers)


def _codes(values: Sequence) -> np.ndarray:
  index: dict = {}
  return np.array([index.setdefault(v, len(index)) for v in values], np.int64)


def _majority_accuracy(keys: np.ndarray, target: np.ndarray,
                       folds: np.ndarray) -> float:
  """Cross-fitted accuracy of predicting `target` as the majority target of
  the training instances with the same key (ties share the credit; an
  unseen key gets the overall majority)."""
  n_keys, n_t = int(keys.max()) + 1, int(target.max()) + 1
  hits = np.zeros(len(keys))
  for f in np.unique(folds):
    train, held = folds != f, folds == f
    counts = np.bincount(keys[train] * n_t + target[train],
                         minlength=n_keys * n_t).reshape(n_keys, n_t)
    overall = counts.sum(0)
    rows = counts[keys[held]].astype(float)
    rows[rows.sum(1) == 0] = overall
    top = rows == rows.max(1, keepdims=True)
    hits[held] = top[np.arange(len(rows)), target[held]] / top.sum(1)
  return float(hits.mean())


@dataclasses.dataclass
class DesignReport:
  """The design analysis of one population; positions count from 1."""

  population: str
  n: int
  chance: float
  level: str | None = None  # "pattern", "words" or None (not computed)
  set_score: set_scorer.SetScore | None = None
  singles: dict[int, float] = dataclasses.field(default_factory=dict)
  pairs: dict[tuple[int, int], float] = dataclasses.field(
      default_factory=dict)
  smallest_deciding: tuple[int, ...] | None = None
  smallest_deciding_accuracy: float | None = None
  whole_context: float | None = None  # cross-fitted, pattern level
  determined: bool | None = None
  n_ambiguous: int | None = None
  n_second_answer: int | None = None
  n_pattern_twins: int | None = None
  # Distinct context-pattern sequences: determinacy is tested only where
  # instances share one (n_context_patterns near n: little tested).
  n_context_patterns: int | None = None
  # Instances with a deciding attribute shown by fewer than
  # MIN_VISIBLE_TERMS context sentences, and per attribute (None: no schema).
  n_thin_attributes: int | None = None
  thin_attributes: dict[str, int] = dataclasses.field(default_factory=dict)
  notes: list[str] = dataclasses.field(default_factory=list)

  @property
  def best_single(self) -> tuple[int, float] | None:
    if not self.singles:
      return None
    p = max(self.singles, key=self.singles.get)
    return p, self.singles[p]

  @property
  def best_pair(self) -> tuple[tuple[int, int], float] | None:
    if not self.pairs:
      return None
    p = max(self.pairs, key=self.pairs.get)
    return p, self.pairs[p]

  def sequence_violations(self) -> list[str]:
    """The `_seq` bounds this population breaks: the strongest
    context-free scorer at most chance + 0.05 (top-1) and 2 x chance + 0.10
    (top-2); no single position's pattern above 0.6; the whole context
    decides every instance. A part not computed is a violation too."""
    out = []
    if self.set_score is None:
      out.append("context-free scorer not computed")
    else:
      top1, top2 = set_scorer.sequence_bounds(self.set_score.chance)
      if self.set_score.best_top1 > top1 + 1e-9:
        out.append(f"context-free top-1 {self.set_score.best_top1:.3f} > "
                   f"{top1:.3f} (chance + 0.05)")
      if self.set_score.best_top2 > top2 + 1e-9:
        out.append(f"context-free top-2 {self.set_score.best_top2:.3f} > "
                   f"{top2:.3f} (2 x chance + 0.10)")
    if self.level != "pattern":
      out.append("position dependence not computed at pattern level")
    elif self.best_single and self.best_single[1] > SINGLE_POSITION_BOUND:
      p, acc = self.best_single
      out.append(f"position {p}'s pattern decides {acc:.3f} > "
                 f"{SINGLE_POSITION_BOUND}")
    if self.determined is None:
      out.append("determinacy not computed")
    elif not self.determined:
      out.append(f"the whole context leaves {self.n_ambiguous} instance(s) "
                 "undetermined")
    if self.n_thin_attributes:
      out.append(f"{self.n_thin_attributes} instance(s) with a deciding "
                 f"attribute shown by fewer than "
                 f"{attributes_lib.MIN_VISIBLE_TERMS} context sentences "
                 f"({self._thin_text()})")
    return out

  def _thin_text(self) -> str:
    return ", ".join(f"{k}: {v}" for k, v in sorted(
        self.thin_attributes.items())) or "none"


  def as_dict(self) -> dict:
    r = lambda v: None if v is None else round(v, 4)
    return {
        "population": self.population, "n": self.n,
        "chance": r(self.chance), "level": self.level,
        "context_free": self.set_score.as_dict() if self.set_score else None,
        "singles": {str(p): r(v) for p, v in self.singles.items()},
        "pairs": {f"{a}+{b}": r(v) for (a, b), v in self.pairs.items()},
        "smallest_deciding": (list(self.smallest_deciding)
                              if self.smallest_deciding else None),
        "smallest_deciding_accuracy": r(self.smallest_deciding_accuracy),
        "whole_context": r(self.whole_context),
        "determined": self.determined, "n_ambiguous": self.n_ambiguous,
        "n_second_answer": self.n_second_answer,
        "n_pattern_twins": self.n_pattern_twins,
        "n_context_patterns": self.n_context_patterns,
        "n_thin_attributes": self.n_thin_attributes,
        "thin_attributes": dict(self.thin_attributes),
        "notes": list(self.notes)}

  def format(self) -> str:
    lines = [f"  design of {self.population} ({self.n} instances, chance "
             f"{self.chance:.3f}):"]
    if self.set_score:
      lines.append(f"    effective chance: {self.set_score}")
    if self.singles:
      lines.append(f"    position dependence ({self.level} level): single "
                   + ", ".join(f"{p}: {v:.3f}"
                               for p, v in self.singles.items()))
    if self.pairs:
      (a, b), v = self.best_pair
      lines.append(f"    best pair: {a}+{b}: {v:.3f}")
    if self.singles:
      lines.append(
          "    smallest deciding set: "
          + ("+".join(map(str, self.smallest_deciding))
             + f" ({self.smallest_deciding_accuracy:.3f})"
             if self.smallest_deciding else
             f"none reaches {DECIDES}"
             + (" among singles and pairs" if self.level == "words" else "")))
    if self.determined is not None:
      lines.append(
          f"    determinacy: the whole context "
          + ("determines one answer pattern" if self.determined else
             f"leaves {self.n_ambiguous} instance(s) undetermined")
          + (f" (cross-fitted {self.whole_context:.3f})"
             if self.whole_context is not None else "")
          + f"; {self.n_context_patterns} distinct context pattern "
          f"sequences; second defensible "
          f"answer in {self.n_second_answer}; a wrong candidate with the "
          f"correct pattern in {self.n_pattern_twins}")
    if self.n_thin_attributes is not None:
      lines.append(
          f"    visibility: {self.n_thin_attributes} instance(s) with a "
          f"deciding attribute shown by fewer than "
          f"{attributes_lib.MIN_VISIBLE_TERMS} context sentences "
          f"({self._thin_text()})")
    for note in self.notes:
      lines.append(f"    note: {note}")
    return "\n".join(lines)


def _pattern_positions(report: DesignReport, xs: Sequence[BLMInstance],
                       folds: np.ndarray):
  length = min(len(x.context) for x in xs)
  cols = [_codes([x.context[i].pattern for x in xs]) for i in range(length)]
  target = _codes([x.correct_answer.pattern for x in xs])

  def acc(positions) -> float:
    keys = _codes([tuple(int(cols[i][j]) for i in positions)
                   for j in range(len(xs))])
    return _majority_accuracy(keys, target, folds)

  report.singles = {i + 1: acc((i,)) for i in range(length)}
  report.pairs = {(a + 1, b + 1): acc((a, b))
                  for a, b in itertools.combinations(range(length), 2)}
  for size in range(1, length + 1):
    if size == 1:
      scored = {(p,): v for p, v in report.singles.items()}
    elif size == 2:
      scored = dict(report.pairs)
    else:
      scored = {tuple(p + 1 for p in c): acc(c)
                for c in itertools.combinations(range(length), size)}
    best = max(scored, key=scored.get)
    if scored[best] >= DECIDES:
      report.smallest_deciding = best
      report.smallest_deciding_accuracy = scored[best]
      break
  report.whole_context = acc(tuple(range(length)))
  if any(len(x.context) != length for x in xs):
    report.notes.append(f"contexts of different lengths: positions 1-"
                        f"{length} analysed")


def _determinacy(report: DesignReport, xs: Sequence[BLMInstance]):
  by_context: dict[tuple, set] = collections.defaultdict(set)
  for x in xs:
    by_context[tuple(s.pattern for s in x.context)].add(
        x.correct_answer.pattern)
  ambiguous = second = twins = 0
  for x in xs:
    right = by_context[tuple(s.pattern for s in x.context)]
    own = x.correct_answer.pattern
    wrong = [s.pattern for i, s in enumerate(x.answers) if i != x.correct]
    ambiguous += len(right) > 1
    second += any(p in right and p != own for p in wrong)
    twins += own in wrong
  report.determined = ambiguous == 0
  report.n_ambiguous, report.n_second_answer = ambiguous, second
  report.n_pattern_twins = twins
  report.n_context_patterns = len(by_context)


def _distinctive(texts: Sequence[str]) -> list[set[str]]:
  toks = [set(tokens(t)) for t in texts]
  shared = set.intersection(*toks) if toks else set()
  return [t - shared for t in toks]


def _word_features(x: BLMInstance, positions,
                   skeleton: SetFeaturizer) -> list[np.ndarray]:
  ctx = {w for i in positions for w in tokens(x.context[i].text)}
  frames = [" ".join(skeleton.skeleton(tokens(x.context[i].text)))
            for i in positions]
  out = []
  for text, own in zip((s.text for s in x.answers),
                       _distinctive([s.text for s in x.answers])):
    frame = " ".join(skeleton.skeleton(tokens(text)))
    grams = ([f"a {v}" for v in own] + [f"{w} {v}" for w in ctx for v in own]
             + [f"frame {frame}"] + [f"frames {c} | {frame}" for c in frames])
    out.append(np.array(sorted({zlib.crc32(g.encode("utf-8")) % DIM
                                for g in grams}), np.int64))
  return out


def _word_positions(report: DesignReport, xs: Sequence[BLMInstance],
                    folds: np.ndarray):
  length = min(len(x.context) for x in xs)
  correct = [x.correct for x in xs]
  skeleton = SetFeaturizer.fit([[s.text for s in x.context + x.answers]
                                for x in xs])

  def acc(positions) -> float:
    feats = [_word_features(x, positions, skeleton) for x in xs]
    hits = 0.0
    for f in np.unique(folds)[:WORD_FOLDS]:
      train = np.flatnonzero(folds != f)
      held = np.flatnonzero(folds == f)
      w = answers_only.fit_logit(answers_only.batch_features(
          [feats[i] for i in train], [correct[i] for i in train]),
          steps=100)
      hits += answers_only.held_out_accuracy(w, answers_only.batch_features(
          [feats[i] for i in held], [correct[i] for i in held])) * len(held)
    return hits / sum(np.isin(folds, np.unique(folds)[:WORD_FOLDS]))

  report.singles = {i + 1: acc((i,)) for i in range(length)}
  report.pairs = {(a + 1, b + 1): acc((a, b))
                  for a, b in itertools.combinations(range(length), 2)}
  scored = {**{(p,): v for p, v in report.singles.items()}, **report.pairs}
  for size in (1, 2):
    best = max((k for k in scored if len(k) == size), key=scored.get,
               default=None)
    if best and scored[best] >= DECIDES:
      report.smallest_deciding = best
      report.smallest_deciding_accuracy = scored[best]
      break


def _visibility(report: DesignReport, xs: Sequence[BLMInstance],
                schema: attributes_lib.AttributeSchema):
  per_attribute: collections.Counter = collections.Counter()
  thin = 0
  for x in xs:
    found = attributes_lib.thinly_visible(
        schema, [s.pattern for s in x.context],
        [s.pattern for s in x.answers])
    thin += bool(found)
    per_attribute.update(found.keys())
  report.n_thin_attributes = thin
  report.thin_attributes = dict(per_attribute)


def analyze_population(name: str, xs: Sequence[BLMInstance],
                       context_free: bool = True, positions: bool = True,
                       schema: attributes_lib.AttributeSchema | None = None
                       ) -> DesignReport:
  """The design analysis of one population (see the module docstring).
  Parts that cannot be computed are left None with a note saying why;
  `schema`: the family's attributes (visibility is counted with it)."""
  report = DesignReport(
      population=name, n=len(xs),
      chance=float(np.mean([1 / len(x.answers) for x in xs])) if xs else 0.0)
  answers = [[s.text for s in x.answers] for x in xs]
  correct = [x.correct for x in xs]
  try:
    folds = answers_only.group_folds(answers, correct, N_FOLDS)
  except answers_only.TooFewToFit:
    folds = None
  if len(xs) < answers_only.MIN_INSTANCES or folds is None:
    report.notes.append(
        f"too few to fit: {len(xs)} instance(s)"
        + ("" if folds is not None else " in too few independent answer sets")
        + f" (the context-free scorer and position dependence need at least "
        f"{answers_only.MIN_INSTANCES} in {N_FOLDS} groups)")
  else:
    if context_free:
      report.set_score = set_scorer.score_texts(answers, correct)
    if positions:
      if has_patterns(xs):
        report.level = "pattern"
        _pattern_positions(report, xs, folds)
      else:
        report.level = "words"
        _word_positions(report, xs, folds)
  if has_patterns(xs):
    _determinacy(report, xs)
    if schema is not None:
      _visibility(report, xs, schema)
  elif xs:
    report.notes.append(
        "the instances carry no patterns: determinacy (pattern level) not "
        "computed; position dependence from words with a learned model "
        "(singles and pairs)")
  return report


def analyze(instances: Sequence[BLMInstance], context_free: bool = True,
            positions: bool = True,
            schema: attributes_lib.AttributeSchema | None = None
            ) -> list[DesignReport]:
  """`analyze_population` of each population of `instances`."""
  groups: dict[str, list[BLMInstance]] = collections.defaultdict(list)
  for x in instances:
    groups[population_key(x)].append(x)
  return [analyze_population(k, v, context_free, positions, schema)
          for k, v in groups.items()]


@dataclasses.dataclass(frozen=True)
class RuleCoverage:
  """A config's rules (context pattern sequences) across train and test:
  `n_rules`, those of the two splits together; `unseen_rules`, the share of the test split's rules that no training
  instance shows; `unseen_instances`, the share of test instances whose
  rule is one of them."""

  n_rules: int
  n_train_rules: int
  n_test_rules: int
  unseen_rules: float
  unseen_instances: float

  def as_dict(self) -> dict:
    return {k: round(v, 4) if isinstance(v, float) else v
            for k, v in dataclasses.asdict(self).items()}

  def format(self) -> str:
    return (f"  rules: {self.n_rules} distinct context pattern sequences "
            f"({self.n_train_rules} in train, {self.n_test_rules} in test); "
            f"test rules unseen in train: {self.unseen_rules:.3f} "
            f"({self.unseen_instances:.3f} of test instances)")


def rule_coverage(train: Sequence[BLMInstance], test: Sequence[BLMInstance]
                  ) -> RuleCoverage | None:
  """The rule counts of a config's train and test splits; None when an
  instance carries no patterns (its rule is unknown). ValueError (one
  line) on an empty split."""
  if not train or not test:
    raise ValueError(f"rule coverage needs both splits: {len(train)} train "
                     f"and {len(test)} test instance(s)")
  if not (has_patterns(train) and has_patterns(test)):
    return None
  seen = {rule_key(x) for x in train}
  test_rules = [rule_key(x) for x in test]
  unseen = set(test_rules) - seen
  return RuleCoverage(
      n_rules=len(seen | set(test_rules)), n_train_rules=len(seen),
      n_test_rules=len(set(test_rules)),
      unseen_rules=len(unseen) / len(set(test_rules)),
      unseen_instances=sum(r in unseen for r in test_rules) / len(test_rules))
