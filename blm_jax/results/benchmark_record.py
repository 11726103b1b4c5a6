"""A benchmark's JSON record: its figures with the machine and library
versions that made them, and where it goes (the committed
benchmarks/results/ only when asked).

Written by `python -m blm_jax.cli.bench` and the scripts of benchmarks/.
"""

from __future__ import annotations

import datetime
import os
import platform
import sys

import flax
import jax
import jaxlib
import numpy as np
import optax

from blm_jax.base import files

# A run writes its record under workdirs/benchmarks/ (git-ignored) of the
# folder the command runs in; only with --record does it replace the
# committed record in benchmarks/results/ (the repository root, as
# benchmarks/README.md runs them).
RESULTS_DIR = os.path.join("benchmarks", "results")
SCRATCH_DIR = os.path.join("workdirs", "benchmarks")


def record_path(name: str, out: str = "", record: bool = False) -> str:
  """Where a benchmark's record goes: `out` if given, else the committed
  benchmarks/results/<name>.json with `record`, else workdirs/benchmarks/."""
  return out or os.path.join(RESULTS_DIR if record else SCRATCH_DIR,
                             f"{name}.json")


def environment() -> dict:
  """Device and library versions for a benchmark record."""
  dev = jax.devices()[0]
  return {"device_kind": dev.device_kind, "platform": dev.platform,
          "device_count": jax.device_count(), "cpu_count": os.cpu_count(),
          "cpu": platform.processor() or platform.machine(),
          "python": platform.python_version(), "jax": jax.__version__,
          "jaxlib": jaxlib.__version__, "flax": flax.__version__,
          "optax": optax.__version__, "numpy": np.__version__}


def write_record(name: str, record: dict, path: str = "") -> str:
  """Writes {environment, command, time, **record} as JSON; returns the path."""
  path = path or record_path(name)
  os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
  full = {"benchmark": name,
          "utc": datetime.datetime.now(datetime.timezone.utc).isoformat(
              timespec="seconds"),
          "command": " ".join(sys.argv), "environment": environment(),
          **record}
  files.write_json(path, full, indent=1, sort_keys=False)
  return path
