"""The design analyzer on many datasets: what decides each BLM's answer.

  python studies/design_analysis.py --names=spray_load_ctx,cos_en \
      --sample=2000 --out=studies/records/design_analysis.json
  python studies/design_analysis.py --published=/path/to/release \
      --out=studies/records/design_analysis.json
  python studies/design_analysis.py \
      --merge=studies/records/design_analysis_spray_load_seq.json \
      --out=studies/records/design_analysis.json

For each short name of configs/common.py (each lexical type; the train
split, a seeded sample of `--sample` instances, the size a training run
draws) and each release file under `--published`: `blm_jax.data.design`'s
analysis per population (effective chance of the strongest context-free
scorer, position dependence, determinacy) and, for generated data, the
rules (context pattern sequences): how many are distinct in the train
sample and the test split, and the share of test rules unseen in training
(table `rules`; held-out-rules regimes are a later step). Resumable: a target already in
the record is skipped (`--redo` analyses it again); the record is rewritten
after each target, with its `design` table. `--merge` copies the entries
of other records this script wrote (e.g. one family's, analysed in
parallel), replacing those of the same targets.

Per generated target it also counts the rules (context pattern sequences)
of the whole train and test splits and the share of test rules unseen in
training (`design.rule_coverage`; the `rules` table); `--rules_only`
counts only those (no fitting).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from blm_jax.base import files  # noqa: E402
from blm_jax.study import records as study_records  # noqa: E402
from blm_jax.data import lint as data_lint  # noqa: E402
from blm_jax.data import design  # noqa: E402
from configs import common  # noqa: E402
from data_builders.common import attributes, loading  # noqa: E402

COLUMNS = ["dataset", "population", "n", "chance", "context-free top-1",
           "top-2", "effective chance", "plausible", "best single position",
           "best pair", "smallest deciding set",
           "whole context decides (distinct context patterns)",
           "second answer / pattern twins",
           "deciding attribute on < 4 sentences"]
RULE_COLUMNS = ["dataset", "rules (train + test)", "train rules",
                "test rules", "test rules unseen in train",
                "test instances with an unseen rule"]
# Short names read from the published release (--published) or a corpus
# the tool cannot build: not analysed by --names=all.
NEEDS_FILES = ("published_", "caus_he_natural")


def _row(target: str, a: dict) -> list:
  cf = a["context_free"]
  single = max(a["singles"].items(), key=lambda kv: kv[1], default=None)
  pair = max(a["pairs"].items(), key=lambda kv: kv[1], default=None)
  level = "" if a["level"] != "words" else " (words)"
  fmt = lambda v: "-" if v is None else f"{v:.3f}"
  return [
      target, a["population"], a["n"], fmt(a["chance"]),
      f"{cf['top1'][cf['strongest']]:.3f} {cf['strongest']}" if cf else "-",
      fmt(cf["top2"][cf["strongest"]]) if cf else "-",
      fmt(cf["effective_chance"]) if cf else "-",
      f"{cf['plausible']} of {cf['n_candidates']}" if cf else "-",
      f"{single[0]}: {single[1]:.3f}{level}" if single else "-",
      f"{pair[0]}: {pair[1]:.3f}" if pair else "-",
      ("+".join(map(str, a["smallest_deciding"]))
       if a["smallest_deciding"] else ("none" if single else "-")),
      ("-" if a["determined"] is None else
       ("yes" if a["determined"] else f"no ({a['n_ambiguous']} of {a['n']})")
       + (f", {a['n_context_patterns']} contexts"
          if a.get("n_context_patterns") else "")),
      ("-" if a["determined"] is None else
       f"{a['n_second_answer']} / {a['n_pattern_twins']}"),
      ("-" if a.get("n_thin_attributes") is None else
       f"{a['n_thin_attributes']}" + "".join(
           f", {k} {v}" for k, v in sorted(a["thin_attributes"].items()))),
  ]


def _rule_row(target: str, c: dict) -> list:
  return [target, c["n_rules"], c["n_train_rules"], c["n_test_rules"],
          f"{c['unseen_rules']:.3f}", f"{c['unseen_instances']:.3f}"]


def _rule_coverage(tfds_name: str, data_dir) -> dict | None:
  """`design.rule_coverage` of a config's whole train and test splits."""
  c = design.rule_coverage(loading.load_instances(tfds_name, "train", data_dir),
                           loading.load_instances(tfds_name, "test", data_dir))
  return c and c.as_dict()


def _targets(args):
  """(record key, loader, its rule counter or None) triples."""
  names = (list(common.DATASETS) if args.names == "all"
           else [n for n in args.names.split(",") if n])
  for name in names:
    if args.names == "all" and name.startswith(NEEDS_FILES):
      continue
    for t in common.DATASET_TYPES.get(name, ("I", "II", "III")):
      if args.types and t not in args.types.split(","):
        continue
      tfds_name = common.DATASETS[name].format(t)
      yield (tfds_name, lambda n=tfds_name: data_lint.sample(
          loading.load_instances(n, "train", args.data_dir), args.sample),
             lambda n=tfds_name: _rule_coverage(n, args.data_dir))
  if args.published:
    from data_builders.blm_published import release_format

    for root, _, found in sorted(os.walk(args.published)):
      for f in sorted(found):
        if f == "train.tsv" or (f.endswith(".tsv") and args.all_files):
          path = os.path.join(root, f)
          key = "published:" + os.path.relpath(path, args.published)
          yield key, lambda p=path: data_lint.sample(
              list(release_format.read_release(p).instances),
              args.sample), None


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--names", default="",
                      help="short names of configs/common.py, comma-"
                      "separated, or 'all'")
  parser.add_argument("--published", default=None,
                      help="a folder of release files: each train.tsv")
  parser.add_argument("--all_files", action="store_true",
                      help="with --published, every .tsv, not only train")
  parser.add_argument("--types", default="",
                      help="only these lexical types (comma-separated)")
  parser.add_argument("--sample", type=int, default=2000)
  parser.add_argument("--data_dir", default=None)
  parser.add_argument("--redo", action="store_true")
  parser.add_argument("--refresh_determinacy", action="store_true",
                      help="recompute only the determinacy of entries "
                      "recorded without the distinct context count")
  parser.add_argument("--merge", default="",
                      help="records of this script (comma-separated) whose "
                      "entries replace the same targets' in --out")
  parser.add_argument("--rules_only", action="store_true",
                      help="only count each target's rules across train and "
                      "test (the `rules` table)")
  parser.add_argument("--out", required=True, help="record to write")
  args = parser.parse_args(argv)
  record = {}
  if os.path.exists(args.out):
    with open(args.out, encoding="utf-8") as f:
      record = json.load(f)
  analyses = record.get("analyses", {})
  rules = record.get("rules", {})
  for path in filter(None, args.merge.split(",")):
    with open(path, encoding="utf-8") as f:
      other = json.load(f)
    if "analyses" not in other:
      sys.exit(f"error: {path}: not a record of this script (no "
               "'analyses')")
    analyses.update(other["analyses"])
    rules.update(other.get("rules", {}))
    print(f"merged {len(other['analyses'])} targets from {path} (made at "
          f"{other.get('commit', '?')})", flush=True)
  for key, load, count_rules in _targets(args):
    if count_rules and (key not in rules or args.redo):
      try:
        coverage = count_rules()
      except (ValueError, OSError) as err:  # e.g. no test split
        print(f"{key}: rules not counted: {err}", flush=True)
        coverage = None
      if coverage:
        rules[key] = coverage
        print(f"{key}\n{design.RuleCoverage(**coverage).format()}",
              flush=True)
        _write(args, analyses, rules, argv)
    if args.rules_only:
      continue
    if key in analyses and args.refresh_determinacy and any(
        "n_context_patterns" not in a for a in analyses[key]):
      # Determinacy only (no fitting): entries made before it was counted.
      fresh = {r.population: r for r in design.analyze(
          load(), context_free=False, positions=False)}
      for a in analyses[key]:
        r = fresh[a["population"]]
        a.update({k: v for k, v in r.as_dict().items() if k in (
            "determined", "n_ambiguous", "n_second_answer",
            "n_pattern_twins", "n_context_patterns")})
      _write(args, analyses, rules, argv)
      continue
    if key in analyses and not args.redo:
      continue
    start = time.time()
    try:
      train = load()
      reports = design.analyze(train, schema=(
          None if key.startswith("published:")
          else attributes.schema_for_dataset(key)))
    except (ValueError, OSError, AssertionError) as err:
      print(f"{key}: error: {err}", flush=True)
      continue
    analyses[key] = [r.as_dict() for r in reports]
    for r in reports:
      print(f"{key} ({time.time() - start:.0f} s)\n{r.format()}", flush=True)
    _write(args, analyses, rules, argv)
  _write(args, analyses, rules, argv)


def _write(args, analyses: dict, rules: dict, argv) -> None:
  commit = study_records.head_commit()
  rows = [_row(k, a) for k in sorted(analyses) for a in analyses[k]]
  rule_rows = [_rule_row(k, rules[k]) for k in sorted(rules)]
  files.write_json(args.out, {
      "study": "design analysis: effective chance, position dependence and "
               "determinacy of each dataset (blm_jax.data.design)",
      "date": datetime.date.today().isoformat(), "commit": commit,
      "command": "python studies/design_analysis.py "
                 + " ".join(sys.argv[1:] if argv is None else argv),
      "config": None, "source": "measured",
      "note": f"train split, a seeded sample of at most {args.sample} "
              "instances per dataset; resumable, so entries may come from "
              "several runs of the command",
      "tables": {"design": {"columns": COLUMNS, "rows": rows},
                 "rules": {"columns": RULE_COLUMNS, "rows": rule_rows}},
      "analyses": analyses, "rules": rules}, indent=1)


if __name__ == "__main__":
  main()
