"""The papers' claims, checked on finished grids, and the reproduction report.

Each claim of 000 (Merlo et al. 2025, sec. 6.2 and 8.2) and 004 (sec. 4.3)
is a test over the heatmaps of the (dataset, model) grids that
`python -m blm_jax.cli.reproduce` runs; `report` puts the heatmaps side by
side and says whether each claim holds on our data, with the numbers (a
claim whose grids were not run is reported as such).
"""

from __future__ import annotations

import dataclasses
import os
from typing import Callable

from blm_jax.base import files

TYPES = ("I", "II", "III")


def f1(results: dict, train: str, test: str) -> float:
  return results["summary"][train][test]["f1_mean"]


def row_mean(results: dict, train: str) -> float:
  cells = results["summary"][train]
  return sum(c["f1_mean"] for c in cells.values()) / len(cells)


def grid_mean(results: dict) -> float:
  s = results["summary"]
  vals = [c["f1_mean"] for row in s.values() for c in row.values()]
  return sum(vals) / len(vals)


@dataclasses.dataclass(frozen=True)
class Claim:
  """A qualitative statement of a paper, checkable on our heatmaps."""

  source: str
  dataset: str
  models: tuple[str, ...]
  text: str
  # runs {model: results} -> (holds, the numbers behind the verdict)
  check: Callable[[dict], tuple[bool, str]]


def _hardest(model: str, cell: tuple[str, str]):
  def check(runs):
    s = runs[model]["summary"]
    cells = {(t, u): v["f1_mean"] for t, row in s.items()
             for u, v in row.items()}
    worst = min(cells, key=cells.get)
    return worst == cell, (f"{model} {cell[0]}→{cell[1]} = "
                           f"{cells[cell]:.3f}; hardest {worst[0]}→{worst[1]}"
                           f" = {cells[worst]:.3f}")
  return check


def _not_hardest(model: str, cell: tuple[str, str]):
  inner = _hardest(model, cell)
  return lambda runs: (not inner(runs)[0], inner(runs)[1])


def _all_above(model: str, threshold: float):
  def check(runs):
    s = runs[model]["summary"]
    low = min(v["f1_mean"] for row in s.values() for v in row.values())
    return low > threshold, f"{model} lowest cell F1 = {low:.3f}"
  return check


def _row_best(model: str, train: str):
  def check(runs):
    r = runs[model]
    means = {t: row_mean(r, t) for t in r["summary"]}
    best = max(means, key=means.get)
    return best == train, "row means " + ", ".join(
        f"train {t}: {m:.3f}" for t, m in means.items())
  return check


def _row_at_least(model: str, other: str, train: str):
  def check(runs):
    a, b = row_mean(runs[model], train), row_mean(runs[other], train)
    return a >= b, (f"train-{train} row mean: {model} {a:.3f}, "
                    f"{other} {b:.3f}")
  return check


def _grid_at_least(model: str, other: str):
  def check(runs):
    a, b = grid_mean(runs[model]), grid_mean(runs[other])
    return a >= b, f"mean F1 of all cells: {model} {a:.3f}, {other} {b:.3f}"
  return check


def _diagonal_within(model: str, other: str, tolerance: float):
  def check(runs):
    gaps = {t: f1(runs[model], t, t) - f1(runs[other], t, t)
            for t in runs[model]["summary"]}
    ok = all(g >= -tolerance for g in gaps.values())
    return ok, f"diagonal {model} - {other}: " + ", ".join(
        f"{t}→{t} {g:+.3f}" for t, g in gaps.items())
  return check


CLAIMS = (
    Claim("000 sec. 6.2; 004 sec. 4.3", "spray_load", ("ffnn",),
          "I→III is the hardest FFNN cell on spray/load",
          _hardest("ffnn", ("I", "III"))),
    Claim("000 sec. 6.2", "spray_load", ("ffnn",),
          "every FFNN cell on spray/load has F1 > 0.40",
          _all_above("ffnn", 0.40)),
    Claim("000 sec. 6.2", "cos_en", ("ffnn",),
          "unlike spray/load, I→III is not the hardest FFNN cell on CoS "
          "(its 'marked and unexpected improvement')",
          _not_hardest("ffnn", ("I", "III"))),
    Claim("000 sec. 6.2", "agreement_en", ("ffnn",),
          "training on type I gives the best FFNN row on agreement",
          _row_best("ffnn", "I")),
    Claim("000 sec. 8.2", "agreement_en", ("vae2", "ffnn"),
          "vae2 improves the train-III row over FFNN on agreement",
          _row_at_least("vae2", "ffnn", "III")),
    Claim("000 sec. 8.2", "spray_load", ("vae2", "ffnn"),
          "vae2 improves the train-III row over FFNN on spray/load "
          "(weaker)", _row_at_least("vae2", "ffnn", "III")),
    Claim("000 sec. 8.2", "cos_en", ("vae2", "ffnn"),
          "vae2 reduces the error rate over FFNN on CoS (mean of all cells)",
          _grid_at_least("vae2", "ffnn")),
    Claim("000 sec. 8.2 ('at least as well as the FFNN')", "*",
          ("vae2", "ffnn"),
          "vae2's diagonal is within 0.05 of the FFNN's or better",
          _diagonal_within("vae2", "ffnn", 0.05)),
)


def evaluate_claims(runs: dict[str, dict[str, dict]]) -> list[dict]:
  """runs: {dataset: {model: results}} -> one verdict per applicable claim."""
  out = []
  for claim in CLAIMS:
    datasets = sorted(runs) if claim.dataset == "*" else [claim.dataset]
    for ds in datasets:
      have = runs.get(ds, {})
      base = {"source": claim.source, "dataset": ds, "claim": claim.text}
      if not all(m in have for m in claim.models):
        out.append({**base, "verdict": "not run",
                    "evidence": f"needs {', '.join(claim.models)} on {ds}"})
        continue
      holds, evidence = claim.check(have)
      out.append({**base, "verdict": "holds" if holds else "does not hold",
                  "evidence": evidence})
  return out


def heatmap_table(runs: dict[str, dict], models: list[str]) -> str:
  """Markdown: one row per train type, the models' test columns side by side."""
  models = [m for m in models if m in runs]
  if not models:
    return "(no finished grid)"
  tests = list(next(iter(runs[m] for m in models))["summary"]["I"]
               if "I" in runs[models[0]]["summary"] else TYPES)
  head = "| train | " + " | ".join(f"{m} →{u}" for m in models
                                    for u in tests) + " |"
  lines = [head, "|---|" + "---|" * (len(models) * len(tests))]
  for t in runs[models[0]]["summary"]:
    cells = []
    for m in models:
      for u in tests:
        c = runs[m]["summary"].get(t, {}).get(u)
        cells.append(f"{c['f1_mean']:.3f}±{c['f1_std']:.3f}" if c else "-")
    lines.append(f"| {t} | " + " | ".join(cells) + " |")
  return "\n".join(lines)


def report(runs: dict[str, dict[str, dict]], models: list[str],
           out: str, command: str) -> dict:
  """Writes report.md and report.json into `out`; returns the JSON."""
  verdicts = evaluate_claims(runs)
  lines = ["# Reproduction report", "", f"Command: `{command}`", ""]
  for ds, by_model in runs.items():
    lines += [f"## {ds}", "", heatmap_table(by_model, models), ""]
    for m in models:
      if m in by_model:
        lines.append(f"- {m}: `{os.path.join(ds, m, 'heatmap.png')}` "
                     f"(seeds {by_model[m]['grid']['seeds']}, train sizes "
                     f"{by_model[m]['data']['train_sizes']})")
    lines.append("")
  lines += ["## The papers' claims on our data", "",
            "| source | dataset | claim | verdict | evidence |",
            "|---|---|---|---|---|"]
  for v in verdicts:
    lines.append(f"| {v['source']} | {v['dataset']} | {v['claim']} | "
                 f"**{v['verdict']}** | {v['evidence']} |")
  summary = {ds: {m: r["summary"] for m, r in by_model.items()}
             for ds, by_model in runs.items()}
  record = {"command": command, "summaries": summary, "claims": verdicts}
  files.write_text(os.path.join(out, "report.md"), "\n".join(lines) + "\n")
  files.write_json(os.path.join(out, "report.json"), record)
  return record
