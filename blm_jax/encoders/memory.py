"""How much device memory an encoder needs, checked before it is used.

A decoder LLM's weights are most of it: parameters x bytes per parameter
(4 in float32, 2 in bfloat16), so 8B parameters are 32 GB in float32 and 16
GB in bfloat16. The activations of one batch come on top; they are small at
sentence lengths:

  per device = params / (devices if sharded else 1)
             + (2 x one layer's params if sharded: the gathered layer and
               the next one, prefetched)
             + rows x T x bytes x (6 D + 3 I)        (a block's working set)
             + rows x heads x T x T x 4 x 2          (attention scores, f32)
             + rows x T x D x bytes x (layers + 1)   (every hidden state)

with rows = batch_size / devices and T the padded length. The estimate is
compared with what XLA may allocate on each device (`bytes_limit` of
`memory_stats`, about 75% of a GPU's memory by default); the environment
variable BLM_DEVICE_MEMORY (bytes) sets the limit where a backend reports
none (CPU) or to leave headroom. Where no limit is known, the batch estimate
is not checked.

The weights themselves are checked at every load, limit known or not
(`check_load_fits`), before any weight is read: their size comes from the
checkpoint's headers and config.json, and is compared with the machine's
available memory (every loader holds the whole tree on the host), and on an
accelerator with what XLA may use on the device.
"""

from __future__ import annotations

import math
import os
from typing import Sequence

import jax

ENV_LIMIT = "BLM_DEVICE_MEMORY"
GIB = 1 << 30


class MemoryEstimateError(ValueError):
  """An encoder would not fit the devices' memory with these settings."""


def tree_bytes(params) -> int:
  """Bytes of a parameter tree (arrays or ShapeDtypeStructs)."""
  return sum(math.prod(x.shape) * jax.numpy.dtype(x.dtype).itemsize
             for x in jax.tree_util.tree_leaves(params))


def device_limit(device) -> int | None:
  """Bytes XLA may allocate on `device` (BLM_DEVICE_MEMORY overrides)."""
  env = os.environ.get(ENV_LIMIT)
  if env:
    try:
      return int(float(env))
    except ValueError:
      raise ValueError(f"environment variable {ENV_LIMIT}={env!r} is not a "
                       "number of bytes") from None
  try:
    stats = device.memory_stats()
  except Exception:  # Backends without memory statistics.
    return None
  return int(stats["bytes_limit"]) if stats and "bytes_limit" in stats \
      else None


def activation_bytes(*, rows: int, length: int, hidden: int,
                     intermediate: int, heads: int, layers: int,
                     compute_bytes: int) -> int:
  """The activations of one device's share of a batch (see the docstring)."""
  block = rows * length * compute_bytes * (6 * hidden + 3 * intermediate)
  scores = rows * heads * length * length * 4 * 2
  states = rows * length * hidden * compute_bytes * (layers + 1)
  return block + scores + states


def per_device_bytes(*, param_bytes: int, layers: int, devices: int,
                     sharded: bool, resident_bytes: int | None = None,
                     **activations) -> int:
  """Parameters (whole or sharded) plus activations, on one device.

  `resident_bytes`: the sharded parameters one device holds, where some
  cannot be split evenly (default param_bytes / devices).
  """
  if sharded:
    resident = param_bytes / devices if resident_bytes is None \
        else resident_bytes
    params = resident + 2 * param_bytes / max(layers, 1)
  else:
    params = param_bytes
  return int(params) + activation_bytes(layers=layers, **activations)


def gib(n: float) -> str:
  """Bytes for people: GiB, or MiB/KiB/B where smaller."""
  for unit, size in (("GiB", GIB), ("MiB", 1 << 20), ("KiB", 1 << 10)):
    if n >= size:
      return f"{n / size:.2f} {unit}"
  return f"{int(n)} B"


def check_params_fit(name: str, param_bytes: int, dtype: str,
                     devices: Sequence) -> None:
  """Before loading: the weights alone must fit all devices together."""
  limits = [device_limit(d) for d in devices]
  if not limits or any(x is None for x in limits):
    return
  total = sum(limits)
  if param_bytes > 0.9 * total:
    hint = (" (bfloat16 halves it: dtype='bfloat16')"
            if dtype == "float32" else "")
    raise MemoryEstimateError(
        f"encoder {name!r}: its {dtype} weights need {gib(param_bytes)}, "
        f"more than the {len(limits)} device(s) hold together "
        f"({gib(total)}, {gib(limits[0])} each){hint}; use more devices "
        "(params are sharded over all of them)")


def host_available() -> int | None:
  """Bytes this machine can still give a process (MemAvailable)."""
  try:
    with open("/proc/meminfo", encoding="ascii") as f:
      for line in f:
        if line.startswith("MemAvailable:"):
          return int(line.split()[1]) * 1024
  except (OSError, ValueError, IndexError):
    pass
  try:
    return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
  except (ValueError, OSError, AttributeError):
    return None


def load_limits(devices: Sequence, sharded: bool) -> list[tuple[int, str]]:
  """(bytes, what they are) that loaded weights must fit, for the message."""
  out = []
  env = os.environ.get(ENV_LIMIT)
  if env:  # Per device: sharded weights may fill them all.
    out.append((device_limit(devices[0]) * (len(devices) if sharded else 1),
                f"that {ENV_LIMIT}={env} allows"
                + (f" on {len(devices)} devices" if sharded and
                   len(devices) > 1 else "")))
  host = host_available()
  if host is not None:
    out.append((host, "available on this machine (MemAvailable)"))
  accelerators = [d for d in devices if d.platform != "cpu"]
  if accelerators and not env:
    limits = [device_limit(d) for d in accelerators]
    if all(x is not None for x in limits):
      total = sum(limits) if sharded else min(limits)
      out.append((total, f"that XLA may use on the {accelerators[0].platform}"
                  + (f" devices together ({len(limits)})" if sharded
                     else " device")))
  return out


def check_load_fits(folder: str, param_count: int, dtype: str, source: str,
                    devices: Sequence, sharded: bool = False) -> None:
  """Before any weight is read: `param_count` weights held in `dtype` must
  fit 90% of every limit of `load_limits`; else one line naming the folder,
  the size needed and what fits."""
  need = param_count * jax.numpy.dtype(dtype).itemsize
  for limit, what in load_limits(devices, sharded):
    if need > 0.9 * limit:
      hint = ("; dtype='bfloat16' halves it" if dtype == "float32" and sharded
              else "")
      raise MemoryEstimateError(
          f"encoder folder {folder}: its weights need {gib(need)} "
          f"({param_count:,} parameters in {dtype}, counted from {source}), "
          f"more than the {gib(0.9 * limit)} that fits (90% of the "
          f"{gib(limit)} {what}){hint}; nothing was read")
