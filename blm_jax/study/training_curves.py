"""F1 and chosen errors against the training size (001 Figures 7 and 8).

001 sec. 4 trains its baselines on growing amounts of type I and type III
data and plots F1 (Figure 7) and the chosen error types (Figure 8)
against the amount. The `paper001` suite runs one grid per size; here the
finished grids that differ only in `data.num_train` (same dataset, model
and every other identity key of their `run.config`) become one curve per
model and train->test cell: the F1 mean with the seeds' SD, the per-seed
F1, and the share of the test answers given to each label. A group of one
size draws nothing; a grid whose results lack a key is named and left out.
"""

from __future__ import annotations

import json
import math
import os
import re

from matplotlib.figure import Figure

from blm_jax.results import metrics, plots
from blm_jax.study import markdown_table, paper_values
from blm_jax.training import run_identity

SIZE_KEY = "data.num_train"
# 001's two settings first: type III (train and test from one population)
# and type I (minimal lexical variation in training, tested on III).
CELL_ORDER = (("I", "I"), ("III", "III"), ("I", "III"), ("III", "I"))
_SIZE_SUFFIX = re.compile(r"_n\d+$")


def cell_key(t: str, u: str) -> str:
  return f"{t}->{u}"


def _arrow(key: str) -> str:
  return key.replace("->", "→")


def _number(x) -> float | None:
  ok = isinstance(x, (int, float)) and not isinstance(x, bool)
  return float(x) if ok and math.isfinite(x) else None


def _point(name: str, model: str, r) -> tuple[dict | None, str | None]:
  """(one grid's point, None) or (None, why it is left out)."""
  where = f"{name}/{model}"
  run = r.get("run") if isinstance(r, dict) else None
  cfg = run.get("config") if isinstance(run, dict) else None
  if not isinstance(cfg, dict):
    return None, f"{where}: results.json has no run.config"
  size = cfg.get(SIZE_KEY)
  if isinstance(size, bool) or not isinstance(size, int) or size < 1:
    return None, f"{where}: run.config {SIZE_KEY}={size!r} is not a " \
                 "positive integer"
  summary = r.get("summary")
  if not isinstance(summary, dict) or not summary:
    return None, f"{where}: results.json has no summary"
  labels = r.get("label_names") or []
  correct = metrics.correct_label(r) or None
  per_seed = {}
  for c in r.get("cells") or []:
    if isinstance(c, dict) and not c.get("variant"):
      for u, m in (c.get("test") or {}).items():
        f1 = _number((m or {}).get("f1")) if isinstance(m, dict) else None
        if f1 is not None:
          per_seed.setdefault(cell_key(c.get("train_type"), u), []).append(f1)
  cells = {}
  for t, row in summary.items():
    for u, c in (row.items() if isinstance(row, dict) else ()):
      if not isinstance(c, dict) or _number(c.get("f1_mean")) is None:
        continue
      chosen = {k: v for k, v in (c.get("chosen_total") or {}).items()
                if _number(v) is not None}
      total = sum(chosen.values())
      errors = {k: v / total for k, v in chosen.items()
                if total and k != correct}
      top = max((k for k, v in errors.items() if v > 0),
                key=lambda k: errors[k], default=None)
      cells[cell_key(t, u)] = {
          "f1_mean": float(c["f1_mean"]),
          "f1_std": _number(c.get("f1_std")) or 0.0,
          "f1_seeds": per_seed.get(cell_key(t, u), []),
          "error_share": errors, "most_frequent_error": top}
  if not cells:
    return None, f"{where}: no summary cell has an f1_mean"
  identity = {k: v for k, v in run_identity.identity_keys(cfg).items()
              if k != SIZE_KEY}
  return {"grid": name, "size": size, "cells": cells,
          "correct_label": correct, "label_names": list(labels),
          "encoder": (r.get("config") or {}).get("encoder", "?"),
          "seeds": len((r.get("grid") or {}).get("seeds") or []),
          "identity": json.dumps(identity, sort_keys=True, default=str)}, None


def curves(runs: dict[str, dict[str, dict]]) -> dict:
  """{'curves': [one per dataset and model with two sizes or more],
  'skipped': [why a grid is left out]} from `runs[grid][model]`
  (results.json dicts). A curve: dataset (the grid name without its
  `_n<size>`), model, sizes, grids, and per cell 'T->U' lists over sizes
  of f1_mean, f1_std, f1_seeds, error_share ({label: [share]}) and
  most_frequent_error."""
  groups, skipped = {}, []
  for name, by_model in (runs or {}).items():
    for model, r in (by_model or {}).items():
      p, why = _point(name, model, r)
      if p is None:
        skipped.append(why)
        continue
      group = groups.setdefault((model, p["identity"]), {})
      if p["size"] in group:
        skipped.append(f"{name}/{model}: the same config and size as "
                       f"{group[p['size']]['grid']}/{model}")
        continue
      group[p["size"]] = p
  out = []
  for (model, _), by_size in groups.items():
    if len(by_size) < 2:
      continue
    points = [by_size[n] for n in sorted(by_size)]
    keys = [k for k in (cell_key(*c) for c in CELL_ORDER)
            if all(k in p["cells"] for p in points)]
    keys += sorted(k for k in points[0]["cells"] if k not in keys
                   and all(k in p["cells"] for p in points))
    labels = [lab for lab in points[-1]["label_names"]
              if lab != points[-1]["correct_label"]]
    cells = {}
    for k in keys:
      pc = [p["cells"][k] for p in points]
      cells[k] = {
          "f1_mean": [c["f1_mean"] for c in pc],
          "f1_std": [c["f1_std"] for c in pc],
          "f1_seeds": [c["f1_seeds"] for c in pc],
          "error_share": {lab: [c["error_share"].get(lab, 0.0) for c in pc]
                          for lab in labels},
          "most_frequent_error": [c["most_frequent_error"] for c in pc]}
    out.append({
        "dataset": _SIZE_SUFFIX.sub("", points[0]["grid"]), "model": model,
        "sizes": [p["size"] for p in points],
        "grids": [p["grid"] for p in points],
        "encoder": points[0]["encoder"], "seeds": points[0]["seeds"],
        "label_names": points[-1]["label_names"], "cells": cells})
  return {"curves": out, "skipped": skipped}


def _by_dataset(found: dict) -> dict[str, list[dict]]:
  out = {}
  for c in found["curves"]:
    out.setdefault(c["dataset"], []).append(c)
  return out


def _cells_of(curves_of_ds: list[dict]) -> list[str]:
  """The cells a figure draws: 001's types I and III (every cell stays in
  the tables), or the first four where the grids have none of them."""
  keys = list(dict.fromkeys(k for c in curves_of_ds for k in c["cells"]))
  ours = [k for k in (cell_key(*c) for c in CELL_ORDER) if k in keys]
  return ours or keys[:len(CELL_ORDER)]


def f1_figure(curves_of_ds: list[dict], path: str, title: str) -> None:
  """One panel per train->test cell: F1 (mean, seeds' SD as error bars)
  against the training size, one line per model."""
  keys = _cells_of(curves_of_ds)
  fig = Figure(figsize=(3.4 * len(keys) + 0.6, 3.6), layout="constrained")
  axes = fig.subplots(1, len(keys), squeeze=False, sharey=True)[0]
  sizes = sorted({n for c in curves_of_ds for n in c["sizes"]})
  for ax, k in zip(axes, keys):
    for c in curves_of_ds:
      if k in c["cells"]:
        ax.errorbar(c["sizes"], c["cells"][k]["f1_mean"],
                    yerr=c["cells"][k]["f1_std"], marker="o", markersize=3,
                    capsize=2, label=c["model"])
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes, [str(n) for n in sizes], fontsize=7)
    ax.minorticks_off()
    ax.set_ylim(0, 1)
    ax.set_title(f"train {_arrow(k).replace('→', ' → test ')}", fontsize=9)
    ax.set_xlabel(f"training instances ({SIZE_KEY})", fontsize=8)
  axes[0].set_ylabel("F1 (mean ± sd over seeds)")
  axes[-1].legend(fontsize=7)
  fig.suptitle(title, fontsize=10)
  plots.save(fig, path)


def error_figure(curves_of_ds: list[dict], path: str, title: str) -> None:
  """One row per model, one panel per cell: each error label's share of
  the test answers against the training size (labels never chosen left
  out; a label keeps its colour across panels)."""
  keys = _cells_of(curves_of_ds)
  fig = Figure(figsize=(3.4 * len(keys) + 2.2, 2.8 * len(curves_of_ds) + 0.6),
               layout="constrained")
  axes = fig.subplots(len(curves_of_ds), len(keys), squeeze=False,
                      sharey=True)
  colors = plots.label_colors(curves_of_ds[0]["label_names"])
  shown = {}
  for row, c in zip(axes, curves_of_ds):
    for ax, k in zip(row, keys):
      for lab, share in c["cells"].get(k, {}).get("error_share", {}).items():
        if any(share):
          shown[lab] = ax.plot(c["sizes"], share, marker="o", markersize=3,
                               color=colors.get(lab), label=lab)[0]
      ax.set_xscale("log", base=2)
      ax.set_xticks(c["sizes"], [str(n) for n in c["sizes"]], fontsize=7)
      ax.minorticks_off()
      ax.set_ylim(bottom=0)
      ax.set_title(f"{c['model']}: train "
                   f"{_arrow(k).replace('→', ' → test ')}", fontsize=9)
    row[0].set_ylabel("share of test answers")
  for ax in axes[-1]:
    ax.set_xlabel(f"training instances ({SIZE_KEY})", fontsize=8)
  if shown:
    fig.legend(list(shown.values()), list(shown), loc="outside right upper",
               fontsize=7)
  fig.suptitle(title, fontsize=10)
  plots.save(fig, path)


def _size_table(curves_of_ds: list[dict], at_sizes) -> list[str]:
  """One row per model and cell, one column per training size;
  `at_sizes(curve, cell values)` -> {size: text}."""
  sizes = sorted({n for c in curves_of_ds for n in c["sizes"]})
  rows = [[c["model"], _arrow(k)]
          + [at_sizes(c, v).get(n, "-") for n in sizes]
          for c in curves_of_ds for k, v in c["cells"].items()]
  return markdown_table.lines(
      ["model", "train → test", *(f"n={n}" for n in sizes)], rows)


def f1_table(curves_of_ds: list[dict]) -> list[str]:
  return _size_table(curves_of_ds, lambda c, v: {
      n: f"{m:.3f} ± {s:.3f}"
      for n, m, s in zip(c["sizes"], v["f1_mean"], v["f1_std"])})


def error_table(curves_of_ds: list[dict]) -> list[str]:
  """Per size: the most frequent error, its share of the test answers,
  and all errors' share."""
  def at_sizes(c, v):
    at = {}
    for i, n in enumerate(c["sizes"]):
      top = v["most_frequent_error"][i]
      errs = sum(s[i] for s in v["error_share"].values())
      at[n] = (f"{top} {v['error_share'][top][i]:.3f} (all {errs:.3f})"
               if top in v["error_share"] else f"none (all {errs:.3f})")
    return at

  return _size_table(curves_of_ds, at_sizes)


def drops(found: dict) -> list[dict]:
  """001's type I vs type III comparison at each curve's largest size:
  F1(III->III) - F1(I->III) (001's type I trains on minimal lexical
  variation and tests on the type III population, sec. 2.2), and the most
  frequent error of each cell over the sizes."""
  out = []
  for c in found["curves"]:
    same, shift = c["cells"].get("III->III"), c["cells"].get("I->III")
    if same is None or shift is None:
      continue
    out.append({"dataset": c["dataset"], "model": c["model"],
                "size": c["sizes"][-1], "III->III": same["f1_mean"][-1],
                "I->III": shift["f1_mean"][-1],
                "drop": same["f1_mean"][-1] - shift["f1_mean"][-1],
                "most_frequent_error": {
                    k: v["most_frequent_error"]
                    for k, v in c["cells"].items()}})
  return out


def _paper_drop(dataset: str) -> str:
  v = next((v for v in paper_values.TRAINING_SIZE if v.key == dataset),
           None)
  return v.text.strip("()") if v else "-"


def beside_001(found: dict) -> list[str]:
  """001 sec. 4's words beside our drops and most frequent errors."""
  rows = drops(found)
  if not rows:
    return []
  said = [f"> \"{q.text}\" ({q.paper} {q.where}, line {q.line})"
          for q in paper_values.TRAINING_SIZE_QUOTES]
  table = []
  for d in rows:
    top = "; ".join(", ".join(str(x) for x in d["most_frequent_error"]
                              .get(k, []))
                    for k in ("I->III", "III->III"))
    table.append([d["dataset"], d["model"], d["size"],
                  f"{d['III->III']:.3f}", f"{d['I->III']:.3f}",
                  f"{d['drop']:+.3f}", _paper_drop(d["dataset"]), top])
  lines = ["### Beside 001's words (sec. 4.1 and 4.2)", "",
           *[x for q in said for x in (q, "")],
           *markdown_table.lines(
               ["dataset", "model", "n", "F1 III→III", "F1 I→III",
                "drop (ours)", "drop (001)", "most frequent error over the "
                "sizes, I→III; III→III"], table)]
  encoders = sorted({c["encoder"] for c in found["curves"]})
  sizes = sorted({n for c in found["curves"] for n in c["sizes"]})
  seeds = sorted({c["seeds"] for c in found["curves"]})
  lines += ["", "The drop is F1(III→III) − F1(I→III) at the largest size: "
            "001's type I setting trains on minimal lexical variation and "
            "tests on data of the other distribution (sec. 2.2), its type "
            "III trains and tests on one population. What differs: the "
            f"encoder ({', '.join(encoders)} here; RoBERTa and Electra in "
            "001, whose Figure 8 is RoBERTa with the CNN); the sizes (001 "
            "does not print its training sizes; ours are "
            f"{', '.join(map(str, sizes))} instances sampled per type, the dev "
            "split taken from them); the runs "
            f"({', '.join(map(str, seeds))} seeds here, five in 001); the "
            "data (this project's builders).", ""]
  return lines


def sections(found: dict, out: str) -> tuple[list[str], dict[str, list]]:
  """(Markdown lines, {heading: [figure paths]}); writes
  training_size_<dataset>.png and training_errors_<dataset>.png into
  `out`. Nothing when no dataset has a curve."""
  by_ds = _by_dataset(found)
  if not by_ds:
    return [], {}
  lines = ["## 001 Figures 7-8: F1 and errors against the training size",
           "",
           "The grids that differ only in the training size "
           f"(`{SIZE_KEY}`, instances sampled per type before the dev "
           "split), one line per model; F1 is the mean over seeds ± their "
           "SD; an error's share is the fraction of all test answers "
           "(seeds summed) that chose it. 001 prints no numbers for "
           "Figures 7 and 8 (its tables are images).", ""]
  figures = {}
  os.makedirs(out, exist_ok=True)
  for ds, cs in by_ds.items():
    f1_path = os.path.join(out, f"training_size_{ds}.png")
    err_path = os.path.join(out, f"training_errors_{ds}.png")
    enc = ", ".join(sorted({c["encoder"] for c in cs}))
    f1_figure(cs, f1_path, f"F1 against the training size: {ds} "
              f"(encoder {enc})")
    error_figure(cs, err_path, f"Chosen errors against the training size: "
                 f"{ds} (encoder {enc})")
    h1 = f"### {ds}: F1 against the training size (001 Figure 7)"
    h2 = f"### {ds}: chosen errors against the training size (001 Figure 8)"
    figures[h1[4:]], figures[h2[4:]] = [f1_path], [err_path]
    grids = ", ".join(dict.fromkeys(g for c in cs for g in c["grids"]))
    lines += [h1, "", f"Grids: {grids}; `{os.path.basename(f1_path)}`.", "",
              *f1_table(cs), "", h2, "",
              "Per size: the most frequent error and its share of the test "
              "answers (all errors' share in brackets); "
              f"`{os.path.basename(err_path)}`.", "", *error_table(cs), ""]
  lines += beside_001(found)
  if found["skipped"]:
    lines += ["Left out of the curves: " + "; ".join(found["skipped"]) + ".",
              ""]
  return lines, figures


def record(found: dict) -> dict:
  """report.json's `training_curves`: the curves without their grouping
  identity, and the drops beside 001."""
  return {"curves": found["curves"], "drops": drops(found),
          "skipped": found["skipped"]}


def rows(found: dict) -> list[list[str]]:
  """One row per curve point for a record's table: dataset, model,
  train -> test, size, F1 mean ± sd, most frequent error (share)."""
  out = []
  for c in found.get("curves", []):
    for k, v in c["cells"].items():
      for i, n in enumerate(c["sizes"]):
        top = v["most_frequent_error"][i]
        share = v["error_share"].get(top, [None] * (i + 1))[i]
        out.append([c["dataset"], c["model"], _arrow(k), str(n),
                    f"{v['f1_mean'][i]:.3f} ± {v['f1_std'][i]:.3f}",
                    f"{top} {share:.3f}" if share is not None else "-"])
  return out


ROW_COLUMNS = ["dataset", "model", "train → test", "training instances",
               "F1 (mean ± sd over seeds)", "most frequent error (share)"]
