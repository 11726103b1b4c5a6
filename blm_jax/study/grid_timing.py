"""How long a suite's grid will take, from grids that have run.

A finished grid's results.json (or its kept record) says on which devices
it ran, its training rate and, since runs time their stages, the seconds
before training (data, embedding) and after it (compiling, evaluation,
context-free baselines, report, plots, checkpoints). The plan of
`blm_jax.cli.reproduce` estimates a grid as
  before + epochs x train instances / rate + after
from the grids measured on the same platform (CPU or accelerator): the same
dataset and model first, else the median of that model's grids. Grids
finished in `--out` count first, then the committed kept records
(`--timings`, default the project's studies/records).
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Iterable

import numpy as np

# Stages that run before the first epoch; every other timed stage (but
# training itself) is counted after it.
BEFORE = ("data", "embedding", "variant_embeddings")
# Kept records larger than this are not grid records: not read.
MAX_RECORD_BYTES = 64 << 20


def platform_of(devices: Iterable[str]) -> str:
  """'cpu' or 'accelerator' from results.json's device names
  ('cpu:0', 'TFRT_CPU_0', 'cuda:0', 'gpu:0', 'tpu:0'...)."""
  first = next(iter(devices), "cpu").lower()
  return "cpu" if "cpu" in first else "accelerator"


@dataclasses.dataclass(frozen=True)
class GridTiming:
  """One finished grid's measured times."""

  dataset: str  # the config's dataset template, e.g. blm_cos_od/cos_en_type_{}
  model: str
  platform: str
  train_instances_per_s: float
  before_s: float  # data and embedding
  after_s: float | None  # compile, evaluation, baselines, report...; None:
  # a grid run before stages were timed.

  def estimate(self, epochs: int, train_instances: int) -> float:
    return (self.before_s + epochs * train_instances
            / self.train_instances_per_s + (self.after_s or 0.0))


def from_results(results: dict | None) -> GridTiming | None:
  """The timing of a finished grid's results (None: not measured)."""
  if not results:
    return None
  t = results.get("throughput", {})
  if not t.get("train_instances_per_s"):
    return None
  stages = results.get("stage_seconds") or {}
  if stages:
    before = sum(v for k, v in stages.items() if k in BEFORE)
    after = sum(v for k, v in stages.items()
                if k not in BEFORE and k != "training")
  else:
    before, after = float(t.get("data_and_embedding_s") or 0.0), None
  config = results.get("config", {})
  return GridTiming(dataset=str(config.get("dataset", "")),
                    model=str(config.get("model", "")),
                    platform=platform_of(t.get("devices") or ()),
                    train_instances_per_s=float(t["train_instances_per_s"]),
                    before_s=float(before), after_s=after)


def committed(folder: str) -> list[GridTiming]:
  """The timings of the kept grid records under `folder`
  (`<suite>/<dataset>/<model>.json`); files that are not grid records are
  skipped."""
  out = []
  if not folder or not os.path.isdir(folder):
    return out
  for root, _, names in os.walk(folder, followlinks=False):
    for name in sorted(names):
      path = os.path.join(root, name)
      if (not name.endswith(".json") or os.path.islink(path)
          or os.path.getsize(path) > MAX_RECORD_BYTES):
        continue
      try:
        with open(path, encoding="utf-8") as f:
          record = json.load(f)
      except (OSError, ValueError):
        continue
      if isinstance(record, dict) and "grid" in record:
        timing = from_results(record)
        if timing is not None:
          out.append(timing)
  return out


@dataclasses.dataclass(frozen=True)
class Estimate:
  seconds: float
  source: str  # 'this dataset', 'median of N <model> grids'
  after_known: bool  # False: the time after training was not measured


def estimate(timings: list[GridTiming], dataset: str, model: str,
             platform: str, epochs: int, train_instances: int
             ) -> Estimate | None:
  """The grid's wall time on `platform` from `timings` (earlier entries
  first: a grid of the same dataset and model), or None if no grid of
  that model has been measured there."""
  same = [t for t in timings if t.model == model and t.platform == platform]
  if not same:
    return None
  exact = [t for t in same if t.dataset == dataset]
  if exact:
    t = exact[0]
    return Estimate(t.estimate(epochs, train_instances), "this dataset",
                    t.after_s is not None)
  ips = float(np.median([t.train_instances_per_s for t in same]))
  before = float(np.median([t.before_s for t in same]))
  afters = [t.after_s for t in same if t.after_s is not None]
  after = float(np.median(afters)) if afters else 0.0
  return Estimate(before + epochs * train_instances / ips + after,
                  f"median of {len(same)} {model} grids", bool(afters))
