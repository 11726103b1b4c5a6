"""Grid throughput: the same grid trained vmapped and as a loop over cells.

  python -m blm_jax.bench --model=ffnn --seeds=3 --types=3 --epochs=3

Both runs use the same code (`train.build_grid`): once with every cell in one
jitted vmapped epoch, once one single-cell grid after another. Training speed
does not depend on what the embeddings say, so the data is random with the
paper's shapes (7 context sentences, 9 answers, 1600 training instances per
type, D=384 as MiniLM); compilation (the first epoch) is excluded.
"""

from __future__ import annotations

import time

from absl import app, flags
import jax
import numpy as np

from blm_jax import input_pipeline, train
from configs import common

_MODEL = flags.DEFINE_enum("model", "vae2", ["ffnn", "cnn", "vae2"], "Solver.")
_SEEDS = flags.DEFINE_integer("seeds", 3, "Seeds in the grid.")
_TYPES = flags.DEFINE_integer("types", 3, "Train types in the grid.")
_EPOCHS = flags.DEFINE_integer("epochs", 3, "Timed epochs (after 1 warm-up).")
_DIM = flags.DEFINE_integer("embed_dim", 384, "Embedding dimension.")
_TRAIN = flags.DEFINE_integer("num_train", 1600, "Training instances/type.")


def random_data(types, num_train, embed_dim, num_context=7, num_answers=9,
                seed=0) -> input_pipeline.BLMData:
  """BLM-shaped random data: distinct sentences, random embeddings."""
  from blm_jax import schema
  rng = np.random.default_rng(seed)
  splits = {}
  for t in types:
    for split, n in (("train", num_train), ("dev", num_train // 4),
                     ("test", 200)):
      insts = []
      for i in range(n):
        key = f"{t}-{split}-{i}"
        ctx = tuple(schema.Sentence(f"{key}-c{j}") for j in range(num_context))
        ans = tuple(schema.Sentence(f"{key}-a{j}") for j in range(num_answers))
        insts.append(schema.BLMInstance(
            id=key, family="bench", language="en", lexical_type=t,
            subset="bench", context=ctx, answers=ans,
            correct=int(rng.integers(num_answers)),
            labels=tuple(f"L{j}" for j in range(num_answers))))
      splits[t, split] = insts
  return input_pipeline.from_parts(
      splits, lambda sents: rng.normal(size=(len(sents), embed_dim)))


def time_grid(config, data, epochs: int) -> float:
  """Training instances/s of one grid, excluding the compiling epoch."""
  grid = train.build_grid(config, data)
  state = grid.init()
  state, losses = grid.run_epoch(state, 0)
  jax.block_until_ready(losses)
  t = time.perf_counter()
  for e in range(1, epochs + 1):
    state, losses = grid.run_epoch(state, e)
  jax.block_until_ready(losses)
  dt = time.perf_counter() - t
  solver = grid.solver
  return (grid.num_cells * solver.steps_per_epoch * solver.batch_size
          * epochs / dt)


def main(argv):
  del argv
  types = tuple(["I", "II", "III", "IV", "V"][:_TYPES.value])
  seeds = tuple(range(_SEEDS.value))
  data = random_data(types, _TRAIN.value, _DIM.value)
  config = common.base(_MODEL.value)
  if _MODEL.value == "vae2":
    config.model.channels = (32,)
    config.train.score, config.loss.answer_reduction = "cosine", "mean"
  config.data.train_types = types
  config.grid.seeds = seeds
  config.progress = False
  vmapped = time_grid(config, data, _EPOCHS.value)
  cell_rates = []
  for s in seeds:
    for t in types:
      config.grid.seeds, config.data.train_types = (s,), (t,)
      cell_rates.append(time_grid(config, data, _EPOCHS.value))
  # A loop over cells spends the sum of the cells' times.
  looped = len(cell_rates) / sum(1.0 / r for r in cell_rates)
  print(f"device: {jax.devices()[0].device_kind} x {jax.device_count()} "
        f"({jax.default_backend()})")
  print(f"model={_MODEL.value} grid={len(seeds)}x{len(types)} "
        f"D={_DIM.value} train/type={_TRAIN.value} epochs={_EPOCHS.value}")
  print(f"vmapped grid : {vmapped:10.0f} training instances/s")
  print(f"loop of cells: {looped:10.0f} training instances/s")
  print(f"ratio vmapped/loop: {vmapped / looped:.2f}")


if __name__ == "__main__":
  app.run(main)
