"""Restore a trained grid from its workdir and run every cell on any dataset.

  cells = restore.predict("workdirs/vae2", "blm_spray_load/ATL-ALT_type_III")
  cells["seed=0,train=I"]["latent"]            # [N, latent] task latents
  cells["seed=0,train=I"]["sentence_latent"]   # [N, C, latent] (vae2 only)

This is what probing builds on: predictions, candidate scores and latents of
every cell (evaluated deterministically, with the best-dev parameters, by the
solver's own predict), plus the instances' correct indices and answer labels
to compare them with. `restore` gives the cells' parameters and jitted
functions over them (`Restored.apply`, `Restored.decode`) for the analyses in
`blm_jax.analysis.probing` (command line: `python -m blm_jax.cli.probe`).
Restoring never writes to the workdir (read-only checkpoint managers).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
from typing import Any

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np

from blm_jax.data import input_pipeline
from blm_jax.data.sentence_table import build_sentence_table, SentenceTable
from blm_jax.embedding import sources as embedding_sources
from blm_jax.embedding.spec import EncoderSettings
from blm_jax.models import registry
from blm_jax.training import checkpoints, config_defaults, trainer as train
from blm_jax.training.grid import GridSpec
from blm_jax.training.solver import eval_rows, Solver, SplitIndex
from data_builders.common import loading as data_lib

PROBE = "probe"


def decodable() -> tuple[str, ...]:
  """Solvers whose latent decodes back to an answer (latent traversal)."""
  return tuple(n for n in registry.names() if registry.get(n).decodes_latent)


def load_config(workdir: str) -> ml_collections.ConfigDict:
  """A workdir's config.json over the library defaults of its solver.

  Keys added to the library after a run was written take their defaults
  (which reproduce how such runs were trained), so the code that rebuilds
  the run reads every key directly.
  """
  path = os.path.join(workdir, "config.json")
  if not os.path.exists(path):
    raise FileNotFoundError(f"{path} is missing: {workdir!r} is not a "
                            "workdir written by launch.py / train_and_evaluate")
  with open(path) as f:
    saved = json.load(f)
  name = saved.get("model", {}).get("name")
  if name not in registry.names():
    return ml_collections.ConfigDict(saved)
  config = config_defaults.default_config(name)
  _update(config, saved)
  return config


def _update(config: ml_collections.ConfigDict, saved: dict) -> None:
  for key, value in saved.items():
    if isinstance(value, dict) and isinstance(config.get(key),
                                              ml_collections.ConfigDict):
      _update(config[key], value)
    else:
      config[key] = value


@dataclasses.dataclass(frozen=True)
class Restored:
  """The best-dev parameters of every cell of a run, ready to apply.

  `params` is stacked over the real cells (padding cells dropped); every
  method maps over that axis, so outputs have a leading cell axis.
  """

  config: ml_collections.ConfigDict
  spec: GridSpec
  solver: Solver  # the run's solver: its predict is the one evaluation path
  params: Any
  step: int

  @property
  def model(self):
    return self.solver.model

  @property
  def cell_names(self) -> list[str]:
    return [self.spec.cell_name(i) for i in range(len(self.spec.cells))]

  @property
  def model_name(self) -> str:
    return self.config.model.name

  @functools.cached_property
  def _apply(self):
    solver, model = self.solver, self.solver.model
    with_sentences = registry.get(self.model_name).sentence_latents

    def cell(params, emb, split):
      res = solver.predict(params, emb, split)
      if with_sentences:
        res["sentence_latent"] = model.apply(
            params, emb[split.context], split.context_mask,
            method="sentence_latent")
      return res

    return jax.jit(jax.vmap(cell, in_axes=(0, None, None)))

  @functools.cached_property
  def _decode(self):
    solver, model = self.solver, self.solver.model

    def cell(params, z, ans, ans_mask):
      pred = model.apply(params, z, method="decode_latent")
      return solver.choose(pred, ans, ans_mask)

    return jax.jit(jax.vmap(cell, in_axes=(0, 0, None, None)))

  def region_masks(self) -> dict:
    """The model's `region_masks` per cell: {name: [cells, ...]}."""
    fn = jax.vmap(lambda p: self.solver.model.apply(p, method="region_masks"))
    return jax.tree.map(np.asarray, fn(self.params))

  def apply(self, emb: np.ndarray, table: SentenceTable) -> dict:
    """{'pred' [cells, N], 'scores' [cells, N, A], 'latent' [cells, N, L],
    and, for solvers with sentence latents (vae2), 'sentence_latent'
    [cells, N, C, L]} on `table`'s rows, computed by the solver's own
    `predict` (as evaluation computes them)."""
    n = table.num_instances
    split = SplitIndex.from_table(
        table, rows=eval_rows(n, self.solver.eval_chunk))
    out = self._apply(self.params, jnp.asarray(emb), split)
    return jax.tree.map(lambda x: np.asarray(x)[:, :n], out)

  def decode(self, z: np.ndarray, emb: np.ndarray,
             table: SentenceTable) -> np.ndarray:
    """Predictions [cells, N] when each cell decodes the latents z
    [cells, N, L] instead of its own (latent traversal)."""
    if not registry.get(self.model_name).decodes_latent:
      raise ValueError(f"a {self.model_name!r} run has no latent to decode; "
                       f"latent traversal needs one of {decodable()}")
    emb = jnp.asarray(emb)
    return np.asarray(self._decode(self.params, jnp.asarray(z),
                                   emb[table.answers], table.answer_mask))


def restore(workdir: str, data: input_pipeline.BLMData) -> Restored:
  """The run in `workdir`, its grid sized by `data` (which must match the
  embedding size and context length it was trained with)."""
  config = load_config(workdir)
  variants = [k for k, v in (("controls", config.controls),
                             ("encoder.layer_sweep",
                              config.encoder.layer_sweep)) if v]
  if variants:
    raise ValueError(
        f"{workdir} was trained with config.{' and config.'.join(variants)}"
        ": probing reads the real cells of runs without variant cells; "
        "train the run to probe without them (the variants' F1 is in its "
        "results.json)")
  train.check_compatible(config, data)
  grid = train.build_grid(config, data)
  restored = checkpoints.restore_latest(
      os.path.join(workdir, "checkpoints"), grid.abstract_state(),
      move_damaged=False)
  if restored is None:
    raise FileNotFoundError(f"no readable checkpoint in {workdir}/checkpoints")
  step, state, meta = restored
  for key in ("embed_dim", "num_context"):
    have = getattr(data, key)
    if meta[key] != have:
      raise ValueError(f"the probed data gives {key}={have} but the run in "
                       f"{workdir} was trained with {key}={meta[key]}")
  n = grid.num_cells
  params = jax.tree.map(lambda x: jnp.asarray(np.asarray(x)[:n]),
                        state.best_params)
  return Restored(config=config, spec=grid.spec, solver=grid.solver,
                  params=params, step=int(step))


def probe_data(config, table: SentenceTable,
               embed_fn: input_pipeline.EmbedFn) -> input_pipeline.BLMData:
  """One table as BLMData (every type's train/dev/test), enough to size a
  grid and run it."""
  emb = np.asarray(embed_fn(table.sentences), np.float32)
  types = tuple(config.data.train_types)
  return input_pipeline.BLMData(
      embeddings=emb, table=table, train={t: table for t in types},
      dev={t: table for t in types}, test={PROBE: table})


def predict(workdir: str, dataset: str, split: str = "test",
            embed_fn: input_pipeline.EmbedFn | None = None,
            data_dir: str | None = None,
            manual_dir: str | None = None) -> dict[str, dict]:
  """Per-cell predictions, scores [N, A] and latents on `dataset`/`split`."""
  config = load_config(workdir)
  instances = data_lib.load_instances(dataset, split, data_dir, manual_dir)
  table = build_sentence_table(instances)
  embed_fn = embed_fn or embedding_sources.embed_fn(
      EncoderSettings(**config.encoder))
  blm = probe_data(config, table, embed_fn)
  run = restore(workdir, blm)
  out = run.apply(blm.embeddings, table)
  return {name: {**{k: v[i] for k, v in out.items()},
                 "correct": table.correct, "labels": table.labels,
                 "label_names": table.label_names,
                 "instance_ids": table.instance_ids}
          for i, name in enumerate(run.cell_names)}
