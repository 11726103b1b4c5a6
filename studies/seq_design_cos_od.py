"""Pattern-level design figures of the sequence-necessary CoS / OD configs.

  python studies/seq_design_cos_od.py --out=studies/records/seq_design_cos_od.json

For each `<cos|od>_<en|it>_seq` config and lexical type, on its train split
(the builder's own split of the 3000 generated instances, 2160; generated,
not built or embedded): the answers-only word logit (top 1 and top 2,
cross-fitted as `blm_jax.data.context_free.answers_only` does) and odd-one-in, against
chance and the effective chance 1/8 (the eight well-formed cells); the best
single context position and the best pair (cross-fitted majority answer
pattern given that position's / pair's pattern, two halves); and the share
of instances whose whole context pattern sequence decides one answer
pattern. Writes a record whose `design` table README.md renders.

With `--baselines=cos_en` (a class_language pair) it also writes, into the
same record, `baselines_<pair>`: per train type and test type, the best
single-position baseline of the training runs' cells (the position whose
majority answer pattern is best cross-fitted on the train type's train
split, fitted on that split and scored on the test type's test split).
"""

from __future__ import annotations

import argparse
import collections
import datetime
import itertools
import json
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from blm_jax.study import records as study_records  # noqa: E402
from blm_jax.data.context_free import answers_only  # noqa: E402
from data_builders.blm_cos_od import generate, seq, templates  # noqa: E402
from data_builders.common import splits  # noqa: E402

COLUMNS = ["config", "train", "candidates", "chance", "effective chance",
           "word logit", "word logit top 2", "odd-one-in",
           "best position", "best pair", "whole context"]


def _answer(x):
  return x.correct_answer.pattern


def crossfit_majority(xs, key) -> float:
  halves = (xs[0::2], xs[1::2])
  right = 0
  for a, b in ((0, 1), (1, 0)):
    groups = collections.defaultdict(collections.Counter)
    for x in halves[a]:
      groups[key(x)][_answer(x)] += 1
    default = collections.Counter(map(_answer, halves[a])).most_common(1)[0][0]
    for x in halves[b]:
      g = groups.get(key(x))
      right += (g.most_common(1)[0][0] if g else default) == _answer(x)
  return right / len(xs)


def logit_top(xs, k: int) -> float:
  """Cross-fitted word logit: share of instances with the correct answer
  among its k best-scored candidates."""
  hits = 0
  which = answers_only.instance_folds(xs)  # the folds logit_accuracy uses
  for f in (0, 1):
    fit = [x for x, w in zip(xs, which) if w != f]
    test = [x for x, w in zip(xs, which) if w == f]
    b = answers_only._batch(test)
    s = answers_only.candidate_scores(
        answers_only.fit_logit(answers_only._batch(fit)), b)
    start = 0
    for x in test:
      sc = s[start:start + len(x.answers)]
      start += len(x.answers)
      hits += x.correct in np.argsort(-sc, kind="stable")[:k]
  return hits / len(xs)


def seq_version() -> str:
  """The version the builder gives its `_seq` configs (the data generated
  here)."""
  from data_builders.blm_cos_od import blm_cos_od_dataset_builder as b
  versions = {str(c.version or b.Builder.VERSION)
              for c in b.Builder.BUILDER_CONFIGS if "_seq_type_" in c.name}
  assert len(versions) == 1, versions
  return versions.pop()


def row(cls, lang, t):
  xs = splits.assign_splits(seq.generate_seq(cls, lang, t), 0)["train"]
  pos = max(crossfit_majority(xs, lambda x, p=p: x.context[p].pattern)
            for p in range(7))
  pair = max(crossfit_majority(
      xs, lambda x, p=p, q=q: (x.context[p].pattern, x.context[q].pattern))
             for p, q in itertools.combinations(range(7), 2))
  whole = collections.defaultdict(set)
  for x in xs:
    whole[tuple(s.pattern for s in x.context)].add(_answer(x))
  decided = sum(len(whole[tuple(s.pattern for s in x.context)]) == 1
                for x in xs) / len(xs)
  n = len(xs[0].answers)
  return [f"blm_cos_od/{seq.config_name(cls, lang, t)}", len(xs), n,
          f"{1 / n:.3f}", f"{1 / 8:.3f}",
          f"{answers_only.logit_accuracy(xs):.3f}", f"{logit_top(xs, 2):.3f}",
          f"{answers_only.odd_one_in_accuracy(xs):.3f}", f"{pos:.3f}",
          f"{pair:.3f}", f"{decided:.3f}"]


def _majority(xs, key):
  groups = collections.defaultdict(collections.Counter)
  for x in xs:
    groups[key(x)][_answer(x)] += 1
  default = collections.Counter(map(_answer, xs)).most_common(1)[0][0]
  return lambda x: (groups[key(x)].most_common(1)[0][0] if key(x) in groups
                    else default)


def baselines(cls, lang):
  """Rows: train type, then per test type 'acc (sentence p)'."""
  parts = {t: splits.assign_splits(seq.generate_seq(cls, lang, t), 0)
           for t in generate.LEXICAL_TYPES}
  rows = []
  for t1 in generate.LEXICAL_TYPES:
    train = parts[t1]["train"]
    best = max(range(7), key=lambda p: crossfit_majority(
        train, lambda x: x.context[p].pattern))
    guess = _majority(train, lambda x: x.context[best].pattern)
    cells = []
    for t2 in generate.LEXICAL_TYPES:
      test = parts[t2]["test"]
      acc = sum(guess(x) == _answer(x) for x in test) / len(test)
      cells.append(f"{acc:.3f} (sentence {best + 1})")
    rows.append([t1] + cells)
  return rows


def main():
  ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  ap.add_argument("--out", required=True)
  ap.add_argument("--baselines", default="",
                  help="class_language pair, e.g. cos_en: add its table")
  ap.add_argument("--only_baselines", action="store_true",
                  help="keep the record's design table, add the baselines")
  args = ap.parse_args()
  rows = []
  if args.only_baselines:
    with open(args.out, encoding="utf-8") as f:
      rows = json.load(f)["tables"]["design"]["rows"]
  else:
    for cls in templates.CLASSES:
      for lang in templates.LANGUAGES:
        for t in generate.LEXICAL_TYPES:
          rows.append(row(cls, lang, t))
          print(" | ".join(map(str, rows[-1])), flush=True)
  tables = {"design": {"columns": COLUMNS, "rows": rows}}
  if args.baselines:
    cls, lang = args.baselines.split("_")
    tables[f"baselines_{args.baselines}"] = {
        "columns": ["train \\ test"] + list(generate.LEXICAL_TYPES),
        "rows": baselines(cls, lang)}
  commit = study_records.head_commit()
  record = {
      "command": ("python studies/seq_design_cos_od.py --out=" + args.out
                  + (f" --baselines={args.baselines}" if args.baselines
                     else "")),
      "commit": commit, "config": None,
      "date": datetime.date.today().isoformat(), "source": "measured",
      "study": "pattern-level design figures of the CoS / OD _seq configs "
               f"(blm_cos_od {seq_version()})",
      "tables": tables,
  }
  with open(args.out, "w", encoding="utf-8") as f:
    json.dump(record, f, indent=1, ensure_ascii=False)
    f.write("\n")


if __name__ == "__main__":
  main()
