"""The authors' PyTorch solvers against ours, in one run.

  python benchmarks/authors_side_by_side.py --authors=PATH_TO_CHECKOUT
  python benchmarks/authors_side_by_side.py --authors=PATH_TO_CHECKOUT \
      --models=cnn_seq,vae,vae_1d_2level,two_level_vae_subnets

The authors' code (github.com/CLCL-Geneva/BLM-SNFDisentangling) is imported
from the checkout given by --authors, never copied; torch is needed only
here (it is not a dependency of blm_jax). Same shapes on both sides: D=768
(Electra), 7 context sentences, 9 answers, batch 100, Adam (lr 1e-3).

Per round, interleaved so a shared machine slows every side alike:
  * this machine's float32 (and bfloat16) matmul rate, XLA and torch;
  * the authors' training step (model forward, their `compute_vae_loss`,
    backward, Adam) on fixed random batches, --steps steps;
  * ours: one cell, and the 3x3 grid in the form `grid.mode='auto'` picks
    (vmapped, or scanned over cells for vae2 on a CPU), one epoch each (each
    epoch also runs the dev-accuracy pass, which the authors' timing leaves
    out).
Reported: training instances/s (medians over rounds), ratios ours/authors,
and each step's FLOPs (XLA's cost analysis for ours, torch's FlopCounterMode
for theirs) over the measured float32 matmul rate ("efficiency": a step far
under the matmul rate is moving bytes, not computing).

Architectures: the authors' FFNN is 7D -> 2D -> 2D -> D (ours is run with
hidden_factor=2 to match). Our two-level VAE is `configs/vae2.py:reference`,
the authors' VariationalAutoencoder_2level (4x4-conv task encoder, 15x15
transposed-conv task decoder, 15x15 sentence convolutions with --channels
channels, latents 5; the same parameter count, tests/models/test_objective.py)
and their loss (normalised sentence scores, mean hinges).

The other solvers (`--models`) are their modules as their run_funcs.py
builds them for `--baseline_sys=cnn_seq` and `--sys=vae | vae_1d_2level |
two_level_vae_subnets` (default arguments, D and 7 sentences), against our
`configs/<name>.py:reference` (their architecture and their training
code's loss). Their samplers are `simpleSampling(5)`, as for vae2 above:
their command line's default `joint` sampler with no categories computes
the same numbers plus a constant, through a Python loop over the batch.
Each model's parameter count on both sides goes in the record (the parity
tests map their weights one to one onto ours, so the counts must agree;
parameters of theirs that no forward uses are named and left out), so a
mismatch shows. A record with any of these is
written as authors_side_by_side_new_solvers_D<dim>; vae2 and ffnn alone
keep authors_side_by_side_D<dim>.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import types

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The first record's models, then the others their code has (issue 36).
FIRST_MODELS = ("vae2", "ffnn")
NEW_MODELS = ("cnn_seq", "vae", "vae_1d_2level", "two_level_vae_subnets")
# Where the two sides' timed steps differ (the models' docstrings list the
# rest, none of which changes a training step's work).
DIFFERENCES = {
    "vae2": "their sentence negatives: the 3 sentences after each in the "
            "batch, gathered in a Python loop over the 700 sentences; ours: "
            "the instance's other context sentences",
    "ffnn": "ours runs hidden_factor=2 (their 2D hidden layers)",
    "cnn_seq": "none in the step (ours flattens (row, column, channel), a "
               "permutation of their dense layer's rows)",
    "vae": "none in the step (ours puts the latent means before the "
           "log-variances, a permutation of their dense layer's outputs)",
    "vae_1d_2level": "sentence negatives as for vae2",
    "two_level_vae_subnets": "sentence negatives as for vae2; their masked "
                             "layers' weights take no gradient (out of the "
                             "graph), ours are frozen by "
                             "masked_weights_train=False; their masked "
                             "layers build the masked weight matrix in a "
                             "Python loop over its inputs every step",
}
# Their parameters that no forward uses (names by prefix), left out of the
# count compared with ours: Encoder_2D_subnets keeps its parent Encoder_2D's
# dense layer `lin`, each masked layer holds its masked weight matrix as a
# requires_grad=False parameter, and RevMaskedLinear's forward drops its bias.
UNUSED = {"two_level_vae_subnets": ("sentence_encoder.lin.",
                                    "sentence_encoder.lin_mask.masked_weights",
                                    "sentence_decoder.lin.masked_weights",
                                    "sentence_decoder.lin.bias")}


def _import_authors(path: str):
  """Imports the authors' modules from their checkout.

  pandas, scipy and torchmetrics are imported by their utility modules at
  import time only (for data handling and analyses, never in a training
  step); where they are not installed, a placeholder module that raises on
  any use stands in while their modules are imported (then it is removed
  from sys.modules), so a use in the timed path could not go unnoticed.
  """
  import importlib.util
  import torch._dynamo  # noqa: F401  (probes installed modules itself)
  missing = [top for top in ("pandas", "scipy", "torchmetrics")
             if top not in sys.modules
             and importlib.util.find_spec(top) is None]
  for top in missing:
    sys.modules[top] = _Placeholder(top)
    subs = {"scipy": ["stats"], "torchmetrics": ["functional"]}
    for sub in subs.get(top, []):
      sys.modules[f"{top}.{sub}"] = _Placeholder(f"{top}.{sub}")
      setattr(sys.modules[top], sub, sys.modules[f"{top}.{sub}"])
  if missing:
    print(f"placeholders (import-time only): {', '.join(missing)}")
  sys.path.insert(0, path)
  import logging
  logging.getLogger().setLevel(logging.WARNING)
  from baselines import baseline  # noqa: E402
  from utils import losses  # noqa: E402
  from vaes import VAE, sampling  # noqa: E402
  for name in list(sys.modules):  # Only the authors' modules keep them.
    if isinstance(sys.modules[name], _Placeholder):
      del sys.modules[name]
  return baseline, losses, VAE, sampling


class _Placeholder(types.ModuleType):

  def __getattr__(self, attr):
    if attr.startswith("__"):
      raise AttributeError(attr)
    name = self.__name__

    def unavailable(*a, **k):
      raise RuntimeError(f"{name}.{attr} is not installed; the benchmark "
                         "assumed it is used only outside training steps")
    return unavailable


class AuthorsStep:
  """The authors' training step: forward, compute_vae_loss, backward, Adam."""

  def __init__(self, model_name, authors, dim, batch, n_ctx, n_ans,
               channels, seed=0):
    import torch
    baseline, losses, VAE, sampling = authors
    torch.manual_seed(seed)
    two = [sampling.simpleSampling(5), sampling.simpleSampling(5)]
    if model_name == "vae2":
      self.model = VAE.VariationalAutoencoder_2level(
          dim, n_ctx, two, hidden_channels_sent=channels, device="cpu")
    elif model_name == "ffnn":
      self.model = baseline.BaselineFFNN(dim, n_ctx)
    elif model_name == "cnn_seq":
      self.model = baseline.BaselineCNN_1DxSeq(dim, n_ctx)
    elif model_name == "vae":
      # Their decoder sets kernel_size[0] = 1 in the list it is given, which
      # by default is the constructor's default list: every
      # VariationalAutoencoder built after the first in one process gets a
      # 1 x 15 x 15 encoder kernel. A fresh list gives the first one's
      # 3 x 15 x 15 whatever ran before.
      self.model = VAE.VariationalAutoencoder(
          dim, n_ctx, sampling.simpleSampling(5), kernel_size=[3, 15, 15],
          device="cpu")
    elif model_name == "vae_1d_2level":
      self.model = VAE.VariationalAutoencoder_1D_2level(dim, n_ctx, two,
                                                        device="cpu")
    else:
      self.model = VAE.VariationalAutoencoder_2level_subnets(
          dim, n_ctx, two, device="cpu")
    self.losses = losses
    self.args = argparse.Namespace(device="cpu", latent=5, sent_emb_dim=dim,
                                   latent_sent_dim_cont=5)
    self.opt = torch.optim.Adam(self.model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(seed)
    self.batches = []
    for _ in range(4):
      seq = torch.randn(batch, n_ctx, dim, generator=g)
      y = torch.randn(batch, n_ans, dim, generator=g)
      truth = torch.nn.functional.one_hot(
          torch.randint(n_ans, (batch,), generator=g), n_ans).float()
      self.batches.append((seq, y, truth))
    self.batch = batch
    self.model.train()
    self.step(0)  # warm-up

  def step(self, i):
    seq, y, truth = self.batches[i % len(self.batches)]
    self.opt.zero_grad()
    out = self.model(seq)
    loss = self.losses.compute_vae_loss(self.model, seq, y, truth, out,
                                        [1.0, 1.0], self.args)
    loss.backward()
    self.opt.step()
    return loss

  def run(self, steps) -> float:
    t = time.perf_counter()
    for i in range(steps):
      self.step(i)
    return time.perf_counter() - t

  def flops(self) -> float:
    from torch.utils.flop_counter import FlopCounterMode
    with FlopCounterMode(display=False) as counter:
      self.step(0)
    return float(counter.get_total_flops())

  def param_counts(self, unused=()) -> dict:
    """All parameters, those no forward uses (`unused`: name prefixes),
    the rest, and those a step gives a gradient (their subnets' masked
    layers copy their weights out of the graph)."""
    ps = dict(self.model.named_parameters())
    n = lambda names: sum(ps[k].numel() for k in names)
    dead = [k for k in ps if k.startswith(tuple(unused))]
    return {"all": n(ps), "unused": n(dead),
            "used": n(ps) - n(dead),
            "with_gradient": n(k for k in ps if ps[k].grad is not None)}


def our_config(name: str, dim: int, channels: int):
  """Our side of `name`: vae2 and ffnn as the first record ran them, the
  others `configs/<name>.py:reference` (their architecture and loss)."""
  import importlib

  from blm_jax.training import throughput
  if name == "ffnn":
    return throughput.config_for(name, dim, channels, hidden_factor=2.0)
  config = importlib.import_module(f"configs.{name}").get_config("reference")
  if name == "vae2":  # The authors' architecture: configs/vae2.py:reference
    config.model.channels = (channels,)
  config.progress = False
  return config


def our_param_count(timed) -> int:
  """One cell's parameters (the grid's state has a leading cell axis)."""
  import jax
  leaves = jax.tree.leaves(timed.state.params)
  return sum(int(np.prod(x.shape[1:])) for x in leaves)


def matmul_rates(n=2048, reps=5):
  """GFLOP/s of an n x n matmul: XLA float32, XLA bfloat16, torch float32."""
  import torch

  from blm_jax.training import throughput
  out = {f"xla_{k}": v for k, v in throughput.matmul_gflops(n, reps).items()}
  a = torch.ones(n, n)
  a @ a
  t = time.perf_counter()
  for _ in range(reps):
    a @ a
  out["torch_f32"] = 2 * n ** 3 * reps / (time.perf_counter() - t) / 1e9
  return out


def markdown_table(record: dict) -> str:
  """benchmarks/README.md's tables of a record: per model and side,
  instances/s, the ratio over the authors' (median, and per round), FLOPs
  and efficiency; then the parameter counts where the record has them."""
  sides = {"authors": "authors", "cell": "ours, one cell",
           "grid": "ours, 3x3 grid"}
  lines = ["| model | side | instances/s | / authors | / authors, rounds "
           "| GFLOP per step | efficiency |", "| --- " * 7 + "|"]
  for m, s in record["summary"].items():
    rounds = record["per_round"][m]
    for k, label in sides.items():
      if k == "grid":
        label += f" ({record['grid_modes'][m]})"
      ratio, per = "", ""
      if k != "authors":
        ratio = f"{s['ratio_over_authors'][k]:.2f}"
        per = ", ".join(f"{x / y:.2f}"
                        for x, y in zip(rounds[k], rounds["authors"]))
      fl = s["gflop_per_step"]["authors" if k == "authors" else "ours"]
      lines.append(f"| {m} | {label} | {s['instances_per_s'][k]:.0f} | "
                   f"{ratio} | {per} | {fl:.2f} | {s['efficiency'][k]:.0%} |")
  counted = {m: s["parameters"] for m, s in record["summary"].items()
             if "parameters" in s}
  if counted:
    lines += ["", "| model | parameters, ours | authors', used (all) | "
              "authors', with a gradient | same | where the steps differ |",
              "| --- " * 6 + "|"]
    for m, pc in counted.items():
      au = pc["authors"]
      lines.append(f"| {m} | {pc['ours']:,} | {au['used']:,} ({au['all']:,})"
                   f" | {au['with_gradient']:,} | "
                   f"{'yes' if pc['same_count'] else 'no'} | "
                   f"{pc['differences']} |")
  return "\n".join(lines)


def main():
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  p.add_argument("--authors", default="",
                 help="checkout of CLCL-Geneva/BLM-SNFDisentangling")
  p.add_argument("--table", default="", metavar="RECORD",
                 help="print the README tables of this record and exit")
  p.add_argument("--models", default="vae2,ffnn")
  p.add_argument("--embed_dim", type=int, default=768)
  p.add_argument("--channels", type=int, default=40)
  p.add_argument("--rounds", type=int, default=5)
  p.add_argument("--steps", type=int, default=8,
                 help="authors' steps per round")
  p.add_argument("--num_train", type=int, default=400,
                 help="our training instances per type (an epoch is "
                 "num_train/100 steps per cell)")
  p.add_argument("--torch_threads", type=int, default=os.cpu_count(),
                 help="1 is their fastest on a loaded machine "
                 "(benchmarks/README.md)")
  p.add_argument("--out", default="")
  p.add_argument("--record", action="store_true",
                 help="replace the committed record in benchmarks/results/")
  a = p.parse_args()
  if a.table:
    import json
    with open(a.table) as f:
      print(markdown_table(json.load(f)))
    return
  if not a.authors:
    p.error("--authors=CHECKOUT is required (or --table=RECORD)")
  models = a.models.split(",")
  unknown = [m for m in models if m not in FIRST_MODELS + NEW_MODELS]
  if unknown:
    p.error(f"--models: unknown {', '.join(unknown)} (known: "
            f"{', '.join(FIRST_MODELS + NEW_MODELS)})")
  if not os.path.isfile(os.path.join(a.authors, "vaes", "VAE.py")):
    p.error(f"--authors={a.authors!r} is not a checkout of "
            "CLCL-Geneva/BLM-SNFDisentangling (no vaes/VAE.py)")

  import jax
  import torch
  from blm_jax.results import benchmark_record
  from blm_jax.training import throughput
  torch.set_num_threads(a.torch_threads)
  authors = _import_authors(os.path.abspath(a.authors))
  dim, batch, n_ctx, n_ans = a.embed_dim, 100, 7, 9
  types3 = ("I", "II", "III")
  data = throughput.random_data(types3, a.num_train, dim)

  # One model at a time (the D=768 FFNN grid's state alone is ~1.7 GB);
  # within a model, rounds interleave the matmul rate and the three sides.
  rates = {k: [] for k in ("xla_f32", "xla_bf16", "torch_f32")}
  figs, flops, grid_modes, params, loads = {}, {}, {}, {}, []
  for m in models:
    config = our_config(m, dim, a.channels)
    config.train.batch_size = batch
    config.data.train_types, config.grid.seeds = types3[:1], (0,)
    sides = {"cell": throughput.TimedGrid(config, data)}
    config.data.train_types, config.grid.seeds = types3, (0, 1, 2)
    sides["grid"] = throughput.TimedGrid(config, data)
    grid_modes[m] = sides["grid"].grid.mode  # grid.mode='auto' resolved
    theirs = AuthorsStep(m, authors, dim, batch, n_ctx, n_ans, a.channels)
    flops[m] = {"ours": throughput.step_flops(sides["cell"]),
                "authors": theirs.flops()}
    params[m] = {"ours": our_param_count(sides["cell"]),
                 "authors": theirs.param_counts(UNUSED.get(m, ()))}
    figs[m] = f = {"authors": [], "cell": [], "grid": []}
    for r in range(a.rounds):
      loads.append(os.getloadavg()[0])  # The machine's load, per round.
      for k, v in matmul_rates().items():
        rates[k].append(v)
      f["authors"].append(a.steps * batch / theirs.run(a.steps))
      for k in ("cell", "grid"):
        f[k].append(sides[k].instances_per_epoch / sides[k].run(1))
      print(f"{m} round {r + 1}/{a.rounds}: authors {f['authors'][-1]:.0f}, "
            f"cell {f['cell'][-1]:.0f}, grid {f['grid'][-1]:.0f} "
            "instances/s", flush=True)
    del sides, theirs

  med = lambda xs: float(np.median(xs))
  f32 = med(rates["xla_f32"])
  dev = jax.devices()[0]
  print(f"\ndevice: {dev.device_kind} ({jax.default_backend()}), "
        f"{os.cpu_count()} CPUs, torch threads {a.torch_threads}; D={dim}, "
        f"batch {batch}, {a.rounds} interleaved rounds, medians")
  print("matmul 2048^2 GFLOP/s: " + ", ".join(
      f"{k} {med(v):.0f}" for k, v in rates.items()))
  summary = {}
  print(f"{'model':6s} {'side':8s} {'inst/s':>8s} {'/authors':>9s} "
        f"{'GFLOP/step':>10s} {'eff.':>6s}")
  for m, f in figs.items():
    fl = flops[m]
    ratios = {k: [x / y for x, y in zip(f[k], f["authors"])]
              for k in ("cell", "grid")}
    summary[m] = {"instances_per_s": {k: med(v) for k, v in f.items()},
                  "ratio_over_authors": {k: med(v) for k, v in ratios.items()},
                  "gflop_per_step": {k: v / 1e9 for k, v in fl.items()}}
    for k in ("authors", "cell", "grid"):
      step_flops = fl["authors" if k == "authors" else "ours"]
      # Achieved FLOP/s over the matmul rate (grid: per-instance FLOPs
      # times the grid's instances/s).
      eff = step_flops / batch * med(f[k]) / (f32 * 1e9)
      summary[m].setdefault("efficiency", {})[k] = eff
      ratio = "" if k == "authors" else f"{med(ratios[k]):9.2f}"
      print(f"{m:6s} {k:8s} {med(f[k]):8.0f} {ratio:>9s} "
            f"{step_flops / 1e9:10.2f} {eff:6.1%}")
    pc = params[m]
    same = pc["ours"] == pc["authors"]["used"]
    summary[m]["parameters"] = {**pc, "same_count": same,
                                "differences": DIFFERENCES[m]}
    print(f"{m}: parameters ours {pc['ours']:,}, authors "
          f"{pc['authors']['used']:,} used of {pc['authors']['all']:,} "
          f"({pc['authors']['with_gradient']:,} with a gradient)"
          f"{'' if same else ' DIFFER'}; {DIFFERENCES[m]}")
  name = f"authors_side_by_side_D{dim}"
  if set(models) - set(FIRST_MODELS):
    name = f"authors_side_by_side_new_solvers_D{dim}"
  path = benchmark_record.write_record(name, {
      "shapes": {"embed_dim": dim, "batch_size": batch, "num_context": n_ctx,
                 "num_answers": n_ans, "channels": a.channels,
                 "grid": "3x3", "num_train_per_type": a.num_train,
                 "authors_steps_per_round": a.steps,
                 "torch_threads": a.torch_threads},
      "torch": torch.__version__, "rounds": a.rounds, "grid_modes": grid_modes,
      "matmul_gflops": rates, "load_average_1min": loads, "per_round": figs,
      "summary": summary},
      benchmark_record.record_path(name, a.out, a.record))
  print(f"record: {path}")


if __name__ == "__main__":
  main()
