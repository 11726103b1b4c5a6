"""The sequence-necessary agreement configs measured against issue 33's bounds.

  python benchmarks/agreement_seq_design.py --langs=en,fr,it,ro --types=I,II,III \
      --n=2000 --out=docs/records/design_agreement_seq.json

For each language and lexical type, on `--n` generated instances (mixed
clauses, the builder's own generator, seed 0):

- the strongest context-free scorer (`blm_jax.data.set_scorer`, cross-fitted,
  folds grouped by answer set and correct answer): top-1 and top-2 against
  the bounds chance + 0.05 and 2 x chance + 0.10, and how many candidates it
  leaves plausible; `--no_set_scorer` leaves it out;
- position dependence: grouping instances by one context sentence's pattern
  (and by every pair), the two-fold cross-fitted accuracy of the majority
  answer pattern per group; the best single position and the best pair;
- determinacy: instances whose seven context patterns occur with another
  answer pattern (0: the whole context decides every instance).
"""

from __future__ import annotations

import argparse
import datetime
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from blm_jax.base import files  # noqa: E402
from data_builders.blm_agreement import generate_seq  # noqa: E402
from data_builders.blm_agreement.seq_checks import positions  # noqa: E402
from data_builders.common import instances as inst_lib  # noqa: E402


def instances(lang: str, t: str, n: int):
  per_clause = -(-n // len(generate_seq.CLAUSES))
  xs = generate_seq.generate_seq(lang, generate_seq.CLAUSES, t, per_clause,
                                 0)
  order = inst_lib.rng_for("seq design", lang, t).permutation(len(xs))
  return [xs[i] for i in order[:n]]


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  p.add_argument("--langs", default="en,fr,it,ro")
  p.add_argument("--types", default="I,II,III")
  p.add_argument("--n", type=int, default=2000)
  p.add_argument("--no_set_scorer", action="store_true")
  p.add_argument("--out", default="")
  args = p.parse_args(argv)
  rows = []
  for lang in args.langs.split(","):
    for t in args.types.split(","):
      xs = instances(lang, t, args.n)
      pos = positions(xs)
      ks, best = max(pos["single"].items(), key=lambda kv: kv[1])
      kp, bestp = max(pos["pairs"].items(), key=lambda kv: kv[1])
      row = [f"{lang}_seq_type_{t}", len(xs), len(xs[0].answers)]
      if args.no_set_scorer:
        row += [f"{1 / len(xs[0].answers):.3f}", "", "", ""]
      else:
        from blm_jax.data import set_scorer
        s = set_scorer.score(xs)
        b1, b2 = set_scorer.sequence_bounds(s.chance)
        plausible = next(k for k, c in enumerate(s.curve, 1) if c >= 0.95)
        row += [f"{s.chance:.3f}",
                f"{s.top1[s.strongest]:.3f} ({s.strongest}; bound {b1:.3f})",
                f"{s.top2[s.strongest]:.3f} (bound {b2:.3f})", plausible]
      row += [f"{best:.3f} (sentence {ks})",
              f"{bestp:.3f} (sentences {kp[0]}, {kp[1]})", pos["ambiguous"]]
      rows.append(row)
      print(" | ".join(map(str, row)), flush=True)
  if args.out:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    files.write_json(args.out, {
        "study": "agreement _seq designs against issue 33's bounds",
        "date": datetime.date.today().isoformat(), "commit": commit,
        "command": "python benchmarks/agreement_seq_design.py "
                   + " ".join(argv if argv is not None else sys.argv[1:]),
        "config": None,
        "source": "this script's output",
        "tables": {"design": {
            "columns": ["config", "instances", "candidates", "chance",
                        "strongest context-free top-1",
                        "context-free top-2", "plausible (95%)",
                        "best single position", "best pair",
                        "ambiguous contexts"],
            "rows": rows}}}, indent=1)
    print(f"wrote {args.out}")


if __name__ == "__main__":
  main()
