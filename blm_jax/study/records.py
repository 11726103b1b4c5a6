"""Study records: small JSON files that every results table in the docs is read from.

A record (studies/records/<name>.json) holds what a table needs and where it
came from:

  {"study": ..., "date": "YYYY-MM-DD", "commit": ..., "command": ...,
   "config": {...} (the resolved config, where known), "source": ...,
   ... the data}

The data is either a grid's results.json without its per-epoch histories
(`summary` train type -> test type -> f1_mean/f1_std, `grid`, `data`,
`cells`, ...), made by `record_from_workdir`, or named tables of rows,
`{"tables": {name: {"columns": [...], "rows": [[...], ...]}}}`, whose
cells are strings transcribed as published.

A document shows a table between two markers, which `render_document`
rewrites from the record:

  <!-- table: studies/records/main_job_vae2_cpu.json -->
  | train \\ test | I | II | III |
  ...
  <!-- end table -->

Options after the path: `table=NAME` picks one of the record's `tables`
(rows table), `where=COLUMN:GLOB[,GLOB...]` keeps its rows whose COLUMN
matches one of the globs (`where=dataset:*_ctx`: a long table split by
design); `key=a.b.c` picks a summary inside the record (heatmap of
`controls.answer_only.summary`, say); `view=context_free` renders
results.json's context-free baselines (best score, its baseline and the
context gain per cell); `view=findings_KIND` renders sentences of
docs/findings.md (blm_jax.study.findings). Without options a record
with a `summary` renders as a heatmap.

A record made from a run keeps the builder versions of the data it read;
a table whose record was made with other versions than this checkout's
builders fails `records tables --check` unless its marker says
`stale=<anything>`, and then the table says under it which builders
changed (`stale_line`), so a stale number is never presented as current.
"""

from __future__ import annotations

import datetime
import fnmatch
import os
import re
import subprocess
from typing import Any

from blm_jax.base import files
from blm_jax.study import findings, judge, markdown_table

MARKER = re.compile(
    r"^<!-- table: (?P<path>\S+)(?P<opts>(?: [\w.]+=\S+)*) -->\n"
    r"(?P<body>.*?)"
    r"^<!-- end table -->$", re.M | re.S)


MAX_RECORD_BYTES = 256 << 20  # results.json, report.json or a record.
# The checkout (the repository root) whose commit a record names.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))


def head_commit(root: str = ROOT) -> str:
  """The checkout's HEAD, short, for a record's `commit` ('' outside git)."""
  try:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root,
                          capture_output=True, text=True,
                          check=True).stdout.strip()
  except (OSError, subprocess.CalledProcessError):
    return ""


class RecordError(ValueError):
  """A record or a table marker that cannot be rendered."""


def read_json_object(path: str, what: str) -> dict:
  """The JSON object in `path`, read within `MAX_RECORD_BYTES` and the
  nesting bound; RecordError naming the file (and `what` it should be)
  when it cannot be read or is not one."""
  try:
    value = files.read_json(path, MAX_RECORD_BYTES)
  except OSError as e:
    raise RecordError(f"{path}: cannot be read ({e.strerror or e})") from None
  except ValueError as e:  # Past a bound, not UTF-8, not JSON (truncated).
    message = str(e)
    raise RecordError(message if message.startswith(path)
                      else f"{path}: {message}") from None
  if not isinstance(value, dict):
    raise RecordError(f"{path}: holds a JSON {type(value).__name__}, not "
                      f"{what} (a JSON object)")
  return value


def drop_histories(obj: Any) -> Any:
  """`obj` without any "history" key, at any depth."""
  if isinstance(obj, dict):
    return {k: drop_histories(v) for k, v in obj.items() if k != "history"}
  if isinstance(obj, list):
    return [drop_histories(v) for v in obj]
  return obj


def _head(folder: str, path: str, command: str, commit: str,
          study: str | None, date: str | None, note: str | None,
          source: str) -> dict:
  """A record's first keys: what was studied, when (default: the day
  `path` was written, UTC), by which command and commit, from what."""
  if date is None:
    date = datetime.datetime.fromtimestamp(
        os.path.getmtime(path), datetime.timezone.utc).strftime("%Y-%m-%d")
  record = {"study": study or os.path.basename(os.path.normpath(folder)),
            "date": date, "commit": commit, "command": command}
  record["source"] = source
  if note:
    record["note"] = note
  return record


def record_from_workdir(workdir: str, command: str, commit: str,
                        study: str | None = None,
                        date: str | None = None,
                        note: str | None = None) -> dict:
  """The record of a finished run: its results.json minus every "history",
  its config.json, the command that made it and the code's commit.

  `date` defaults to the day results.json was written (UTC); `note` is
  free text for what results.json does not hold (wall time, machine).
  """
  path = os.path.join(workdir, "results.json")
  if not os.path.isdir(workdir):
    raise RecordError(f"{workdir}: no such folder (--workdir: a finished "
                      "run's workdir or a suite's --out)")
  if not os.path.isfile(path):
    raise RecordError(f"{workdir}: no results.json (is the run finished?)")
  results = read_json_object(path, "a run's results")
  config = None
  config_path = os.path.join(workdir, "config.json")
  if os.path.isfile(config_path):
    config = read_json_object(config_path, "a run's config")
  record = _head(workdir, path, command, commit, study, date, note,
                 f"results.json and config.json of the run in {workdir}")
  record["config"] = config
  for k, v in drop_histories(results).items():
    record.setdefault(k, v)
  if "config" in results:  # results.json's own short config summary.
    record["results_config"] = results["config"]
  return record


def record_from_diagnose(out: str, command: str, commit: str,
                         study: str | None = None, date: str | None = None,
                         note: str | None = None) -> dict:
  """The record of a `blm_jax.cli.diagnose` folder: its diagnose.json
  (probes per layer, compounding, probe-then-solve, the gold ceiling, the
  builder versions of the data it read) with the command and commit."""
  path = os.path.join(out, "diagnose.json")
  if not os.path.isfile(path):
    raise RecordError(f"{out}: no diagnose.json (run blm_jax.cli.diagnose)")
  found = read_json_object(path, "a diagnose folder's diagnose.json")
  record = _head(out, path, command, commit, study, date, note,
                 f"diagnose.json of the diagnose run in {out}")
  record["config"] = None
  for k, v in found.items():
    record.setdefault(k, v)
  return record


def record_from_report(out: str, command: str, commit: str,
                       study: str | None = None, date: str | None = None,
                       note: str | None = None) -> dict:
  """The record of a reproduction suite's `out` folder (its report.json):
  each grid's heatmap and context-free baselines, the verdicts as a
  `claims` table (the claims that were run), the report's tables of the
  papers' numbers beside ours (`table4`, `table5`, `probing`,
  `region_maps`, `bounds`, where shown), the battery and the solvers
  table, and, where grids differ only in the training size, their curves (`training_curves`,
  also as a table)."""
  path = os.path.join(out, "report.json")
  if not os.path.isfile(path):
    raise RecordError(f"{out}: no report.json (run the reproduction suite)")
  report = read_json_object(path, "a suite's report")
  record = _head(out, path, command, commit, study, date, note,
                 f"report.json of the reproduction suite in {out}")
  # seed_f1: each grid's per-seed F1, so the record can be re-judged.
  # probing: the numbers of 000 Figures 20-22 per probed grid; missing:
  # the suite's grids that had not finished.
  record.update({k: report[k] for k in ("summaries", "context_free",
                                        "seed_f1", "probing", "missing")
                 if k in report})
  record["tables"] = {
      "claims": {"columns": list(judge.VERDICT_COLUMNS),
                 "rows": [judge.verdict_cells(v)
                          for v in report.get("claims", [])
                          if v["verdict"] != "not run"]},
      "designs": {"columns": list(judge.DESIGN_COLUMNS),
                  "rows": judge.design_pairs(report.get("claims", []))},
      # The papers' numbers beside ours (000 Tables 4-5, Figures 20-22,
      # the bounds in the text) and the battery, as the report shows them.
      **report.get("tables", {})}
  curves = report.get("training_curves") or {}
  if curves.get("curves"):  # 001 Figures 7-8: F1 against the training size
    # Here, not at the top: `records tables` stays free of matplotlib and
    # the models that the curves' grouping imports.
    from blm_jax.study import training_curves

    record["training_curves"] = curves
    record["tables"]["training_curves"] = {
        "columns": training_curves.ROW_COLUMNS,
        "rows": training_curves.rows(curves)}
  return record


def _pick(record: dict, key: str) -> Any:
  node = record
  for part in key.split("."):
    if not isinstance(node, dict) or part not in node:
      raise RecordError(f"no {key!r} in the record")
    node = node[part]
  return node


def _train_test_table(cells: dict, cell, train_types=None,
                      test_types=None) -> str:
  """A "train \\ test" markdown table of `cells[train][test]`, each
  written by `cell`."""
  train_types = list(train_types or cells)
  test_types = list(test_types or cells[train_types[0]])
  lines = ["| train \\ test | " + " | ".join(test_types) + " |",
           "| --- |" + " --- |" * len(test_types)]
  for t in train_types:
    lines.append(f"| {t} | " + " | ".join(cell(cells[t][u])
                                           for u in test_types) + " |")
  return "\n".join(lines) + "\n"


def heatmap_table(summary: dict, train_types=None, test_types=None) -> str:
  """A "train \\ test" markdown table of F1 "mean ± std" to 3 decimals."""
  return _train_test_table(
      summary, lambda c: f"{c['f1_mean']:.3f} ± {c['f1_std']:.3f}",
      train_types, test_types)


def context_free_table(context_free: dict, train_types=None,
                       test_types=None) -> str:
  """A "train \\ test" markdown table of results.json's `context_free`: the
  best context-free score, its baseline and the context gain (the
  solver's F1 mean minus it). A record made before the set scorers
  (`set_logit`, `set_trees`) joined the baselines says so under it."""
  table = _train_test_table(
      context_free, lambda c: f"{c['best']:.3f} {c['best_baseline']} (gain "
      f"{c['context_gain']:+.3f})", train_types, test_types)
  cells = [c for row in context_free.values() for c in row.values()]
  if any("set_logit" not in c for c in cells):
    table += ("\n*Made with the earlier baseline set (candidate_mlp, "
              "word_logit, odd_one_in): `best` and the gain leave out the "
              "set scorers (`blm_jax.data.context_free.set_scorer`), which can only "
              "raise `best`.*\n")
  return table


def rows_table(columns: list[str], rows: list[list[Any]]) -> str:
  """A markdown table of named columns; cells are written as given."""
  try:
    return "\n".join(markdown_table.lines(columns, rows)) + "\n"
  except ValueError as e:
    raise RecordError(str(e)) from None


def _where(columns: list[str], rows: list[list[Any]], spec: str
           ) -> list[list[Any]]:
  """The rows whose column matches a glob of `spec` ('COLUMN:GLOB,...');
  RecordError for an unknown column or when no row matches (a typo would
  otherwise leave an empty table)."""
  column, sep, globs = spec.partition(":")
  if not sep or not globs:
    raise RecordError(f"where={spec}: expected COLUMN:GLOB[,GLOB...]")
  if column not in columns:
    raise RecordError(f"where={spec}: no column {column!r} (has "
                      f"{columns})")
  i = columns.index(column)
  patterns = globs.split(",")
  kept = [r for r in rows
          if any(fnmatch.fnmatchcase(str(r[i]), p) for p in patterns)]
  if not kept:
    raise RecordError(f"where={spec}: no row's {column} matches")
  return kept


def render(record: dict, options: dict[str, str] | None = None) -> str:
  """The markdown table a marker with `options` asks of `record`."""
  options = dict(options or {})
  if options.get("view", "").startswith("findings"):
    try:
      return findings.render(record, options["view"])
    except ValueError as e:
      raise RecordError(str(e)) from None
  if "table" in options:
    tables = record.get("tables", {})
    if options["table"] not in tables:
      raise RecordError(f"no table {options['table']!r} (has "
                        f"{sorted(tables)})")
    t = tables[options["table"]]
    rows = t["rows"]
    if "where" in options:
      rows = _where(t["columns"], rows, options["where"])
    return rows_table(t["columns"], rows)
  if "where" in options:
    raise RecordError("where= filters the rows of a table=NAME")
  grid = record.get("grid", {})
  if options.get("view") == "context_free":
    return context_free_table(_pick(record, options.get("key",
                                                        "context_free")),
                              grid.get("train_types"),
                              grid.get("test_types"))
  if "key" in options:
    summary = _pick(record, options["key"])
  elif "summary" in record:
    summary = record["summary"]
  elif "columns" in record:
    return rows_table(record["columns"], record["rows"])
  else:
    raise RecordError("the record has no summary, columns or tables; "
                      "name one with table=NAME or key=PATH")
  return heatmap_table(summary, grid.get("train_types"),
                       grid.get("test_types"))


def load(path: str) -> dict:
  """A record; RecordError naming the file when it is not one."""
  return read_json_object(path, "a record")


def _options(text: str) -> dict[str, str]:
  return dict(o.split("=", 1) for o in text.split())


def builder_versions(record: dict) -> dict[str, str] | None:
  """{TFDS name: builder version} the record's run read (results.json's
  `data.builder_versions`); None when the record does not say."""
  found = (record.get("data") or {}).get("builder_versions")
  return dict(found) if isinstance(found, dict) else None


def merged_builder_versions(results) -> dict[str, str]:
  """{TFDS name: builder version} over several runs' results (a suite's
  grids, a ladder's designs), so that `records tables --check` sees a
  record made with builders changed since. A name two runs read at
  different versions keeps both ('1.2.0,1.3.0'): it matches no single
  version, so the record reads stale until rerun."""
  seen: dict[str, set[str]] = {}
  for result in results:
    for name, version in (builder_versions(result) or {}).items():
      seen.setdefault(name, set()).add(str(version))
  return {name: ",".join(sorted(v)) for name, v in sorted(seen.items())}


def current_version(name: str) -> str | None:
  """The builder version `name` has in this checkout (None: no builder)."""
  from data_builders.common import loading

  return loading.version(name)


def stale_builders(record: dict, current=current_version
                   ) -> dict[str, tuple[str, str | None]]:
  """{TFDS name: (version the record was made with, the builder's now)}
  for every builder that changed since; empty when none did or the
  record does not say."""
  return {name: (made, now) for name, made in
          sorted((builder_versions(record) or {}).items())
          if (now := current(name)) != made}


def stale_line(stale: dict[str, tuple[str, str | None]]) -> str:
  """The line a table marked `stale=...` carries under it: per builder
  family and version change, its datasets (a count past three; the
  check's message names them all)."""
  groups: dict[tuple[str, str, str], list[str]] = {}
  for name, (made, now) in stale.items():
    family, _, dataset = name.partition("/")
    groups.setdefault((family, made, now or "gone"), []).append(
        dataset or name)
  return ("*Stale: made with " + ", ".join(
      f"{family} {made} (now {now}: "
      + (", ".join(names) if len(names) <= 3 else f"{len(names)} datasets")
      + ")" for (family, made, now), names in groups.items())
      + "; rerun it to update.*\n")


def render_document(text: str, root: str, current=current_version
                    ) -> tuple[str, list[dict]]:
  """`text` with every marked table rewritten from its record (paths are
  relative to `root`), and one entry per table: path, options, line,
  whether it changed, `stale` (its record's builders that changed since:
  a table marked `stale=...` says so under it, `stale_line`)."""
  tables = []

  def sub(m: re.Match) -> str:
    opts = _options(m.group("opts"))
    line = text.count("\n", 0, m.start()) + 1
    path = os.path.join(root, m.group("path"))
    if not os.path.isfile(path):
      raise RecordError(f"line {line}: no record {m.group('path')}")
    marked = opts.pop("stale", None) is not None
    try:
      record = load(path)
      body = render(record, opts)
    except RecordError as e:
      raise RecordError(f"line {line}: {m.group('path')}: {e}") from None
    stale = stale_builders(record, current)
    if marked and stale:
      body += "\n" + stale_line(stale)
    tables.append({"record": m.group("path"), "options": m.group("opts"),
                   "line": line, "changed": body != m.group("body"),
                   "stale": stale, "marked_stale": marked})
    head = m.group(0)[:m.start("body") - m.start()]
    return head + body + "<!-- end table -->"

  return MARKER.sub(sub, text), tables


def documents(root: str) -> list[str]:
  """README.md, each data_builders/<family>/README.md and every
  docs/**/*.md and studies/**/*.md under `root`, relative to it."""
  out = ["README.md"] if os.path.isfile(os.path.join(root, "README.md")) else []
  builders = os.path.join(root, "data_builders")
  if os.path.isdir(builders):
    out += sorted(os.path.join("data_builders", d, "README.md")
                  for d in os.listdir(builders)
                  if os.path.isfile(os.path.join(builders, d, "README.md")))
  for top in ("docs", "studies"):
    for folder, _, names in sorted(os.walk(os.path.join(root, top))):
      out += sorted(os.path.relpath(os.path.join(folder, n), root)
                    for n in names if n.endswith(".md"))
  return out


def record_from_folder(workdir: str, command: str, commit: str,
                       study: str | None = None,
                       note: str | None = None) -> dict:
  """The record of a finished folder, by what it holds: a run's
  results.json, a reproduction suite's report.json or a diagnose.json
  (neither: `record_from_workdir`, which names what is missing)."""
  def has(name):
    return os.path.isfile(os.path.join(workdir, name))

  from_folder = (record_from_workdir if has("results.json")
                 else record_from_report if has("report.json")
                 else record_from_diagnose if has("diagnose.json")
                 else record_from_workdir)
  return from_folder(workdir, command, commit, study=study, note=note)


def stale_problems(doc: str, found: list[dict]) -> list[str]:
  """One line per table of `doc` presented as current whose record was
  made with other builder versions, or marked stale whose record is not."""
  out = []
  for t in found:
    where = f"{doc}:{t['line']}: table from {t['record']}"
    if t["stale"] and not t["marked_stale"]:
      out.append(f"{where} was made with other builders ("
                 + ", ".join(f"{n} {made}, now {now or 'gone'}"
                             for n, (made, now) in t["stale"].items())
                 + "): rerun it and `records make` its record, or mark "
                 "the table stale (`stale=yes` in its marker)")
    elif t["marked_stale"] and not t["stale"]:
      out.append(f"{where} is marked stale but its record's builders are "
                 "current: drop `stale=` from its marker")
  return out


def sync_tables(root: str, check: bool = False, current=current_version
                ) -> list[str]:
  """Rewrites (with check, only compares) every marked table of the
  `documents` under `root`; returns one line per table that differed or
  whose staleness is not what it says (`stale_problems`). A table that
  cannot be rendered raises RecordError naming its document, before
  that document is written."""
  differ = []
  for doc in documents(root):
    path = os.path.join(root, doc)
    with open(path, encoding="utf-8") as f:
      text = f.read()
    try:
      rendered, found = render_document(text, root, current)
    except RecordError as e:
      raise RecordError(f"{doc}: {e}") from None
    differ += stale_problems(doc, found)
    for t in found:
      if t["changed"]:
        differ.append(f"{doc}:{t['line']}: table from {t['record']}"
                      f"{t['options']} differs from its record")
    if rendered != text and not check:
      files.write_text(path, rendered)
  return differ
