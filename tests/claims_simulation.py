"""Synthetic grids with known truth, for checking the claims' statistics.

Every test instance i of test type u has an easiness a_ui ~ U(-w, w)
shared by all models and cells (models see the same items); cell (t, u)
of seed s of a model is right on instance i with probability
truth[t][u] + a_ui + b, b ~ N(0, seed_sd[t][u]) drawn per seed and cell.
The population F1 of a cell (over instances and seeds) is truth[t][u]
exactly while the probabilities stay inside [0, 1] (keep truth in
[w + 3 sd, 1 - w - 3 sd]).

Used by tests/study/test_statistics.py (small) and
studies/claims_simulation.py (the committed figures).
"""

from __future__ import annotations

import numpy as np

from blm_jax.results import predictions
from blm_jax.study import claims, judge

TYPES = claims.TYPES


def flat(value: float) -> dict:
  return {t: {u: value for u in TYPES} for t in TYPES}


def with_cells(table: dict, cells: dict) -> dict:
  """`table` with {(t, u): value} replaced."""
  out = {t: dict(row) for t, row in table.items()}
  for (t, u), v in cells.items():
    out[t][u] = v
  return out


def items(rng, n: int, width: float = 0.2) -> dict:
  """{test type: [n] instance easiness}, shared by the models of a dataset."""
  return {u: rng.uniform(-width, width, n) for u in TYPES}


def grid(rng, truth: dict, easiness: dict, seeds: int = 5,
         seed_sd: float | dict = 0.01, prefix: str = "x"):
  """(results.json-like dict, CellPredictions) of one model's grid."""
  sd = seed_sd if isinstance(seed_sd, dict) else flat(seed_sd)
  hits = {}
  for u in TYPES:
    a = easiness[u]
    p = np.stack([[truth[t][u] + a + rng.normal(0, sd[t][u])
                   for t in TYPES] for _ in range(seeds)])  # [S, T, N]
    hits[u] = rng.random(p.shape) < p
  cells = [{"seed": s, "train_type": t,
            "test": {u: {"f1": float(hits[u][s, i].mean())} for u in TYPES}}
           for s in range(seeds) for i, t in enumerate(TYPES)]
  summary = {t: {u: {"f1_mean": float(hits[u][:, i].mean()),
                     "f1_std": float(hits[u][:, i].mean(-1).std(ddof=1))}
                 for u in TYPES} for i, t in enumerate(TYPES)}
  ids = {u: tuple(f"{prefix}{u}-{k}" for k in range(len(easiness[u])))
         for u in TYPES}
  preds = predictions.CellPredictions(
      tuple(range(seeds)), TYPES,
      {u: predictions.TestPredictions(hits[u], ids[u]) for u in TYPES})
  return ({"summary": summary, "cells": cells,
           "grid": {"seeds": list(range(seeds))}}, preds)


def _not_lowest() -> claims.Claim:
  """'I→III is not the lowest FFNN cell': the 'any' rule (some other cell
  below I→III), which no paper claim uses now but the statistics keep."""
  cell = ("I", "III")

  def contrasts():
    return [(f"I→III − {t}→{u}", {("ffnn", *cell): 1.0, ("ffnn", t, u): -1.0})
            for t in TYPES for u in TYPES if (t, u) != cell]
  return claims.Claim("simulation", "", ("spray_load",), ("ffnn",),
                      NOT_LOWEST, contrasts, "any", 0.0, lambda tabs: "", "")


def claim(text: str) -> claims.Claim:
  if text == NOT_LOWEST:
    return _not_lowest()
  (c,) = [c for c in claims.CLAIMS if c.text == text]
  return c


GAIN = "vae2's mean F1 over all cells beats the FFNN's on CoS"
ABOVE_040 = "the FFNN's I→III cell on spray/load has F1 > 0.40"
NOT_LOWEST = "unlike spray/load, I→III is not the lowest FFNN cell"
LOWEST = "I→III is the lowest FFNN cell on spray/load"
DIAGONAL = "vae2's diagonal is within 0.05 of the FFNN's or better"


def _two(rng, ffnn, vae2, n, seeds, seed_sd):
  e = items(rng, n)
  f, v = (grid(rng, ffnn, e, seeds, seed_sd), grid(rng, vae2, e, seeds,
                                                   seed_sd))
  return {"ffnn": f[0], "vae2": v[0]}, {"ffnn": f[1], "vae2": v[1]}


# Each scenario: (claim text, truth of the claim's statistic, what the
# truth makes a wrong verdict, a draw of (runs, preds)).
def scenarios(seeds: int = 5) -> dict:
  tie = with_cells(flat(0.7), {c: 0.3 for c in [("I", "III"), ("II", "III"),
                                                ("III", "III"), ("III", "II")]})
  diag_v = with_cells(flat(0.5), {(t, t): 0.45 for t in TYPES})
  return {
      "paired gain, truth 0 (instance noise dominates)": (
          GAIN, 0.0, "holds",
          lambda rng: _two(rng, flat(0.5), flat(0.5), 300, seeds, 0.01)),
      "one cell, seed sd 0.05, truth at the threshold": (
          ABOVE_040, 0.40, "holds",
          lambda rng: _two(rng, flat(0.4), flat(0.4), 1500, seeds,
                           with_cells(flat(0.005),
                                      {("I", "III"): 0.05}))),
      "4-way tie at the bottom: I→III not the lowest": (
          NOT_LOWEST, 0.0, "holds",
          lambda rng: _two(rng, tie, tie, 300, seeds, 0.02)),
      "4-way tie at the bottom: I→III the lowest": (
          LOWEST, 0.0, "holds",
          lambda rng: _two(rng, tie, tie, 300, seeds, 0.02)),
      "diagonal check, every diagonal cell at the tolerance": (
          DIAGONAL, -0.05, "does not hold",
          lambda rng: _two(rng, flat(0.5), diag_v, 300, seeds, 0.02)),
  }


def run(scenario, reps: int, seed: int = 0) -> dict:
  """{coverage (single-contrast claims), wrong: rate of the wrong verdict,
  reps}."""
  text, truth, wrong, draw = scenario
  c = claim(text)
  rng = np.random.default_rng(seed)
  covered = wrongs = 0
  for _ in range(reps):
    runs, preds = draw(rng)
    v = judge.check(c, runs, preds)
    lo, hi = v["interval"]
    covered += lo <= truth <= hi
    wrongs += v["verdict"] == wrong
  single = len(c.contrasts()) == 1
  return {"coverage": covered / reps if single else None,
          "wrong": wrongs / reps, "reps": reps}
