"""Grid throughput: the same grid trained vmapped and as a loop over cells.

  python -m blm_jax.bench --model=vae2 --embed_dim=768 --rounds=5

Both use the same code (`train.build_grid`): one grid with every cell in one
jitted vmapped epoch, and one single-cell grid per cell (a loop of cells
spends the sum of their times). Training speed does not depend on what the
embeddings say, so the data is random with the paper's shapes (7 context
sentences, 9 answers, D=384 as MiniLM or 768 as Electra). Every grid is
compiled first; then each round times one epoch of the vmapped grid and one
epoch of every cell, interleaved, so a shared, noisy machine slows both
alike; the figures are medians over rounds. A JSON record goes to
benchmarks/results/ (`write_record`, also used by benchmarks/*.py).
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import sys
import time

from absl import app, flags
import jax
import numpy as np

from blm_jax import input_pipeline, train
from configs import common

_MODEL = flags.DEFINE_enum("model", "vae2", ["ffnn", "cnn", "sent_vae", "vae2"],
                           "Solver.")
_SEEDS = flags.DEFINE_integer("seeds", 3, "Seeds in the grid.")
_TYPES = flags.DEFINE_integer("types", 3, "Train types in the grid.")
_ROUNDS = flags.DEFINE_integer("rounds", 3, "Interleaved timed rounds.")
_EPOCHS = flags.DEFINE_integer("epochs", 1, "Epochs per grid per round.")
_DIM = flags.DEFINE_integer("embed_dim", 384, "Embedding dimension.")
_TRAIN = flags.DEFINE_integer("num_train", 1600, "Training instances/type.")
_CHANNELS = flags.DEFINE_integer(
    "channels", 40, "Sentence-VAE channels (vae2, sent_vae); 000 uses 40.")
_HIDDEN = flags.DEFINE_float("hidden_factor", 3.5, "FFNN hidden width / D.")
_OUT = flags.DEFINE_string("out", "", "JSON record path; default "
                           "benchmarks/results/grid_<model>_D<dim>.json.")

RESULTS_DIR = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "benchmarks", "results")


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


class TimedGrid:
  """A compiled grid whose epochs can be timed one at a time."""

  def __init__(self, config, data):
    self.grid = train.build_grid(config, data)
    self.state = self.grid.init()
    self.epoch = 0
    self.run(1)  # compile

  @property
  def instances_per_epoch(self) -> int:
    s = self.grid.solver
    return self.grid.num_cells * s.steps_per_epoch * s.batch_size

  def run(self, epochs: int) -> float:
    """Seconds for `epochs` epochs (waits for the result)."""
    t = time.perf_counter()
    for _ in range(epochs):
      self.state, losses = self.grid.run_epoch(self.state, self.epoch)
      self.epoch += 1
    jax.block_until_ready((self.state, losses))
    return time.perf_counter() - t


def config_for(model: str, embed_dim: int, channels: int,
               hidden_factor: float):
  config = common.base(model)
  if model in ("vae2", "sent_vae"):
    config.model.channels = (channels,)
    config.train.score, config.loss.answer_reduction = "cosine", "mean"
  config.model.hidden_factor = hidden_factor
  config.progress = False
  return config


def environment() -> dict:
  """Device and library versions for a benchmark record."""
  import flax
  import jaxlib
  import optax
  dev = jax.devices()[0]
  return {"device_kind": dev.device_kind, "platform": dev.platform,
          "device_count": jax.device_count(), "cpu_count": os.cpu_count(),
          "cpu": platform.processor() or platform.machine(),
          "python": platform.python_version(), "jax": jax.__version__,
          "jaxlib": jaxlib.__version__, "flax": flax.__version__,
          "optax": optax.__version__, "numpy": np.__version__}


def write_record(name: str, record: dict, path: str = "") -> str:
  """Writes {environment, command, time, **record} as JSON; returns the path."""
  path = path or os.path.join(RESULTS_DIR, f"{name}.json")
  os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
  full = {"benchmark": name,
          "utc": datetime.datetime.now(datetime.timezone.utc).isoformat(
              timespec="seconds"),
          "command": " ".join(sys.argv), "environment": environment(),
          **record}
  with open(path, "w") as f:
    json.dump(full, f, indent=1)
  return path


def main(argv):
  del argv
  model, dim = _MODEL.value, _DIM.value
  types = tuple(["I", "II", "III", "IV", "V"][:_TYPES.value])
  seeds = tuple(range(_SEEDS.value))
  data = random_data(types, _TRAIN.value, dim)
  config = config_for(model, dim, _CHANNELS.value, _HIDDEN.value)
  config.data.train_types, config.grid.seeds = types, seeds
  vmapped = TimedGrid(config, data)
  cells = []
  for s in seeds:
    for t in types:
      config.grid.seeds, config.data.train_types = (s,), (t,)
      cells.append(TimedGrid(config, data))
  grid_rates, loop_rates = [], []
  for _ in range(_ROUNDS.value):
    dt = vmapped.run(_EPOCHS.value)
    grid_rates.append(vmapped.instances_per_epoch * _EPOCHS.value / dt)
    dt = sum(c.run(_EPOCHS.value) for c in cells)
    loop_rates.append(sum(c.instances_per_epoch for c in cells)
                      * _EPOCHS.value / dt)
  ratios = [g / l for g, l in zip(grid_rates, loop_rates)]
  print(f"device: {jax.devices()[0].device_kind} x {jax.device_count()} "
        f"({jax.default_backend()})")
  print(f"model={model} grid={len(seeds)}x{len(types)} D={dim} "
        f"train/type={_TRAIN.value} rounds={_ROUNDS.value} x "
        f"{_EPOCHS.value} epoch(s)")
  print(f"vmapped grid : {np.median(grid_rates):10.0f} training instances/s "
        f"(rounds: {', '.join(f'{r:.0f}' for r in grid_rates)})")
  print(f"loop of cells: {np.median(loop_rates):10.0f} training instances/s "
        f"(rounds: {', '.join(f'{r:.0f}' for r in loop_rates)})")
  print(f"ratio vmapped/loop: median {np.median(ratios):.2f} "
        f"(rounds: {', '.join(f'{r:.2f}' for r in ratios)})")
  path = write_record(f"grid_{model}_D{dim}", {
      "shapes": {"model": model, "embed_dim": dim, "seeds": len(seeds),
                 "types": len(types), "num_train": _TRAIN.value,
                 "batch_size": config.train.batch_size, "num_context": 7,
                 "num_answers": 9, "channels": _CHANNELS.value,
                 "hidden_factor": _HIDDEN.value},
      "rounds": _ROUNDS.value, "epochs_per_round": _EPOCHS.value,
      "grid_instances_per_s": grid_rates, "loop_instances_per_s": loop_rates,
      "ratio_grid_over_loop": ratios,
      "median": {"grid": float(np.median(grid_rates)),
                 "loop": float(np.median(loop_rates)),
                 "ratio": float(np.median(ratios))}}, _OUT.value)
  print(f"record: {path}")


if __name__ == "__main__":
  app.run(main)
