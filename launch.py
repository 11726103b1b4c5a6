"""Trains a BLM solver grid from a config file.

  python launch.py --config=configs/vae2.py --workdir=workdirs/vae2
  python launch.py --config=configs/ffnn.py:dataset=agreement_fr,cpu \
      --config.grid.seeds=0,1,2,3,4 --config.train.epochs=60 --workdir=...

Every config field can be overridden with --config.<key>=<value>; a key that
does not exist is reported with the list of valid keys.
"""

import difflib
import importlib.util
import sys

from absl import app, flags
from ml_collections import config_flags

_CONFIG = config_flags.DEFINE_config_file(
    "config", None, "Experiment config file (configs/<name>.py[:variant]).",
    lock_config=True)
_WORKDIR = flags.DEFINE_string("workdir", None, "Where the run writes.")
_DISTRIBUTED = flags.DEFINE_bool(
    "distributed", False,
    "Call jax.distributed.initialize() first (multi-host runs).")
flags.mark_flags_as_required(["config", "workdir"])


def _flat_keys(cfg, prefix="config."):
  for k, v in cfg.items():
    if hasattr(v, "items"):
      yield from _flat_keys(v, f"{prefix}{k}.")
    else:
      yield f"{prefix}{k}"


def _load_config_file(spec: str):
  """get_config() of 'path.py[:arg]', for listing its keys."""
  path, _, arg = spec.partition(":")
  module_spec = importlib.util.spec_from_file_location("_blm_config", path)
  module = importlib.util.module_from_spec(module_spec)
  module_spec.loader.exec_module(module)
  return module.get_config(arg or None)


def parse_flags(argv):
  """absl parsing, with a clear message for misspelled config keys."""
  try:
    return flags.FLAGS(argv)
  except (AttributeError, KeyError, flags.Error) as e:
    specs = [a.split("=", 1)[1] for a in argv[1:] if a.startswith("--config=")]
    overrides = [a.split("=")[0][2:] for a in argv[1:]
                 if a.startswith("--config.")]
    try:
      valid = sorted(_flat_keys(_load_config_file(specs[-1])))
    except Exception:  # The config file itself is the problem.
      sys.exit(f"error: {e}")
    unknown = [k for k in overrides if k not in valid]
    if not unknown:
      sys.exit(f"error: {e}")
    lines = []
    for k in unknown:
      close = difflib.get_close_matches(k, valid, 1)
      hint = f" (did you mean {close[0]!r}?)" if close else ""
      lines.append(f"error: unknown config key {k!r}{hint}")
    sys.exit("\n".join(lines) + "\nvalid keys:\n  " + "\n  ".join(valid))


def main(argv):
  del argv
  import jax  # Imported after flag parsing so --help stays fast.

  if _DISTRIBUTED.value:
    jax.distributed.initialize()
  from blm_jax import train

  results = train.train_and_evaluate(_CONFIG.value, _WORKDIR.value)
  summary = results["summary"]
  for t, row in summary.items():
    print(f"train {t}: " + "  ".join(
        f"test {u} F1 {v['f1_mean']:.3f}±{v['f1_std']:.3f}"
        for u, v in row.items()))
  print(f"wrote {_WORKDIR.value}/results.json, heatmap.png, errors.png")


if __name__ == "__main__":
  app.run(main, flags_parser=parse_flags)
