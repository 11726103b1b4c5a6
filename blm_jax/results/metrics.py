"""Metrics of a grid run: F1, accuracy and chosen error types per cell.

F1 is the positive-class F1 over candidates ("is this the correct answer?"),
as in the papers; with exactly one prediction and one correct answer per
instance it equals accuracy, and both are reported. Chosen-answer counts per
error label are what the error-type plots show (000 Figures 17/26).
The std over seeds is the sample std (ddof=1; 0 for a single seed), the
usual convention for "mean ± std over n runs".
"""

from __future__ import annotations

import numpy as np

from blm_jax.training.grid import GridSpec


def cell_metrics(pred: np.ndarray, correct: np.ndarray, labels: np.ndarray,
                 label_names: tuple[str, ...]) -> dict:
  """Metrics of one cell on one split (arrays of the split's real rows)."""
  n = len(correct)
  hits = pred == correct
  tp = int(hits.sum())
  fp = n - tp  # one predicted positive per instance
  fn = n - tp  # one true positive candidate per instance
  precision = tp / max(1, tp + fp)
  recall = tp / max(1, tp + fn)
  f1 = 2 * precision * recall / max(1e-12, precision + recall)
  chosen_ids = labels[np.arange(n), pred]
  chosen = {name: int((chosen_ids == i).sum())
            for i, name in enumerate(label_names)}
  return {"f1": float(f1), "accuracy": float(hits.mean()) if n else 0.0,
          "n": n, "chosen": chosen}


def correct_labels(splits, label_names: tuple[str, ...]) -> list[str]:
  """The label names the data's `correct` index carries, most frequent
  first: which answers are right comes from the data, never from the
  inventory's order (own data may list an error label first)."""
  counts: dict[str, int] = {}
  for split in splits:
    n = len(split.correct)
    for i in np.asarray(split.labels)[np.arange(n), split.correct]:
      if i >= 0:
        counts[label_names[i]] = counts.get(label_names[i], 0) + 1
  return sorted(counts, key=lambda k: (-counts[k], label_names.index(k)))


def correct_label(results: dict) -> str:
  """The correct answers' label in results.json: `correct_labels[0]`; a
  results.json written before that key followed the builders' convention
  (the inventory's first label)."""
  found = results.get("correct_labels")
  if found:
    return found[0]
  names = results.get("label_names") or []
  return names[0] if names else ""


def error_labels(results: dict) -> tuple[str, ...]:
  """Every label of results.json's inventory but the correct answers'."""
  right = set(results.get("correct_labels") or [correct_label(results)])
  return tuple(k for k in results.get("label_names", ()) if k not in right)


def sample_std(x: np.ndarray) -> float:
  """The sample std over seeds (ddof=1); 0.0 for one seed."""
  return float(np.std(x, ddof=1)) if len(x) > 1 else 0.0


def summarize(spec: GridSpec, per_cell: list[dict],
              test_types: tuple[str, ...]) -> dict:
  """Mean and std over seeds for every (train type, test type) pair."""
  out = {}
  for t in spec.train_types:
    cells = [c for c in per_cell if c["train_type"] == t]
    out[t] = {}
    for u in test_types:
      f1 = np.array([c["test"][u]["f1"] for c in cells])
      acc = np.array([c["test"][u]["accuracy"] for c in cells])
      chosen = {}
      for c in cells:
        for k, v in c["test"][u]["chosen"].items():
          chosen[k] = chosen.get(k, 0) + v
      out[t][u] = {"f1_mean": float(f1.mean()), "f1_std": sample_std(f1),
                   "accuracy_mean": float(acc.mean()),
                   "accuracy_std": sample_std(acc), "chosen_total": chosen}
  return out


def selectivity(real: dict, control: dict) -> dict:
  """Real minus control mean F1 per (train type, test type) pair.

  Hewitt and Liang's selectivity: what the embeddings add beyond what a
  control (no context, shuffled context, random encoder) already gets.
  """
  return {t: {u: real[t][u]["f1_mean"] - control[t][u]["f1_mean"]
              for u in row} for t, row in real.items()}


def layer_sweep(by_layer: dict[int, dict], main_layer: int | None) -> dict:
  """The layer-sweep section of results.json: per hidden state k the
  summary, and per (train, test) pair the F1 mean and std by layer."""
  layers = sorted(by_layer)
  first = by_layer[layers[0]]
  curve = lambda stat: {t: {u: [by_layer[k][t][u][stat] for k in layers]
                            for u in row} for t, row in first.items()}
  return {"layers": layers, "main_layer": main_layer,
          "f1_mean": curve("f1_mean"), "f1_std": curve("f1_std"),
          "summary": {str(k): by_layer[k] for k in layers}}
