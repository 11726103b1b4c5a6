"""Study records and the tables generated from them (studies/records/*.json).

  python -m blm_jax.cli.records make --workdir=W --out=studies/records/x.json --command="python launch.py ..."
  python -m blm_jax.cli.records tables           # rewrite every marked table
  python -m blm_jax.cli.records tables --check   # exit 1 if one differs
  python -m blm_jax.cli.records latex --record=studies/records/x.json [--out=F]

`make` writes the record of a finished run (results.json without per-epoch
histories, config.json, the command, the commit of the working tree), or
of a reproduction suite's folder (its report.json: heatmaps, context-free
baselines and a `claims` table), or of a diagnose folder (diagnose.json).
`tables` rewrites every table between `<!-- table: RECORD [options] -->`
and `<!-- end table -->` in README.md and docs/**/*.md from its record;
with --check it changes nothing and names each file and table that
differs (see blm_jax/study/records.py for the options); either way it
fails on a table whose record was made with other builder versions than
this checkout's, unless the table is marked stale (`stale=yes`).
`latex` prints (or writes to --out) a record as a booktabs LaTeX table:
a run's heatmap with its context-free scores, or a suite's tables.
"""

from __future__ import annotations

import os
import sys

from blm_jax.base import files
from blm_jax.results import tables as tables_lib
from blm_jax.study import records
from blm_jax.study.records import head_commit

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))


def make(workdir: str, out: str, command: str, commit: str = "",
         study: str = "", note: str = "") -> dict:
  """Writes the record of a finished folder (`records.record_from_folder`)
  to `out`."""
  record = records.record_from_folder(workdir, command,
                                      commit or head_commit(),
                                      study=study or None, note=note or None)
  files.write_json(out, record, indent=1)
  print(f"wrote {out}")
  return record


def tables(root: str = ROOT, check: bool = False, current=None
           ) -> list[str]:
  """`records.sync_tables` under `root`; a table that cannot be rendered
  stops the command with one line naming its document. `current`: name ->
  builder version (default: this checkout's builders)."""
  try:
    return records.sync_tables(root, check,
                               current or records.current_version)
  except records.RecordError as e:
    raise SystemExit(str(e)) from None


def main(argv) -> None:
  from absl import flags

  f = flags.FLAGS
  if len(argv) != 2 or argv[1] not in ("make", "tables", "latex"):
    raise SystemExit("usage: python -m blm_jax.cli.records "
                     "make|tables|latex [flags]; --help lists them")
  if argv[1] == "latex":
    if not f.record:
      raise SystemExit("error: latex needs --record=<studies/records/NAME.json>")
    try:
      text = tables_lib.record_latex(records.load(f.record), f.caption)
    except OSError as e:
      raise SystemExit(f"error: {f.record}: {e.strerror}") from None
    except (records.RecordError, ValueError, KeyError, TypeError) as e:
      # A record that is not a grid's (a list of rows, no summary).
      message = str(e) if isinstance(e, ValueError) else (
          f"not a grid's record ({type(e).__name__}: {e})")
      raise SystemExit(f"error: {message}" if message.startswith(f.record)
                       else f"error: {f.record}: {message}") from None
    if f.out:
      files.write_text(f.out, text)
      print(f"wrote {f.out}")
    else:
      print(text, end="")
    return
  if argv[1] == "make":
    for name in ("workdir", "out", "command"):
      if not f[name].value:
        raise SystemExit(f"make needs --{name}")
    try:
      make(f.workdir, f.out, f.command, f.commit, f.study, f.note)
    except records.RecordError as e:  # It names the folder or the file.
      raise SystemExit(f"error: {e}") from None
    except OSError as e:  # --out that cannot be written.
      raise SystemExit(f"error: --out={f.out}: {e.strerror or e}") from None
    return
  differ = tables(check=f.check)
  for line in differ:
    print(line if f.check else line.replace(" differs from its record",
                                            ": rewritten from its record"))
  if any("differs from its record" not in line for line in differ):
    raise SystemExit(1)  # Staleness a rewrite cannot mend.
  if f.check and differ:
    print("run `python -m blm_jax.cli.records tables` to regenerate them",
          file=sys.stderr)
    raise SystemExit(1)
  if not differ:
    print("every table matches its record")


def define_flags(fv=None) -> None:
  from absl import flags

  fv = flags.FLAGS if fv is None else fv
  flags.DEFINE_string("workdir", None, "make: the finished run's workdir, "
                      "or a reproduction suite's --out folder.",
                      flag_values=fv)
  flags.DEFINE_string("out", None, "make: the record to write, e.g. "
                      "studies/records/main_job_vae2_cpu.json; latex: the .tex "
                      "file (default: print it).", flag_values=fv)
  flags.DEFINE_string("record", None, "latex: the record to render.",
                      flag_values=fv)
  flags.DEFINE_string("caption", "", "latex: the table's caption (default: "
                      "the record's study).", flag_values=fv)
  flags.DEFINE_string("command", None, "make: the command that made the "
                      "run, as a reader should type it.", flag_values=fv)
  flags.DEFINE_string("commit", "", "make: the code's commit (default: "
                      "this checkout's HEAD).", flag_values=fv)
  flags.DEFINE_string("study", "", "make: the study's name (default: the "
                      "workdir's name).", flag_values=fv)
  flags.DEFINE_string("note", "", "make: what results.json does not say "
                      "(wall time, machine).", flag_values=fv)
  flags.DEFINE_bool("check", False, "tables: change nothing; exit 1 naming "
                    "each file and table that differs from its record.",
                    flag_values=fv)


if __name__ == "__main__":
  define_flags()
  from blm_jax.cli import usage

  usage.run(main)
