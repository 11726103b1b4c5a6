"""Lints BLM instances: a release file, a folder of them, or a dataset name.

  python -m blm_jax.cli.lint blm_spray_load/ALT-ATL_type_I --answers_only
  python -m blm_jax.cli.lint spray_load_ctx --split=train   # every type
  python -m blm_jax.cli.lint spray_load_ctx:II --strict
  python -m blm_jax.cli.lint blm_spray_load/ctx_type_I --strict --probe
  python -m blm_jax.cli.lint blm_spray_load/ctx_type_I --split=train \
      --sample=2000 --design

Prints one report per file or split (see blm_jax.data.lint for the rules);
exits 1 on errors (or warnings with --strict), 2 when the input cannot be
read; `info` findings (labels of a family lint does not know, as own data's
are) never fail it.
A TFDS config built to need its context (`context_necessary`) is held to the
context-free ceiling (`answers_only.CONTEXT_FREE_CEILING`) with --strict or
--answers_only (with --design, the set scorer's top-1 too); --probe adds
the embedding probe (an MLP on each candidate's frozen embedding alone,
cross-fitted) to the scores. --design
adds the design analysis (blm_jax.data.design: effective chance of the
strongest context-free scorer, which context positions decide the answer,
whether the whole context determines it) and, for a TFDS name whose train
and test splits are linted, its rules (context pattern sequences): how
many, and the share of test rules no training instance shows; a config
built to need its sequence (`sequence_necessary`) is analysed and held to
the `_seq` bounds with --strict.
A TFDS name of a builder package that declares linguistic checks
(`data_builders/<package>/validate.py`) also runs each of them on every
instance, as a warning rule of its own.
"""

from __future__ import annotations

import os
import sys
from typing import Sequence

from blm_jax.data import design
from blm_jax.data.context_free import answers_only
from blm_jax.data.lint import lint, LintReport, sample
from blm_jax.data.names import resolve_datasets
# The encoder stack and results.context_free are imported only for --probe:
# a lint without it stays a quick data check.
from data_builders.common import attributes
from data_builders.common import validation


# ----------------------------------------------------------------------------
# Command line.
# ----------------------------------------------------------------------------


def context_necessary(target: str, data_dir: str | None,
                      marker: str = "context_necessary") -> bool:
  """Whether TFDS name `target` is a config built to need its context (or
  whatever `marker`, a GeneratedConfig field, names)."""
  from data_builders.common import loading as data

  config = data.builder(target, data_dir).builder_config
  return bool(getattr(config, marker, False))


# What a path to lint may hold: release files (tab-separated) and own JSONL.
FILE_SUFFIXES = (".tsv", ".csv", ".jsonl")


def _sources(target: str, data_dir: str | None, manual_dir: str | None,
             splits: Sequence[str] | None = None):
  """(title, instances) pairs for a file, a folder of files or a TFDS name
  (only `splits` of it, when given)."""
  if os.path.exists(target):
    from data_builders.blm_jsonl import own_format
    from data_builders.blm_published import release_format
    from data_builders.common import candidates

    if os.path.isdir(target):
      files = sorted(os.path.join(root, f)
                     for root, _, names in os.walk(target)
                     for f in names if f.endswith(FILE_SUFFIXES))
      if not files:
        raise release_format.ReleaseFormatError(
            target, None, None, "holds no release file (*.tsv, *.csv) or "
            "JSON lines (*.jsonl)")
    else:
      files = [target]
    for path in files:
      if path.endswith(".jsonl"):
        instances = own_format.read(path)
      else:
        release = release_format.read_release(path)
        for note in release.notes:
          print(f"note: {note}")
        instances = list(release.instances)
      note = candidates.count_note(path, (len(x.answers) for x in instances))
      if note:
        print(f"note: {note}")
      yield path, instances
    return
  from data_builders.common import loading as data

  names = data.split_names(target, data_dir, manual_dir)
  for split in splits or ():
    if split not in names:
      raise ValueError(f"--split: {target} has no split {split!r}; it has "
                       f"{', '.join(names)}")
  for split in splits or names:
    yield (f"{target}[{split}]",
           data.load_instances(target, split, data_dir, manual_dir))


def targets_of(target: str) -> list[str]:
  """A file or folder as given; a dataset name as its TFDS names (a short
  name stands for every type); ValueError, one line, for a name that is
  neither."""
  if os.path.exists(target):
    return [target]
  return resolve_datasets(target)


def package_checks(target: str) -> tuple[validation.Check, ...]:
  """The linguistic checks of the builder package a TFDS name belongs to
  (`blm_cos_od/od_en_seq_type_II`: blm_cos_od's); () for a path."""
  if os.path.exists(target) or "/" not in target:
    return ()
  return validation.checks_for(target.split("/")[0])


def _lint_target(target: str, args, total: LintReport) -> None:
  """Lints one file, folder or TFDS name, printing its reports and adding
  its counts to `total`."""
  ceiling = None
  if not os.path.exists(target) and context_necessary(
      target, args.data_dir):
    ceiling = answers_only.CONTEXT_FREE_CEILING
  held = ceiling is not None and (args.strict or args.answers_only)
  sequence = not os.path.exists(target) and context_necessary(
      target, args.data_dir, "sequence_necessary")
  # A sequence-necessary config is analysed under --strict even without
  # --design: its bounds are what --strict holds it to.
  run_design = args.design or (sequence and args.strict)
  splits = args.split.split(",") if args.split else None
  checks = package_checks(target)
  whole = {}  # split -> its instances, for the rule counts of --design
  for title, instances in _sources(target, args.data_dir,
                                   args.manual_dir, splits):
    whole[title] = instances
    instances = sample(instances, args.sample)
    report = lint(instances, answers_only=args.answers_only,
                  ceiling=ceiling if held else None, checks=checks)
    if args.probe:
      from blm_jax.results import context_free

      for key, (n, acc) in context_free.embedding_probe_scores(
          instances, args.probe_encoder, args.cache_dir).items():
        report.hold_to_ceiling(key, n, {"embedding_probe": acc}, ceiling)
    designs = design.analyze(
        instances, schema=None if os.path.exists(target) else
        attributes.schema_for_dataset(target)) if run_design else []
    for d in designs:
      if any(note.startswith("too few") for note in d.notes):
        d.notes.append(f"{title} holds too little to fit")
      if sequence:
        report.hold_to_sequence_bounds(d.population, d.n,
                                       d.sequence_violations())
      if held and d.set_score is not None:
        report.hold_to_ceiling(d.population, d.n,
                               {"set_scorer": d.set_score.best_top1},
                               ceiling)
    print(report.format(title))
    for d in designs:
      print(d.format())
    total.n_instances += report.n_instances
    total.add_checks(report.family_rules)
    for rule, n in report.counts.items():
      total.counts[rule] += n
  train, test = (whole.get(f"{target}[{s}]") for s in ("train", "test"))
  if run_design and train and test:
    coverage = design.rule_coverage(train, test)  # the whole splits
    if coverage is not None:
      print(f"{target} (train and test splits)\n{coverage.format()}")


def main(argv: Sequence[str] | None = None) -> int:
  import argparse

  parser = argparse.ArgumentParser(
      prog="python -m blm_jax.cli.lint", description=__doc__.split("\n\n")[0])
  parser.add_argument("target",
                      help="a release .tsv file, a folder of them, or a TFDS "
                      "name such as blm_published/agreement_fr_type_I")
  parser.add_argument("--strict", action="store_true",
                      help="also exit non-zero on warnings")
  parser.add_argument("--answers_only", action="store_true",
                      help="also check that the answers alone do not solve "
                      "the puzzle (blm_jax.data.context_free.answers_only)")
  parser.add_argument("--probe", action="store_true",
                      help="also score the embedding probe (an MLP on each "
                      "candidate's frozen embedding alone, cross-fitted)")
  parser.add_argument("--design", action="store_true",
                      help="also analyse the design (blm_jax.data.design): "
                      "effective chance, position dependence, determinacy")
  parser.add_argument("--probe_encoder", default="minilm",
                      help="encoder of --probe (name, alias or folder)")
  parser.add_argument("--cache_dir", default=None,
                      help="embedding cache of --probe (default: the "
                      "embedding module's)")
  parser.add_argument("--split", default=None,
                      help="lint only these splits of a TFDS name "
                      "(comma-separated, e.g. train)")
  parser.add_argument("--sample", type=int, default=None,
                      help="lint a seeded sample of at most this many "
                      "instances per split or file (e.g. 2000, the "
                      "training sample size)")
  parser.add_argument("--data_dir", default=None,
                      help="TFDS data_dir (default: $BLM_DATA_DIR or "
                      "~/tensorflow_datasets)")
  parser.add_argument("--manual_dir", default=None,
                      help="the release files, for TFDS names that read them")
  parser.epilog = ("target may also be a dataset short name: spray_load "
                   "lints every lexical type, spray_load:II one.")
  args = parser.parse_args(argv)

  total = LintReport()
  try:
    for target in targets_of(args.target):
      _lint_target(target, args, total)
  except (ValueError, OSError, AssertionError) as err:
    # ReleaseFormatError is a ValueError; TFDS reports a missing manual_dir
    # with an AssertionError.
    print(f"error: {err}", file=sys.stderr)
    return 2
  ok = total.ok(strict=args.strict)
  print(f"total: {total.n_instances} instances; errors {total.errors or 0}; "
        f"warnings {total.warnings or 0}"
        + (f"; info {total.infos}" if total.infos else "")
        + f" -> {'OK' if ok else 'FAIL'}"
        + (" (--strict)" if args.strict else ""))
  return 0 if ok else 1


if __name__ == "__main__":
  sys.exit(main())
