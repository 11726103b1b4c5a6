"""`blm <command> [flags]`: one command for the project's command lines,
installed by `pip install` ([project.scripts] in pyproject.toml).

  blm train --config=configs/vae2.py:cpu --workdir=workdirs/vae2_spray_load
  blm lint blm_spray_load/ALT-ATL_type_I --strict
  blm reproduce --suite=paper000 --out=workdirs/paper000

Each command is the module `blm_jax.cli.<module>` run as `python -m` runs
it (its flags, its --help, its exit status); this file only dispatches.
"""

from __future__ import annotations

import difflib
import runpy
import sys

# command -> (module under blm_jax.cli, what it does).
COMMANDS = {
    "train": ("train", "train a solver grid from a config file "
              "(`python launch.py` is the same)"),
    "reproduce": ("reproduce", "a paper's grids at paper scale, then "
                  "report.md: the papers' numbers and claims beside ours"),
    "embed": ("embed", "fill the embedding cache with a run's sentences"),
    "lint": ("lint", "check a dataset, release folder or file"),
    "export": ("export", "write a dataset as GenBench jsonl or an "
               "lm-evaluation-harness task"),
    "doctor": ("doctor", "check the install: versions, devices, data and "
               "cache folders, the offline encoder, a tiny grid"),
    "records": ("records", "study records: make one from a run, check the "
                "docs' tables against theirs, print LaTeX"),
    "probe": ("probe", "probe a finished run"),
    "bench": ("bench", "grid throughput"),
}


def usage() -> str:
  width = max(map(len, COMMANDS))
  return ("usage: blm <command> [flags]   (blm <command> --help: its "
          "flags)\n\ncommands:\n" + "\n".join(
              f"  {name:{width}s}  {what}"
              for name, (_, what) in COMMANDS.items()) + "\n")


def main(argv: list[str] | None = None) -> int:
  """Runs `blm <command> ...`; returns (or exits with) its status."""
  argv = list(sys.argv[1:] if argv is None else argv)
  if not argv or argv[0] in ("-h", "--help", "help"):
    print(usage(), end="")
    return 0
  name, rest = argv[0], argv[1:]
  if name not in COMMANDS:
    close = difflib.get_close_matches(name, COMMANDS, 3)
    hint = (" (did you mean " + " or ".join(close) + "?)") if close else ""
    print(f"error: blm: unknown command {name!r}{hint}; the commands are: "
          + ", ".join(COMMANDS), file=sys.stderr)
    return 2
  module = f"blm_jax.cli.{COMMANDS[name][0]}"
  sys.argv = [f"blm {name}", *rest]
  try:
    runpy.run_module(module, run_name="__main__", alter_sys=True)
  except SystemExit as e:
    if e.code is None or isinstance(e.code, int):
      return e.code or 0
    print(e.code, file=sys.stderr)
    return 1
  return 0


if __name__ == "__main__":
  sys.exit(main())
