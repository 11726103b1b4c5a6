"""How long a grid's results wait after its last epoch, against its training.

Reads each run's results.json `stage_seconds` and reports the tail: the
stages between the last epoch and results.json (the last checkpoint's
wait, evaluation, the context-free baselines' wait, the gold ceiling, the
report's writes), as seconds and as a share of the training time; the
figures and TensorBoard, drawn after results.json, are listed apart. One
run per label, each measured in its own process (the ratio comes from
that run alone, so the machine's load weighs on both sides of it).

  python benchmarks/tail_ratio.py --run before=/tmp/w_before \\
      --run after=/tmp/w_after --command "python launch.py ..." \\
      --out benchmarks/results/tail_ratio_vae2_cpu.json
"""
import argparse
import json
import os
import platform
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
from blm_jax.base import files  # noqa: E402

# The stages from the last epoch to results.json. `checkpoints` holds
# every save of the run (the last one's wait included): counted whole, so
# the tail is never under-stated.
TAIL = ("checkpoints", "evaluation", "context_free", "gold_ceiling",
        "report")
AFTER_RESULTS = ("plots", "tensorboard")


def tail_of(stage_seconds: dict) -> dict:
  tail = sum(stage_seconds.get(k, 0.0) for k in TAIL)
  training = stage_seconds.get("training", 0.0)
  return {"training_s": round(training, 1), "tail_s": round(tail, 1),
          "tail_over_training": (round(tail / training, 3) if training
                                 else None),
          "tail_stages": {k: stage_seconds[k] for k in TAIL
                          if k in stage_seconds},
          "after_results_s": round(sum(stage_seconds.get(k, 0.0)
                                       for k in AFTER_RESULTS), 1),
          "stage_seconds": stage_seconds}


def main(argv=None) -> None:
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("--run", action="append", required=True,
                 help="label=workdir (a finished grid's workdir)")
  p.add_argument("--command", default="", help="the command each ran")
  p.add_argument("--note", action="append", default=[],
                 help="label=text: what differs (commit, load)")
  p.add_argument("--out", default="")
  args = p.parse_args(argv)
  notes = dict(n.split("=", 1) for n in args.note)
  runs = {}
  for spec in args.run:
    label, _, workdir = spec.partition("=")
    path = os.path.join(workdir, "results.json")
    try:
      with open(path, encoding="utf-8") as f:
        stages = json.load(f)["stage_seconds"]
    except (OSError, ValueError, KeyError) as e:
      raise SystemExit(f"error: {path}: no stage_seconds ({e})") from None
    runs[label] = {**tail_of(stages), "note": notes.get(label, "")}
    r = runs[label]
    print(f"{label}: training {r['training_s']} s, last epoch to "
          f"results.json {r['tail_s']} s ({r['tail_over_training']:.0%}), "
          f"figures after it {r['after_results_s']} s")
  if args.out:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    files.write_json(args.out, {
        "what": __doc__.splitlines()[0], "command": args.command,
        "tail_stages": list(TAIL), "machine": platform.machine(),
        "cpus": os.cpu_count(), "recorded_at_commit": commit, "runs": runs})


if __name__ == "__main__":
  main()
