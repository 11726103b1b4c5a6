"""Timing grid training: every grid form against the loop of its cells.

What `python -m blm_jax.cli.bench` and the scripts of benchmarks/ time:
BLM-shaped random data (training speed does not depend on what the
embeddings say), a compiled grid whose epochs are timed one at a time,
the same grid in every form (vmapped, scanned, a loop of one-cell grids
sharing one compiled epoch), one step's FLOPs (XLA's cost analysis) and
this machine's matmul rate now, to set instances/s against.
"""

from __future__ import annotations

import time

import jax
import jax.numpy as jnp
import numpy as np

from blm_jax.data import input_pipeline
from blm_jax.models import sentence_vae
from blm_jax.training import config_defaults, trainer
from blm_jax.training.solver import gather
from data_builders.common import schema


def random_data(types, num_train, embed_dim, num_context=7, num_answers=9,
                seed=0) -> input_pipeline.BLMData:
  """BLM-shaped random data: distinct sentences, random embeddings."""
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

  def __init__(self, config, data, share_from: "TimedGrid | None" = None):
    self.grid = trainer.build_grid(config, data)
    if share_from is not None:
      # Same solver and shapes (one cell of the same grid): reuse the
      # compiled functions; only the arguments (keys, data) differ.
      self.grid._epoch = share_from.grid._epoch
      self.grid._init = share_from.grid._init
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
  """The library defaults of `model`; `channels` sizes a solver built on
  the sentence VAE (trained as eq. 2-6: cosine, maxM), `hidden_factor`
  one with a hidden width."""
  del embed_dim  # The data sets it.
  config = config_defaults.default_config(model)
  config.progress = False
  if set(sentence_vae.DEFAULTS) <= set(config.model):
    config.model.channels = (channels,)
    config.train.score, config.loss.answer_reduction = "cosine", "mean"
  if "hidden_factor" in config.model:
    config.model.hidden_factor = hidden_factor
  return config


def matmul_gflops(n: int = 2048, reps: int = 5) -> dict:
  """This machine's n x n matmul rate now, GFLOP/s, float32 and bfloat16."""
  out = {}
  for name, dtype in (("f32", jnp.float32), ("bf16", jnp.bfloat16)):
    a = jnp.ones((n, n), dtype)
    f = jax.jit(lambda a, b: a @ b)
    f(a, a).block_until_ready()
    t = time.perf_counter()
    for _ in range(reps):
      r = f(a, a)
    r.block_until_ready()
    out[name] = 2 * n ** 3 * reps / (time.perf_counter() - t) / 1e9
  return out


def step_flops(timed: TimedGrid) -> float:
  """XLA's FLOP count of one training step of one cell."""
  grid = timed.grid
  state = jax.tree.map(lambda x: x[0], timed.state)
  split = jax.tree.map(lambda x: x[0], grid.train)
  batch = gather(grid.emb, split, jnp.arange(grid.solver.batch_size))
  step = jax.jit(grid.solver.train_step)
  cost = step.lower(state, batch, jax.random.key(0)).compile().cost_analysis()
  if isinstance(cost, list):
    cost = cost[0]
  return float(cost["flops"])


class Forms:
  """One (solver, width): its grid in every form, timed one epoch at a time."""

  def __init__(self, model, dim, forms, seeds, types, num_train, channels,
               hidden_factor):
    self.data = random_data(types, num_train, dim)
    config = config_for(model, dim, channels, hidden_factor)
    config.data.train_types, config.grid.seeds = types, seeds
    self.batch = config.train.batch_size
    self.timed = {}
    for form in forms:
      if form in ("vmap", "scan"):
        config.grid.mode = form
        self.timed[form] = [TimedGrid(config, self.data)]
      elif form == "loop":
        config.grid.mode = "vmap"  # one cell: the reference of the tests
        cells = []
        for s in seeds:
          for t in types:
            config.grid.seeds, config.data.train_types = (s,), (t,)
            cells.append(TimedGrid(config, self.data,
                                   cells[0] if cells else None))
        config.data.train_types, config.grid.seeds = types, seeds
        self.timed[form] = cells
      else:
        raise ValueError(f"--forms: unknown form {form!r}; expected vmap, "
                         "scan or loop")
    self.flops = step_flops(next(iter(self.timed.values()))[0])

  def rate(self, form: str, epochs: int) -> float:
    """Training instances/s of one form over `epochs` epochs."""
    grids = self.timed[form]
    dt = sum(g.run(epochs) for g in grids)
    return sum(g.instances_per_epoch for g in grids) * epochs / dt
