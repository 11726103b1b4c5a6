"""Restore a trained grid from its workdir and run every cell on any dataset.

  cells = probe.predict("workdirs/vae2", "blm_spray_load/ATL-ALT_type_III")
  cells["seed=0,train=I"]["latent"]   # [N, latent] task-level latents

This is what probing builds on: predictions, candidate scores and latents of
every cell (evaluated deterministically, with the best-dev parameters), plus
the instances' correct indices and answer labels to compare them with.
"""

from __future__ import annotations

import json
import os

import ml_collections
import numpy as np

from blm_jax import checkpoints, data as data_lib, input_pipeline, train
from blm_jax.sentence_table import build_sentence_table

PROBE = "probe"


def load_config(workdir: str) -> ml_collections.ConfigDict:
  path = os.path.join(workdir, "config.json")
  if not os.path.exists(path):
    raise FileNotFoundError(f"{path} is missing: {workdir!r} is not a "
                            "workdir written by launch.py / train_and_evaluate")
  with open(path) as f:
    return ml_collections.ConfigDict(json.load(f))


def predict(workdir: str, dataset: str, split: str = "test",
            embed_fn: input_pipeline.EmbedFn | None = None,
            data_dir: str | None = None,
            manual_dir: str | None = None) -> dict[str, dict]:
  """Per-cell predictions, scores [N, A] and latents on `dataset`/`split`."""
  config = load_config(workdir)
  instances = data_lib.load_instances(dataset, split, data_dir, manual_dir)
  table = build_sentence_table(instances)
  embed_fn = embed_fn or train.default_embed_fn(config.encoder)
  emb = np.asarray(embed_fn(table.sentences), np.float32)
  types = tuple(config.data.train_types)
  # The grid only needs a train/dev table per type for its shapes.
  blm = input_pipeline.BLMData(
      embeddings=emb, table=table, train={t: table for t in types},
      dev={t: table for t in types}, test={PROBE: table})
  train.check_compatible(config, blm)
  grid = train.build_grid(config, blm)
  restored = checkpoints.restore_latest(
      os.path.join(workdir, "checkpoints"), grid.abstract_state(),
      move_damaged=False)
  if restored is None:
    raise FileNotFoundError(f"no readable checkpoint in {workdir}/checkpoints")
  _, state, meta = restored
  for key in ("embed_dim", "num_context"):
    have = getattr(blm, key)
    if meta[key] != have:
      raise ValueError(f"{dataset!r} gives {key}={have} but the run in "
                       f"{workdir} was trained with {key}={meta[key]}")
  out = grid.predict(state.best_params, grid.test[PROBE])
  return {grid.spec.cell_name(i): {
      "pred": out["pred"][i], "scores": out["scores"][i],
      "latent": out["latent"][i], "correct": table.correct,
      "labels": table.labels, "label_names": table.label_names,
      "instance_ids": table.instance_ids} for i in range(grid.num_cells)}
