"""What the project has found, in sentences read from committed records.

docs/findings.md holds one marker per finding, `<!-- table: RECORD
view=findings_KIND -->`, which `records tables` rewrites like any table
(and `records tables --check` fails on once the record moves on), so no
sentence there is typed by hand. Each KIND reads one shape of record:

- `findings_run`: a grid's record (`summary`, `context_free`, and where
  present the gold-attribute ceiling): its diagonal F1, the strongest
  context-free score on the same cells and the context gain.
- `findings_claims`: a suite's `claims` table: how many of the papers'
  claims hold, fail or stay inconclusive, before and after Holm, by design,
  and which fail after Holm.
- `findings_designs`: a suite's `designs` table: each claim's verdict on
  the papers' design beside its verdict on a context- or sequence-necessary
  design.
- `findings_solvers`: a suite's `solvers` and `solver_contrasts` tables:
  the best solver of each dataset and how many contrasts are real.
- `findings_probes`: a `diagnose` record (`tables.mlp`): the layer whose
  probes solve best, against the gold attributes, and its weakest
  attribute.
- `findings_lost`: a `diagnose` record's probe table (`table=linear` by
  default): the attribute whose probe alone costs probe-then-solve most at
  the last layer, how well each layer reads it, and probe-then-solve at
  its best layer and at the last.
"""

from __future__ import annotations

import collections
from typing import Any, Callable

VERDICTS = ("holds", "does not hold", "inconclusive")
# A verdict as the predicate of a count ("3 hold").
PLURAL = {"holds": "hold", "does not hold": "do not hold",
          "inconclusive": "are inconclusive"}
DESIGNS = ("papers'", "context-necessary", "sequence-necessary")
# Past this many datasets a suite's solvers are summed up by design.
LISTED_DATASETS = 12


def _bullets(lines: list[str]) -> str:
  return "".join(f"- {line}\n" for line in lines)


def _table(record: dict, name: str) -> tuple[list[str], list[list[Any]]]:
  """(columns, rows) of the record's table `name`; KeyError naming it."""
  tables = record.get("tables") or {}
  if name not in tables:
    raise KeyError(f"no table {name!r} (has {sorted(tables)})")
  return tables[name]["columns"], tables[name]["rows"]


def _column(columns: list[str], name: str) -> int:
  if name not in columns:
    raise KeyError(f"no column {name!r} (has {columns})")
  return columns.index(name)


def _design(dataset: str) -> str:
  """'context-necessary', 'sequence-necessary' or 'papers''."""
  return ("context-necessary" if dataset.endswith("_ctx") else
          "sequence-necessary" if dataset.endswith("_seq") else "papers'")


def _counts(verdicts: list[str]) -> str:
  count = collections.Counter(v.split(" (")[0] for v in verdicts)
  return ", ".join(f"{count[v]} {PLURAL[v]}" for v in VERDICTS if count[v])


def claims(record: dict) -> str:
  columns, rows = _table(record, "claims")
  verdict = _column(columns, "verdict")
  holm = columns.index("after Holm") if "after Holm" in columns else None
  dataset, claim = _column(columns, "dataset"), _column(columns, "claim")
  lines = [f"{len(rows)} claims judged: {_counts([r[verdict] for r in rows])}"
           + (f"; after Holm over the record: "
              f"{_counts([r[holm] for r in rows])}" if holm is not None
              else "") + "."]
  by_design = collections.defaultdict(list)
  for r in rows:
    by_design[_design(str(r[dataset]))].append(
        r[verdict if holm is None else holm])
  if len(by_design) > 1:
    lines += [f"On the {d} designs ({len(by_design[d])} claims): "
              f"{_counts(by_design[d])}." for d in DESIGNS if d in by_design]
  if holm is not None:
    failed = sorted({f"{r[claim]} ({r[dataset]})" for r in rows
                     if str(r[holm]).startswith("does not hold")})
    if failed:
      lines.append("Does not hold after Holm: " + "; ".join(failed) + ".")
  return _bullets(lines)


def designs(record: dict) -> str:
  columns, rows = _table(record, "designs")
  if not rows:
    raise KeyError("the designs table has no rows")
  paper, other = columns.index("verdict"), len(columns) - 1
  pairs = collections.Counter((r[paper], r[other]) for r in rows)
  lines = []
  for v in VERDICTS:
    on_paper = {w: n for (p, w), n in pairs.items() if p == v}
    if on_paper:
      lines.append(
          f"Of {sum(on_paper.values())} claims that {PLURAL[v]} on the "
          "papers' design, on a context- or sequence-necessary design "
          + ", ".join(
              f"{on_paper[w]} {PLURAL[w]}" for w in VERDICTS
              if w in on_paper) + ".")
  return _bullets(lines)


def solvers(record: dict) -> str:
  columns, rows = _table(record, "solvers")
  dataset, model = _column(columns, "dataset"), _column(columns, "model")
  diagonal = _column(columns, "diagonal F1")
  gain = _column(columns, "context gain")
  best: dict[str, list] = {}
  for r in rows:
    if r[dataset] not in best or float(r[diagonal]) > float(
        best[r[dataset]][diagonal]):
      best[r[dataset]] = r
  if len(best) <= LISTED_DATASETS:
    lines = [f"{len(rows)} grids over {len(best)} datasets; the best "
             "diagonal F1 of each (its context gain): " + "; ".join(
                 f"{d} {r[model]} {r[diagonal]} ({r[gain]})"
                 for d, r in sorted(best.items())) + "."]
  else:
    lines = [f"{len(rows)} grids over {len(best)} datasets."]
    by_design = collections.defaultdict(list)
    for d, r in sorted(best.items()):
      by_design[_design(d)].append((d, r))
    for design in (d for d in DESIGNS if d in by_design):
      found = by_design[design]
      low = min(found, key=lambda x: float(x[1][diagonal]))
      high = max(found, key=lambda x: float(x[1][diagonal]))
      winners = collections.Counter(r[model] for _, r in found)
      gains = sum(float(r[gain]) > 0 for _, r in found)
      lines.append(
          f"On the {design} designs ({len(found)} datasets) the best "
          f"diagonal F1 runs from {low[1][diagonal]} ({low[0]}) to "
          f"{high[1][diagonal]} ({high[0]}); the best solver is "
          + ", ".join(f"{m} on {n}" for m, n in winners.most_common())
          + f"; its context gain is positive on {gains} of {len(found)}.")
  tables = record.get("tables") or {}
  if "solver_contrasts" in tables:
    c_columns, c_rows = _table(record, "solver_contrasts")
    holm = _column(c_columns, "verdict (Holm)")
    count = collections.Counter(r[holm] for r in c_rows)
    lines.append(f"{len(c_rows)} contrasts of the best solver against "
                 "another, after Holm: " + ", ".join(
                     f"{n} {v}" for v, n in count.most_common()) + ".")
  return _bullets(lines)


def _diagonal(summary: dict) -> list[tuple[str, float]]:
  return [(t, summary[t][t]["f1_mean"]) for t in summary if t in summary[t]]


def run(record: dict) -> str:
  config = record.get("results_config") or {}
  summary = record["summary"]
  dataset = str(config.get("dataset", "?")).replace(
      "{}", "{" + ",".join(summary) + "}")
  what = (f"{config.get('model', '?')} on {config.get('encoder', '?')}, "
          f"{dataset}")
  cells = _diagonal(summary)
  lines = [f"{what}: diagonal F1 " + ", ".join(
      f"{t}→{t} {f:.3f}" for t, f in cells) + "."]
  free = record.get("context_free")
  if free:
    best = [(t, free[t][t]["best"], free[t][t]["best_baseline"],
             free[t][t]["context_gain"]) for t, _ in cells]
    lines.append("Strongest context-free score on those cells: " + ", ".join(
        f"{t}→{t} {b:.3f} {name}" for t, b, name, _ in best)
                 + "; context gain " + ", ".join(
                     f"{g:+.3f}" for *_, g in best) + ".")
  ceiling = record.get("gold_ceiling")
  if ceiling:
    reference = _diagonal(ceiling["reference"])
    solver = _diagonal(ceiling["solver"])
    lines.append("Gold-attribute ceiling (one-hot " + ", ".join(
        ceiling.get("attributes", [])) + "), diagonal: the reference model "
                 + ", ".join(f"{f:.3f}" for _, f in reference)
                 + f"; the {config.get('model', 'solver')} on the same "
                 "attributes " + ", ".join(f"{f:.3f}" for _, f in solver)
                 + ".")
  gold = ((record.get("controls") or {}).get("gold_attributes") or {}
          ).get("summary")
  if gold and not ceiling:
    lines.append(f"The same {config.get('model', 'solver')} on one-hot gold "
                 "attributes: " + ", ".join(
                     f"{t}→{t} {f:.3f}" for t, f in _diagonal(gold)) + ".")
  return _bullets(lines)


def probes(record: dict) -> str:
  columns, rows = _table(record, "mlp")
  solve = _column(columns, "probe-then-solve")
  gold = _column(columns, "gold")
  first = _column(columns, "compounding")
  attributes = columns[1:first]
  top = max(rows, key=lambda r: float(r[solve]))
  weakest = min(attributes, key=lambda a: float(top[columns.index(a)]))
  return _bullets([
      f"{record.get('dataset', '?')}, {record.get('encoder', '?')} (MLP "
      f"probes on held-out frames): probe-then-solve peaks at {top[0]} "
      f"with {top[solve]} (gold attributes {top[gold]}); there the weakest "
      f"attribute is {weakest} ({top[columns.index(weakest)]}), at the "
      f"last layer probe-then-solve is {rows[-1][solve]}."])


def lost(record: dict, table: str = "linear") -> str:
  columns, rows = _table(record, table)
  solve = _column(columns, "probe-then-solve")
  gold = _column(columns, "gold")
  attributes = columns[1:_column(columns, "compounding")]
  last = rows[-1]
  alone = {a: float(last[_column(columns, f"only {a}")]) for a in attributes}
  worst = min(attributes, key=alone.get)
  read = [float(r[columns.index(worst)]) for r in rows]
  best_read = max(range(len(rows)), key=read.__getitem__)
  top = max(rows, key=lambda r: float(r[solve]))
  return _bullets([
      f"{record.get('dataset', '?')}, {record.get('encoder', '?')} ({table} "
      "probes on "
      f"held-out frames): loses {worst} most (alone {alone[worst]:.3f} at "
      f"{last[0]}); {worst} is read {read[0]:.3f} at {rows[0][0]}, best "
      f"{read[best_read]:.3f} at {rows[best_read][0]}, {read[-1]:.3f} at "
      f"{last[0]}; probe-then-solve {top[solve]} at {top[0]}, "
      f"{last[solve]} at {last[0]} (gold attributes {last[gold]})."])


VIEWS: dict[str, Callable[[dict], str]] = {
    "findings_run": run, "findings_claims": claims,
    "findings_designs": designs, "findings_solvers": solvers,
    "findings_probes": probes, "findings_lost": lost}


def render(record: dict, view: str) -> str:
  """The bullets of finding `view` read from `record`; ValueError naming
  what the record lacks."""
  if view not in VIEWS:
    raise ValueError(f"view={view}: not a finding (one of "
                     f"{', '.join(VIEWS)})")
  try:
    return VIEWS[view](record)
  except (KeyError, TypeError, IndexError, ValueError) as e:
    message = e.args[0] if isinstance(e, KeyError) and e.args else e
    raise ValueError(f"view={view}: {message}") from None
