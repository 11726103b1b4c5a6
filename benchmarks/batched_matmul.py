"""Why a vmapped grid does not beat the loop of its cells on a CPU.

  python benchmarks/batched_matmul.py

A vmapped grid turns each layer's matmul into one batched matmul with
per-cell weights ([cells, M, K] x [cells, K, N]); the loop of cells runs
the same matmuls one by one. This times both on the solvers' shapes (9
cells): the FFNN's first layer at D=768, hidden 2D (100 x 5376 x 1536), the
sentence VAE's banded decoder and encoder matmuls at D=768, 40 channels
(700 sentences x 18 output rows: 12600 x 360 x 400 and 12600 x 400 x 360),
and the D=384 CNN's middle convolution (38000 x 120 x 24). Rounds interleave
the two forms; medians of ms per cell, and GFLOP/s. A JSON record goes to
benchmarks/results/.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SHAPES = {"ffnn layer 1, D=768": (100, 5376, 1536),
          "sentence decoder, D=768": (12600, 360, 400),
          "sentence encoder, D=768": (12600, 400, 360),
          "cnn conv 2, D=384": (38000, 120, 24)}


def main():
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  p.add_argument("--cells", type=int, default=9)
  p.add_argument("--rounds", type=int, default=5)
  p.add_argument("--out", default="")
  p.add_argument("--record", action="store_true",
                 help="replace the committed record in benchmarks/results/")
  a = p.parse_args()
  import jax
  from blm_jax.results import benchmark_record
  from blm_jax.training import throughput
  one = jax.jit(lambda x, w: x @ w)
  batched = jax.jit(jax.vmap(lambda x, w: x @ w))
  keys = jax.random.split(jax.random.key(0), 2)
  ms = {name: {"one by one": [], "batched": []} for name in SHAPES}
  args = {}
  for name, (m, k, n) in SHAPES.items():
    x = jax.random.normal(keys[0], (a.cells, m, k))
    w = jax.random.normal(keys[1], (a.cells, k, n))
    args[name] = (x, w, [x[i] for i in range(a.cells)],
                  [w[i] for i in range(a.cells)])
    jax.block_until_ready((one(args[name][2][0], args[name][3][0]),
                           batched(x, w)))
  for _ in range(a.rounds):
    for name, (x, w, xs, ws) in args.items():
      t = time.perf_counter()
      jax.block_until_ready([one(xi, wi) for xi, wi in zip(xs, ws)])
      ms[name]["one by one"].append((time.perf_counter() - t) / a.cells * 1e3)
      t = time.perf_counter()
      jax.block_until_ready(batched(x, w))
      ms[name]["batched"].append((time.perf_counter() - t) / a.cells * 1e3)
  med = {name: {form: float(np.median(v)) for form, v in d.items()}
         for name, d in ms.items()}
  print(f"{a.cells} cells; ms per cell, medians of {a.rounds} rounds")
  print(f"{'matmul':26s} {'M x K x N':>18s} {'one by one':>11s} "
        f"{'batched':>8s} {'GFLOP/s':>15s} {'batched/one':>11s}")
  for name, (m, k, n) in SHAPES.items():
    o, b = med[name]["one by one"], med[name]["batched"]
    gf = lambda t: 2 * m * k * n / t / 1e6
    print(f"{name:26s} {f'{m}x{k}x{n}':>18s} {o:11.2f} {b:8.2f} "
          f"{gf(o):7.0f} /{gf(b):6.0f} {o / b:11.2f}")
  path = benchmark_record.write_record("batched_matmul", {
      "shapes": {name: list(s) for name, s in SHAPES.items()},
      "cells": a.cells, "rounds": a.rounds, "ms_per_cell": ms,
      "median": med, "matmul_gflops": throughput.matmul_gflops()},
      benchmark_record.record_path("batched_matmul", a.out, a.record))
  print(f"record: {path}")


if __name__ == "__main__":
  main()
