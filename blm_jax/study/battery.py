"""The battery table: one row per dataset, the FFNN's grid summarised.

Per dataset (family x language x design) whose FFNN grid finished: the
mean F1 of the diagonal cells (train type = test type) and of the others,
the best context-free score (mean over cells) and the context gain (F1
minus it, mean over cells), on data with attributes the gold ceiling (the
reference model on gold attributes and the solver on one-hot gold
attributes, `gold_ceiling.py`, each the mean over cells; '-' where the run
has none), the seeds and the encoder. Written as CSV,
LaTeX and Markdown (`write`); one table per encoder, as a suite runs one.
"""

from __future__ import annotations

import csv
import io
import os

from blm_jax.base import files
from blm_jax.study import markdown_table

COLUMNS = ("dataset", "encoder", "diagonal F1", "off-diagonal F1",
           "best context-free", "context gain", "gold reference",
           "solver on gold", "seeds")


def _mean(values):
  values = list(values)
  return sum(values) / len(values) if values else float("nan")


def rows(runs: dict[str, dict[str, dict]], model: str = "ffnn"
         ) -> list[list[str]]:
  out = []
  for ds, by_model in sorted(runs.items()):
    r = by_model.get(model)
    if r is None:
      continue
    s = r["summary"]
    cells = [(t, u) for t in s for u in s[t]]
    diag = _mean(s[t][u]["f1_mean"] for t, u in cells if t == u)
    off = _mean(s[t][u]["f1_mean"] for t, u in cells if t != u)
    free = r.get("context_free", {})
    best = _mean(free[t][u]["best"] for t, u in cells
                 if u in free.get(t, {}))
    gain = _mean(free[t][u]["context_gain"] for t, u in cells
                 if u in free.get(t, {}))
    gold = r.get("gold_ceiling") or {}
    ceiling = lambda part: _mean(
        gold[part][t][u]["f1_mean"] for t, u in cells
        if u in gold.get(part, {}).get(t, {}))
    fmt = lambda x: "-" if x != x else f"{x:.3f}"
    out.append([ds, r.get("config", {}).get("encoder", "?"), fmt(diag),
                fmt(off), fmt(best), fmt(gain), fmt(ceiling("reference")),
                fmt(ceiling("solver")), str(len(r["grid"]["seeds"]))])
  return out


# The same summary for every model of a suite (the solvers suite's
# comparison): the model after the dataset.
SOLVER_COLUMNS = COLUMNS[:1] + ("model",) + COLUMNS[1:]


def solver_rows(runs: dict[str, dict[str, dict]], models: list[str]
                ) -> list[list[str]]:
  """`rows` of every model in `models`, the model named, dataset by
  dataset in `models`' order."""
  by_model = {m: {r[0]: r for r in rows(runs, m)} for m in models}
  return [[ds, m, *by_model[m][ds][1:]] for ds in sorted(runs)
          for m in models if ds in by_model[m]]


def markdown(table: list[list[str]], columns=COLUMNS) -> str:
  return "\n".join(markdown_table.lines(columns, table)) + "\n"


def latex(table: list[list[str]]) -> str:
  esc = lambda x: x.replace("_", r"\_")
  return ("\\begin{tabular}{ll" + "r" * (len(COLUMNS) - 2) + "}\n\\hline\n"
          + " & ".join(COLUMNS) + " \\\\\n\\hline\n"
          + "".join(" & ".join(esc(c) for c in r) + " \\\\\n" for r in table)
          + "\\hline\n\\end{tabular}\n")


def write(runs: dict[str, dict[str, dict]], out: str) -> list[list[str]]:
  """battery.csv, battery.tex and battery.md in `out` (nothing without a
  finished FFNN grid); returns the rows."""
  table = rows(runs)
  if not table:
    return table
  buf = io.StringIO()
  w = csv.writer(buf, lineterminator="\n")
  w.writerow(COLUMNS)
  w.writerows(table)
  files.write_text(os.path.join(out, "battery.csv"), buf.getvalue())
  files.write_text(os.path.join(out, "battery.tex"), latex(table))
  files.write_text(os.path.join(out, "battery.md"), markdown(table))
  return table
