"""Running a reproduction suite: its grids, their plan, the report.

`python -m blm_jax.cli.reproduce` (its flags, messages and exit status)
calls this module. Each grid (blm_jax/study/suites.py) is
`configs/<model>.py:<arg>` run into `<out>/<name>/<model>/`; a grid whose
results.json exists is reused only if its config is the one the command
would run and its datasets' builders are at the versions it was trained on
(`entries_of` refuses otherwise, naming the differing keys or versions:
shards run with other flags, or a grid of data rebuilt since, cannot be
merged), and a killed one resumes; grids that ask for it (000's chunk
grids, for Figures 20-22) are probed once trained. With a `keep` folder
each finished grid's record is also written there (committed: a session's
workdirs do not outlive it) and a grid whose workdir is gone counts as
done from it, checked the same way (blm_jax/study/grid_records.py).
`plan_lines` is the plan printed before anything runs: every grid, done or
not, and the time each should take on a platform from the grids measured
on it (blm_jax/study/grid_timing.py). The claims and their intervals (from
each grid's predictions.npz) are `blm_jax.study.claims`, the report
`blm_jax.study.claims_report`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
from typing import Any, Callable

from blm_jax.results import report as grid_report
from blm_jax.results.experiment import run_experiment
from blm_jax.study import (grid_jobs, grid_records, grid_reuse, grid_timing,
                           suites)
from blm_jax.study.claims_report import report
from blm_jax.study.judge import load_predictions
from data_builders import registry


# The datasets the claims of blm_jax.study.claims are about.
DATASETS = ("spray_load", "spray_load_atl_alt", "agreement_en", "cos_en",
            "od_en")
# Five seeds: the t interval's half-width is 4.30/sqrt(3) = 2.48 seed
# standard deviations with three seeds, 2.78/sqrt(5) = 1.24 with five
# (docs/explanation/statistics.md).
DEFAULT_SEEDS = (0, 1, 2, 3, 4)
# The project's committed records (kept grids with their measured times).
COMMITTED_RECORDS = os.path.join(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))), "studies", "records")


def known_datasets() -> tuple[tuple[str, ...], tuple[str, ...]]:
  """The dataset short names (data_builders.registry), and those of them
  read from the user's files."""
  return (registry.names(),
          tuple(e.short_name for e in registry.entries()
                if e.needs_manual_dir))


def short_names(datasets) -> list[str]:
  """--datasets as short names: a short name as given, a TFDS name as the
  short name one of whose types it is (its grid trains on every type);
  ValueError (one line, with the closest names) for anything else."""
  out = []
  for name in datasets:
    if "/" not in name:
      try:
        out.append(registry.lookup(name).short_name)
      except ValueError as e:
        raise ValueError(f"--datasets: {e}") from None
      continue
    short = registry.short_name_of(name)
    if short is None:
      every = [n for e in registry.entries() for n in e.tfds_names()]
      raise ValueError(
          f"--datasets: {name!r} is no type of a dataset short name"
          + registry.suggestion(name, every))
    out.append(short)
  return list(dict.fromkeys(out))


@dataclasses.dataclass(frozen=True)
class Options:
  """What every grid's config gets from the command line. `load_config`:
  (model, arg) -> that model's config (the command line reads the config
  files: cli/config_files.py)."""

  load_config: Callable[[str, str], Any]
  variant: str = ""
  seeds: tuple[int, ...] | None = None
  seed_follows_grid: bool = True
  encoder: suites.EncoderSpec | None = None
  # config.encoder.batch_size (an execution key: the same run at any
  # size); None keeps the configs' CPU-sized 128.
  encoder_batch_size: int | None = None


def grid_config(grid: suites.Grid, opts: Options):
  arg = ",".join(filter(None, [grid.arg, opts.variant]))
  config = opts.load_config(grid.model, arg)
  if opts.seeds:
    config.grid.seeds = tuple(opts.seeds)
  config.data.seed_follows_grid = opts.seed_follows_grid
  if opts.encoder is not None:
    opts.encoder.apply(config)
  if opts.encoder_batch_size is not None:
    config.encoder.batch_size = opts.encoder_batch_size
  for key, value in grid.overrides:
    node = config
    *parents, leaf = key.split(".")
    for part in parents:
      node = node[part]
    node[leaf] = value
  return config


def _train_instances(config) -> int:
  """Instances one epoch of the grid trains on (every cell)."""
  per_cell = int(round(config.data.num_train * (1 - config.data.dev_fraction)))
  return per_cell * len(config.grid.seeds) * len(config.data.train_types)


def measured(finished) -> list[grid_timing.GridTiming]:
  """The timings of finished grids' results.json (None entries skipped)."""
  return [t for t in map(grid_timing.from_results, finished) if t]


def _hms(seconds: float) -> str:
  """An estimate's duration ('6h07m', '31m03s')."""
  return grid_jobs.hms(seconds, to_the_second=False)


def estimate_of(config, timings: list[grid_timing.GridTiming],
                platform: str) -> grid_timing.Estimate | None:
  """A grid's estimated wall time on `platform` from `timings`."""
  return grid_timing.estimate(timings, str(config.data.name),
                              config.model.name, platform,
                              int(config.train.epochs),
                              _train_instances(config))


def plan_lines(entries, timings: list[grid_timing.GridTiming],
               platform: str = "cpu", committed: int = 0,
               jobs: int = 1) -> list[str]:
  """The plan: one line per grid (done, or its time on `platform` from
  `timings`: this --out's grids first, then the last `committed` entries,
  from committed records), and the total of what is left, one grid after
  another and, with `jobs` > 1, that many at a time (longest first)."""
  lines, left, unknown, after_unknown, known = [], 0.0, 0, 0, []
  for grid, config, workdir, done in entries:
    if done:
      state = "done" + (" (its kept record)" if grid_records.is_kept(done)
                        else "")
    else:
      est = estimate_of(config, timings, platform)
      if est is None:
        unknown += 1
        state = (f"to run, time unknown (no {config.model.name} grid has "
                 f"been measured on {platform})")
      else:
        left += est.seconds
        known.append(est.seconds)
        after_unknown += not est.after_known
        state = f"to run, about {_hms(est.seconds)} ({est.source})"
    lines.append(f"  {grid.key:40s} {state}  [{grid.shows}]")
  n_done = sum(1 for e in entries if e[3])
  where = ("at the throughput measured here" if not committed else
           f"on {platform} from {len(timings) - committed} grid(s) measured "
           f"here and {committed} committed record(s)")
  if unknown == len(entries) - n_done and unknown:
    when = (f"time unknown (nothing measured on {platform} yet)"
            + (f"; {jobs} at a time" if jobs > 1 else ""))
  else:
    when = (f"about {_hms(left)} one grid after another {where}"
            + (f", plus {unknown} grids of unknown time" if unknown else "")
            + (f" ({after_unknown} without the time after training, "
               "measured only since runs time their stages)"
               if after_unknown else "")
            + (f"; about {_hms(grid_jobs.makespan(known, jobs))} "
               f"{jobs} at a time (longest first, each at its measured "
               "pace)" if jobs > 1 else "")
            + " (shards run at once, each on its own device, divide it)")
  total = (f"plan: {len(entries)} grids, {n_done} done, "
           f"{len(entries) - n_done} to run: {when}")
  return [total] + lines


def select(opts, load_config: Callable[[str, str], Any]
           ) -> tuple[list[suites.Grid], Options]:
  """The grids this command runs (its shard) and the options of their
  configs, from the flags; SuiteError on bad input."""
  grids, options, _ = select_all(opts, load_config)
  return grids, options


def options_of(opts, load_config: Callable[[str, str], Any]) -> Options:
  """What every grid's config gets from the command line, checked;
  `load_config` as in `Options`."""
  try:
    seeds = tuple(int(s) for s in opts.seeds) if opts.seeds else None
  except ValueError:
    raise suites.SuiteError(f"--seeds={','.join(opts.seeds)}: not "
                            "integers") from None
  batch = opts.encoder_batch_size
  if batch is not None and batch < 0:
    raise suites.SuiteError(f"--encoder_batch_size={batch}: expected 0 "
                            "(the largest that fits) or a positive size")
  return Options(load_config, opts.variant, seeds,
                 opts.seed_follows_grid,
                 suites.parse_encoder(opts.encoder) if opts.encoder
                 else None, batch)


def select_all(opts, load_config: Callable[[str, str], Any]
               ) -> tuple[list[suites.Grid], Options, list[suites.Grid]]:
  """`select`, and every grid of the suite (all shards)."""
  datasets, needs_manual_dir = known_datasets()
  if opts.suite:
    grids = suites.grids(opts.suite, datasets, needs_manual_dir)
  else:
    grids = [suites.Grid(ds, m, f"dataset={ds}", "listed")
             for ds in short_names(opts.datasets) for m in opts.models]
  options = options_of(opts, load_config)
  everything = grids
  if opts.shard:
    if opts.report_only:
      raise suites.SuiteError("--report_only reads every shard's grids: "
                              "drop --shard")
    grids = suites.shard(grids, *suites.parse_shard(opts.shard))
  if opts.grids:
    if opts.report_only:
      raise suites.SuiteError("--report_only reads every grid of the "
                              "suite: drop --grids")
    keys, wanted = {g.key for g in everything}, set(opts.grids)
    unknown = [k for k in opts.grids if k not in keys]
    if unknown:
      suite = opts.suite or "(datasets x models)"
      raise suites.SuiteError(f"--grids: {', '.join(unknown)}: not a grid "
                              f"of --suite={suite} (dataset/model, as the "
                              "plan names them)")
    grids = [g for g in grids if g.key in wanted]
  return grids, options, everything


def part_of_suite(opts) -> str:
  """'shard i/N' or '--grids' when the command runs part of its suite
  (which writes no report: a final --report_only merges), else ''."""
  if opts.shard:
    return f"shard {opts.shard}"
  return "--grids" if opts.grids else ""


def entries_of(grids, options: Options, out: str,
               warn=lambda line: print(line, file=sys.stderr),
               keep: str = "") -> list[tuple]:
  """[(grid, config, workdir, results or None)]; SuiteError when a
  finished grid was made by another config or on data built since by
  another builder version. With `keep`, a grid whose workdir has no
  results is done if its committed record there is (`kept_grid`)."""
  entries = []
  for grid in grids:
    config = grid_config(grid, options)
    workdir = os.path.join(out, grid.name, grid.model)
    done = grid_reuse.finished(workdir)
    if done is None and keep:
      done = grid_reuse.kept_grid(keep, grid, config, warn)
    elif done is not None:
      changes = grid_reuse.builder_changes(done, config)
      problem = grid_reuse.reuse_problem(workdir, config, changes, done)
      if problem:
        raise suites.SuiteError(problem)
      if changes is None:
        warn(f"warning: {workdir} was trained before grids recorded their "
             "data's builder versions: reused without checking that its "
             "data is what the builders make now")
    entries.append((grid, config, workdir, done))
  return entries


def probe_grid(workdir: str, analyses: tuple) -> None:
  """The probe of a finished grid (writes only `workdir`/probe/)."""
  from blm_jax.analysis import probing

  probing.analyze(workdir, analyses)


def run_suite(entries, out: str, command: str, report_only: bool,
              run_fn=run_experiment, echo=print,
              write_report: bool = True,
              probe_fn=probe_grid, keep: str = "") -> dict | None:
  """Trains the grids not done (unless `report_only`) and probes those
  that ask for it, then writes the report of every finished one and
  returns its record (None without `write_report`: a shard leaves the
  report to the merge). With `keep`, every grid finished in its workdir
  has its record written there as soon as it is (`keep_grid`)."""
  runs: dict[str, dict[str, dict]] = {}
  preds: dict[str, dict] = {}
  probes: dict[str, dict] = {}
  unprobed: list[str] = []
  models: list[str] = []
  for grid, config, workdir, done in entries:
    if done is None and not report_only:
      echo(f"== {grid.key}: training into {workdir}")
      made = [d for d in (out, os.path.dirname(workdir), workdir)
              if not os.path.exists(d)]
      try:
        run_fn(config, workdir)
      except BaseException:
        for d in reversed(made):  # Those it made and left empty.
          with contextlib.suppress(OSError):
            os.rmdir(d)
        raise
      done = grid_reuse.finished(workdir)
    if done is None:
      continue
    if grid.probe:  # a kept record holds its probe.json
      probed = grid_records.read_probe(workdir) or done.get("probe")
      if probed is None and not report_only:
        echo(f"== {grid.key}: probing ({', '.join(grid.probe)}) into "
             f"{workdir}/probe")
        probe_fn(workdir, grid.probe)
        probed = grid_records.read_probe(workdir)
      if probed is None:
        unprobed.append(grid.key)
      else:  # its figures are read from here (shards may have moved)
        probes[grid.name] = {**probed, "workdir": os.path.abspath(workdir)}
    if keep and not grid_records.is_kept(done):
      grid_reuse.keep_grid(keep, grid, workdir, done, command, echo)
    if grid_records.is_kept(done):  # its workdir is gone
      if not os.path.isfile(os.path.join(workdir, "heatmap.png")):
        os.makedirs(workdir, exist_ok=True)
        grid_report.write_plots(done, workdir)
      predicted = grid_reuse.kept_predictions(keep, grid)
    else:
      predicted = load_predictions(workdir)
    runs.setdefault(grid.name, {})[grid.model] = done
    preds.setdefault(grid.name, {})[grid.model] = predicted
    if grid.model not in models:
      models.append(grid.model)
  if not write_report:
    return None
  missing = [g.key for g, _, _, d in entries
             if d is None and (report_only or g.name not in runs
                               or g.model not in runs[g.name])]
  missing += [f"{key} (its probe)" for key in unprobed]
  return report(runs, models, out, command, preds, missing=missing,
                shows=shows_by_dataset(g for g, *_ in entries),
                probes=probes)


def shows_by_dataset(grids) -> dict[str, str]:
  """{grid name: what its grids stand for, each model's grid named}: a
  dataset's FFNN and vae2 grids stand for different figures."""
  by: dict[str, dict[str, list[str]]] = {}
  for g in grids:
    by.setdefault(g.name, {}).setdefault(g.shows, []).append(g.model)
  return {name: "; ".join(f"{shows} ({', '.join(models)})"
                          for shows, models in parts.items())
          for name, parts in by.items()}
