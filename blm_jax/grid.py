"""The seed x train-type grid: every cell trained at once in one jit.

All vmapping lives here. The grid is flattened to cells (seed-major); each
cell has its own parameters, optimizer state, RNG (from its seed) and shuffled
batch stream over its own training set; the embedding table is shared. One
jit compiles the whole grid's epoch, in one of two forms (`GRID_MODES`):
'vmap' batches the cells (`jax.vmap(solver.train_epoch)`), 'scan' runs them
one after another inside the jit (`jax.lax.map`, vmapped only over devices).
Both give the same numbers within float tolerance. Which is faster depends
on the model and the device: on a CPU a vmapped convolution can cost more
per cell than the cell alone (benchmarks/README.md), so 'auto' picks per
model and platform from measurements (`AUTO_SCAN`).

Devices: the cell axis is sharded over a 1-D mesh ('grid') of all local
devices with `NamedSharding` (the jit + sharding form JAX recommends over
pmap); the cell count is padded to a multiple of the device count with copies
of the last cell, whose results are dropped. Multi-host: call
`jax.distributed.initialize()` before anything else on every host (the
launcher's --distributed flag does it); `jax.devices()` then spans all hosts
and the same mesh shards cells across them.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

from blm_jax.input_pipeline import BLMData
from blm_jax.solver import CellState, Solver, SplitIndex, eval_rows, gather


@dataclasses.dataclass(frozen=True)
class GridSpec:
  """The grid's axes; cells are seed-major."""

  seeds: tuple[int, ...]
  train_types: tuple[str, ...]

  @property
  def cells(self) -> tuple[tuple[int, str], ...]:
    return tuple((s, t) for s in self.seeds for t in self.train_types)

  def cell_name(self, i: int) -> str:
    seed, t = self.cells[i]
    return f"seed={seed},train={t}"

  def to_json(self) -> dict:
    return {"seeds": list(self.seeds), "train_types": list(self.train_types)}


GRID_MODES = ("auto", "vmap", "scan")

# (platform, model name) pairs for which 'auto' scans over cells: where the
# vmapped grid trained fewer instances/s than the cells one after another
# (`python -m blm_jax.bench`, benchmarks/README.md). Everything else vmaps.
AUTO_SCAN = frozenset({("cpu", "vae2"), ("cpu", "sent_vae"), ("cpu", "cnn")})


def resolve_mode(mode: str, model_name: str, platform: str) -> str:
  """'vmap' or 'scan' for a configured `grid.mode`."""
  if mode not in GRID_MODES:
    raise ValueError(f"grid.mode={mode!r}: expected one of {GRID_MODES}")
  if mode != "auto":
    return mode
  return "scan" if (platform, model_name) in AUTO_SCAN else "vmap"


def make_mesh(devices=None) -> Mesh:
  # Mesh(...) rather than jax.make_mesh: the latter defaults to explicit axis
  # types, under which the vmapped gathers fail (JAX-NOTES.md).
  return Mesh(np.array(devices or jax.devices()), ("grid",))


class Grid:
  """Stacked cell states and the jitted grid functions for one data set."""

  def __init__(self, solver: Solver, spec: GridSpec, data: BLMData,
               mesh: Mesh | None = None, mode: str = "vmap"):
    if mode not in ("vmap", "scan"):
      raise ValueError(f"Grid mode {mode!r}: expected 'vmap' or 'scan' "
                       "(resolve 'auto' with grid.resolve_mode)")
    self.solver, self.spec, self.data, self.mode = solver, spec, data, mode
    self.mesh = mesh or make_mesh()
    n_dev = self.mesh.devices.size
    self.num_cells = len(spec.cells)
    self.padded_cells = -(-self.num_cells // n_dev) * n_dev
    cell_ids = np.minimum(np.arange(self.padded_cells), self.num_cells - 1)
    seeds = np.array([spec.cells[i][0] for i in cell_ids])
    types = [spec.cells[i][1] for i in cell_ids]
    self._cell_sharding = NamedSharding(self.mesh, P("grid"))
    self._replicated = NamedSharding(self.mesh, P())
    self.emb = jax.device_put(jnp.asarray(data.embeddings), self._replicated)
    self.keys = self._shard(jax.vmap(jax.random.key)(seeds))
    self.train = self._shard(_stack([data.train[t] for t in types], 1))
    chunk = solver.eval_chunk
    self.dev = self._shard(_stack([data.dev[t] for t in types], chunk))
    self.test = {t: self.eval_split(tab) for t, tab in data.test.items()}
    self._epoch = jax.jit(self._vmapped_epoch if mode == "vmap"
                          else self._scanned_epoch)
    self._predict = jax.jit(jax.vmap(solver.predict, in_axes=(0, None, None)))
    self._init = jax.jit(jax.vmap(self._init_cell, in_axes=(0, 0, None)))

  def _vmapped_epoch(self, state, keys, epoch, emb, train, dev):
    return jax.vmap(self.solver.train_epoch,
                    in_axes=(0, 0, None, None, 0, 0))(
                        state, keys, epoch, emb, train, dev)

  def _scanned_epoch(self, state, keys, epoch, emb, train, dev):
    """The cells one after another; vmapped over devices only, so each
    device scans over its own shard of cells."""
    def one(cell):
      s, k, tr, dv = cell
      return self.solver.train_epoch(s, k, epoch, emb, tr, dv)

    cells = (state, keys, train, dev)
    n_dev = self.mesh.devices.size
    if n_dev == 1:
      return jax.lax.map(one, cells)
    split = lambda x: x.reshape(n_dev, x.shape[0] // n_dev, *x.shape[1:])
    out = jax.vmap(lambda c: jax.lax.map(one, c))(jax.tree.map(split, cells))
    return jax.tree.map(lambda x: x.reshape(-1, *x.shape[2:]), out)

  def eval_split(self, table) -> SplitIndex:
    """A table as a replicated split padded for chunked evaluation."""
    rows = eval_rows(table.num_instances, self.solver.eval_chunk)
    return jax.device_put(SplitIndex.from_table(table, rows),
                          self._replicated)

  def _shard(self, tree):
    return jax.device_put(tree, self._cell_sharding)

  def _init_cell(self, key, train: SplitIndex, emb) -> CellState:
    return self.solver.init(key, gather(emb, train, jnp.arange(1)))

  def init(self) -> CellState:
    """The stacked initial state, sharded over the cell axis."""
    return self._init(self.keys, self.train, self.emb)

  def abstract_state(self):
    """Shapes and shardings of the state, the target of a restore."""
    shapes = jax.eval_shape(self.init)
    return jax.tree.map(
        lambda s: jax.ShapeDtypeStruct(s.shape, s.dtype,
                                       sharding=self._cell_sharding), shapes)

  def run_epoch(self, state: CellState, epoch: int):
    """One epoch for every cell.

    Returns the state and the solver's measurements with a leading cell
    axis: {'train': {name: [cells, steps]}, 'dev_accuracy': [cells],
    'dev_loss': [cells]}.
    """
    return self._epoch(state, self.keys, jnp.int32(epoch), self.emb,
                       self.train, self.dev)

  def predict(self, params, split: SplitIndex):
    """Per-cell predictions on one split (padding cells and rows dropped)."""
    out = self._predict(params, self.emb, split)
    n = int(split.size)
    return jax.tree.map(lambda x: np.asarray(x)[:self.num_cells, :n], out)


def _stack(tables, chunk: int) -> SplitIndex:
  """Per-cell splits stacked on a leading axis, rows padded to the longest
  (and to a multiple of the evaluation chunk)."""
  rows = eval_rows(max(t.num_instances for t in tables), chunk)
  parts = [SplitIndex.from_table(t, rows) for t in tables]
  return jax.tree.map(lambda *xs: np.stack(xs), *parts)
