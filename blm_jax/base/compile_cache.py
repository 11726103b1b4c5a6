"""XLA's persistent compilation cache, on by default for the commands.

A second process (a resumed run, the next grid of a suite, another shard
on the same machine) reads the programs an earlier one compiled instead of
compiling them again: on a GPU compiling MiniLM's programs is nearly all of
embedding a dataset (benchmarks/device/README.md). Every program is cached,
however fast it compiled, so the second process compiles none.

Where: $JAX_COMPILATION_CACHE_DIR if set (JAX's own variable), else
$BLM_XLA_CACHE, else ~/.cache/blm_jax/xla; BLM_XLA_CACHE=off switches it
off.
"""

from __future__ import annotations

import os

DEFAULT_DIR = os.path.join("~", ".cache", "blm_jax", "xla")


def cache_dir() -> str | None:
  """The folder the commands cache compiled programs in (None: off)."""
  own = os.environ.get("JAX_COMPILATION_CACHE_DIR")
  if own:
    return os.path.expanduser(own)
  chosen = os.environ.get("BLM_XLA_CACHE", DEFAULT_DIR)
  if chosen.strip().lower() in ("off", "0", "none", ""):
    return None
  return os.path.expanduser(chosen)


def enable() -> str | None:
  """Turns the persistent cache on for this process (before the first
  compile); returns its folder, or None when switched off. A folder that
  cannot be made leaves the cache off with no error: caching is a speed-up,
  never a reason for a run to fail."""
  path = cache_dir()
  if path is None:
    return None
  try:
    os.makedirs(path, mode=0o700, exist_ok=True)
  except OSError:
    return None
  import jax
  jax.config.update("jax_compilation_cache_dir", path)
  if "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS" not in os.environ:
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
  jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
  return path
