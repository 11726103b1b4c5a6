"""The dev-tuning ablation's per-seed table (benchmarks/vae2_ablation.py):
a choice between settings shows each seed's difference, not just a mean."""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _seed_table(by_seed, names):
  # A subprocess: the benchmark defines absl flags at import.
  code = ("import json, sys; sys.path.insert(0, 'benchmarks'); "
          "import vae2_ablation as a; "
          "d = json.loads(sys.argv[1]); "
          "by = {int(k): v for k, v in d['by_seed'].items()}; "
          "print(json.dumps(a.seed_table(by, d['names'])))")
  out = subprocess.run([sys.executable, "-c", code,
                        json.dumps({"by_seed": by_seed, "names": names})],
                       cwd=ROOT, capture_output=True, text=True, check=True)
  return json.loads(out.stdout)


def _cells(i, ii, iii):
  return {t: {"best": b} for t, b in zip(("I", "II", "III"), (i, ii, iii))}


def test_each_seed_and_its_difference_to_the_first_setting():
  by_seed = {
      0: {"ffnn": _cells(1.0, .90, .40), "lr": _cells(1.0, .90, .46)},
      1: {"ffnn": _cells(1.0, .90, .40), "lr": _cells(1.0, .90, .43)},
      2: {"ffnn": _cells(1.0, .93, .43), "lr": _cells(1.0, .90, .40)},
  }
  table = _seed_table(by_seed, ["ffnn", "lr"])
  assert table["columns"][1] == "mean best dev acc, seeds 0 / 1 / 2"
  ffnn, lr = table["rows"]
  assert ffnn == ["ffnn", "0.767 / 0.767 / 0.787", "0.773",
                  "+0.000 / +0.000 / +0.000", "+0.000"]
  # +0.02, +0.01, -0.02: a mean gain whose seeds disagree in sign.
  assert lr == ["lr", "0.787 / 0.777 / 0.767", "0.777",
                "+0.020 / +0.010 / -0.020", "+0.003"]
