"""`reproduce --jobs=N`: the suite's grids N at a time, one child process
each, and how the command stops when interrupted.

Each child is this command for one grid (`--grids=<key> --jobs=1` after
the user's flags), so it resumes, keeps and probes like any run; its output
goes to `<out>/<dataset>/<model>/reproduce.log`. The scheduling is
blm_jax/study/grid_jobs.py; the report of all is then written as
`--report_only` writes it (cli/reproduce.py).
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Callable, Mapping

from blm_jax.study import grid_jobs, grid_records, reproduce

LOG_NAME = "reproduce.log"
COMMAND = ("-m", "blm_jax.cli.reproduce")
RESUME = ("rerun the same command to resume: finished grids are reused and "
          "a stopped one resumes from its last checkpoint")


class Terminated(KeyboardInterrupt):
  """SIGTERM (a batch scheduler's stop), handled as a Ctrl-C."""

  signal = signal.SIGTERM


def _on_sigterm(signum, frame):
  del signum, frame
  raise Terminated()


def catch_sigterm() -> None:
  """From here on a SIGTERM unwinds like a Ctrl-C (a checkpoint being
  saved is finished first), so the command can say how to resume."""
  signal.signal(signal.SIGTERM, _on_sigterm)


def interrupted(e: KeyboardInterrupt, children: int = 0) -> int:
  """Prints what an interruption left and how to go on; returns the exit
  status (the shells' 128 + the signal's number)."""
  term = isinstance(e, Terminated)
  stopped = (f"; stopped the {children} grids running" if children else "")
  print(f"{'terminated (SIGTERM)' if term else 'interrupted'}{stopped}; "
        f"{RESUME}", file=sys.stderr, flush=True)
  return 128 + (signal.SIGTERM if term else signal.SIGINT)


def refusal(opts) -> str | None:
  """The error line of a --jobs that does not combine with the other
  flags, else None (--shard and --grids combine: their grids run N at a
  time; --plan_only prints the estimate for N at a time)."""
  if opts.jobs < 1:
    return f"--jobs={opts.jobs}: expected 1 or more grids at a time"
  if opts.jobs == 1:
    return None
  if opts.report_only:
    return ("--jobs runs grids at once; --report_only runs none: drop "
            "--jobs")
  if opts.suite.strip() == "diagnose":
    return ("--suite=diagnose runs its ladders one design after another: "
            "drop --jobs")
  return None


def parent_env(jobs: int, environ=os.environ) -> dict[str, str]:
  """Before the parent touches a device: the user's environment (the
  children's start), and a parent of several jobs that holds an
  accelerator's memory only as it needs it (XLA preallocates most of it
  otherwise, before any child starts)."""
  user = dict(environ)
  if jobs > 1:
    environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
  return user


def child_argv(argv: list[str], key: str) -> list[str]:
  """This command for one grid: the user's flags without --jobs and
  --grids, then `--grids=<key> --jobs=1` (which win over any given in a
  flag file)."""
  out, skip = [], False
  for a in argv:
    if skip:
      skip = False
      continue
    name = a.lstrip("-").split("=", 1)[0]
    if a.startswith("-") and name in ("jobs", "grids"):
      skip = "=" not in a
      continue
    out.append(a)
  return [sys.executable, *COMMAND, *out, f"--grids={key}", "--jobs=1"]


def to_run(entries) -> list[tuple]:
  """The entries a child has work for: grids not finished, and finished
  grids that ask for a probe not made yet."""
  out = []
  for entry in entries:
    grid, _, workdir, done = entry
    if done is None or (grid.probe and not (
        grid_records.read_probe(workdir) or done.get("probe"))):
      out.append(entry)
  return out


def run_children(entries, opts, timings, platform: str,
                 user_env: Mapping[str, str], accelerator: bool,
                 echo: Callable[[str], None] = print) -> list[str]:
  """Runs the grids still to run `opts.jobs` at a time, longest estimated
  first; returns the keys of those that failed. Exits with 130/143 after
  stopping the children when interrupted."""
  work = to_run(entries)
  seconds = {}
  for grid, config, _, _ in work:
    est = reproduce.estimate_of(config, timings, platform)
    seconds[grid.key] = est.seconds if est else None
  by_key = {g.key: (g, w) for g, _, w, _ in work}
  jobs = [grid_jobs.Job(key, tuple(child_argv(sys.argv[1:], key)),
                        os.path.join(by_key[key][1], LOG_NAME),
                        by_key[key][0].data_group)
          for key in grid_jobs.order([g.key for g, *_ in work], seconds)]
  if not jobs:
    return []
  echo(f"running {len(jobs)} grids {opts.jobs} at a time, each in its own "
       f"process (its output in <workdir>/{LOG_NAME})")
  catch_sigterm()
  try:
    status = grid_jobs.run(jobs, opts.jobs, grid_jobs.child_env(
        user_env, opts.jobs, accelerator), echo=echo)
  except KeyboardInterrupt as e:
    sys.exit(interrupted(e, getattr(e, "stopped", 0)))
  return [key for key, rc in status.items() if rc != 0]
