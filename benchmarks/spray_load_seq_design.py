"""Design numbers of the sequence-necessary spray/load configs (seq_type_*)
until the project's design analyzer measures them: on each type's training
split (the first 2000 instances, as a paper-scale run samples), the
answers-only word logit (top 1 and top 2, cross-fitted) and odd-one-in; for
every context position and pair of positions, how often the majority answer
pattern of its group (fitted on one half, scored on the other, both ways)
is right; and whether the whole context's patterns determine the answer.
Also the exact values over the rule distribution (sequence.py). Writes
docs/records/spray_load_seq_design.json.

    PYTHONPATH=. python benchmarks/spray_load_seq_design.py --out docs/records/spray_load_seq_design.json
"""

import argparse
import collections
import datetime
import itertools
import json
import subprocess

import numpy as np

from blm_jax.data import answers_only as ao
from data_builders.blm_spray_load import generate, sequence
from data_builders.common import splits

N_TRAIN = 2000


def top_k_logit(xs, k):
  """Cross-fitted answers-only logit: share of instances whose correct
  answer is among its k best-scored candidates."""
  folds = [[x for x in xs if ao.fold(x.id) == f] for f in (0, 1)]
  hits = 0
  for f in (0, 1):
    w = ao.fit_logit(ao._batch(folds[1 - f]))
    b = ao._batch(folds[f])
    s = ao._scores(w, b)
    for i in range(b.n_inst):
      idx = np.flatnonzero(b.inst_of_cand == i)
      order = idx[np.argsort(-s[idx], kind="stable")]
      hits += bool(b.target[order[:k]].any())
  return hits / len(xs)


def majority(xs, positions):
  halves = (xs[::2], xs[1::2])
  right = 0
  for fit, held in (halves, halves[::-1]):
    votes = collections.defaultdict(collections.Counter)
    key = lambda x: tuple(x.context[i].pattern for i in positions)
    for x in fit:
      votes[key(x)][x.answers[x.correct].pattern] += 1
    for x in held:
      v = votes.get(key(x))
      right += bool(v) and v.most_common(1)[0][0] == x.answers[x.correct].pattern
  return right / len(xs)


def main():
  p = argparse.ArgumentParser()
  p.add_argument("--out", required=True)
  args = p.parse_args()
  out = {"command": "PYTHONPATH=. python benchmarks/spray_load_seq_design.py "
         "--out " + args.out,
         "exact": {
             "determinacy": sequence.determinacy(),
             "max_single": max(sequence.position_majority((i,))
                               for i in range(7)),
             "max_pair": max(sequence.position_majority(q) for q in
                             itertools.combinations(range(7), 2))},
         "types": {}}
  for lt in generate.LEXICAL_TYPES:
    train = splits.assign_splits(generate.generate_seq(lt), 0)["train"]
    xs = train[:N_TRAIN]
    n = len(xs[0].answers)
    singles = {str(i + 1): majority(xs, (i,)) for i in range(7)}
    pairs = {f"{i + 1},{j + 1}": majority(xs, (i, j))
             for i, j in itertools.combinations(range(7), 2)}
    by_ctx = collections.defaultdict(set)
    for x in xs:
      by_ctx[tuple(s.pattern for s in x.context)].add(
          x.answers[x.correct].pattern)
    row = dict(
        n=len(xs), candidates=n, chance=1 / n, effective_chance=1 / 8,
        logit_top1=top_k_logit(xs, 1), logit_top2=top_k_logit(xs, 2),
        odd_one_in=ao.odd_one_in_accuracy(xs),
        best_single=max(singles.items(), key=lambda kv: kv[1]),
        best_pair=max(pairs.items(), key=lambda kv: kv[1]),
        singles=singles,
        determinacy=sum(len(by_ctx[tuple(s.pattern for s in x.context)]) == 1
                        for x in xs) / len(xs))
    out["types"][lt] = row
    print(lt, {k: v for k, v in row.items() if k != "singles"}, flush=True)
  ex = out["exact"]
  rows = [[lt, str(r["n"]), str(r["candidates"]), f"{r['chance']:.3f}",
           f"{r['effective_chance']:.3f}", f"{r['logit_top1']:.3f}",
           f"{r['logit_top2']:.3f}", f"{r['odd_one_in']:.3f}",
           f"{r['best_single'][1]:.3f} (sentence {r['best_single'][0]})",
           f"{r['best_pair'][1]:.3f} (sentences {r['best_pair'][0]})",
           f"{r['determinacy']:.3f}"] for lt, r in out["types"].items()]
  rows.append(["rule distribution (exact)", "", "16", "0.062", "0.125", "",
               "", "", f"{ex['max_single']:.3f}", f"{ex['max_pair']:.3f}",
               f"{ex['determinacy']:.3f}"])
  out.update(
      study="design numbers of spray_load_seq (seq_type_I-III): answers "
            "alone, single and pair positions, determinacy",
      date=datetime.date.today().isoformat(),
      commit=subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip(),
      source="measured (blm_spray_load 1.2.0; our own checks, written "
             "before the project's design analyzer existed)",
      tables={"design": {"columns": [
          "type", "instances", "candidates", "chance", "effective chance",
          "word logit top 1", "word logit top 2", "odd-one-in",
          "best single position", "best pair", "determinacy"],
          "rows": rows}})
  with open(args.out, "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")

if __name__ == "__main__":
  main()
