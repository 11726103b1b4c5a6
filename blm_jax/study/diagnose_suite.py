"""`--suite=diagnose`: the diagnosis ladder on every `_seq` design and regime.

  python -m blm_jax.cli.reproduce --suite=diagnose --out=workdirs/diagnose
  python -m blm_jax.cli.reproduce --suite=diagnose --plan_only

For each sequence-necessary design and its generalisation regimes (the
registry's short names ending in `_seq`, `_seq_rules` or `_seq_extrap`),
lexical type I of `configs/ffnn.py:dataset=<name>` (with the command's
--variant, --encoder and --seeds): the ladder (`blm_jax.analysis.diagnose`,
as `blm_jax.cli.diagnose` runs it) over every layer of the encoder (the
design analyzer, the gold ceiling, the probes with compounding and
probe-then-solve) into
`<out>/<name>/diagnose/`. A design whose diagnose.json is there is done
(the suite resumes design by design). Then `<out>/diagnose_suite.json`, a
study record whose `ladder` table has one row per design (rules, chance,
the best context-free score, the gold ceiling, the best layer's and the
last layer's probe-then-solve and the attribute the last layer loses most),
and the same table in `<out>/diagnose_suite.md`.
"""

from __future__ import annotations

import datetime
import os
import re

from blm_jax.analysis import attribute_probes, diagnose
from blm_jax.base import files
from blm_jax.study import markdown_table, records, suites

SUITE = "diagnose"
DESIGN = re.compile(r"_seq(_rules|_extrap)?$")
COLUMNS = ["design", "rules train / test", "test rules unseen in train",
           "chance", "best context-free", "gold ceiling",
           "best layer (linear)", "probe-then-solve there", "last layer",
           "probe-then-solve there", "attribute the last layer loses most"]


def designs(datasets) -> list[str]:
  """The `_seq` designs and regimes among the registry's short names."""
  return [d for d in datasets if DESIGN.search(d)]


def entries_of(names, config_of, out: str) -> list[tuple]:
  """[(name, config, its diagnose folder, its diagnose.json or None)];
  `config_of(grid)`: the config reproduce gives that grid (its
  --variant, --seeds, --encoder)."""
  entries = []
  for name in names:
    grid = suites.Grid(name, "ffnn", f"dataset={name}", "diagnosis ladder")
    config = config_of(grid)
    folder = os.path.join(out, name, SUITE)
    path = os.path.join(folder, "diagnose.json")
    entries.append((name, config, folder, records.read_json_object(
        path, "a diagnose.json") if os.path.isfile(path) else None))
  return entries


def plan_lines(entries) -> list[str]:
  done = sum(1 for e in entries if e[3] is not None)
  lines = [f"plan: the diagnosis ladder on {len(entries)} designs "
           f"(lexical type I, every layer), {done} done, "
           f"{len(entries) - done} to run"]
  for name, config, folder, result in entries:
    state = "done" if result is not None else "to run"
    lines.append(f"  {name + '/' + SUITE:40s} {state}  [{config.encoder.name}"
                 f", {folder}]")
  return lines


def _f(x) -> str:
  return "-" if x is None else f"{x:.3f}"


def summary_row(name: str, result: dict) -> list[str]:
  """One design's row of the `ladder` table."""
  rules = (result.get("design") or {}).get("rules") or {}
  pops = (result.get("design") or {}).get("populations") or []
  free = [p["context_free"]["top1"][p["context_free"]["strongest"]]
          for p in pops if p.get("context_free")]
  chance = [p["chance"] for p in pops]
  ref = (result.get("gold_ceiling") or {}).get("reference") or {}
  gold = [c["f1_mean"] for row in ref.values() for c in row.values()]
  layers = result["layers"]
  pts = {k: v["linear"]["probe_then_solve"]["probed"]
         for k, v in layers.items()}
  best = max(pts, key=pts.get)
  last = list(layers)[-1]
  weakest, alone = attribute_probes.weakest_attribute(result, last)
  mean = lambda v: sum(v) / len(v) if v else None
  return [name,
          f"{rules['n_train_rules']} / {rules['n_test_rules']}" if rules
          else "-", _f(rules.get("unseen_rules")), _f(mean(chance)),
          _f(max(free) if free else None), _f(mean(gold)), best,
          _f(pts[best]), last, _f(pts[last]),
          f"{weakest} (alone {alone:.3f})"]


def run(entries, out: str, command: str,
        ladder_fn=diagnose.design_ladder, echo=print) -> dict:
  """Runs the ladder of every design not done (`ladder_fn(config,
  folder)` -> its diagnose.json; tests hand in a toy), then writes the
  suite's record and table; returns the record."""
  results = {}
  for name, config, folder, result in entries:
    if result is None:
      echo(f"== {name}: the diagnosis ladder into {folder}")
      result = ladder_fn(config, folder)
    results[name] = result
  rows = [summary_row(n, r) for n, r in results.items()]
  record = {
      "study": "the diagnosis ladder on every _seq design and regime "
               "(design analyzer, gold ceiling, probes per layer, "
               "compounding, probe-then-solve)",
      "date": datetime.datetime.now(datetime.timezone.utc).strftime(
          "%Y-%m-%d"),
      "command": command, "config": None, "source": "measured",
      "encoder": sorted({c.encoder.name for _, c, _, _ in entries}),
      "data": {"builder_versions": records.merged_builder_versions(
          results.values())},
      "designs": {n: os.path.join(n, SUITE, "diagnose.json")
                  for n in results},
      "tables": {"ladder": {"columns": COLUMNS, "rows": rows}}}
  os.makedirs(out, exist_ok=True)
  files.write_json(os.path.join(out, "diagnose_suite.json"), record)
  files.write_text(os.path.join(out, "diagnose_suite.md"), "\n".join(
      markdown_table.lines(COLUMNS, rows)) + "\n")
  return record
