"""Does the machine change a grid's result? The same grid (same seeds, so
the same train/dev samples and initial weights) run on two machines, read
from their predictions.npz files: per seed, the mean accuracy over cells
on each and the paired difference (t interval over seeds); per instance,
how often the two chose the same answer, beside how often two different
seeds of the first machine agree (what a seed alone changes).

  python benchmarks/hardware_agreement.py \
      --a=studies/records/paper_rest/cos_en_seq/ffnn.predictions.npz --a_name=h100 \
      --b=workdirs/hwcheck/cos_en_seq/ffnn/predictions.npz,workdirs/hwcheck4/cos_en_seq/ffnn/predictions.npz \
      --b_name=cpu --out=benchmarks/results/hardware_agreement_cos_en_seq_ffnn.json
"""
import argparse
import itertools
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
from blm_jax.base import files  # noqa: E402
from blm_jax.study import statistics  # noqa: E402


def choices(paths: list[str]) -> dict:
  """{(seed, train type, test type): {instance id: chosen index}} and the
  correct index per (test type, id), over the real run's cells."""
  chosen, correct = {}, {}
  for path in paths:
    try:
      with np.load(path, allow_pickle=False) as z:
        _read(z, chosen, correct)
    except (OSError, ValueError, KeyError, IndexError) as e:
      raise SystemExit(f"error: {path}: not a predictions.npz ({e})")
  return {"chosen": chosen, "correct": correct}


def _read(z, chosen: dict, correct: dict) -> None:
  real = z["cell_variant"] == ""
  for u in (str(x) for x in z["test_types"]):
    ids = [str(i) for i in z[f"ids_{u}"]]
    correct.update({(u, i): int(c) for i, c in zip(ids, z[f"correct_{u}"])})
    for c, (seed, train) in enumerate(zip(z["cell_seed"], z["cell_train"])):
      if real[c]:
        chosen[int(seed), str(train), u] = dict(zip(
            ids, (int(p) for p in z[f"pred_{u}"][c])))


def accuracy(run: dict, key) -> float:
  got = run["chosen"][key]
  return float(np.mean([got[i] == run["correct"][key[2], i] for i in got]))


def agree(x: dict, y: dict) -> float:
  return float(np.mean([x[i] == y[i] for i in x]))


def compare(a: dict, b: dict) -> dict:
  keys = sorted(set(a["chosen"]) & set(b["chosen"]))
  if not keys:
    raise SystemExit("error: the two runs share no (seed, train, test) cell")
  seeds = sorted({k[0] for k in keys})
  cells = sorted({k[1:] for k in keys})
  acc_a = {k: accuracy(a, k) for k in keys}
  acc_b = {k: accuracy(b, k) for k in keys}
  per_seed = []
  for s in seeds:
    ks = [k for k in keys if k[0] == s]
    per_seed.append({
        "seed": s,
        "a_mean_accuracy": float(np.mean([acc_a[k] for k in ks])),
        "b_mean_accuracy": float(np.mean([acc_b[k] for k in ks])),
        "same_choice": float(np.mean([agree(a["chosen"][k], b["chosen"][k])
                                      for k in ks]))})
  # The paired t interval over seeds (t(n-1); unbounded with one seed).
  diff = statistics.seeds_only([r["b_mean_accuracy"] - r["a_mean_accuracy"]
                                for r in per_seed])
  a_seeds = sorted({k[0] for k in a["chosen"]})
  seed_pairs = [agree(a["chosen"][s, t, u], a["chosen"][r, t, u])
                for (s, r) in itertools.combinations(a_seeds, 2)
                for t, u in cells
                if (s, t, u) in a["chosen"] and (r, t, u) in a["chosen"]]
  return {
      "seeds": seeds, "cells_per_seed": len(cells), "per_seed": per_seed,
      "mean_difference_b_minus_a": diff.value,
      "interval_95": list(diff.interval()),
      "cell_abs_difference_mean": float(np.mean(
          [abs(acc_b[k] - acc_a[k]) for k in keys])),
      "same_choice_a_vs_b": float(np.mean([r["same_choice"]
                                           for r in per_seed])),
      "same_choice_two_seeds_of_a": (float(np.mean(seed_pairs))
                                     if seed_pairs else None)}


def main(argv=None) -> None:
  p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  p.add_argument("--a", required=True, help="predictions.npz, comma-separated")
  p.add_argument("--b", required=True, help="predictions.npz, comma-separated")
  p.add_argument("--a_name", default="a")
  p.add_argument("--b_name", default="b")
  p.add_argument("--out", default="")
  args = p.parse_args(argv)
  result = compare(choices(args.a.split(",")), choices(args.b.split(",")))
  result = {"a": args.a_name, "b": args.b_name, "a_files": args.a.split(","),
            "b_files": args.b.split(","), **result,
            "command": "python benchmarks/hardware_agreement.py "
                       + " ".join(sys.argv[1:] if argv is None else argv)}
  for r in result["per_seed"]:
    print(f"seed {r['seed']}: {args.a_name} {r['a_mean_accuracy']:.3f}, "
          f"{args.b_name} {r['b_mean_accuracy']:.3f}, same choice "
          f"{r['same_choice']:.3f}")
  lo, hi = result["interval_95"]
  two_seeds = result["same_choice_two_seeds_of_a"]
  print(f"{args.b_name} - {args.a_name}: "
        f"{result['mean_difference_b_minus_a']:+.4f} [{lo:+.4f}, {hi:+.4f}]"
        f" over {len(result['seeds'])} seeds; mean |cell difference| "
        f"{result['cell_abs_difference_mean']:.3f}; same choice "
        f"{result['same_choice_a_vs_b']:.3f} ({args.a_name} vs "
        f"{args.b_name}, same seed) vs "
        + (f"{two_seeds:.3f}" if two_seeds is not None else "n/a")
        + f" (two seeds of {args.a_name})")
  if args.out:
    files.write_json(args.out, result, indent=1)
    print(f"wrote {args.out}")


if __name__ == "__main__":
  main()
