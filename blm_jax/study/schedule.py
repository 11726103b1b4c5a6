"""Whether a run trained on the papers' schedule, and the line that says so
when it did not.

The papers train with Adam at lr 1e-3, batch 100, for 120 epochs on 2000
instances per train type (000 sec. 6.1, footnote 19) and test on the whole
test split. A verdict on a paper's claim from a shorter schedule (`:cpu`,
a smoke run) checks a setup, not the claim: every report says so at its
top and beside each verdict ("not paper settings: 20 epochs, 600
instances"). Grids that vary the training size on purpose (the training
curves' `<dataset>_n<size>`) are judged on the rest.
"""

from __future__ import annotations

import re

# Flattened config key -> the papers' value.
PAPER = {"train.epochs": 120, "data.num_train": 2000,
         "train.batch_size": 100, "train.learning_rate": 1e-3,
         "data.max_test": 0}
# A training-curve grid's name: its size is the point of the grid.
SIZE_GRID = re.compile(r"_n\d+$")


def departures(results: dict, grid: str = "") -> dict[str, object]:
  """{config key: this run's value} where it is not the papers'; empty for
  a results.json without its run config (nothing to judge)."""
  run = (results.get("run") or {}).get("config") or {}
  out = {}
  for key, paper in PAPER.items():
    if key not in run:
      continue
    if key == "data.num_train" and SIZE_GRID.search(grid):
      continue
    value = run[key]
    number = (isinstance(value, (int, float))
              and not isinstance(value, bool))
    if not (number and abs(value - paper) <= 1e-12 * max(1.0, abs(paper))):
      out[key] = value
  return out


def _values(values) -> str:
  """'20/30' of the values used (a malformed one as written)."""
  def key(v):
    try:
      return (0, float(v), "")
    except (TypeError, ValueError):
      return (1, 0.0, str(v))
  unique = {str(v): v for v in values}.values()  # lists are unhashable
  return "/".join(str(v) for v in sorted(unique, key=key))


def verdict_note(verdict: dict, runs: dict[str, dict[str, dict]]) -> str:
  """`note` of the grids a verdict reads (its dataset, or 'a+b')."""
  return note({d: runs[d] for d in verdict["dataset"].split("+")
               if d in runs})


def note(runs: dict[str, dict[str, dict]]) -> str:
  """'not paper settings: 20 epochs, 600 instances' over the runs
  ({grid: {model: results}}) of which any departs from the papers'
  schedule, naming the epochs and training instances per type they used
  (and any other key that departs); '' when every run is at the papers'."""
  off = {}
  used = {"train.epochs": [], "data.num_train": []}
  for grid, by_model in runs.items():
    for results in by_model.values():
      d = departures(results, grid)
      run = (results.get("run") or {}).get("config") or {}
      for key in used:
        if key in run:
          used[key].append(run[key])
      for key, value in d.items():
        off.setdefault(key, []).append(value)
  if not off:
    return ""
  parts = [f"{_values(used['train.epochs'])} epochs",
           f"{_values(used['data.num_train'])} instances"]
  if "data.max_test" in off:
    parts.append(f"{_values(off['data.max_test'])} test instances")
  for key in ("train.batch_size", "train.learning_rate"):
    if key in off:
      parts.append(f"{key}={_values(off[key])}")
  return "not paper settings: " + ", ".join(p for p in parts
                                            if not p.startswith(" "))
