"""Grid throughput: every grid form against the loop of its cells.

  python -m blm_jax.cli.bench --models=ffnn,cnn,sent_vae,vae2 --dims=384,768

For each solver and width, the same 3x3 grid is built three ways by the
same code (`trainer.build_grid`): vmapped (`grid.mode=vmap`), scanned over
cells inside one jit (`grid.mode=scan`), and as a loop of one-cell grids
(each cell alone; the loop spends the sum of their times). Training speed
does not depend on what the embeddings say, so the data is random with the
paper's shapes (7 context sentences, 9 answers, D=384 as MiniLM or 768 as
Electra). One (solver, width) at a time: its forms are compiled, then each
round measures this machine's float32 (and bfloat16) matmul rate and one
epoch of every form, interleaved (the order rotating), so a shared, noisy
machine slows all alike. Reported: training instances/s and the ratios grid/loop (medians of
the per-round ratios), and the efficiency: one step's FLOPs (XLA's cost
analysis of one cell's training step) per instance times instances/s, over
the matmul rate of the same round; a form far under the matmul rate is
moving bytes, not computing. The timing harness is
`blm_jax.training.throughput`; a JSON record
(`blm_jax.results.benchmark_record`, also used by benchmarks/*.py) goes to
workdirs/benchmarks/ (with --record, benchmarks/results/), rewritten after
every (solver, width).
"""

from __future__ import annotations

import json
import time

from absl import flags
import jax
import numpy as np

from blm_jax.cli import quiet, usage
from blm_jax.results.benchmark_record import record_path, write_record
from blm_jax.training.throughput import Forms, matmul_gflops


def markdown_table(record: dict) -> str:
  """The README table of a grid_forms record: per (solver, width) and form,
  instances/s, the median and per-round ratios over the loop of cells, and
  the efficiency (medians)."""
  forms = record["forms"]
  lines = ["| solver | D | form | instances/s | / loop (median) | / loop, "
           "rounds | GFLOP per step and cell | efficiency |",
           "| --- | --- | --- | --- | --- | --- | --- | --- |"]
  for s in record["summary"].values():
    for f in forms:
      rounds = s.get("ratio_over_loop_rounds", {}).get(f)
      ratio = s.get("ratio_over_loop", {}).get(f)
      lines.append(
          f"| {s['model']} | {s['embed_dim']} | {f} | "
          f"{s['instances_per_s'][f]:.0f} | "
          f"{'' if ratio is None else f'{ratio:.2f}'} | "
          f"{'' if rounds is None else ', '.join(f'{x:.2f}' for x in rounds)}"
          f" | {s['gflop_per_step']:.2f} | {s['efficiency'][f]:.0%} |")
  return "\n".join(lines)

def define_flags() -> None:
  """The command line (defined only when run, so importing this module
  defines no absl flags)."""
  global _MODELS, _DIMS, _MODEL, _DIM, _FORMS, _SEEDS, _TYPES, _ROUNDS, _EPOCHS, _TRAIN, _CHANNELS, _HIDDEN, _TABLE, _OUT, _RECORD
  _MODELS = flags.DEFINE_list("models", ["ffnn", "cnn", "sent_vae", "vae2"],
                             "Solvers.")
  _DIMS = flags.DEFINE_list("dims", ["384", "768"], "Embedding dimensions.")
  _MODEL = flags.DEFINE_string("model", None, "One solver (replaces --models).")
  _DIM = flags.DEFINE_integer("embed_dim", None,
                              "One dimension (replaces --dims).")
  _FORMS = flags.DEFINE_list("forms", ["vmap", "scan", "loop"],
                             "Grid forms: vmap, scan (grid.mode) and loop.")
  _SEEDS = flags.DEFINE_integer("seeds", 3, "Seeds in the grid.")
  _TYPES = flags.DEFINE_integer("types", 3, "Train types in the grid.")
  _ROUNDS = flags.DEFINE_integer("rounds", 3, "Interleaved timed rounds.")
  _EPOCHS = flags.DEFINE_integer("epochs", 1, "Epochs per grid per round.")
  _TRAIN = flags.DEFINE_integer("num_train", 400, "Training instances/type.")
  _CHANNELS = flags.DEFINE_integer(
      "channels", 40, "Sentence-VAE channels (vae2, sent_vae); 000 uses 40.")
  _HIDDEN = flags.DEFINE_float("hidden_factor", 3.5, "FFNN hidden width / D.")
  _TABLE = flags.DEFINE_string(
      "table", "", "Print the markdown table of this grid_forms record and exit.")
  _OUT = flags.DEFINE_string("out", "", "JSON record path; default "
                             "workdirs/benchmarks/grid_forms.json, or with "
                             "--record benchmarks/results/grid_forms.json.")
  _RECORD = flags.DEFINE_bool("record", False, "Replace the committed record "
                              "benchmarks/results/grid_forms.json.")


def main(argv):
  del argv
  quiet.quiet_logs()  # jax's backend INFO lines (libtpu) off the console.
  if _TABLE.value:
    with open(_TABLE.value) as f:
      print(markdown_table(json.load(f)))
    return
  med = lambda xs: float(np.median(xs))
  types = tuple(["I", "II", "III", "IV", "V"][:_TYPES.value])
  seeds = tuple(range(_SEEDS.value))
  forms = list(_FORMS.value)
  models = [_MODEL.value] if _MODEL.value else _MODELS.value
  dims = [_DIM.value] if _DIM.value else [int(d) for d in _DIMS.value]
  combos = [(m, d) for m in models for d in dims]
  print(f"device: {jax.devices()[0].device_kind} x {jax.device_count()} "
        f"({jax.default_backend()}); grid {len(seeds)}x{len(types)}, "
        f"train/type {_TRAIN.value}, {_ROUNDS.value} rounds x "
        f"{_EPOCHS.value} epoch(s)", flush=True)
  # One (solver, width) at a time, so memory is that of one (the FFNN's 27
  # cell states at D=768 are ~5 GB); its rounds interleave the matmul rate
  # and every form.
  matmul = {"f32": [], "bf16": []}
  rates, summary, path = {}, {}, ""
  for i, (m, d) in enumerate(combos):
    t = time.perf_counter()
    b = Forms(m, d, forms, seeds, types, _TRAIN.value, _CHANNELS.value,
              _HIDDEN.value)
    print(f"compiled {m} D={d} ({time.perf_counter() - t:.0f} s; "
          f"{b.flops / 1e9:.2f} GFLOP per step and cell)", flush=True)
    key = f"{m}_D{d}"
    fig = rates[key] = {f: [] for f in forms}
    mm = []
    for r in range(_ROUNDS.value):
      mm.append(matmul_gflops())
      # Rotate the order of the forms from round to round.
      order = forms[(r + i) % len(forms):] + forms[:(r + i) % len(forms)]
      for f in order:
        fig[f].append(b.rate(f, _EPOCHS.value))
      print(f"round {r + 1}/{_ROUNDS.value} {m} D={d}: " + ", ".join(
          f"{f} {fig[f][-1]:.0f}" for f in forms)
            + f" instances/s; matmul f32 {mm[-1]['f32']:.0f} GFLOP/s",
            flush=True)
    for k in matmul:
      matmul[k] += [x[k] for x in mm]
    s = summary[key] = {
        "model": m, "embed_dim": d, "gflop_per_step": b.flops / 1e9,
        "instances_per_s": {f: med(v) for f, v in fig.items()},
        # FLOPs/s achieved over the same round's float32 matmul rate.
        "efficiency": {f: med([b.flops / b.batch * x / (g["f32"] * 1e9)
                               for x, g in zip(v, mm)])
                       for f, v in fig.items()}}
    if "loop" in fig:
      s["ratio_over_loop_rounds"] = {
          f: [x / y for x, y in zip(fig[f], fig["loop"])]
          for f in forms if f != "loop"}
      s["ratio_over_loop"] = {f: med(v) for f, v in
                              s["ratio_over_loop_rounds"].items()}
    del b
    path = write_record("grid_forms", {
        "shapes": {"seeds": len(seeds), "types": len(types),
                   "num_train": _TRAIN.value, "batch_size": 100,
                   "num_context": 7, "num_answers": 9,
                   "channels": _CHANNELS.value,
                   "hidden_factor": _HIDDEN.value},
        "forms": forms, "done": list(summary), "rounds": _ROUNDS.value,
        "epochs_per_round": _EPOCHS.value, "matmul_gflops": matmul,
        "per_round": rates, "summary": summary},
        record_path("grid_forms", _OUT.value, _RECORD.value))
  print(f"\nmatmul 2048^2 GFLOP/s, medians: f32 {med(matmul['f32']):.0f}, "
        f"bf16 {med(matmul['bf16']):.0f}")
  print(f"{'solver':9s} {'D':>4s} {'form':5s} {'inst/s':>8s} {'/loop':>6s} "
        f"{'rounds /loop':24s} {'GFLOP/step':>10s} {'eff.':>6s}")
  for key, s in summary.items():
    for f in forms:
      ratio = s.get("ratio_over_loop", {}).get(f)
      rounds = s.get("ratio_over_loop_rounds", {}).get(f, [])
      print(f"{s['model']:9s} {s['embed_dim']:4d} {f:5s} "
            f"{s['instances_per_s'][f]:8.0f} "
            f"{'' if ratio is None else f'{ratio:6.2f}':>6s} "
            f"{', '.join(f'{x:.2f}' for x in rounds):24s} "
            f"{s['gflop_per_step']:10.2f} {s['efficiency'][f]:6.1%}")
  print(f"record: {path}")


if __name__ == "__main__":
  define_flags()
  usage.run(main)
