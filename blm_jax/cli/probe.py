"""Probes a trained run: confusion matrices, latent traversal, projections.

  python -m blm_jax.cli.probe --workdir=W --analysis=confusion,traversal,projection
  python -m blm_jax.cli.probe --workdir=W --analysis=tsne   # needs the probe extra
  python -m blm_jax.cli.probe --workdir=W   # + regions: two_level_vae_subnets
  python -m blm_jax.cli.probe --table5=W1,W2,... --out=DIR    # 000 Table 5

writes PNGs and probe.json into W/probe/ (see blm_jax.analysis.probing).
"""

from __future__ import annotations

from blm_jax.analysis import probing
from blm_jax.cli import quiet, usage
from blm_jax.study import table5


# ---- Command line (flags defined only when run as a program) ---------------

def define_flags(flag_values=None):
  from absl import flags

  fv = flag_values if flag_values is not None else flags.FLAGS
  flags.DEFINE_string("workdir", None, "a run's workdir (launch.py)",
                      flag_values=fv)
  flags.DEFINE_list("analysis", None,
                    "analyses to run (blm_jax.analysis.probing.ANALYSES); "
                    "default: confusion,traversal,projection, plus regions "
                    "for a sparsified solver", flag_values=fv)
  flags.DEFINE_string("dataset", None, "TFDS name to probe on; default: the "
                      "run's own test data", flag_values=fv)
  flags.DEFINE_string("split", "test", "split of --dataset (or of the run's "
                      "datasets)", flag_values=fv)
  flags.DEFINE_string("data_dir", None, "TFDS data dir; default: the run's "
                      "config.data.data_dir or $BLM_DATA_DIR", flag_values=fv)
  flags.DEFINE_list("table5", [], "sent_vae workdirs of the blm_chunks "
                    "configs: write the 000 Table 5 report instead",
                    flag_values=fv)
  flags.DEFINE_string("out", ".", "folder of table5.md / table5.json",
                      flag_values=fv)
  return fv


def main(argv, flag_values=None):
  import os
  import sys

  from absl import app, flags

  quiet.quiet_logs()
  fv = flag_values if flag_values is not None else flags.FLAGS
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments: {argv[1:]}")
  if fv.table5:
    report = table5.write_table5(fv.table5, fv.out)
    print(report["markdown"])
    return
  if not fv.workdir:
    raise app.UsageError("--workdir is required (or --table5=...)")
  if not os.path.isdir(fv.workdir):
    sys.exit(f"error: --workdir={fv.workdir}: no such folder (the workdir "
             "of a run of launch.py)")
  result = probing.analyze(fv.workdir, fv.analysis, dataset=fv.dataset,
                           split=fv.split, data_dir=fv.data_dir)
  print(probing.summary_text(result))


if __name__ == "__main__":
  define_flags()
  usage.run(main)
