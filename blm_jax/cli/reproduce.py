"""Runs a reproduction suite: paper-scale grids, then the claims report.

  python -m blm_jax.cli.reproduce --suite=paper000 --out=workdirs/paper000
  python -m blm_jax.cli.reproduce --suite=paper000 --shard=3/8 ...   # a share
  python -m blm_jax.cli.reproduce --suite=paper000 --jobs=4 ...  # 4 at once
  python -m blm_jax.cli.reproduce --suite=paper000 --grids=od_it/cnn ... # some
  python -m blm_jax.cli.reproduce --suite=paper000 --report_only ... # merge
  python -m blm_jax.cli.reproduce --datasets=cos_en --models=ffnn,vae2 ...
  python -m blm_jax.cli.reproduce ... --encoder=/ckpt/bert,layer=-2,pooling=first
  python -m blm_jax.cli.reproduce --suite=diagnose --out=workdirs/diagnose

The suites, their plan, reuse and report are `blm_jax.study.reproduce`
(the grids of each suite: blm_jax/study/suites.py); this command reads
the flags, prints the plan and the verdicts and exits with one error line
on bad input. `--suite=diagnose` (alone) runs no grid: the diagnosis
ladder on every `_seq` design and regime (blm_jax/study/diagnose_suite.py).
With `--keep=DIR` each finished grid's record is also written to DIR
(committed), and a grid whose workdir is gone counts as done from it.
Before anything runs the command prints its plan: every grid, done or
not, and the time each should take on this machine's platform
(`--plan_platform` for another) from the grids finished in `--out`, then
the committed records (`--timings`). Without --suite, --datasets x
--models (the datasets the papers' claims are about). `--jobs=N` runs N
grids at once, each in a child process of this command for that grid
(cli/reproduce_jobs.py), then writes the report of all.
"""

from __future__ import annotations

import os
import sys

from absl import flags

import jax

from blm_jax.base import compile_cache
from blm_jax.cli import config_files, errors, reproduce_jobs
from blm_jax.study import (claims_report, diagnose_suite, grid_reuse,
                           grid_timing, reproduce, suites)
from blm_jax.study.judge import interval_text


def define_flags() -> None:
  """The command line (defined only when run, so importing this module
  never collides with other modules' absl flags)."""
  flags.DEFINE_string("suite", "", "Suites (" + ", ".join(suites.SUITES)
                      + "), suite/model (one model's grids of a suite) "
                      "and dataset/model grids, comma-separated "
                      "(paper000,paper001: all of 000 with 001's training-"
                      "size curves); empty: --datasets x --models.")
  flags.DEFINE_list("datasets", list(reproduce.DATASETS),
                    "Dataset short names (or TFDS names of one of their "
                    "types), without --suite.")
  flags.DEFINE_list("models", ["ffnn", "vae2"], "Config files, without "
                    "--suite.")
  flags.DEFINE_string("encoder", "", "Every grid's encoder: a registry name "
                      "or a model folder, with optional ',layer=K' and "
                      "',pooling=P' (default: the configs', MiniLM).")
  flags.DEFINE_integer("encoder_batch_size", None, "Sentences per encoder "
                       "batch (config.encoder.batch_size; 0: the largest "
                       "that fits the device, up to 1024); does not change "
                       "a run's identity.")
  flags.DEFINE_string("shard", "", "i/N: run the i-th (0-based) of N shares "
                      "of the suite, a dataset's grids in one share; a final "
                      "--report_only merges the shards.")
  flags.DEFINE_list("grids", [], "Only these grids of the suite "
                    "(dataset/model, as the plan names them), with the "
                    "suite's settings; like a shard, no report: a final "
                    "--report_only merges.")
  flags.DEFINE_string("out", "workdirs/reproduce", "Root of the runs.")
  flags.DEFINE_string("variant", "", "Extra config variant, e.g. 'cpu' for "
                      "the short schedule.")
  flags.DEFINE_list("seeds", [str(s) for s in reproduce.DEFAULT_SEEDS],
                    "Grid seeds.")
  flags.DEFINE_string(
      "configs_dir", os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
          os.path.abspath(__file__)))), "configs"), "Folder of config files.")
  flags.DEFINE_bool("seed_follows_grid", True, "Each grid seed trains on "
                    "its own train/dev sample (config.data.seed_follows_grid),"
                    " so the seed spread covers the sample as well.")
  flags.DEFINE_bool("report_only", False, "Only write the report from the "
                    "finished grids of the whole suite (merges shards).")
  flags.DEFINE_bool("plan_only", False, "Print the plan and stop.")
  flags.DEFINE_integer("jobs", 1, "Grids run at once, each in its own "
                       "process (this command with --grids=<its key>, its "
                       "output in <workdir>/reproduce.log), the next "
                       "started as one finishes, longest estimated first; "
                       "then the report of all. On an accelerator each "
                       "gets about 0.9/N of its memory.")
  flags.DEFINE_string("timings", reproduce.COMMITTED_RECORDS, "Folder of "
                      "committed grid records whose measured times the plan "
                      "uses for grids not yet measured in --out ('' = "
                      "none).")
  flags.DEFINE_enum("plan_platform", "", ["", "cpu", "accelerator"],
                    "The machine the plan's times are for (default: this "
                    "one's).")
  flags.DEFINE_string("keep", "", "Folder of committed grid records, e.g. "
                      "studies/records/solvers: each grid finished in --out "
                      "has its record (results without histories, and "
                      "its predictions.npz) written there, and a grid "
                      "whose workdir is gone counts as done from its "
                      "record if this command's config and "
                      "the data's builders made it (for suites longer "
                      "than a session whose workdirs are not kept).")


def print_verdicts(record: dict, out: str) -> None:
  off = record.get("schedule", "")
  if off:
    print(f"{off[0].upper() + off[1:]}: the verdicts check this setup, not "
          "the papers' claims (they train 120 epochs on 2000 instances per "
          "type)")
  for v in record["claims"]:
    if v["verdict"] == "not run":
      continue
    off = f" ({v['schedule']})" if v.get("schedule") else ""
    print(f"[{v['verdict']}{off}; Holm: {v['verdict_holm']}] {v['dataset']}: "
          f"{v['claim']}: {v['statistic']:+.3f} vs {v['threshold']:+.2f}, "
          f"{v['level']:.0%} interval {interval_text(v)} "
          f"({v['basis']}; {v['evidence']})")
  for reason, n in claims_report.not_run_counts(record["claims"]).items():
    print(f"{n} claims: {claims_report.NOT_RUN_HEADS[reason].lower()} "
          "(listed in report.md)")
  print(f"wrote {out}/report.md, report.html and report.json")


def run_diagnose_suite(opts, datasets, config_of, echo=print) -> None:
  """`reproduce --suite=diagnose`: the plan, then (without --plan_only)
  the ladder of every design not done and the suite's record.
  `config_of(grid)`: each design's config as reproduce makes it."""
  if opts.shard or opts.grids or opts.report_only:
    raise suites.SuiteError("--suite=diagnose runs design by design and "
                            "resumes: drop --shard, --grids and "
                            "--report_only")
  entries = diagnose_suite.entries_of(
      diagnose_suite.designs(datasets), config_of, opts.out)
  echo("\n".join(diagnose_suite.plan_lines(entries)))
  if opts.plan_only:
    return
  record = diagnose_suite.run(
      entries, opts.out, "python -m blm_jax.cli.reproduce "
      + " ".join(sys.argv[1:]), echo=echo)
  echo(f"wrote {os.path.join(opts.out, 'diagnose_suite.json')} and "
       f"diagnose_suite.md ({len(record['tables']['ladder']['rows'])} "
       "designs)")


def main(argv):
  del argv
  from blm_jax.cli import quiet

  quiet.quiet_logs()
  compile_cache.enable()
  grid_reuse.code_commit()  # the code loaded now, for the kept records
  opts = flags.FLAGS
  refused = reproduce_jobs.refusal(opts)
  if refused:
    sys.exit(f"error: {refused}")
  user_env = reproduce_jobs.parent_env(opts.jobs)
  if opts.suite.strip() == diagnose_suite.SUITE:  # No grids: a ladder.
    try:
      options = reproduce.options_of(
          opts, config_files.loader(opts.configs_dir))
      run_diagnose_suite(opts, reproduce.known_datasets()[0],
                         lambda grid: reproduce.grid_config(grid, options))
    except (suites.SuiteError, FileNotFoundError, ValueError) as e:
      sys.exit(f"error: {e}")
    return
  try:
    grids, options, everything = reproduce.select_all(
        opts, config_files.loader(opts.configs_dir))
    entries = reproduce.entries_of(grids, options, opts.out, keep=opts.keep)
  except (suites.SuiteError, FileNotFoundError, ValueError) as e:
    sys.exit(f"error: {e}")
  if opts.report_only and not any(d for *_, d in entries):
    sys.exit(f"error: --report_only: {opts.out} holds no finished grid of "
             "this suite (run it without --report_only first, or check "
             "--out)")
  # Timed from every shard's finished grids, not only this shard's (this
  # shard's results.json are already read).
  read = {w: d for _, _, w, d in entries}
  paths = ((os.path.join(opts.out, g.name, g.model), g) for g in everything)
  timings = reproduce.measured(
      read[w] if w in read else grid_reuse.finished_or_kept(w, opts.keep, g)
      for w, g in paths)
  # Committed records only estimate grids still to run (reading them all
  # is most of a --report_only start).
  committed = (grid_timing.committed(opts.timings)
               if not all(d for *_, d in entries) else [])
  platform = opts.plan_platform or grid_timing.platform_of(
      [jax.devices()[0].platform])
  print("\n".join(reproduce.plan_lines(entries, timings + committed,
                                       platform, len(committed),
                                       opts.jobs)),
        flush=True)
  if opts.plan_only:
    return
  failed, report_only = [], opts.report_only
  if opts.jobs > 1:  # The children train; this process reports.
    failed = reproduce_jobs.run_children(
        entries, opts, timings + committed, platform, user_env,
        jax.devices()[0].platform != "cpu",
        echo=lambda line: print(line, flush=True))
    entries = reproduce.entries_of(grids, options, opts.out, keep=opts.keep)
    report_only = True
  reproduce_jobs.catch_sigterm()
  try:
    record = None
    if not failed or any(d for *_, d in entries):
      record = reproduce.run_suite(
          entries, opts.out,
          "python -m blm_jax.cli.reproduce " + " ".join(sys.argv[1:]),
          report_only, echo=lambda line: print(line, flush=True),
          write_report=not reproduce.part_of_suite(opts), keep=opts.keep)
  except KeyboardInterrupt as e:
    sys.exit(reproduce_jobs.interrupted(e))
  except Exception as e:  # A grid's own error (its encoder, its workdir).
    from blm_jax.training import config_check
    line = (f"error: {e}" if isinstance(e, config_check.ConfigError)
            else errors.error_line(e))
    if line is None:
      raise
    errors.exit_with(line)
  if failed:
    if record is not None:
      print_verdicts(record, opts.out)
    sys.exit(f"error: {len(failed)} grids failed ({', '.join(failed)}): "
             "each one's log says why; rerun the same command to run "
             "them again (finished grids are reused)")
  if record is None:
    print(f"{reproduce.part_of_suite(opts)} done; when every part of the "
          "suite is, merge them: the same command without --shard or "
          "--grids, with --report_only")
    return
  print_verdicts(record, opts.out)


if __name__ == "__main__":
  define_flags()
  from blm_jax.cli import usage

  usage.run(main)
