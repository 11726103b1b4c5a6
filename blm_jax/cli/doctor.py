"""A self-check of this install: versions, devices, the offline encoder,
data and cache folders, and a tiny grid trained end to end.

  python -m blm_jax.cli.doctor            # every check (about 10-30 s)
  python -m blm_jax.cli.doctor --quick    # no encoder load, no grid

One line per check, `ok` or `FAIL` with what to do; exit status 1 when a
check failed. Run it after installing (and after `pip install -e
'.[cuda]'` on a GPU machine: the devices line must name the GPU).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import shutil
import sys
import tempfile
import time

# Each check imports the part it checks: a broken install is then one
# failing line of the report, not an ImportError before the first one.

PACKAGES = ("jax", "jaxlib", "flax", "optax", "orbax-checkpoint",
            "tensorflow-datasets", "numpy", "tokenizers", "safetensors",
            "ml-collections")
MIN_FREE_GB = 2.0  # a paper-scale family build and its embedding cache


class Report:
  def __init__(self):
    self.failed = []

  def line(self, name: str, ok: bool, text: str) -> None:
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {text}", flush=True)
    if not ok:
      self.failed.append(name)


def check_versions(r: Report) -> None:
  found = []
  for p in PACKAGES:
    try:
      found.append(f"{p} {importlib.metadata.version(p)}")
    except importlib.metadata.PackageNotFoundError:
      r.line("packages", False, f"{p} is not installed: pip install -e .")
      return
  r.line("python", sys.version_info >= (3, 11),
         f"{sys.version.split()[0]} (needs 3.11+)")
  r.line("packages", True, ", ".join(found))


def _host_memory_gb() -> float:
  try:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
  except (ValueError, OSError, AttributeError):
    return 0.0


def check_devices(r: Report) -> None:
  import jax

  devices = jax.devices()
  kinds = {}
  for d in devices:
    stats = {}
    try:
      stats = d.memory_stats() or {}
    except Exception:  # CPU devices have no memory stats.
      pass
    mem = stats.get("bytes_limit")
    kinds.setdefault(f"{d.platform}:{d.device_kind}", []).append(
        f"{mem / 2**30:.1f} GiB" if mem else "")
  parts = [f"{len(v)} x {k}" + (f" ({v[0]})" if v[0] else "")
           for k, v in kinds.items()]
  r.line("devices", True, f"{jax.default_backend()} backend: "
         + ", ".join(parts) + f"; host memory {_host_memory_gb():.1f} GiB, "
         f"{os.cpu_count()} CPU cores")


def _free_gb(path: str) -> tuple[str, float]:
  """The nearest existing folder at or above `path`, and its free GiB."""
  probe = os.path.abspath(path)
  while not os.path.exists(probe):
    probe = os.path.dirname(probe)
  return probe, shutil.disk_usage(probe).free / 2**30


def check_folders(r: Report) -> None:
  from blm_jax.embedding import embed
  from data_builders.common import loading

  for name, path, var in (
      ("data dir", loading.DEFAULT_DATA_DIR, "BLM_DATA_DIR"),
      ("embedding cache", embed.DEFAULT_CACHE_DIR, "BLM_EMBED_CACHE")):
    where, free = _free_gb(path)
    writable = os.path.isdir(where) and os.access(where, os.W_OK)
    ok = writable and free >= MIN_FREE_GB
    what = (f"{path} (${var}); {free:.1f} GiB free on {where}"
            + ("" if writable else
               f"; {where} is not a writable folder: set ${var}")
            + ("" if free >= MIN_FREE_GB else
               f"; under {MIN_FREE_GB:.0f} GiB: set ${var} elsewhere"))
    r.line(name, ok, what)


def check_encoder(r: Report, cache_dir: str) -> None:
  from blm_jax.embedding import embed
  from blm_jax.encoders import encoder as encoders

  t = time.perf_counter()
  try:
    folder = encoders.minilm_dir()
    vectors = embed.embed_sentences(["The dog barks."],
                                    embed.EncoderSpec("minilm"),
                                    cache_dir=cache_dir, progress=False)
  except Exception as e:  # Whatever it is, the line says it.
    r.line("offline encoder", False, f"minilm: {e}".splitlines()[0])
    return
  r.line("offline encoder", vectors.shape == (1, 384),
         f"minilm from {folder}: one sentence -> {tuple(vectors.shape)} in "
         f"{time.perf_counter() - t:.1f} s")


def check_grid(r: Report, workdir: str) -> None:
  from blm_jax.training import throughput
  from blm_jax.training import trainer

  t = time.perf_counter()
  config = throughput.config_for("ffnn", 16, channels=8, hidden_factor=1.0)
  config.data.train_types = config.data.test_types = ("I", "II")
  config.grid.seeds = (0, 1)
  config.train.epochs, config.train.batch_size = 2, 20
  try:
    outcome = trainer.train_and_evaluate(
        config, workdir, data=throughput.random_data(("I", "II"), 40, 16))
  except Exception as e:
    r.line("tiny grid", False, f"{type(e).__name__}: {e}".splitlines()[0])
    return
  cells = len(outcome.spec.cells)
  r.line("tiny grid", cells == 4,
         f"ffnn, {cells} cells (2 seeds x 2 types), 2 epochs, trained and "
         f"evaluated in {time.perf_counter() - t:.1f} s")


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(
      description=__doc__.splitlines()[0],
      formatter_class=argparse.RawDescriptionHelpFormatter,
      epilog="\n".join(__doc__.splitlines()[1:]))
  parser.add_argument("--quick", action="store_true",
                      help="skip the encoder load and the tiny grid")
  args = parser.parse_args(argv)
  r = Report()
  check_versions(r)
  if r.failed:
    return 1
  check_devices(r)
  check_folders(r)
  if not args.quick:
    with tempfile.TemporaryDirectory(prefix="blm_doctor_") as tmp:
      check_encoder(r, os.path.join(tmp, "cache"))
      check_grid(r, os.path.join(tmp, "work"))
  print("all checks passed" if not r.failed else
        f"{len(r.failed)} check(s) failed: {', '.join(r.failed)}")
  return 1 if r.failed else 0


if __name__ == "__main__":
  sys.exit(main())
