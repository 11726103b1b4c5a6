"""Where the encoder runs: its parameters on the devices (replicated, or
sharded when they would not fit), the memory check before the first batch,
the batch size that fits, and the compiled pooled forward on a 1-D mesh.
`embed.py` feeds it batches."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

from blm_jax.encoders import blocks as transformer_blocks, encoder as encoders
from blm_jax.encoders import memory

DEFAULT_BATCH_SIZE = 64
# batch_size=0 chooses the largest power of two up to this that fits the
# devices' memory (`choose_batch_size`).
MAX_AUTO_BATCH_SIZE = 1024
# Padded lengths: few distinct shapes (one compilation each), little waste.
# On an accelerator compiling a shape costs more than the padding it saves
# (a dataset's forward passes take seconds, its compilations tens of
# seconds): two lengths per octave. On a CPU the forward's time grows
# about linearly with the padded length (MiniLM, batch 64: 8 tokens 0.12 s
# of CPU, 16 tokens 0.23-0.33 s, 24 tokens 0.44 s) and one compilation
# costs a few batches: four per octave (MiniLM on BLM sentences: 7% of the
# tokens padding, against 24% with two; benchmarks/README.md, "Embedding
# end to end against the forward pass").
ACCELERATOR_BUCKETS = (8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)
CPU_BUCKETS = (8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 56, 64, 80, 96,
               112, 128, 160, 192, 224, 256, 320, 384, 448, 512)


def buckets(platform: str) -> tuple[int, ...]:
  """The padded lengths batches of this device platform are cut to."""
  return CPU_BUCKETS if platform == "cpu" else ACCELERATOR_BUCKETS


def bucket(n: int, platform: str) -> int:
  """The padded length of a batch whose longest sentence has n tokens."""
  for b in buckets(platform):
    if n <= b:
      return b
  return n


def _split_axis(shape: tuple, n: int) -> int | None:
  """The largest axis that n devices divide evenly, or None."""
  for ax in sorted(range(len(shape)), key=lambda a: -shape[a]):
    if shape[ax] >= n and shape[ax] % n == 0:
      return ax
  return None


def param_shardings(params, mesh: Mesh):
  """Each parameter split over the mesh along its largest axis that the
  device count divides (replicated where none does: norms, biases, and
  whole matrices when the count divides none of their sizes; a power of
  two of devices divides every matrix of the published models)."""

  def spec(x):
    ax = _split_axis(tuple(x.shape), mesh.size)
    if ax is None:
      return NamedSharding(mesh, P())
    return NamedSharding(mesh, P(*(("data" if a == ax else None)
                                   for a in range(len(x.shape)))))

  return jax.tree_util.tree_map(spec, params)


def _resident_bytes(params, n: int) -> int:
  """Bytes of `param_shardings`' layout on one of n devices."""
  total = 0
  for x in jax.tree_util.tree_leaves(params):
    b = memory.tree_bytes(x)
    total += b // n if _split_axis(tuple(x.shape), n) is not None else b
  return total


def plan_params(encoder: encoders.Encoder, devices, batch_size: int,
                max_length: int, shard_params: bool | None = None) -> bool:
  """Whether to shard the parameters; raises if the estimate exceeds memory.

  None decides: shard exactly when the replicated layout does not fit. A
  device whose memory is unknown (CPU without BLM_DEVICE_MEMORY) is not
  checked.
  """
  n = len(devices)
  d = encoder.hidden_size
  rows = -(-batch_size // n)
  length = bucket(max_length, devices[0].platform)
  param_bytes = memory.tree_bytes(encoder.params)
  act = dict(rows=rows, length=length, hidden=d,
             intermediate=encoder.intermediate_size or 4 * d,
             heads=encoder.num_heads or max(d // 64, 1),
             compute_bytes=jnp.dtype(
                 transformer_blocks.compute_dtype(encoder.dtype)).itemsize)
  resident = _resident_bytes(encoder.params, n)
  need = {s: memory.per_device_bytes(
              param_bytes=param_bytes, layers=encoder.num_layers, devices=n,
              sharded=s, resident_bytes=resident, **act)
          for s in (False, True)}
  limits = [memory.device_limit(x) for x in devices]
  limit = None if any(x is None for x in limits) else min(limits)
  if shard_params is None:
    sharded = n > 1 and limit is not None and need[False] > limit
  else:
    sharded = bool(shard_params)
  if limit is not None and need[sharded] > limit:
    activations = memory.activation_bytes(layers=encoder.num_layers, **act)
    layout = f"sharded over {n} devices" if sharded else "whole"
    raise memory.MemoryEstimateError(
        f"encoder {encoder.name!r} needs about {memory.gib(need[sharded])} "
        f"per device: {memory.gib(need[sharded] - activations)} of "
        f"{encoder.dtype} parameters ({memory.gib(param_bytes)} in all, "
        f"{layout}) plus {memory.gib(activations)} of activations for "
        f"batch_size={batch_size} at max_length={max_length} (padded to "
        f"{length}), over the {memory.gib(limit)} XLA may use on "
        f"{devices[0].platform} device(s). Lower batch_size or max_length "
        "(config.encoder.batch_size, config.encoder.max_length)"
        + (", use dtype='bfloat16' (config.encoder.dtype)"
           if encoder.dtype == "float32" else "")
        + ", or use more devices (parameters are sharded over all of them)")
  return sharded


def choose_batch_size(encoder: encoders.Encoder, devices, max_length: int,
                      shard_params: bool | None = None) -> int:
  """The largest power of two up to MAX_AUTO_BATCH_SIZE (a multiple of the
  device count) whose memory estimate fits every device (`plan_params`);
  DEFAULT_BATCH_SIZE where the devices' memory is unknown (a CPU without
  BLM_DEVICE_MEMORY). Raises the smallest batch's error when none fits."""
  n = len(devices)
  if any(memory.device_limit(d) is None for d in devices):
    return -(-DEFAULT_BATCH_SIZE // n) * n
  size, error = MAX_AUTO_BATCH_SIZE, None
  while size >= 1:
    rows = -(-size // n) * n
    try:
      plan_params(encoder, devices, rows, max_length, shard_params)
      return rows
    except memory.MemoryEstimateError as e:
      error = e
    size //= 2
  raise error


def _mesh_shardings(encoder: encoders.Encoder, devices: tuple,
                    sharded: bool):
  """(parameter shardings, row sharding) on a 1-D mesh over `devices`."""
  mesh = Mesh(np.array(devices), ("data",))
  replicated = NamedSharding(mesh, P())
  placed = (param_shardings(encoder.params, mesh) if sharded else
            jax.tree_util.tree_map(lambda _: replicated, encoder.params))
  return placed, NamedSharding(mesh, P("data"))


@functools.lru_cache(maxsize=1)
def _placed(encoder: encoders.Encoder, devices: tuple, sharded: bool):
  """The encoder's parameters on the devices: one copy, whatever the
  pooling (a decoder's weights are most of a device's memory; the previous
  encoder's copy is released when another is placed)."""
  return jax.device_put(encoder.params,
                        _mesh_shardings(encoder, devices, sharded)[0])


@functools.lru_cache(maxsize=8)
def _jitted(encoder: encoders.Encoder, pooling: str, devices: tuple,
            sharded: bool):
  placed, rows = _mesh_shardings(encoder, devices, sharded)

  def f(params, ids, mask):
    # Pool in float32 whatever the compute dtype (a bf16 sum loses digits).
    hidden = encoder.hidden_states(params, ids, mask)
    return jnp.stack([encoders.pool(h.astype(jnp.float32), mask, pooling)
                      for h in hidden], axis=1)

  fn = jax.jit(f, in_shardings=(placed, rows, rows), out_shardings=rows)
  return fn, rows


def compiled(encoder: encoders.Encoder, pooling: str, devices: tuple,
              sharded: bool = False):
  """(jitted pooled forward, params on the mesh, row sharding).

  Parameters are replicated, or with `sharded` split by `param_shardings`.

  The forward returns [B, num_layers + 1, D]: every hidden state, pooled.
  The program is thus the same whichever layers a call wants, so a layer's
  vectors are bit-identical from a layer sweep's pass and from a one-layer
  run, which share its cache key (pooling is a small part of the pass).
  Cached so that repeated calls (one per split, say) reuse the compilation
  and the parameters already on the devices.
  """
  fn, rows = _jitted(encoder, pooling, devices, sharded)
  return fn, _placed(encoder, devices, sharded), rows
