"""Each solver's training step alone, inside a scan, and vmapped in a scan.

  python benchmarks/step_in_scan.py --embed_dim=384

An epoch runs its steps in a `lax.scan`; XLA's CPU convolution lost a
factor of 3-5 there, which is why the CNN's convolutions are banded
matmuls (`blm_jax/models/banded_conv.py`). For every solver, and for the
CNN written with flax's `nn.Conv` (XLA's convolution, the CNN as first
written; same parameters), the trainer's training step (`Solver.train_step`:
forward, backward, Adam; batch 100, 7 context sentences (1 for the sentence
VAE), 9 answers) runs in three settings: jitted alone (16 calls), as one
step of a 16-step `lax.scan` (how an epoch runs it) and as a 16-step scan
of 9 vmapped cells (the vmapped grid). Rounds interleave everything; medians
of ms per cell and step. A JSON record goes to benchmarks/results/.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

STEPS = 16
NN_CONV = "cnn nn.Conv"
SETTINGS = ("alone", "in a scan", "in a scan, 9 vmapped")


def nn_conv_cnn(embed_dim: int, channels):
  """The CNN with flax's nn.Conv (NHWC): the parameters of the project's."""
  import flax.linen as nn
  from blm_jax.models.common import SolverOutput

  class NNConvCNN(nn.Module):
    @nn.compact
    def __call__(self, ctx, ctx_mask, train=False):
      x = (ctx * ctx_mask[..., None])[..., None]
      for i, ch in enumerate(channels):
        x = nn.relu(nn.Conv(ch, (3, 3), padding="VALID",
                            name=f"conv{i + 1}")(x))
      x = x.reshape(x.shape[0], -1)
      return SolverOutput(pred=nn.Dense(embed_dim, name="out")(x), latent=x)

  return NNConvCNN()


def settings(name: str, dim: int):
  """setting -> (fn, state, steps it runs) for one solver."""
  import jax
  import jax.numpy as jnp
  from blm_jax import models
  from blm_jax.training import throughput
  from blm_jax.training import trainer as train
  from blm_jax.training.solver import Batch, Solver

  solver_name = name.split()[0]
  config = throughput.config_for(solver_name, dim, 40, 3.5)
  b, c, a = 100, 1 if solver_name == "sent_vae" else 7, 9
  if name == NN_CONV:
    model = nn_conv_cnn(dim, tuple(config.model.channels))
  else:
    model = models.create_model(config.model, embed_dim=dim, num_context=c,
                                score=config.train.score,
                                loss_cfg=config.loss)
  k = jax.random.split(jax.random.key(0), 2)
  batch = Batch(ctx=jax.random.normal(k[0], (b, c, dim)),
                ctx_mask=jnp.ones((b, c), bool),
                ans=jax.random.normal(k[1], (b, a, dim)),
                ans_mask=jnp.ones((b, a), bool),
                correct=jnp.zeros((b,), jnp.int32))
  solver = Solver(model=model, tx=train.create_optimizer(config.train),
                  score=config.train.score,
                  answer_reduction=config.loss.answer_reduction,
                  loss_weights=train.loss_weights(config, dim), batch_size=b)
  state = solver.init(jax.random.key(1), batch)

  jit_step = jax.jit(
      lambda s, i: solver.train_step(s, batch, jax.random.key(i))[0])

  def steps(state):  # STEPS calls of the step jitted alone
    for i in range(STEPS):
      state = jit_step(state, i)
    return state

  def scan(state):
    body = lambda s, i: (solver.train_step(s, batch, jax.random.key(i))[0],
                         None)
    return jax.lax.scan(body, state, jnp.arange(STEPS))[0]

  cells9 = jax.tree.map(lambda x: jnp.stack([x] * 9), state)
  return {"alone": (steps, state, STEPS),
          "in a scan": (jax.jit(scan), state, STEPS),
          "in a scan, 9 vmapped": (jax.jit(jax.vmap(scan)), cells9,
                                   9 * STEPS)}


def main():
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  p.add_argument("--embed_dim", type=int, default=384)
  p.add_argument("--models", default=f"{NN_CONV},cnn,ffnn,sent_vae,vae2",
                 help="comma-separated; 'cnn nn.Conv' is the CNN with "
                 "XLA's convolution")
  p.add_argument("--rounds", type=int, default=3)
  p.add_argument("--out", default="")
  p.add_argument("--record", action="store_true",
                 help="replace the committed record in benchmarks/results/")
  a = p.parse_args()
  import jax
  from blm_jax.results import benchmark_record
  names = a.models.split(",")
  runs = {(m, s): v for m in names
          for s, v in settings(m, a.embed_dim).items()}
  for fn, args, _ in runs.values():
    jax.block_until_ready(fn(args))
  ms = {key: [] for key in runs}
  for _ in range(a.rounds):
    for key, (fn, args, per) in runs.items():
      t = time.perf_counter()
      jax.block_until_ready(fn(args))
      ms[key].append((time.perf_counter() - t) / per * 1e3)
  med = {key: float(np.median(v)) for key, v in ms.items()}
  print(f"training step, D={a.embed_dim}, batch 100; ms per cell and step, "
        f"medians of {a.rounds} rounds")
  print(f"{'solver':12s} " + " ".join(f"{s:>21s}" for s in SETTINGS) +
        "  alone/scan")
  for m in names:
    row = [med[m, s] for s in SETTINGS]
    print(f"{m:12s} " + " ".join(f"{x:21.1f}" for x in row) +
          f" {row[0] / row[1]:11.2f}")
  path = benchmark_record.write_record(f"step_in_scan_D{a.embed_dim}", {
      "shapes": {"embed_dim": a.embed_dim, "batch_size": 100,
                 "num_context": "7 (sent_vae: 1)", "num_answers": 9,
                 "scan_steps": STEPS, "cells_vmapped": 9,
                 "vae_channels": 40},
      "rounds": a.rounds,
      "ms_per_cell_step": {f"{m} / {s}": v for (m, s), v in ms.items()},
      "median": {f"{m} / {s}": v for (m, s), v in med.items()}},
      benchmark_record.record_path(f"step_in_scan_D{a.embed_dim}", a.out,
                                   a.record))
  print(f"record: {path}")


if __name__ == "__main__":
  main()
