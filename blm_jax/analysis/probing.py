"""Probing analyses of a restored run (000 sec. 7, Figures 20-22).

- Pattern-level confusion (Figure 20 top): for sent_vae runs on blm_chunks
  data, rows are the input sentence's chunk pattern and columns the pattern
  of the candidate the model chose (only the positive shares the input's
  pattern, so the diagonal is accuracy); for vae2 / ffnn / cnn runs, rows
  are the correct answer's label and columns the chosen answer's label.
  Per cell, and summed over the seeds of each train type.
- Latent traversal (Figure 20 bottom, Figure 21): for each latent unit, ten
  values evenly over its min..max on the cell's own TRAINING instances; every
  test instance is encoded, that one unit set to each value while the other
  units keep the instance's own values (as 000 describes: "after encoding
  it, we modify the value of each unit"), decoded, the candidates re-scored,
  and the confusion matrix recomputed: a grid of units x values.
- Latent projections (Figure 22): 2-D PCA (numpy SVD) of the latents
  coloured by pattern (sent_vae; vae2 sentence-level latents) or by chosen
  label (task latents), with the nearest-centroid accuracy in the plane as
  a number for how crisp the clusters are; 'tsne' does the same with
  scikit-learn's t-SNE (the `probe` extra), which keeps local neighbourhoods
  that a linear projection can flatten.
- Region map (solvers with a sparsified sentence encoder,
  two_level_vae_subnets): which embedding regions feed which sentence
  latent unit, and which unit carries the sentence pattern
  (`blm_jax.analysis.regions`); run by default for those solvers.

`analyze(workdir, ...)` runs them and writes W/probe/{confusion,traversal,
projection,tsne,regions}.png and probe.json; nothing else in the workdir is
touched.
"""

from __future__ import annotations

import os
from typing import Sequence

import numpy as np

from blm_jax.analysis import probe_figures as figures
from blm_jax.analysis import regions as region_map
from blm_jax.analysis import restore as probe
from blm_jax.base import files
from blm_jax.data import input_pipeline
from blm_jax.data.sentence_table import build_sentence_table, SentenceTable
from blm_jax.models import registry
from blm_jax.results.plots import run_dataset_title
from blm_jax.embedding import sources as embedding_sources
from blm_jax.embedding.spec import EncoderSettings
from data_builders.common import loading as data_lib

ANALYSES = ("confusion", "traversal", "projection", "tsne", "regions")
# What the probe command runs without --analysis ('regions' is added for
# the solvers that have a region map).
DEFAULT_ANALYSES = ("confusion", "traversal", "projection")
TRAVERSAL_STEPS = 10
TSNE_MAX_POINTS = 2000  # t-SNE is quadratic-ish: a fixed subsample beyond


# ---- Confusion matrices ----------------------------------------------------

def confusion_matrix(true: Sequence[str], chosen: Sequence[str],
                     names: Sequence[str] | None = None):
  """(names, counts [K, K]): row = true key, column = chosen key.

  Rows sum to the number of instances of each true key; `names` fixes the
  order (default: sorted union of the keys seen).
  """
  if len(true) != len(chosen):
    raise ValueError(f"{len(true)} true keys but {len(chosen)} chosen keys")
  names = list(names) if names is not None else sorted(set(true) | set(chosen))
  index = {n: i for i, n in enumerate(names)}
  missing = sorted((set(true) | set(chosen)) - set(index))
  if missing:
    raise ValueError(f"keys {missing} are not among the names {names}")
  m = np.zeros((len(names), len(names)), np.int64)
  np.add.at(m, ([index[k] for k in true], [index[k] for k in chosen]), 1)
  return names, m


def _by_pattern(model_name: str) -> bool:
  """Whether the solver's confusion counts input patterns (its spec)."""
  return registry.get(model_name).confusion == "pattern"


def level(model_name: str) -> str:
  """What the confusion rows and columns are for a model."""
  if _by_pattern(model_name):
    return "pattern: input sentence's pattern (rows) x chosen candidate's pattern"
  return "label: correct answer's label (rows) x chosen answer's label"


def confusion_keys(model_name: str, table: SentenceTable,
                   pred: np.ndarray) -> tuple[list[str], list[str]]:
  """(true keys, chosen keys) per instance for `level(model_name)`."""
  rows = np.arange(table.num_instances)
  if _by_pattern(model_name):
    pats = np.asarray(table.patterns, dtype=object)
    return (list(pats[table.context[:, 0]]),
            list(pats[table.answers[rows, pred]]))
  names = np.asarray(table.label_names, dtype=object)
  return (list(names[table.labels[rows, table.correct]]),
          list(names[table.labels[rows, pred]]))


def key_names(model_name: str, table: SentenceTable) -> list[str]:
  """Every key the matrices of this table can hold, in a fixed order."""
  if _by_pattern(model_name):
    used = set(table.context[:, 0].tolist()) | set(
        table.answers[table.answer_mask].tolist())
    return sorted({table.patterns[i] for i in used})
  return list(table.label_names)


# ---- Latent traversal ------------------------------------------------------

def traversal_values(train_latent: np.ndarray,
                     steps: int = TRAVERSAL_STEPS) -> np.ndarray:
  """[L, steps]: per unit, `steps` values evenly from its min to its max over
  the training latents [N, L]."""
  x = np.asarray(train_latent)
  if x.ndim != 2 or not len(x):
    raise ValueError(f"training latents must be [N, L] with N > 0; got "
                     f"shape {x.shape}")
  lo, hi = x.min(axis=0), x.max(axis=0)
  return lo[:, None] + (hi - lo)[:, None] * np.linspace(0.0, 1.0, steps)


def traverse(run: probe.Restored, train_emb, train_table: SentenceTable,
             emb, table: SentenceTable, steps: int = TRAVERSAL_STEPS) -> dict:
  """Predictions with each unit set to each traversal value, every cell.

  Returns {'values' [cells, L, steps], 'pred' [cells, L, steps, N],
  'base_pred' [cells, N], 'mean_pred' [cells, N]}. 'mean_pred' decodes
  the same latent (the training mean) for every instance: the answer the
  model gives without looking at the context; if it scores like
  'base_pred', the latent carries nothing the choice uses.
  """
  train_latent = run.apply(train_emb, train_table)["latent"]
  out = run.apply(emb, table)
  z0 = out["latent"]  # [cells, N, L]
  values = np.stack([traversal_values(z, steps) for z in train_latent])
  cells, n, units = z0.shape
  preds = np.zeros((cells, units, steps, n), np.int64)
  for u in range(units):
    for j in range(steps):
      z = z0.copy()
      z[:, :, u] = values[:, u, j][:, None]
      preds[:, u, j] = run.decode(z, emb, table)
  mean = np.broadcast_to(train_latent.mean(axis=1)[:, None], z0.shape)
  return {"values": values, "pred": preds, "base_pred": out["pred"],
          "mean_pred": run.decode(np.ascontiguousarray(mean), emb, table)}


# ---- Projections -----------------------------------------------------------

def pca_2d(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
  """(points [N, 2], explained variance ratio [2]) by SVD of centred x."""
  x = np.asarray(x, np.float64)
  x = x - x.mean(axis=0)
  u, s, vt = np.linalg.svd(x, full_matrices=False)
  var = s**2
  ratio = var[:2] / max(var.sum(), 1e-30)
  pts = x @ vt[:2].T
  if pts.shape[1] < 2:  # a 1-D latent: pad the plane
    pts = np.concatenate([pts, np.zeros((len(pts), 2 - pts.shape[1]))], 1)
    ratio = np.concatenate([ratio, np.zeros(2 - len(ratio))])
  return pts, ratio


def tsne_2d(x: np.ndarray, seed: int = 0) -> np.ndarray:
  """[N, 2] t-SNE embedding (PCA-initialised, perplexity min(30, (N-1)/3))."""
  try:
    from sklearn.manifold import TSNE
  except ImportError:
    raise ImportError("--analysis=tsne needs scikit-learn: pip install -e "
                      "'.[probe]'") from None
  x = np.asarray(x, np.float64)
  perplexity = float(min(30.0, max(1.0, (len(x) - 1) / 3)))
  return TSNE(n_components=2, perplexity=perplexity,
              init="pca" if x.shape[1] >= 2 else "random",
              random_state=seed).fit_transform(x)


def _subsample(s: dict, limit: int, seed: int = 0) -> dict:
  """A projection set cut to `limit` points (a fixed random subset)."""
  n = len(s["x"])
  if n <= limit:
    return s
  keep = np.sort(np.random.default_rng(seed).choice(n, limit, replace=False))
  return {**s, "x": np.asarray(s["x"])[keep],
          "groups": [s["groups"][i] for i in keep]}


def nearest_centroid_accuracy(points: np.ndarray, groups: Sequence[str]) -> float:
  """Fraction of points whose nearest group centroid is their own group's."""
  groups = np.asarray(groups, dtype=object)
  names = sorted(set(groups))
  cents = np.stack([points[groups == g].mean(axis=0) for g in names])
  d = ((points[:, None, :] - cents[None]) ** 2).sum(-1)
  own = np.array([names.index(g) for g in groups])
  return float(np.mean(d.argmin(axis=1) == own))


def distinct_sentence_latents(out: dict, table: SentenceTable,
                              cell: int) -> tuple[np.ndarray, list[str]]:
  """One cell's sentence latents [S, L] of the table's distinct context
  sentences (first occurrence), with their patterns."""
  mask = table.context_mask
  idx = table.context[mask]
  _, first = np.unique(idx, return_index=True)
  return (out["sentence_latent"][cell][mask][first],
          [table.patterns[i] for i in idx[first]])


def projections(run: probe.Restored, out: dict, table: SentenceTable,
                cell: int) -> list[dict]:
  """The latent sets of one cell to project, each with its colouring."""
  sets = []
  if registry.get(run.model_name).sentence_latents:
    lat, patterns = distinct_sentence_latents(out, table, cell)
    sets.append({"latent": "sentence_latent", "colour": "sentence pattern",
                 "x": lat, "groups": patterns})
  true, chosen = confusion_keys(run.model_name, table, out["pred"][cell])
  if _by_pattern(run.model_name):
    sets.append({"latent": "latent", "colour": "input pattern",
                 "x": out["latent"][cell], "groups": true})
  else:
    sets.append({"latent": "latent", "colour": "chosen answer's label",
                 "x": out["latent"][cell], "groups": chosen})
  return sets


def project(s: dict, method: str) -> dict:
  """A projection set with its 2-D points ('pca' or 'tsne') and their
  nearest-centroid accuracy."""
  if method == "tsne":
    s = _subsample(s, TSNE_MAX_POINTS)
    out = {**s, "points": tsne_2d(s["x"]), "method": "t-SNE"}
  else:
    points, explained = pca_2d(s["x"])
    out = {**s, "points": points, "explained": explained, "method": "PCA"}
  out["nearest_centroid_accuracy"] = nearest_centroid_accuracy(
      out["points"], out["groups"])
  return out


# ---- The whole analysis of one workdir -------------------------------------

def _probe_sets(config, data: input_pipeline.BLMData, dataset, split,
                embed_fn, data_dir, manual_dir):
  """{name: (embeddings, table)}: the run's own test tables by default."""
  if dataset is None and split == "test":
    return {u: (data.embeddings, t) for u, t in data.test.items()}
  names = ({dataset: dataset} if dataset else
           {u: input_pipeline.dataset_name(config.data.name, u)
            for u in config.data.test_types})
  sets = {}
  for key, name in names.items():
    table = build_sentence_table(
        data_lib.load_instances(name, split, data_dir, manual_dir))
    sets[key] = (np.asarray(embed_fn(table.sentences), np.float32), table)
  return sets


def _traversal_cell(model: str, table: SentenceTable, names, tr: dict,
                    i: int) -> dict:
  """One cell's traversal: matrices [L, steps, K, K], accuracy and the
  fraction of choices changed [L, steps], per-unit extremes."""
  units, steps = tr["pred"].shape[1:3]
  mats = np.zeros((units, steps, len(names), len(names)), np.int64)
  acc, changed = np.zeros((units, steps)), np.zeros((units, steps))
  base = tr["base_pred"][i]
  for u in range(units):
    for j in range(steps):
      p = tr["pred"][i, u, j]
      mats[u, j] = confusion_matrix(*confusion_keys(model, table, p),
                                    names)[1]
      acc[u, j] = np.mean(p == table.correct)
      changed[u, j] = np.mean(p != base)
  return {"values": tr["values"][i].tolist(),
          "base_accuracy": float(np.mean(base == table.correct)),
          "mean_latent_accuracy": float(np.mean(
              tr["mean_pred"][i] == table.correct)),
          "accuracy": acc.tolist(), "changed": changed.tolist(),
          "matrices": mats.tolist(),
          "units": [{"unit": u, "min_accuracy": float(acc[u].min()),
                     "max_accuracy": float(acc[u].max()),
                     "max_changed": float(changed[u].max())}
                    for u in range(units)]}


def _own_set(train_type: str, sets: dict) -> str:
  return train_type if train_type in sets else next(iter(sets))


def default_analyses(model_name: str) -> tuple[str, ...]:
  """The probe command's analyses for a run of `model_name`."""
  extra = ("regions",) if registry.get(model_name).region_map else ()
  return DEFAULT_ANALYSES + extra


def analyze(workdir: str, analyses: Sequence[str] | None = None,
            dataset: str | None = None, split: str = "test",
            embed_fn: input_pipeline.EmbedFn | None = None,
            data: input_pipeline.BLMData | None = None,
            data_dir: str | None = None,
            steps: int = TRAVERSAL_STEPS) -> dict:
  """Runs `analyses` on the run in `workdir`; writes W/probe/ only.

  `data` is the run's data (default: loaded as training loaded it, from
  config.json); its training tables give the traversal ranges and, unless
  `dataset` or another `split` is asked for, its test tables are probed.
  `analyses` None = `default_analyses` of the run's solver.
  """
  unknown = sorted(set(analyses or ()) - set(ANALYSES))
  if unknown:
    raise ValueError(f"unknown --analysis {unknown}; expected some of "
                     f"{list(ANALYSES)}")
  config = probe.load_config(workdir)
  model = config.model.name
  if analyses is None:
    analyses = default_analyses(model)
  if "regions" in analyses and not registry.get(model).region_map:
    have = [n for n in registry.names() if registry.get(n).region_map]
    raise ValueError(f"--analysis=regions needs a run of {have}; "
                     f"{workdir} holds a {model!r} run")
  if "traversal" in analyses and not registry.get(model).decodes_latent:
    raise ValueError(f"--analysis=traversal needs a run of "
                     f"{probe.decodable()}; {workdir} holds a {model!r} run")
  data_dir = data_dir or config.data.data_dir or None
  manual_dir = config.data.manual_dir or None
  embed_fn = embed_fn or embedding_sources.embed_fn(
      EncoderSettings(**config.encoder))
  if data is None:
    data = input_pipeline.load(config.data, embed_fn, data_dir,
                               seeds=tuple(config.grid.seeds))
  run = probe.restore(workdir, data)
  sets = _probe_sets(config, data, dataset, split, embed_fn, data_dir,
                     manual_dir)
  out_dir = os.path.join(workdir, "probe")
  os.makedirs(out_dir, exist_ok=True)
  cells = run.cell_names
  types = run.spec.train_types
  cell_type = [t for _, t in run.spec.cells]
  outputs = {k: run.apply(e, t) for k, (e, t) in sets.items()}
  result = {"workdir": os.path.abspath(workdir), "model": model,
            "dataset": config.data.name, "checkpoint_epoch": run.step,
            "level": level(model), "split": split,
            "probe_sets": {k: {"dataset": dataset or input_pipeline.dataset_name(
                config.data.name, k), "n": t.num_instances}
                for k, (_, t) in sets.items()},
            "files": {}}
  title = f"{model} on " + run_dataset_title(
      config.data.name, config.data.get("manual_dir", ""))

  if "confusion" in analyses:
    conf, panels = {}, []
    for k, (_, table) in sets.items():
      names = key_names(model, table)
      per_cell, per_type = {}, {}
      for i, c in enumerate(cells):
        pred = outputs[k]["pred"][i]
        _, m = confusion_matrix(*confusion_keys(model, table, pred), names)
        per_cell[c] = {"matrix": m.tolist(), "accuracy": float(
            np.mean(pred == table.correct)), "diagonal": int(np.trace(m))}
      for t in types:
        m = sum(np.asarray(per_cell[c]["matrix"])
                for c, ct in zip(cells, cell_type) if ct == t)
        acc = [per_cell[c]["accuracy"] for c, ct in zip(cells, cell_type)
               if ct == t]
        per_type[t] = {"matrix": m.tolist(), "accuracy_mean": float(
            np.mean(acc)), "diagonal_fraction": float(np.trace(m) / m.sum())}
        panels.append((f"train {t} -> {k}: acc {np.mean(acc):.3f}", names, m))
      conf[k] = {"names": names, "cells": per_cell, "train_types": per_type}
    path = os.path.join(out_dir, "confusion.png")
    figures.plot_confusions(
        panels, path, f"Confusion ({level(model)}), seeds summed: {title}")
    result["confusion"] = conf
    result["files"]["confusion"] = "confusion.png"

  if "traversal" in analyses:
    trav = {"held": "the other units keep the instance's own latent values",
            "range": "min..max of each unit over the cell's training "
                     "instances", "steps": steps,
            "note": "unit u of one seed need not encode what unit u of "
                    "another does: read the cells; seeds_summed only "
                    "averages the size of the effects", "train_types": {}}
    figure = None
    for t in types:
      own = _own_set(t, sets)
      emb, table = sets[own]
      idx = [i for i, ct in enumerate(cell_type) if ct == t]
      tr = traverse(run, data.embeddings, data.train[t], emb, table, steps)
      names = key_names(model, table)
      per_cell = {}
      for i in idx:
        per_cell[cells[i]] = _traversal_cell(model, table, names, tr, i)
      summed = {
          "matrices": sum(np.asarray(c["matrices"])
                          for c in per_cell.values()).tolist(),
          **{k: np.mean([c[k] for c in per_cell.values()], axis=0).tolist()
             for k in ("accuracy", "changed", "mean_latent_accuracy")},
          "base_accuracy": float(np.mean(
              [c["base_accuracy"] for c in per_cell.values()]))}
      trav["train_types"][t] = {"probe_set": own, "names": names,
                                "cells": per_cell, "seeds_summed": summed}
      if figure is None:
        figure = (t, own, names, cells[idx[0]], per_cell[cells[idx[0]]])
    t, own, names, cell, c = figure
    path = os.path.join(out_dir, "traversal.png")
    figures.plot_traversal(
        names, np.asarray(c["matrices"]), np.asarray(c["values"]),
        np.asarray(c["accuracy"]), path,
        f"Latent traversal, {cell} -> {own} (untouched accuracy "
        f"{c['base_accuracy']:.3f}): {title}")
    result["traversal"] = trav
    result["files"]["traversal"] = "traversal.png"

  for analysis, method in (("projection", "pca"), ("tsne", "tsne")):
    if analysis not in analyses:
      continue
    proj, panels = {}, []
    for t in types:
      own = _own_set(t, sets)
      i = cell_type.index(t)  # the first seed of this train type
      for s in projections(run, outputs[own], sets[own][1], i):
        s = project(s, method)
        key = f"{cells[i]} {s['latent']} on {own}"
        proj[key] = {"colour": s["colour"], "method": s["method"],
                     "nearest_centroid_accuracy":
                     s["nearest_centroid_accuracy"], "points": len(s["x"]),
                     "groups": len(set(s["groups"]))}
        if "explained" in s:
          proj[key]["explained"] = s["explained"].tolist()
        panels.append({**s, "title": f"{key}\ncoloured by {s['colour']}"})
    path = os.path.join(out_dir, f"{analysis}.png")
    figures.plot_projections(
        panels, path, f"Latent projections ({panels[0]['method']}): {title}",
        cols=len(panels) // len(types))
    result[analysis] = proj
    result["files"][analysis] = f"{analysis}.png"

  if "regions" in analyses:
    cells_map = {}
    spans = run.model.region_spans()
    masks = run.region_masks()
    for i, t in enumerate(cell_type):
      own = _own_set(t, sets)
      lat, patterns = distinct_sentence_latents(outputs[own], sets[own][1], i)
      cell = region_map.cell_map({k: v[i] for k, v in masks.items()},
                                 spans, lat, patterns)
      # The line a report prints without reading the arrays again.
      cells_map[cells[i]] = {"probe_set": own, **cell,
                             "summary": region_map.summary(cell)}
    path = os.path.join(out_dir, "regions.png")
    region_map.plot(cells_map, run.model.sentence.grid_shape, path,
                    f"Embedding regions -> sentence latent units: {title}")
    result["regions"] = {"grid_shape": list(run.model.sentence.grid_shape),
                         "cells": cells_map}
    result["files"]["regions"] = "regions.png"

  files.write_json(os.path.join(out_dir, "probe.json"), result, indent=1,
                   sort_keys=False)
  result["files"]["json"] = "probe.json"
  return result


def summary_text(result: dict) -> str:
  """A few lines for the terminal: accuracies and the units that matter."""
  lines = [f"{result['model']} on {result['dataset']} -> "
           f"{os.path.join(result['workdir'], 'probe')}"]
  for k, c in result.get("confusion", {}).items():
    for t, v in c["train_types"].items():
      lines.append(f"confusion train {t} -> {k}: diagonal "
                   f"{v['diagonal_fraction']:.3f}, accuracy "
                   f"{v['accuracy_mean']:.3f}")
  for t, v in result.get("traversal", {}).get("train_types", {}).items():
    for cell, c in v["cells"].items():
      lines.append(f"traversal {cell} -> {v['probe_set']} (untouched "
                   f"{c['base_accuracy']:.3f}, one mean latent for all "
                   f"{c['mean_latent_accuracy']:.3f}): " + ", ".join(
                       f"u{u['unit']} acc {u['min_accuracy']:.2f}-"
                       f"{u['max_accuracy']:.2f} changed<="
                       f"{u['max_changed']:.2f}" for u in c["units"]))
  for k, v in result.get("projection", {}).items():
    lines.append(f"projection {k}: nearest-centroid "
                 f"{v['nearest_centroid_accuracy']:.3f} ({v['groups']} "
                 f"groups), PCA variance {v['explained'][0]:.2f}+"
                 f"{v['explained'][1]:.2f}")
  for cell, c in result.get("regions", {}).get("cells", {}).items():
    lines.append(f"regions {cell}: {region_map.summary(c)}")
  for k, v in result.get("tsne", {}).items():
    lines.append(f"t-SNE {k}: nearest-centroid "
                 f"{v['nearest_centroid_accuracy']:.3f} ({v['groups']} "
                 f"groups, {v['points']} points)")
  return "\n".join(lines)
