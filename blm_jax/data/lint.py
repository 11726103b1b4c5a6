"""Checking BLM instances for defects that make a puzzle ill-posed or solvable
without the linguistics it is meant to test.

    python -m blm_jax.cli.lint <folder, file or TFDS name> [--strict]
        [--answers_only] [--data_dir DIR] [--manual_dir DIR]

A path is read with the release reader, or as own JSON lines for `.jsonl`
(a folder: every .tsv, .csv and .jsonl file below it, one report per
file); anything else is a TFDS name such as
`blm_published/agreement_fr_type_I` (built if needed; every split is linted).
It prints, per rule, how many instances break it and a few examples (sentence
and candidate numbers count from 1, in the instance's stored order), and exits
1 when an error rule fires (with --strict, also a warning rule; an info rule
never), 2 when the input cannot be read. `--answers_only` adds the answers-only cue check
(`blm_jax.data.context_free.answers_only`: a model that never sees the context must stay near
chance); it is opt-in because it fits a model per subset (seconds) and
several older templates carry documented local cues.

Builders call `lint(instances)` on their own output in their tests.
A builder package's linguistic checks (`data_builders/<package>/validate.py`,
`data_builders.common.validation`) run beside the rules when given
(`lint(instances, checks=...)`; the CLI passes them for a TFDS name of that
package): each is a warning rule of its own.
"""

from __future__ import annotations

import collections
import dataclasses
import random
from typing import Callable, Iterable, Sequence

from blm_jax.data.context_free import answers_only as answers_only_lib
from data_builders.common import labels as labels_lib
from data_builders.common import validation
from data_builders.common.schema import BLMInstance

ERROR = "error"
WARNING = "warning"
# Said, never a failure, even with --strict: what lint cannot judge.
INFO = "info"
MAX_EXAMPLES = 3


@dataclasses.dataclass(frozen=True)
class Rule:
  name: str
  severity: str
  description: str


RULES = (
    Rule("one_correct", ERROR,
         "exactly one candidate carries the family's correct label, and it is "
         "the one marked correct"),
    Rule("duplicate_candidate", ERROR,
         "no two candidates have the same text"),
    Rule("empty_sentence", ERROR, "no context sentence or candidate is empty"),
    Rule("correct_in_context", ERROR,
         "the correct answer does not occur in the context"),
    Rule("answer_count", WARNING,
         "the number of candidates is constant within a subset (it may "
         "vary, docs/tutorials/own-data.md; chance then differs between instances)"),
    Rule("unknown_label", INFO,
         "labels lint knows (data_builders.common.labels); own data's labels "
         "are read as the data names them, only the `correct` index decides"),
    Rule("copy_cue", WARNING,
         "no wrong candidate repeats a context sentence verbatim (a cue a "
         "solver can exploit without learning the rule)"),
    Rule("answers_only_cue", WARNING,
         "with --answers_only: a conditional logit on each candidate's own "
         "words, never seeing the context, stays near chance per subset"),
    Rule("context_free_ceiling", WARNING,
         "a context-necessary config: word logit, odd-one-in, (with "
         "--probe) the embedding probe and (with --design) the set scorer "
         "stay at most "
         f"{answers_only_lib.CONTEXT_FREE_CEILING} on the whole split"),
    Rule("sequence_bounds", WARNING,
         "with --design, a sequence-necessary config: the strongest "
         "context-free scorer at most chance + 0.05 (top-1) and 2 x chance "
         "+ 0.10 (top-2), no single position's pattern above 0.6, the whole "
         "context decides every instance"),
)
# Rules every `lint` call runs; the others only when asked (`ran`).
ALWAYS = ("one_correct", "duplicate_candidate", "empty_sentence",
          "correct_in_context", "answer_count", "unknown_label", "copy_cue")
RULES_BY_NAME = {r.name: r for r in RULES}


@dataclasses.dataclass(frozen=True)
class Finding:
  rule: str
  instance_id: str
  message: str


@dataclasses.dataclass
class LintReport:
  """Per rule: instances that break it (`counts`) and a few `examples`."""

  n_instances: int = 0
  counts: dict[str, int] = dataclasses.field(
      default_factory=lambda: {r.name: 0 for r in RULES})
  examples: dict[str, list[Finding]] = dataclasses.field(
      default_factory=lambda: {r.name: [] for r in RULES})
  # Per subset: the answers-only scores (with answers_only=True).
  cue_scores: dict[str, answers_only_lib.CueScore] = dataclasses.field(
      default_factory=dict)
  # Per population (with a ceiling): the context-free scores held to it.
  ceiling_scores: dict[str, dict[str, float]] = dataclasses.field(
      default_factory=dict)
  # The rules that ran (only they are reported), and why an asked-for
  # check could not run ({rule: reason}).
  ran: set[str] = dataclasses.field(default_factory=lambda: set(ALWAYS))
  not_run: dict[str, str] = dataclasses.field(default_factory=dict)
  # The family's linguistic checks that ran, as warning rules (`add_checks`).
  family_rules: list[Rule] = dataclasses.field(default_factory=list)

  def add_checks(self, checks) -> None:
    """Makes each of `checks` (`validation.Check`s, or Rules of another
    report) a warning rule of this report, counted from zero."""
    known = {r.name for r in self.rules}
    for c in checks:
      if c.name in known:
        continue
      self.family_rules.append(Rule(c.name, WARNING, c.description))
      self.counts[c.name] = 0
      self.examples[c.name] = []
      self.ran.add(c.name)
      known.add(c.name)

  @property
  def rules(self) -> tuple[Rule, ...]:
    return RULES + tuple(self.family_rules)

  def hold_to_ceiling(self, population: str, n: int,
                      scores: dict[str, float], ceiling: float | None):
    """Records `scores` of `population` (n instances); a score above
    `ceiling` (None: no ceiling, only recorded) counts its n instances
    under `context_free_ceiling`."""
    self.ran.add("context_free_ceiling")
    self.ceiling_scores.setdefault(population, {}).update(scores)
    over = [f"{k} {v:.3f}" for k, v in scores.items()
            if ceiling is not None and v > ceiling]
    if over:
      self.counts["context_free_ceiling"] += n
      if len(self.examples["context_free_ceiling"]) < MAX_EXAMPLES:
        self.examples["context_free_ceiling"].append(Finding(
            "context_free_ceiling", population,
            f"{', '.join(over)} above the ceiling {ceiling}"))

  def hold_to_sequence_bounds(self, population: str, n: int,
                              violations: list[str]):
    """Records the `_seq` bounds a population breaks (`design.
    DesignReport.sequence_violations`); any counts its n instances."""
    self.ran.add("sequence_bounds")
    if violations:
      self.counts["sequence_bounds"] += n
      if len(self.examples["sequence_bounds"]) < MAX_EXAMPLES:
        self.examples["sequence_bounds"].append(Finding(
            "sequence_bounds", population, "; ".join(violations)))

  def add(self, finding: Finding):
    self.counts[finding.rule] += 1
    if len(self.examples[finding.rule]) < MAX_EXAMPLES:
      self.examples[finding.rule].append(finding)

  @property
  def errors(self) -> dict[str, int]:
    return {r.name: self.counts[r.name] for r in self.rules
            if r.severity == ERROR and self.counts[r.name]}

  @property
  def warnings(self) -> dict[str, int]:
    return {r.name: self.counts[r.name] for r in self.rules
            if r.severity == WARNING and self.counts[r.name]}

  @property
  def infos(self) -> dict[str, int]:
    return {r.name: self.counts[r.name] for r in self.rules
            if r.severity == INFO and self.counts[r.name]}

  def ok(self, strict: bool = False) -> bool:
    return not self.errors and not (strict and self.warnings)

  def format(self, title: str = "") -> str:
    lines = [f"{title}: {self.n_instances} instances" if title
             else f"{self.n_instances} instances"]
    for r in self.rules:
      if r.name in self.not_run:
        lines.append(f"  {'-':7s} {r.name}: not run: {self.not_run[r.name]}")
      if r.name not in self.ran:
        continue
      n = self.counts[r.name]
      mark = "ok" if not n else r.severity.upper()
      lines.append(f"  {mark:7s} {r.name}: {n}/{self.n_instances} "
                   f"({r.description})")
      for f in self.examples[r.name]:
        lines.append(f"            e.g. {f.instance_id}: {f.message}")
    for subset, cue in self.cue_scores.items():
      lines.append(f"  {subset}: {cue}")
    for population, scores in self.ceiling_scores.items():
      lines.append(f"  {population}: context-free " + ", ".join(
          f"{k} {v:.3f}" for k, v in scores.items()))
    return "\n".join(lines)


def _norm(text: str) -> str:
  return " ".join(text.split())


def _check_one_correct(x: BLMInstance) -> Iterable[str]:
  if x.family not in labels_lib.FAMILY_LABELS:
    return  # Reported by unknown_label.
  correct = labels_lib.correct_label(x.family)
  where = [i for i, lab in enumerate(x.labels) if lab == correct]
  if len(where) != 1:
    yield f"{len(where)} candidates labelled {correct!r} (labels {x.labels})"
  elif where[0] != x.correct:
    yield (f"candidate {x.correct + 1} is marked correct but candidate "
           f"{where[0] + 1} is labelled {correct!r}")


def _check_duplicate_candidate(x: BLMInstance) -> Iterable[str]:
  seen: dict[str, int] = {}
  for i, s in enumerate(x.answers):
    key = _norm(s.text)
    if key and key in seen:
      j = seen[key]
      yield (f"candidates {j + 1} ({x.labels[j]}) and {i + 1} ({x.labels[i]}) "
             f"are "
             f"both {s.text!r}")
    seen.setdefault(key, i)


def _check_empty_sentence(x: BLMInstance) -> Iterable[str]:
  for i, s in enumerate(x.context):
    if not s.text.strip():
      yield f"context sentence {i + 1} is empty"
  for i, s in enumerate(x.answers):
    if not s.text.strip():
      yield f"candidate {i + 1} ({x.labels[i]}) is empty"


def _check_correct_in_context(x: BLMInstance) -> Iterable[str]:
  answer = _norm(x.correct_answer.text)
  for i, s in enumerate(x.context):
    if answer and _norm(s.text) == answer:
      yield (f"the correct answer {x.correct_answer.text!r} is context "
             f"sentence {i + 1}")


def _check_unknown_label(x: BLMInstance) -> Iterable[str]:
  if x.family not in labels_lib.FAMILY_LABELS:
    yield (f"labels {sorted(set(x.labels))} of family {x.family!r}, which "
           "lint does not know: not checked against an inventory")
    return
  inventory = labels_lib.family_labels(x.family)
  bad = [lab for lab in x.labels if lab not in inventory]
  if bad:
    yield f"labels {bad} are not in the {x.family} inventory {inventory}"


def _check_copy_cue(x: BLMInstance) -> Iterable[str]:
  context: dict[str, int] = {}
  for i, s in enumerate(x.context):
    context.setdefault(_norm(s.text), i)
  for i, s in enumerate(x.answers):
    key = _norm(s.text)
    if i != x.correct and key and key in context:
      yield (f"wrong candidate {i + 1} ({x.labels[i]}) repeats context "
             f"sentence {context[key] + 1} {s.text!r}")


_PER_INSTANCE: dict[str, Callable[[BLMInstance], Iterable[str]]] = {
    "one_correct": _check_one_correct,
    "duplicate_candidate": _check_duplicate_candidate,
    "empty_sentence": _check_empty_sentence,
    "correct_in_context": _check_correct_in_context,
    "unknown_label": _check_unknown_label,
    "copy_cue": _check_copy_cue,
}


def describe(family: str, language: str, subset: str,
             lexical_type: str) -> str:
  """A subset named for a reader: empty fields say 'unknown'."""
  return (f"{family or 'family unknown'}, language {language or 'unknown'}, "
          f"subset {subset or 'unknown'}, type {lexical_type or 'unknown'}")


def subset_key(x: BLMInstance) -> tuple[str, str, str, str]:
  """Instances sharing this key must have the same number of candidates."""
  return (x.family, x.language, x.subset, x.lexical_type)


# Families whose `subset` is given only by the context (caus_he: the target
# binyan): a solver never sees it, so the answers-only cue is scored over
# the pooled population, not per subset, where it would be a false alarm.
CONTEXT_GIVEN_SUBSET = frozenset({"caus_he"})


def population_key(x: BLMInstance) -> str:
  """What a solver trained on a config sees as one population: a
  context-necessary config may name the drawn direction in `subset`, which
  no solver is shown, so its scores pool the subsets."""
  return (f"{x.family or 'family unknown'}/"
          f"{x.language or 'language unknown'}/"
          f"{x.lexical_type or 'type unknown'}/{len(x.answers)} answers")


def lint(instances: Sequence[BLMInstance], answers_only: bool = False,
         ceiling: float | None = None,
         checks: Sequence[validation.Check] = ()) -> LintReport:
  """Applies every rule in `RULES` (`answers_only_cue` only when asked;
  `context_free_ceiling` when a `ceiling` is given, for a
  context-necessary config) and each of the family's `checks`; counts
  instances, not occurrences."""
  report = LintReport(n_instances=len(instances))
  report.add_checks(checks)
  for x in instances:
    for rule, check in _PER_INSTANCE.items():
      messages = list(check(x))
      if messages:
        report.add(Finding(rule, x.id, "; ".join(messages)))
    for rule, messages in validation.findings(checks, x).items():
      report.add(Finding(rule, x.id, "; ".join(messages)))
  groups: dict[tuple, list[BLMInstance]] = collections.defaultdict(list)
  for x in instances:
    groups[subset_key(x)].append(x)
  cue_groups: dict[str, list[BLMInstance]] = collections.defaultdict(list)
  for key, members in groups.items():
    counts = collections.Counter(len(x.answers) for x in members)
    usual = max(counts, key=lambda n: (counts[n], n))
    for x in members:
      if len(x.answers) != usual:
        report.add(Finding(
            "answer_count", x.id,
            f"{len(x.answers)} candidates where subset ({describe(*key)}) "
            f"mostly has {usual} ({dict(counts)})"))
    if answers_only and ceiling is None:
      cue_groups[describe(*key) if key[0] not in CONTEXT_GIVEN_SUBSET
                 else population_key(members[0])].extend(
                     x for x in members if len(x.answers) == usual)
  too_few = []
  for name, members in cue_groups.items():
    # (A context-necessary config is held to `ceiling` instead: two
    # well-formed candidates put a grammaticality detector at 0.5.)
    cue = answers_only_lib.score(members)
    if cue is None:
      too_few.append(f"{name}: {len(members)}")
      continue
    report.ran.add("answers_only_cue")
    report.cue_scores[name] = cue
    if cue.cue:
      report.counts["answers_only_cue"] += cue.n
      if len(report.examples["answers_only_cue"]) < MAX_EXAMPLES:
        report.examples["answers_only_cue"].append(Finding(
            "answers_only_cue", name, str(cue)))
  if too_few:
    report.not_run["answers_only_cue"] = (
        f"too few instances to fit ({'; '.join(too_few)}; at least "
        f"{answers_only_lib.MIN_INSTANCES} per subset)")
  if ceiling is not None:
    for key, members in populations(instances).items():
      cue = answers_only_lib.score(members)
      if cue is not None:
        report.hold_to_ceiling(key, cue.n, {"word_logit": cue.logit,
                                            "odd_one_in": cue.odd_one_in},
                               ceiling)
      else:
        report.not_run["context_free_ceiling"] = (
            f"too few instances to fit ({key}: {len(members)}; at least "
            f"{answers_only_lib.MIN_INSTANCES})")
  return report


def populations(instances: Sequence[BLMInstance]
                ) -> dict[str, list[BLMInstance]]:
  """Instances grouped by `population_key`."""
  out: dict[str, list[BLMInstance]] = collections.defaultdict(list)
  for x in instances:
    out[population_key(x)].append(x)
  return dict(out)


def sample(instances: Sequence[BLMInstance], n: int | None
           ) -> Sequence[BLMInstance]:
  """At most `n` of `instances` (a seeded sample, in id order): the scores
  of a training-sized draw without embedding a whole 15,000-instance
  split for --probe."""
  if not n or len(instances) <= n:
    return instances
  keep = sorted(random.Random(0).sample(range(len(instances)), n))
  return [instances[i] for i in keep]
