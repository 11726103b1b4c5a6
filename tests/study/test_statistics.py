"""The claims' statistics keep their error rates (small simulations).

Each scenario draws synthetic grids with a known truth
(tests/claims_simulation.py) and runs them through `judge.check`; rates
are checked against the nominal ones within 3 Monte Carlo standard errors.
studies/claims_simulation.py runs the same scenarios larger (the
figures in studies/experiments/2026-11-25-claims-statistics.md).
"""

import math

import numpy as np
import pytest

from blm_jax.study import judge, statistics
from tests import claims_simulation as sim


def _mc(p, n):
  return 3 * math.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("name,seeds,reps", [
    ("one cell, seed sd 0.05, truth at the threshold", 3, 300),
    ("paired gain, truth 0 (instance noise dominates)", 5, 200),
])
def test_coverage_and_false_holds_at_the_threshold(name, seeds, reps):
  r = sim.run(sim.scenarios(seeds)[name], reps)
  assert abs(r["coverage"] - 0.95) <= _mc(0.95, reps), r
  assert r["wrong"] <= 0.025 + _mc(0.025, reps), r


@pytest.mark.parametrize("name,seeds", [
    ("4-way tie at the bottom: I→III not the lowest", 5),
    ("4-way tie at the bottom: I→III the lowest", 3),
    ("diagonal check, every diagonal cell at the tolerance", 3),
])
def test_ties_do_not_decide_a_min_or_max_claim(name, seeds):
  reps = 200
  r = sim.run(sim.scenarios(seeds)[name], reps)
  assert r["wrong"] <= 0.025 + _mc(0.025, reps), r


def test_seed_noise_gets_t_tails():
  """Three seeds: t(2) tails, not normal ones (4.30 vs 1.96)."""
  e = statistics.seeds_only([0.1, 0.2, 0.3])
  assert e.df == 2 and e.quantile() == pytest.approx(4.303, abs=1e-3)
  lo, hi = e.interval()
  assert (lo, hi) == pytest.approx((0.2 - 4.303 * 0.0577, 0.2 + 4.303
                                    * 0.0577), abs=1e-3)
  assert math.isnan(statistics.seeds_only([0.3]).df)  # one seed: unknown


def test_holm():
  assert statistics.holm([0.01, 0.04, 0.03, 0.5]) == pytest.approx(
      [0.04, 0.09, 0.09, 0.5])
  assert statistics.adjusted_verdict("holds", 0.049) == "holds"
  assert statistics.adjusted_verdict("holds", 0.09) == "inconclusive"


def test_holm_keeps_the_family_wise_rate():
  """Ten null claims per report: raw, >= 1 wrong verdict in about 40%
  of reports; after Holm, at most 5%."""
  text, _, _, draw = sim.scenarios(3)[
      "paired gain, truth 0 (instance noise dominates)"]
  c = sim.claim(text)
  rng = np.random.default_rng(7)
  reps, raw, holm = 60, 0, 0
  for _ in range(reps):
    vs = [{"dataset": "x", **judge.check(c, *draw(rng))} for _ in range(10)]
    judge.adjust(vs)
    raw += any(v["verdict"] != "inconclusive" for v in vs)
    holm += any(v["verdict_holm"] != "inconclusive" for v in vs)
  assert holm / reps <= 0.05 + _mc(0.05, reps)
  assert raw > holm
