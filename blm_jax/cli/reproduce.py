"""Runs the reproduction suite: paper-scale grids, then the claims report.

  python -m blm_jax.cli.reproduce --models=ffnn,vae2 --out=workdirs/reproduce
  python -m blm_jax.cli.reproduce ... --variant=cpu      # the short schedule

Each (dataset, model) grid is `configs/<model>.py:dataset=<dataset>` run into
`<out>/<dataset>/<model>/`; a grid whose results.json exists is reused
only if its config is the one this command would run (else the command
refuses, naming the differing keys), and a killed one resumes. The default datasets are those the
papers' claims are about (both spray/load groups, English agreement,
change of state and object drop). The claims, their bootstrap intervals
(from each grid's predictions.npz) and the report are
`blm_jax.results.claims`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys

from absl import flags

from blm_jax.results.claims import load_predictions, report
from blm_jax.results.experiment import run_experiment
from blm_jax.training import run_identity


# The datasets the claims of blm_jax.results.claims are about.
DATASETS = ("spray_load", "spray_load_atl_alt", "agreement_en", "cos_en",
            "od_en")


def load_config(configs_dir: str, model: str, arg: str):
  """get_config(arg) of `<configs_dir>/<model>.py` (configs are files)."""
  path = os.path.join(configs_dir, f"{model}.py")
  if not os.path.exists(path):
    raise FileNotFoundError(f"--models: no config file {path}")
  spec = importlib.util.spec_from_file_location(f"_blm_config_{model}", path)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module.get_config(arg)


def saved_config(workdir: str) -> dict | None:
  """The flattened config of the finished grid in `workdir`: results.json's
  `run.config`, or (grids reported before it was recorded) config.json."""
  with open(os.path.join(workdir, "results.json")) as f:
    saved = json.load(f).get("run", {}).get("config")
  if saved is None and os.path.exists(os.path.join(workdir, "config.json")):
    with open(os.path.join(workdir, "config.json")) as f:
      saved = run_identity.flatten(json.load(f))
  return saved


def reuse_problem(workdir: str, config) -> str | None:
  """Why the finished grid in `workdir` cannot stand for a run of
  `config`, or None when it can."""
  saved = saved_config(workdir)
  if saved is None:
    diffs = ["it has no record of its config"]
  else:
    diffs = run_identity.reuse_differences(saved, config)
  if not diffs:
    return None
  return (f"{workdir} holds a finished grid that another config produced; "
          "it differs in: " + "; ".join(diffs) + ". Use another --out, or "
          "remove that folder to retrain it")


def define_flags() -> None:
  """The command line (defined only when run, so importing this module
  never collides with other modules' absl flags)."""
  flags.DEFINE_list("datasets", list(DATASETS),
                    "Short dataset names (configs/common.py).")
  flags.DEFINE_list("models", ["ffnn", "vae2"], "Config files.")
  flags.DEFINE_string("out", "workdirs/reproduce", "Root of the runs.")
  flags.DEFINE_string("variant", "", "Extra config variant, e.g. 'cpu' for "
                      "the short schedule.")
  flags.DEFINE_list("seeds", None, "Grid seeds (default: the config's, 3 at "
                    "paper settings).")
  flags.DEFINE_string(
      "configs_dir", os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
          os.path.abspath(__file__)))), "configs"), "Folder of config files.")
  flags.DEFINE_bool("seed_follows_grid", True, "Each grid seed trains on "
                    "its own train/dev sample (config.data.seed_follows_grid),"
                    " so the seed spread covers the sample as well.")
  flags.DEFINE_bool("report_only", False, "Only rewrite the report from "
                    "finished grids.")


def main(argv):
  del argv
  from blm_jax.cli import quiet

  quiet.quiet_logs()
  opts = flags.FLAGS

  runs: dict[str, dict[str, dict]] = {}
  preds: dict[str, dict] = {}
  for ds in opts.datasets:
    for model in opts.models:
      arg = ",".join(filter(None, [f"dataset={ds}", opts.variant]))
      config = load_config(opts.configs_dir, model, arg)
      if opts.seeds:
        config.grid.seeds = tuple(int(s) for s in opts.seeds)
      config.data.seed_follows_grid = opts.seed_follows_grid
      workdir = os.path.join(opts.out, ds, model)
      path = os.path.join(workdir, "results.json")
      if os.path.exists(path):
        problem = reuse_problem(workdir, config)
        if problem:
          sys.exit(f"error: {problem}")
      else:
        if opts.report_only:
          continue
        print(f"== {ds} / {model}: training into {workdir}", flush=True)
        run_experiment(config, workdir)
      with open(path) as f:
        runs.setdefault(ds, {})[model] = json.load(f)
      preds.setdefault(ds, {})[model] = load_predictions(workdir)
  record = report(runs, list(opts.models), opts.out,
                  "python -m blm_jax.cli.reproduce " + " ".join(sys.argv[1:]),
                  preds)
  not_run = [v for v in record["claims"] if v["verdict"] == "not run"]
  for v in record["claims"]:
    if v["verdict"] == "not run":
      continue
    if "interval" in v:
      lo, hi = v["interval"]
      print(f"[{v['verdict']}] {v['dataset']}: {v['claim']}: "
            f"{v['statistic']:+.3f} vs {v['threshold']:+.2f}, "
            f"{v['level']:.0%} interval [{lo:+.3f}, {hi:+.3f}] "
            f"({v['basis']}; {v['evidence']})")
    else:
      print(f"[{v['verdict']}] {v['dataset']}: {v['claim']} "
            f"({v['evidence']})")
  if not_run:
    print(f"{len(not_run)} claims not run: their grids are not in "
          "--datasets (listed in report.md)")
  print(f"wrote {opts.out}/report.md and report.json")


if __name__ == "__main__":
  define_flags()
  from blm_jax.cli import usage

  usage.run(main)
