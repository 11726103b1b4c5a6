"""Where the two-level VAE's training step spends its time, one cell and 3x3.

  python benchmarks/vae2_breakdown.py --embed_dim=768 --channels=40

Each part of `Solver.train_step` for the vae2 model is jitted on its own,
forward plus backward, with the trainer's shapes (batch 100, 7 context
sentences, 9 answers): the sentence encoder (15x15 conv + dense; no gradient
flows into the frozen embeddings), the sentence decoder (dense + 15x15
transposed conv, gradients for its input and parameters), the sentence-level
pairwise scores and margin, the answer scores, the task level, and Adam. The
whole step is timed too: the parts need not add up to it exactly (XLA fuses
across part boundaries), but they show what dominates. Rounds interleave the
parts; medians. Vmapped over 9 cells, as the grid runs them, the figure is
per cell (time / 9). A JSON record goes to benchmarks/results/.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def parts(dim: int, channels: int, cells: int):
  """name -> (jitted fn, args) for one cell or `cells` vmapped cells."""
  import jax
  import jax.numpy as jnp
  import optax
  from blm_jax import models
  from blm_jax.training import throughput
  from blm_jax.models import losses
  from blm_jax.training import trainer as train
  from blm_jax.training.solver import Batch, Solver

  config = throughput.config_for("vae2", dim, channels, 3.5)
  model = models.create_model(config.model, embed_dim=dim, num_context=7,
                              score="cosine")
  b, c, a = 100, 7, 9
  k = jax.random.split(jax.random.key(0), 6)
  ctx = jax.random.normal(k[0], (b, c, dim))
  ans = jax.random.normal(k[1], (b, a, dim))
  mask = jnp.ones((b, c), bool)
  batch = Batch(ctx=ctx, ctx_mask=mask, ans=ans,
                ans_mask=jnp.ones((b, a), bool),
                correct=jnp.zeros((b,), jnp.int32))
  params = model.init({"params": k[2], "sample": k[3]}, ctx, mask, False)
  sent = model.sentence
  sp = {"params": params["params"]["sentence"]}
  z = jax.random.normal(k[4], (b, c, 5))
  decoded = jax.random.normal(k[5], (b, c, dim))
  solver = Solver(model=model, tx=train.create_optimizer(config.train),
                  score="cosine", answer_reduction="mean",
                  loss_weights=train.loss_weights(config, dim), batch_size=b)
  state = solver.init(jax.random.key(1), batch)

  def encoder(sp):
    mean, logvar = sent.apply(sp, ctx, method=sent.encode)
    return jnp.sum(mean) + jnp.sum(logvar ** 2)

  def decoder(sp, z):
    return jnp.sum(jnp.sin(sent.apply(sp, z, method=sent.decode)))

  def sentence_scores(decoded):
    s = losses.pairwise_score(decoded, ctx, "cosine")
    m = losses.max_margin(s, jnp.broadcast_to(jnp.arange(c), (b, c)),
                          mask[:, None, :] & mask[:, :, None], "mean")
    return jnp.sum(m)

  def answer_scores(pred):
    s = losses.score(pred, ans, "cosine")
    return jnp.sum(losses.max_margin(s, batch.correct, batch.ans_mask, "mean"))

  def adam(state):
    g = jax.tree.map(jnp.ones_like, state.params)
    upd, opt = solver.tx.update(g, state.opt_state, state.params)
    return optax.apply_updates(state.params, upd), opt

  def step(state):
    return solver.train_step(state, batch, jax.random.key(2))

  fns = {
      "sentence encoder": (jax.grad(encoder), (sp,)),
      "sentence decoder": (jax.grad(decoder, (0, 1)), (sp, z)),
      "sentence scores": (jax.grad(sentence_scores), (decoded,)),
      "answer scores": (jax.grad(answer_scores), (decoded[:, 0],)),
      "adam": (adam, (state,)),
      "whole step": (step, (state,)),
  }
  out = {}
  for name, (f, args) in fns.items():
    if cells > 1:
      args = jax.tree.map(lambda x: jnp.stack([x] * cells), args)
      f = jax.vmap(f)
    out[name] = (jax.jit(f), args)
  return out


def main():
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  p.add_argument("--embed_dim", type=int, default=768)
  p.add_argument("--channels", type=int, default=40)
  p.add_argument("--rounds", type=int, default=5)
  p.add_argument("--reps", type=int, default=3)
  p.add_argument("--out", default="")
  p.add_argument("--record", action="store_true",
                 help="replace the committed record in benchmarks/results/")
  a = p.parse_args()
  import jax
  from blm_jax.results import benchmark_record
  setups = {1: parts(a.embed_dim, a.channels, 1),
            9: parts(a.embed_dim, a.channels, 9)}
  for fns in setups.values():
    for f, args in fns.values():
      jax.block_until_ready(f(*args))
  ms = {n: {name: [] for name in fns} for n, fns in setups.items()}
  for _ in range(a.rounds):
    for n, fns in setups.items():
      for name, (f, args) in fns.items():
        t = time.perf_counter()
        for _ in range(a.reps):
          r = f(*args)
        jax.block_until_ready(r)
        ms[n][name].append((time.perf_counter() - t) / a.reps / n * 1e3)
  med = {n: {k: float(np.median(v)) for k, v in d.items()}
         for n, d in ms.items()}
  print(f"vae2 step parts, D={a.embed_dim}, {a.channels} channels, batch "
        f"100; ms per cell-step, medians of {a.rounds} rounds")
  print(f"{'part':18s} {'one cell':>9s} {'%':>5s} {'9 vmapped':>10s} {'%':>5s}")
  for name in med[1]:
    row = [f"{name:18s}"]
    for n in (1, 9):
      row.append(f"{med[n][name]:9.1f} "
                 f"{100 * med[n][name] / med[n]['whole step']:5.0f}")
    print(" ".join(row))
  path = benchmark_record.write_record(f"vae2_breakdown_D{a.embed_dim}", {
      "shapes": {"embed_dim": a.embed_dim, "channels": a.channels,
                 "batch_size": 100, "num_context": 7, "num_answers": 9,
                 "cells_vmapped": 9},
      "rounds": a.rounds, "ms_per_cell_step": ms, "median": med},
      benchmark_record.record_path(f"vae2_breakdown_D{a.embed_dim}", a.out,
                                   a.record))
  print(f"record: {path}")


if __name__ == "__main__":
  main()
