"""A grid's results as rows a paper can use: CSV, LaTeX and console lines.

One row per (train type, test type) cell of the real run: the F1 mean and
sample std over seeds, the number of seeds and of test instances, the best
context-free score and the scorer that reached it, the context gain (F1
minus that score) and, on data with attributes, the gold-attribute ceiling
(the reference model's F1 and the solver's own on one-hot attributes,
`gold_ceiling.py`). The
console, `results.csv` and the LaTeX table all read these rows, so the
three never disagree.
"""

from __future__ import annotations

import csv
import dataclasses
import io

COLUMNS = ("train", "test", "f1_mean", "f1_std", "n_seeds", "n_test",
           "best_context_free", "best_context_free_scorer", "context_gain",
           "gold_reference_f1", "gold_solver_f1")


@dataclasses.dataclass(frozen=True)
class CellRow:
  train: str
  test: str
  f1_mean: float
  f1_std: float
  n_seeds: int
  n_test: int | None  # test instances of the cell (None: not recorded)
  best_context_free: float | None
  best_context_free_scorer: str
  context_gain: float | None
  gold_reference_f1: float | None = None
  gold_solver_f1: float | None = None


def cell_rows(results: dict) -> list[CellRow]:
  """The rows of results.json (or of a record made from one)."""
  grid = results["grid"]
  free = results.get("context_free") or {}
  gold = results.get("gold_ceiling") or {}
  gold_f1 = lambda part, t, u: (
      None if (c := gold.get(part, {}).get(t, {}).get(u)) is None
      else float(c["f1_mean"]))
  n = len(grid["seeds"])
  test_sizes = (results.get("data") or {}).get("test_sizes") or {}
  rows = []
  for t, row in results["summary"].items():
    for u, v in row.items():
      c = free.get(t, {}).get(u)
      rows.append(CellRow(
          train=t, test=u, f1_mean=float(v["f1_mean"]),
          f1_std=float(v["f1_std"]), n_seeds=n, n_test=test_sizes.get(u),
          best_context_free=None if c is None else float(c["best"]),
          best_context_free_scorer="" if c is None else c["best_baseline"],
          context_gain=None if c is None else float(c["context_gain"]),
          gold_reference_f1=gold_f1("reference", t, u),
          gold_solver_f1=gold_f1("solver", t, u)))
  return rows


def to_csv(rows: list[CellRow]) -> str:
  out = io.StringIO()
  w = csv.writer(out, lineterminator="\n")
  w.writerow(COLUMNS)
  for r in rows:
    w.writerow([r.train, r.test, f"{r.f1_mean:.4f}", f"{r.f1_std:.4f}",
                r.n_seeds, "" if r.n_test is None else r.n_test,
                "" if r.best_context_free is None
                else f"{r.best_context_free:.4f}",
                r.best_context_free_scorer,
                "" if r.context_gain is None else f"{r.context_gain:.4f}",
                _number(r.gold_reference_f1), _number(r.gold_solver_f1)])
  return out.getvalue()


def _number(x: float | None) -> str:
  return "" if x is None else f"{x:.4f}"


def console_lines(rows: list[CellRow], cf_from_cache: str = "") -> list[str]:
  """'train I: test I F1 0.948±0.010 (cf 1.000 odd_one_in, gain -0.052)'
  per train type, then one line naming n seeds and what `cf` is;
  `cf_from_cache`, the cache file the context-free scores were read from
  (not computed), adds 'from cache' beside each and names the file."""
  by_train: dict[str, list[CellRow]] = {}
  for r in rows:
    by_train.setdefault(r.train, []).append(r)
  lines = []
  for t, cells in by_train.items():
    parts = []
    for r in cells:
      part = f"test {r.test} F1 {r.f1_mean:.3f}±{r.f1_std:.3f}"
      if r.best_context_free is not None:
        part += (f" (cf {r.best_context_free:.3f} "
                 f"{r.best_context_free_scorer}"
                 + (" from cache" if cf_from_cache else "")
                 + f", gain {r.context_gain:+.3f})")
      if r.gold_reference_f1 is not None:
        part += f" [gold {r.gold_reference_f1:.3f}" + (
            "" if r.gold_solver_f1 is None
            else f", solver on gold {r.gold_solver_f1:.3f}") + "]"
      parts.append(part)
    lines.append(f"train {t}: " + "  ".join(parts))
  if rows:
    note = f"F1: mean ± sample std over {rows[0].n_seeds} seed(s)"
    if any(r.best_context_free is not None for r in rows):
      note += ("; cf: the best context-free score (the candidates alone, "
               "no context); gain: F1 - cf")
      if cf_from_cache:
        note += f"; cf read from the cache file {cf_from_cache}"
      losing = sum(r.context_gain <= 0 for r in rows
                   if r.context_gain is not None)
      if losing:
        note += (f"; {losing} of {len(rows)} cell(s) gain nothing from the "
                 "context")
    if any(r.gold_reference_f1 is not None for r in rows):
      note += ("; gold: the attribute-relations model on gold attributes "
               "(the ceiling of perfect features)")
    lines.append(note)
  return lines


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%",
                  "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
                  "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}", "→": r"$\rightarrow$",
                  "±": r"$\pm$", "−": "-"}


def _latex_escape(text: str) -> str:
  return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def to_latex(rows: list[CellRow], caption: str = "", label: str = "") -> str:
  """A booktabs table: train x test, each cell F1 mean ± std and, where
  known, the best context-free score beneath it in brackets."""
  trains = list(dict.fromkeys(r.train for r in rows))
  tests = list(dict.fromkeys(r.test for r in rows))
  cell = {(r.train, r.test): r for r in rows}
  free = any(r.best_context_free is not None for r in rows)
  lines = [r"\begin{table}[t]", r"\centering",
           r"\begin{tabular}{l" + "c" * len(tests) + "}", r"\toprule",
           "train $\\backslash$ test & " + " & ".join(
               _latex_escape(u) for u in tests) + r" \\", r"\midrule"]
  for t in trains:
    cells = []
    for u in tests:
      r = cell.get((t, u))
      if r is None:
        cells.append("--")
        continue
      text = f"${r.f1_mean:.3f} \\pm {r.f1_std:.3f}$"
      if r.best_context_free is not None:
        text = (f"\\shortstack{{{text} \\\\ "
                f"\\scriptsize [{r.best_context_free:.3f}]}}")
      cells.append(text)
    lines.append(_latex_escape(t) + " & " + " & ".join(cells) + r" \\")
  lines += [r"\bottomrule", r"\end{tabular}"]
  n = rows[0].n_seeds if rows else 0
  text = caption or "F1 by training (rows) and test (columns) type"
  text = _latex_escape(text) + f"; mean $\\pm$ sample std over {n} seed(s)"
  if free:
    text += ("; in brackets the best context-free score (the candidates "
             "alone)")
  lines.append(r"\caption{" + text + ".}")
  if label:
    lines.append(r"\label{" + label + "}")
  lines.append(r"\end{table}")
  return "\n".join(lines) + "\n"


def rows_to_latex(columns, rows, caption: str = "", label: str = "") -> str:
  """Any table of strings (a record's `tables` entry) as booktabs LaTeX."""
  lines = [r"\begin{table}[t]", r"\centering",
           r"\begin{tabular}{" + "l" * len(columns) + "}", r"\toprule",
           " & ".join(_latex_escape(str(c)) for c in columns) + r" \\",
           r"\midrule"]
  lines += [" & ".join(_latex_escape(str(v)) for v in row) + r" \\"
            for row in rows]
  lines += [r"\bottomrule", r"\end{tabular}"]
  if caption:
    lines.append(r"\caption{" + _latex_escape(caption) + "}")
  if label:
    lines.append(r"\label{" + label + "}")
  lines.append(r"\end{table}")
  return "\n".join(lines) + "\n"


def record_latex(record: dict, caption: str = "") -> str:
  """The LaTeX of a study record: its heatmap (with the context-free
  scores) for a run's record, each of its tables for a transcribed or
  suite record."""
  if "summary" in record and "grid" in record:
    return to_latex(cell_rows(record), caption or record.get("study", ""),
                    label="tab:" + _label(record.get("study", "")))
  if record.get("tables"):
    return "\n".join(
        rows_to_latex(t["columns"], t["rows"],
                      f"{caption or record.get('study', '')}: {name}",
                      label="tab:" + _label(name))
        for name, t in record["tables"].items())
  raise ValueError("the record has neither a run's summary nor tables")


def _label(text: str) -> str:
  return "".join(ch if ch.isalnum() else "-" for ch in text.lower())[:40]
