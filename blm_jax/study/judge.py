"""Checking the papers' claims (`blm_jax.study.claims`) on finished
grids: each claim's contrasts estimated from the grids' per-seed cells (and
their predictions.npz's hits when present), tested by
`blm_jax.study.statistics`, and Holm-adjusted over one report's verdicts.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from blm_jax.results import metrics, predictions as predictions_lib
from blm_jax.study import claims, statistics

LEVEL = statistics.LEVEL
# Why a claim was not run ("not_run_reason"): its grids are not in the run;
# the data's wrong answers carry other labels than the claim is about (a
# relabelled design or another family: the claim does not apply there); a
# grid lacks a training or test type.
NOT_RUN_GRIDS, NOT_RUN_LABELS, NOT_RUN_TYPES = "grids", "labels", "types"
PAIRED_BASIS = "t interval over seeds and test instances"
SEEDS_BASIS = ("t interval over seeds only: no predictions.npz, so the "
               "noise of the shared test sample is not counted")
SEED_STATISTIC_BASIS = ("t interval over seeds of the statistic computed on "
                        "each seed (the noise of the shared test sample is "
                        "not counted)")
SHARES_BASIS = ("t interval over seeds of the answer shares (the noise of "
                "the shared test sample is not counted)")


def _mean_table(results: dict) -> claims.Table:
  return {t: {u: c["f1_mean"] for u, c in row.items()}
          for t, row in results["summary"].items()}


def _per_cell(results: dict, value: Callable[[dict], float]
              ) -> tuple[np.ndarray, tuple, tuple, tuple]:
  """([seeds, train types, test types] `value` of each real cell's test
  entry, seeds, train types, test types); None without 'cells'."""
  trains = tuple(results["summary"])
  tests = tuple(next(iter(results["summary"].values())))
  cells = [c for c in results.get("cells", []) if not c.get("variant")]
  if not cells:
    return None
  seeds = tuple(dict.fromkeys(c["seed"] for c in cells))
  by = {(c["seed"], c["train_type"]): c for c in cells}
  return (np.array([[[value(by[s, t]["test"][u]) for u in tests]
                     for t in trains] for s in seeds]), seeds, trains, tests)


def seed_f1(results: dict) -> tuple[np.ndarray, tuple, tuple, tuple]:
  """([seeds, train types, test types] F1 of the real cells, seeds, train
  types, test types); one pseudo-seed of means without 'cells'."""
  found = _per_cell(results, lambda test: test["f1"])
  if found is not None:
    return found
  trains = tuple(results["summary"])
  tests = tuple(next(iter(results["summary"].values())))
  m = _mean_table(results)
  return (np.array([[[m[t][u] for u in tests] for t in trains]]), (None,),
          trains, tests)


def error_labels(results: dict) -> tuple[str, ...]:
  """The grid's wrong-answer labels: every label but the correct
  answers' (`metrics.error_labels`)."""
  return metrics.error_labels(results)


def error_shares(results: dict, label: str, of_answers: bool = False
                 ) -> tuple[np.ndarray, tuple, tuple, tuple]:
  """As `seed_f1`, the share of each cell's wrong answers that are
  `label` answers (0 in a cell without wrong answers); `of_answers`: the
  share of all its test answers instead."""
  wrong = set(error_labels(results))

  def share(test: dict) -> float:
    chosen = test["chosen"]
    among = sum(n for k, n in chosen.items() if of_answers or k in wrong)
    return chosen.get(label, 0) / among if among else 0.0

  return _per_cell(results, share)


def model_data(results: dict, preds=None, group: str = "", label: str = "",
               kind: str = "#") -> statistics.ModelData:
  """`statistics.ModelData` of one grid (its predictions.npz's hits,
  ordered as results.json's seeds and train types, when given); with
  `label`, its shares of that label (`claims.measure`'s kind) instead of its F1
  (seeds only)."""
  if label:
    return statistics.ModelData(
        *error_shares(results, label, of_answers=kind == "@"), group=group)
  f1, seeds, trains, tests = seed_f1(results)
  hits = ids = None
  if preds is not None:
    rows = [preds.seeds.index(s) for s in seeds]
    cols = [preds.train_types.index(t) for t in trains]
    hits = {u: preds.tests[u].hits[np.ix_(rows, cols)] for u in tests}
    ids = {u: preds.tests[u].ids for u in tests}
  return statistics.ModelData(f1, seeds, trains, tests, hits, ids, group)


def _paired(data: dict) -> bool:
  """Every test type's instances are the same for all models."""
  return all(len({(d.group, d.ids[u]) for d in data.values()}) == 1
             for u in claims.TYPES)


def check(claim: claims.Claim, runs: dict, preds: dict | None = None
          ) -> dict:
  """One claim on one dataset's {model: results}: the test, its interval
  and raw verdict. `preds`: {model: `predictions.CellPredictions` | None}.
  A model named 'a:model' is grid `model` of dataset `a` (its test set is
  not the other dataset's)."""
  data = {}
  for m in claim.models:
    grid, kind, label = claims.measure(m)
    data[m] = model_data(runs[grid], None if label else
                         (preds or {}).get(grid),
                         grid.split(":")[0] if ":" in grid else "", label,
                         kind)
  labelled = claim.contrasts()
  test = statistics.Test(
      tuple(_estimate(w, data) for _, w in labelled),
      tuple(label for label, _ in labelled), claim.rule, claim.threshold)
  binding = test.estimates[test.binding()]
  lo, hi = binding.interval()
  with_hits = all(d.hits is not None for d in data.values())
  by_seed = any(isinstance(w, claims.SeedStatistic) for _, w in labelled)
  basis = (SHARES_BASIS if claim.reads_shares else SEED_STATISTIC_BASIS
           if by_seed else PAIRED_BASIS if with_hits else SEEDS_BASIS)
  if with_hits and len(data) > 1:
    basis += (", paired on the same instances" if _paired(data)
              else ", unpaired (the models' test instances differ)")
  if claim.rule == "all" and len(labelled) > 1:
    basis += ("; holds when every contrast is above the threshold "
              "(intersection-union)")
  elif claim.rule == "any" and len(labelled) > 1:
    basis += ("; holds when one contrast is above the threshold "
              f"(Bonferroni over {len(labelled)})")
  per_seed = [e.seed_values for e in test.estimates]
  pick = min if claim.rule == "all" else max
  seed_values = ([pick(v[k] for v in per_seed)
                  for k in range(len(per_seed[0]))]
                 if all(per_seed) else [])
  means = {m: _mean_table(r) for m, r in runs.items() if m in claim.models}
  means.update({m: {t: {u: float(d.f1[:, i, j].mean())
                        for j, u in enumerate(d.tests)}
                    for i, t in enumerate(d.trains)}
                for m, d in data.items() if claims.measure(m)[2]})
  return {"source": claim.source, "claim": claim.text, "quote": claim.quote,
          "ours": claim.ours, "verdict": test.verdict(),
          "statistic": test.statistic, "threshold": claim.threshold,
          "interval": [lo, hi], "level": LEVEL, "rule": claim.rule,
          "p_holds": test.p_holds(), "p_not": test.p_not(),
          "p_value": test.p_value(), "direction": test.direction(),
          "contrasts": [_contrast_json(label, e) for label, e
                        in zip(test.labels, test.estimates)],
          "binding": test.labels[test.binding()],
          "seed_values": seed_values, "seeds": len(seed_values) or None,
          "basis": basis, "evidence": claim.evidence(means)}


def _estimate(contrast, data: dict) -> statistics.Estimate:
  """A linear contrast's estimate, or a `claims.SeedStatistic`'s from its
  per-seed values (its models' seed lists must match to pair seed k with
  seed k: else one value, no interval)."""
  if not isinstance(contrast, claims.SeedStatistic):
    return statistics.estimate(contrast, data)
  used = {m: data[m] for m in contrast.models}
  f1 = {m: d.f1[np.ix_(range(len(d.seeds)),
                       [d.trains.index(t) for t in claims.TYPES],
                       [d.tests.index(u) for u in claims.TYPES])]
        for m, d in used.items()}  # cells in one order for every model
  if len({d.seeds for d in used.values()}) != 1 or None in next(
      iter(used.values())).seeds:
    f1 = {m: x.mean(axis=0, keepdims=True) for m, x in f1.items()}
  return statistics.seeds_only(contrast.per_seed(f1))


def interval_text(verdict: dict) -> str:
  """The verdict's interval, naming the contrast it belongs to, with that
  contrast's own estimate, when the claim has several: the statistic shown
  is the extreme contrast's value, the interval the deciding one's, and
  they differ when the contrasts' errors do (a reader would otherwise see
  '-0.018 vs -0.05, [-0.007, +0.044]', a statistic outside its interval)."""
  lo, hi = verdict["interval"]
  text = f"[{lo:+.3f}, {hi:+.3f}]"
  contrasts = verdict.get("contrasts", ())
  if len(contrasts) > 1:
    value = next(c["value"] for c in contrasts
                 if c["label"] == verdict["binding"])
    text += f" ({verdict['binding']} = {value:+.3f})"
  return text



# A verdict as a table row (the report's claims table, a record's).
VERDICT_COLUMNS = ("source", "dataset", "claim", "verdict", "after Holm",
                   "statistic vs threshold", f"{LEVEL:.0%} interval",
                   "per seed")


def verdict_cells(verdict: dict) -> list[str]:
  """`VERDICT_COLUMNS` of one verdict that was run."""
  v = verdict
  holm = (f"{v['verdict_holm']} (p {v['p_holm']:.3g})"
          if "verdict_holm" in v else "-")
  return [v["source"], v["dataset"], v["claim"], v["verdict"], holm,
          f"{v['statistic']:+.3f} vs {v['threshold']:+.2f}",
          interval_text(v),
          ", ".join(f"{x:+.3f}" for x in v["seed_values"])]


def _contrast_json(label: str, e: statistics.Estimate) -> dict:
  lo, hi = e.interval()
  return {"label": label, "value": e.value, "interval": [lo, hi],
          "se": e.se, "df": e.df, "seed_var": e.seed_var,
          "instance_var": e.instance_var}


def _full_grid(results: dict) -> bool:
  """Every claim compares cells of the whole I-III x I-III heatmap."""
  summary = results["summary"]
  return set(claims.TYPES) <= set(summary) and all(
      set(claims.TYPES) <= set(row) for row in summary.values())


def adjust(verdicts: list[dict]) -> list[dict]:
  """Adds Holm's adjusted p-value and verdict to every verdict that was
  run (the family: this list)."""
  run = [v for v in verdicts if v["verdict"] != "not run"]
  for v, p in zip(run, statistics.holm([v["p_value"] for v in run])):
    v["p_holm"] = p
    v["verdict_holm"] = statistics.adjusted_verdict(v["direction"], p)
  return verdicts


def evaluate_claims(runs: dict[str, dict[str, dict]],
                    preds: dict[str, dict] | None = None) -> list[dict]:
  """runs: {dataset: {model: results}}, preds: {dataset: {model:
  CellPredictions | None}} -> one verdict per claim and dataset, with
  Holm's adjustment over all of them.

  A claim over two datasets names them 'a+b' and its models 'a:model'.
  """
  out = []
  for claim in claims.CLAIMS:
    datasets = sorted(runs) if claim.datasets == ("*",) else claim.datasets
    others = [o for d in datasets for o in claims.other_designs(d)
              if o in runs]
    for ds in list(datasets) + [d for d in dict.fromkeys(others)
                                if d not in datasets]:
      have, ds_preds = runs.get(ds, {}), (preds or {}).get(ds)
      if "+" in ds:
        have, ds_preds = {}, {}
        for d in ds.split("+"):
          for m, r in runs.get(d, {}).items():
            have[f"{d}:{m}"] = r
            ds_preds[f"{d}:{m}"] = (preds or {}).get(d, {}).get(m)
      missing, reason = None, NOT_RUN_GRIDS
      grids = claim.grids
      if not all(m in have for m in grids):
        missing = f"needs {', '.join(grids)} on {ds}"
      elif claim.labels and any(set(error_labels(have[m])) != claim.labels
                                for m in grids):
        reason = NOT_RUN_LABELS
        missing = (f"its wrong answers are labelled "
                   f"{', '.join(error_labels(have[grids[0]]))}, not the "
                   f"claim's {', '.join(sorted(claim.labels))}")
      else:
        partial = [m for m in grids if not _full_grid(have[m])]
        if partial:
          reason = NOT_RUN_TYPES
          missing = (f"needs train and test types "
                     f"{', '.join(claims.TYPES)}; "
                     + "; ".join(f"{m} has train {list(have[m]['summary'])}"
                                 for m in partial))
      if missing:
        out.append({"source": claim.source, "dataset": ds,
                    "claim": claim.text, "quote": claim.quote,
                    "ours": claim.ours, "verdict": "not run",
                    "evidence": missing, "not_run_reason": reason})
        continue
      out.append({"dataset": ds, **check(claim, have, ds_preds)})
  return adjust(out)


def load_predictions(workdir: str):
  """The grid's predictions.npz, or None where it has none."""
  return predictions_lib.load(workdir)


# `design_pairs`' columns (the report's "Both designs" table, a record's).
DESIGN_COLUMNS = ("claim", "paper design", "verdict",
                  "context- or sequence-necessary design", "verdict")


def design_pairs(verdicts: list[dict]) -> list[list[str]]:
  """[claim, paper design, verdict, context- or sequence-necessary
  design, verdict] for each claim run on a paper design and another."""
  by = {(v["claim"], v["dataset"]): v["verdict"] for v in verdicts}
  rows = []
  for (claim, ds), verdict in by.items():
    for other in claims.other_designs(ds):
      if (claim, other) in by and "not run" not in (verdict,
                                                    by[claim, other]):
        rows.append([claim, ds, verdict, other, by[claim, other]])
  return rows
