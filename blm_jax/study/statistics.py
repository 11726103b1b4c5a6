"""Intervals and tests for the claims: honest seed variance, ties, Holm.

A claim's test is built from linear contrasts of the F1 heatmaps (a
weighted sum of cells, possibly of several models). Each contrast is
estimated from a crossed design: seeds x test instances.

- Seed part: the contrast computed on each seed alone, d_s; its variance
  over seeds divided by the number of seeds (s^2/n), with n - 1 degrees of
  freedom. Models that share their seed list are paired by seed (seed k of
  vae2 and of the FFNN train on the same train/dev sample); otherwise each
  model's part is added (Welch).
- Instance part: per test set, the contrast's terms per seed and test
  instance form a crossed seeds x instances table; its share is the
  variance of the instance means over their number, minus the residual
  mean square over (seeds x instances), which the seed part already
  counts (two-way ANOVA, one observation per cell). Models that hold the
  same test instances are paired on them. Without predictions.npz this
  part is 0 and the basis says so.

The two parts add, with t(n-1) tails (n seeds; Welch's df where the
models' seed lists differ): exact where the seeds dominate, wide on the
safe side where the instances do. Welch-Satterthwaite's df for the sum
(instance part taken as exact) was tried and rejected: when the seed
variance comes out small by chance it grants normal tails, and the
simulated rate of p < 0.005 under the null was 2.8% instead of 0.5%, which
breaks Holm's correction. Simulations
(tests/study/test_statistics.py, studies/claims_simulation.py) check the
coverage and the false-verdict rates against the nominal ones.

A claim combines its contrasts with one of two rules:

- 'all' (the claim is an intersection: every contrast above the
  threshold, e.g. "I->III is the lowest cell" = every other cell minus
  I->III > 0): it holds when every contrast is above (intersection-union
  test: each at the one-sided level, no correction needed), and does not
  hold when one contrast is below at the Bonferroni level (one-sided/k).
- 'any' (a union: "I->III is not the lowest"): the mirror image.

Ties therefore cannot make a claim hold: with four cells tied at the
bottom, "I->III is not the lowest" needs one cell significantly below it.

Each verdict has a p-value, 2 x the smaller of its two one-sided p-values
(holds / does not hold); `holm` adjusts a report's p-values for the
family-wise error rate, and the adjusted verdict keeps the direction.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Sequence

import numpy as np
from scipy import special

LEVEL = 0.95
ALPHA = 1 - LEVEL  # two-sided: each verdict direction gets ALPHA / 2
HOLDS, DOES_NOT_HOLD, INCONCLUSIVE = "holds", "does not hold", "inconclusive"


@dataclasses.dataclass(frozen=True)
class ModelData:
  """One model's grid as the statistics need it.

  f1: [seeds, train types, test types] per-cell F1.
  hits: {test type: bool [seeds, train types, N]} or None (no
    predictions.npz); ids: {test type: instance ids}; group: what a test
    set is shared with (the dataset's name: same group and same ids =
    the same instances).
  """

  f1: np.ndarray
  seeds: tuple
  trains: tuple
  tests: tuple
  hits: dict | None = None
  ids: dict | None = None
  group: str = ""


# A contrast: {(model, train type, test type): weight}.
Contrast = dict


@dataclasses.dataclass(frozen=True)
class Estimate:
  """A contrast's point value, standard error and degrees of freedom."""

  value: float
  seed_var: float
  instance_var: float
  df: float
  seed_values: tuple

  @property
  def se(self) -> float:
    return math.sqrt(self.seed_var + self.instance_var)

  def quantile(self, level: float = LEVEL) -> float:
    q = 1 - (1 - level) / 2
    if math.isinf(self.df):
      return float(special.ndtri(q))
    return float(special.stdtrit(self.df, q))

  def interval(self, level: float = LEVEL) -> tuple[float, float]:
    if math.isnan(self.df):
      return (-math.inf, math.inf)
    h = self.quantile(level) * self.se
    return (self.value - h, self.value + h)

  def p_above(self, threshold: float) -> float:
    """One-sided p-value of 'value > threshold' (H0: value <= it)."""
    return _p(self.value - threshold, self.se, self.df)

  def p_below(self, threshold: float) -> float:
    return _p(threshold - self.value, self.se, self.df)


def _p(margin: float, se: float, df: float) -> float:
  if math.isnan(df):  # one seed: the seed variance is unknown
    return 1.0
  if se <= 1e-12:
    return 0.0 if margin > 1e-12 else (1.0 if margin < -1e-12 else 0.5)
  z = margin / se
  if math.isinf(df):
    return float(special.ndtr(-z))
  return float(special.stdtr(df, -z))


def _weights_by_model(contrast: Contrast) -> dict:
  out: dict = {}
  for (m, t, u), w in contrast.items():
    out.setdefault(m, []).append((t, u, w))
  return out


def _per_seed(d: ModelData, cells) -> np.ndarray:
  """[seeds] the model's part of the contrast on each seed."""
  out = np.zeros(len(d.seeds))
  for t, u, w in cells:
    out += w * d.f1[:, d.trains.index(t), d.tests.index(u)]
  return out


def _welch(parts: Sequence[tuple[float, int]]) -> tuple[float, float]:
  """(variance, df) of a sum of independent s^2/n parts [(s^2/n, n)]."""
  var = sum(v for v, _ in parts)
  if any(n < 2 for _, n in parts):
    return var, math.nan
  denom = sum(v * v / (n - 1) for v, n in parts)
  if denom == 0:  # no seed variance seen: the smallest n - 1, not normal
    return var, float(min(n for _, n in parts) - 1)
  return var, var * var / denom


def _seed_by_instance(by_model: dict, data: dict) -> dict:
  """{test set: [seeds, N]} the contrast's terms per seed and instance."""
  groups: dict = {}
  for m, cells in by_model.items():
    d = data[m]
    for t, u, w in cells:
      key = (d.group, u, d.ids[u])
      z = d.hits[u][:, d.trains.index(t)] * w
      groups[key] = groups.get(key, 0) + z
  return groups


def _instance_part(z: np.ndarray) -> float:
  """The test instances' share of the variance of the mean of a crossed
  seeds x instances table z [S, N]: s^2(instance means)/N minus the
  residual mean square/(S N), which the seed part already holds (two-way
  ANOVA, one observation per cell); floored at 0."""
  s, n = z.shape
  if n < 2:
    return 0.0
  cols = z.mean(axis=0)
  part = float(np.var(cols, ddof=1)) / n
  if s > 1:
    r = z - z.mean(axis=1, keepdims=True) - cols + z.mean()
    part -= float((r * r).sum()) / ((s - 1) * (n - 1)) / (s * n)
  return max(part, 0.0)


def estimate(contrast: Contrast, data: dict[str, ModelData]) -> Estimate:
  """The contrast's estimate from the models' per-seed F1 and, where every
  model has them, their per-instance hits."""
  by_model = _weights_by_model(contrast)
  per_seed = {m: _per_seed(data[m], cells) for m, cells in by_model.items()}
  value = float(sum(v.mean() for v in per_seed.values()))
  paired = len({data[m].seeds for m in by_model}) == 1
  if paired:  # seed k of every model together
    d = sum(per_seed.values())
    seed_var, df_seed = _welch([(_var_of_mean(d), len(d))])
    seed_values = tuple(float(x) for x in d)
  else:
    seed_var, df_seed = _welch([(_var_of_mean(v), len(v))
                                for v in per_seed.values()])
    seed_values = ()
  instance_var = 0.0
  if all(data[m].hits is not None for m in by_model):
    for z in _seed_by_instance(by_model, data).values():
      z = np.asarray(z, float)
      if paired:
        instance_var += _instance_part(z)
      elif z.shape[-1] > 1:  # seeds differ: no residual to take off
        instance_var += float(np.var(z.mean(axis=0), ddof=1)) / z.shape[-1]
  # t(n-1) tails for the whole: Welch-Satterthwaite's df (instance part
  # taken as exact) let a small seed variance drawn by chance buy normal
  # tails, and doubled the 0.5% tail (studies/claims_simulation.py).
  df = df_seed
  return Estimate(value, seed_var, instance_var, df, seed_values)


def _var_of_mean(v: np.ndarray) -> float:
  return float(np.var(v, ddof=1)) / len(v) if len(v) > 1 else 0.0


@dataclasses.dataclass(frozen=True)
class Test:
  """A claim's contrasts combined by its rule, against a threshold."""

  estimates: tuple[Estimate, ...]
  labels: tuple[str, ...]
  rule: str  # 'all' | 'any'
  threshold: float

  @property
  def statistic(self) -> float:
    values = [e.value for e in self.estimates]
    return min(values) if self.rule == "all" else max(values)

  def p_holds(self) -> float:
    p = [e.p_above(self.threshold) for e in self.estimates]
    return max(p) if self.rule == "all" else min(1.0, len(p) * min(p))

  def p_not(self) -> float:
    p = [e.p_below(self.threshold) for e in self.estimates]
    return min(1.0, len(p) * min(p)) if self.rule == "all" else max(p)

  def binding(self) -> int:
    """The contrast that decides 'holds': the weakest for 'all', the
    strongest for 'any'."""
    p = [e.p_above(self.threshold) for e in self.estimates]
    return int(np.argmax(p) if self.rule == "all" else np.argmin(p))

  def p_value(self) -> float:
    """2 x the smaller one-sided p-value: < ALPHA when a verdict is
    reached (Holm adjusts these)."""
    return min(1.0, 2 * min(self.p_holds(), self.p_not()))

  def direction(self) -> str:
    return HOLDS if self.p_holds() <= self.p_not() else DOES_NOT_HOLD

  def verdict(self, alpha: float = ALPHA) -> str:
    return self.direction() if self.p_value() < alpha else INCONCLUSIVE


def holm(p_values: Sequence[float]) -> list[float]:
  """Holm's step-down adjusted p-values (family-wise error rate)."""
  m = len(p_values)
  order = sorted(range(m), key=lambda i: p_values[i])
  out = [1.0] * m
  running = 0.0
  for rank, i in enumerate(order):
    running = max(running, min(1.0, (m - rank) * p_values[i]))
    out[i] = running
  return out


def adjusted_verdict(direction: str, p_adjusted: float,
                     alpha: float = ALPHA) -> str:
  return direction if p_adjusted < alpha else INCONCLUSIVE


def seeds_only(values: Sequence[float]) -> Estimate:
  """The estimate of a statistic from its per-seed values alone (records
  that kept only those): mean, s^2/n, t(n-1)."""
  v = np.asarray(values, float)
  n = len(v)
  var = float(np.var(v, ddof=1)) / n if n > 1 else 0.0
  return Estimate(float(v.mean()), var, 0.0,
                  float(n - 1) if n > 1 else math.nan, tuple(v))
