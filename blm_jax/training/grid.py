"""The seed x train-type grid: every cell trained at once in one jit.

All vmapping lives here. The grid is flattened to cells (seed-major); each
cell has its own parameters, optimizer state, RNG (from its seed) and shuffled
batch stream over its own training set; the embedding table is shared.
jit compiles the whole grid's epoch, in one of two forms (`GRID_MODES`):
'vmap' batches the cells (`jax.vmap(solver.train_epoch)`), 'scan' runs them
one after another inside the jit (a loop that updates each cell's state in
place, vmapped only over devices). Both give the same numbers within float
tolerance. Which is faster depends on the model and the device: on a CPU a
vmapped convolution can cost more per cell than the cell alone
(benchmarks/README.md), so 'auto' picks per model and platform from
measurements (each solver's `SolverSpec.scan_on`), and scans a vmapped
grid whose compiled epoch would not fit in memory (`Grid.fit_memory`: the
scan holds one cell's temporaries). The state is donated to the epoch: one copy of it lives.

Devices: the cell axis is sharded over a 1-D mesh ('grid') of all local
devices with `NamedSharding` (the jit + sharding form JAX recommends over
pmap); the cell count is padded to a multiple of the device count with copies
of the last cell, whose results are dropped.

Variants (controls and the layer sweep): more cells of the same grid. Every
variant reads the same index arrays through a per-cell view: an offset that
picks its block of the stacked embedding table (the real embeddings, a
random encoder's, one layer's) and a context mode (as is, all contexts
pointing to an all-zero row, or each instance's context permuted). A real
cell is computed exactly as without variants (`variants.py`).

Several processes (hosts): after `distributed.initialize` (the launcher's
--distributed), `jax.devices()` lists every process's devices and the same
mesh shards the cells over all of them. Every process computes the same
host arrays (index arrays, seeds: cheap and deterministic) and puts only
its own devices' shards (`distributed.global_array`); what the host reads
back (the epoch's measurements, predictions, `cell_values`) is replicated
inside the jit first, so every process sees every cell (docs/how-to/run-on-several-hosts.md).
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

from blm_jax.base.background import Background
from blm_jax.data.input_pipeline import BLMData
from blm_jax.models import registry
from blm_jax.training import distributed
from blm_jax.training import variants as variants_lib
from blm_jax.training.solver import CellState
from blm_jax.training.solver import Solver
from blm_jax.training.solver import SplitIndex
from blm_jax.training.solver import eval_rows
from blm_jax.training.solver import gather


@dataclasses.dataclass(frozen=True)
class GridSpec:
  """The grid's axes; cells are variant-major, then seed-major.

  `variants`: '' (the real run) first, then controls ('answer_only', ...)
  and layer-sweep cells ('layer=3'), see `variants.py`.
  """

  seeds: tuple[int, ...]
  train_types: tuple[str, ...]
  variants: tuple[str, ...] = ("",)

  def __post_init__(self):
    if not self.variants or self.variants[0] != "":
      raise ValueError(f"GridSpec.variants={self.variants!r} must start "
                       "with '' (the real cells)")

  @property
  def cells(self) -> tuple[tuple[int, str], ...]:
    """(seed, train type) of every cell, variants included."""
    return tuple((s, t) for _ in self.variants for s in self.seeds
                 for t in self.train_types)

  @property
  def cell_variants(self) -> tuple[str, ...]:
    per = len(self.seeds) * len(self.train_types)
    return tuple(v for v in self.variants for _ in range(per))

  def variant_cells(self, variant: str) -> range:
    """Indices of one variant's cells."""
    per = len(self.seeds) * len(self.train_types)
    k = self.variants.index(variant)
    return range(k * per, (k + 1) * per)

  def cell_name(self, i: int) -> str:
    seed, t = self.cells[i]
    v = self.cell_variants[i]
    name = f"seed={seed},train={t}"
    if not v:
      return name
    return f"{v if '=' in v else 'control=' + v},{name}"

  def to_json(self) -> dict:
    out = {"seeds": list(self.seeds), "train_types": list(self.train_types)}
    # A grid without variants writes no 'variants' key, so its meta reads as
    # that of checkpoints saved before variants existed.
    if self.variants != ("",):
      out["variants"] = list(self.variants)
    return out


def make_mesh(devices=None) -> Mesh:
  # Mesh(...) rather than jax.make_mesh: the latter defaults to explicit axis
  # types, under which the vmapped gathers fail (JAX-NOTES.md).
  return Mesh(np.array(devices or jax.devices()), ("grid",))


GRID_MODES = ("auto", "vmap", "scan")


def resolve_mode(mode: str, model_name: str, platform: str) -> str:
  """'vmap' or 'scan' for a configured `grid.mode`.

  'auto' scans on the platforms a solver's spec lists in `scan_on`: where
  its vmapped grid trained fewer instances/s than the cells one after
  another (`python -m blm_jax.cli.bench`, benchmarks/README.md).
  """
  if mode not in GRID_MODES:
    raise ValueError(f"grid.mode={mode!r}: expected one of {GRID_MODES}")
  if mode != "auto":
    return mode
  return "scan" if registry.get(model_name).scans(platform) else "vmap"


class Grid:
  """Stacked cell states and the jitted grid functions for one data set."""

  def __init__(self, solver: Solver, spec: GridSpec, data: BLMData,
               mesh: Mesh | None = None,
               sources: dict[str, np.ndarray] | None = None,
               mode: str = "vmap"):
    """`sources`: the extra embedding tables the variants need, keyed by
    `variants.source_of` (same rows as `data.embeddings`); `mode`: 'vmap' or
    'scan' (resolve 'auto' with `resolve_mode`)."""
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
    table, views = variants_lib.stack_sources(
        data.embeddings, sources or {}, spec.variants)
    self.emb = distributed.global_array(table, self._replicated)
    self.views = self._shard(variants_lib.stack_views(
        [views[spec.cell_variants[i]] for i in cell_ids]))
    self._shuffles = any(variants_lib.shuffles(v) for v in spec.variants)
    self.keys = jax.jit(jax.vmap(jax.random.key),
                        out_shardings=self._cell_sharding)(self._shard(seeds))
    # Each cell's own sample: per (seed, type) with data.seed_follows_grid.
    cell_data = list(zip((int(s) for s in seeds), types))
    self.train = self._shard(self._stack(
        [data.train_of(s, t) for s, t in cell_data], 1))
    chunk = solver.eval_chunk
    self.dev = self._shard(self._stack(
        [data.dev_of(s, t) for s, t in cell_data], chunk))
    self.test = {t: self.eval_split(tab) for t, tab in data.test.items()}
    self._tests, self._test_rows = self._joint_split(data.test)
    self._predict_tests = None  # A Background compiling it, once started.
    self._set_mode(mode)
    self._predict = jax.jit(jax.vmap(self._predict_cell,
                                     in_axes=(0, None, None, 0)),
                            out_shardings=self._replicated)
    self._gather = jax.jit(lambda x: x, out_shardings=self._replicated)
    # Every leaf of the state sharded over cells, as `abstract_state` (the
    # compiled epoch's and a restore's target) says.
    self._init = jax.jit(jax.vmap(self._init_cell, in_axes=(0, 0, None, 0)),
                         out_shardings=self._cell_sharding)

  def _set_mode(self, mode: str) -> None:
    # The state is donated: the epoch updates it in place, so the grid holds
    # one copy of every cell's parameters and optimizer state, not two.
    # (checkpoints.save has finished writing before the next epoch runs.)
    self.mode = mode
    # The state stays sharded over cells; the measurements are replicated,
    # so that every process reads every cell's.
    self._epoch = jax.jit(self._vmapped_epoch if mode == "vmap"
                          else self._scanned_epoch, donate_argnums=0,
                          out_shardings=(self._cell_sharding,
                                         self._replicated))
    self._compiled = None

  def _epoch_args(self, state, epoch):
    return (state, self.keys, jnp.int32(epoch), self.emb, self.train,
            self.dev, self.views)

  def compile_epoch(self) -> int:
    """Compiles the epoch (kept for `run_epoch`) and returns the bytes XLA
    says it needs: arguments + outputs + temporaries - donated buffers,
    summed over this process's devices on a CPU (they share its host's
    memory)."""
    self._compiled = self._epoch.lower(
        *self._epoch_args(self.abstract_state(), 0)).compile()
    m = self._compiled.memory_analysis()
    need = (m.argument_size_in_bytes + m.output_size_in_bytes
            + m.temp_size_in_bytes - m.alias_size_in_bytes)
    devices = len(self.local_devices)
    return need * devices if self.platform == "cpu" else need

  @property
  def local_devices(self) -> list:
    """The mesh's devices that this process drives."""
    return [d for d in self.mesh.devices.flat
            if d.process_index == jax.process_index()]

  @property
  def platform(self) -> str:
    return self.mesh.devices.flat[0].platform

  def fit_memory(self, budget: int, may_scan: bool) -> list[str]:
    """Compiles the epoch so that it fits in `budget` bytes.

    A vmapped grid that does not fit is scanned instead when `may_scan`
    (grid.mode 'auto'): the cells then share one cell's temporaries. A grid
    that does not fit either way raises MemoryError naming what to reduce.
    Returns what was decided, for the log.
    """
    said = []
    need = self.compile_epoch()
    if need > budget and self.mode == "vmap" and may_scan:
      said.append(f"the vmapped epoch of {self.num_cells} cells needs "
                  f"{_gib(need)} GiB, over the {_gib(budget)} GiB available: "
                  "scanning the cells instead (grid.mode 'auto')")
      self._set_mode("scan")
      need = self.compile_epoch()
    said.append(f"epoch memory ({self.mode}, {self.num_cells} cells): "
                f"{_gib(need)} GiB of {_gib(budget)} GiB available")
    if need > budget:
      raise MemoryError(
          f"the grid's {self.num_cells} cells need about {_gib(need)} GiB "
          f"for one epoch ({self.mode}) but {_gib(budget)} GiB are "
          "available: train fewer cells (config.grid.seeds, config.controls, "
          "config.encoder.layer_sweep, config.data.train_types) or set "
          "config.grid.memory_limit_gb if the estimate is wrong")
    return said

  def eval_split(self, table) -> SplitIndex:
    """A table as a replicated split padded for chunked evaluation."""
    rows = eval_rows(table.num_instances, self.solver.eval_chunk)
    return jax.tree.map(
        lambda x: distributed.global_array(x, self._replicated),
        self._split(table, rows))

  def _split(self, table, rows: int) -> SplitIndex:
    """Host index arrays; with the per-instance context permutations only
    when a variant shuffles (they cost a hash per instance)."""
    split = SplitIndex.from_table(
        table, rows, attributes=self.solver.reads_attributes)
    if not self._shuffles:
      return split
    perm = variants_lib.context_permutations(table)
    return split.replace(context_perm=_pad_rows(perm, rows))

  def _joint_split(self, tables: dict) -> tuple[SplitIndex | None, dict]:
    """Every test table in one replicated split (one after another, the
    padding after the last) and {name: (first row, rows)} of each."""
    if not tables:
      return None, {}
    names = list(tables)
    sizes = [tables[u].num_instances for u in names]
    total = eval_rows(sum(sizes), self.solver.eval_chunk)
    parts = [self._split(tables[u], n) for u, n in zip(names[:-1], sizes)]
    parts.append(self._split(tables[names[-1]], total - sum(sizes[:-1])))
    parts = [p.replace(size=np.int32(0)) for p in parts]
    joint = jax.tree.map(lambda *xs: np.concatenate(xs) if xs[0].ndim
                         else xs[0], *parts).replace(
                             size=np.int32(sum(sizes)))
    starts = np.cumsum([0] + sizes[:-1])
    return (jax.tree.map(
        lambda x: distributed.global_array(x, self._replicated), joint),
            {u: (int(a), n) for u, a, n in zip(names, starts, sizes)})

  def start_test_compile(self) -> None:
    """Compiles the prediction of every test type (`predict_tests`) in a
    background thread, while the epochs run: evaluation then waits for
    no compiler."""
    if self._tests is None or self._predict_tests is not None:
      return
    params = self.abstract_state().best_params
    self._predict_tests = Background(lambda: self._predict.lower(
        params, self.emb, self._tests, self.views).compile(),
                                     what="the test prediction's compile")

  def predict_tests(self, params) -> dict:
    """{test type: per-cell predictions} of every test type, all in one
    call of the jitted prediction (padding cells and rows dropped)."""
    if self._tests is None:
      return {}
    fn = (self._predict_tests.result() if self._predict_tests is not None
          else self._predict)
    out = jax.tree.map(lambda x: np.asarray(x)[:self.num_cells],
                       fn(params, self.emb, self._tests, self.views))
    return {u: jax.tree.map(lambda x: x[:, a:a + n], out)
            for u, (a, n) in self._test_rows.items()}

  def _stack(self, tables, chunk: int) -> SplitIndex:
    """Per-cell splits stacked on a leading axis, rows padded to the longest
    (and to a multiple of the evaluation chunk)."""
    rows = eval_rows(max(t.num_instances for t in tables), chunk)
    parts = [self._split(t, rows) for t in tables]
    return jax.tree.map(lambda *xs: np.stack(xs), *parts)

  def _shard(self, tree):
    return jax.tree.map(
        lambda x: distributed.global_array(x, self._cell_sharding), tree)

  def _init_cell(self, key, train: SplitIndex, emb, view) -> CellState:
    train = variants_lib.apply_view(train, view)
    return self.solver.init(key, gather(emb, train, jnp.arange(1)))

  def _epoch_cell(self, state, key, epoch, emb, train, dev, view):
    return self.solver.train_epoch(state, key, epoch, emb,
                                   variants_lib.apply_view(train, view),
                                   variants_lib.apply_view(dev, view))

  def _vmapped_epoch(self, state, keys, epoch, emb, train, dev, views):
    if self.padded_cells == self.mesh.devices.size:
      # One cell per device: nothing to batch, and a batch axis of 1 costs
      # (the D=768 FFNN step took 65 ms vmapped against 43 ms unbatched).
      return self._scanned_epoch(state, keys, epoch, emb, train, dev, views)
    return jax.vmap(self._epoch_cell, in_axes=(0, 0, None, None, 0, 0, 0))(
        state, keys, epoch, emb, train, dev, views)

  def _scanned_epoch(self, state, keys, epoch, emb, train, dev, views):
    """The cells one after another; vmapped over devices only, so each
    device scans over its own shard of cells."""
    def one(cell):
      s, k, tr, dv, vw = cell
      return self._epoch_cell(s, k, epoch, emb, tr, dv, vw)

    cells = (state, keys, train, dev, views)
    n_dev = self.mesh.devices.size
    if n_dev == 1:
      return _map_in_place(one, cells)
    split = lambda x: x.reshape(n_dev, x.shape[0] // n_dev, *x.shape[1:])
    out = jax.vmap(lambda c: _map_in_place(one, c))(
        jax.tree.map(split, cells))
    return jax.tree.map(lambda x: x.reshape(-1, *x.shape[2:]), out)

  def _predict_cell(self, params, emb, split, view):
    return self.solver.predict(params, emb,
                               variants_lib.apply_view(split, view))

  def init(self) -> CellState:
    """The stacked initial state, sharded over the cell axis."""
    return self._init(self.keys, self.train, self.emb, self.views)

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
    fn = self._compiled or self._epoch
    return fn(*self._epoch_args(state, epoch))

  def predict(self, params, split: SplitIndex):
    """Per-cell predictions on one split (padding cells and rows dropped)."""
    out = self._predict(params, self.emb, split, self.views)
    n = int(split.size)
    return jax.tree.map(lambda x: np.asarray(x)[:self.num_cells, :n], out)

  def cell_values(self, x: jax.Array) -> np.ndarray:
    """A per-cell array of the state on the host, padding cells dropped
    (gathered from every process's shards)."""
    return np.asarray(self._gather(x))[:self.num_cells]


def _map_in_place(fn, cells):
  """`jax.lax.map(fn, cells)` for fn(cell) -> (new state, measurements),
  where cells[0] is the stacked state: a loop that writes each cell's new
  state over its old one. lax.map would stack the outputs into a second
  buffer, a whole extra copy of every cell's parameters and optimizer
  state; here the loop carries one buffer, updated in place, and the
  temporaries are one cell's."""
  take = lambda tree, i: jax.tree.map(
      lambda x: jax.lax.dynamic_index_in_dim(x, i, keepdims=False), tree)
  put = lambda tree, i, val: jax.tree.map(
      lambda x, v: jax.lax.dynamic_update_index_in_dim(x, v, i, 0), tree,
      val)
  n = jax.tree.leaves(cells)[0].shape[0]
  if n == 1:  # No loop, no slicing: the cell itself, on a leading axis of 1.
    out = fn(take(cells, 0))
    return jax.tree.map(lambda x: x[None], out)
  _, measured_shape = jax.eval_shape(fn, take(cells, 0))
  measured = jax.tree.map(lambda a: jnp.zeros((n, *a.shape), a.dtype),
                          measured_shape)

  def body(i, carry):
    state, out = carry
    new_state, m = fn((take(state, i),) + take(cells[1:], i))
    return put(state, i, new_state), put(out, i, m)

  return jax.lax.fori_loop(0, n, body, (cells[0], measured))


def available_bytes(device) -> int:
  """Memory a grid on `device` may use: an accelerator's allocator limit
  (what is in use is mostly the epoch's own arguments, which the estimate
  already counts); on a CPU, the host's MemAvailable now."""
  stats = device.memory_stats() if hasattr(device, "memory_stats") else None
  if stats and "bytes_limit" in stats:
    return int(stats["bytes_limit"])
  with open("/proc/meminfo") as f:
    for line in f:
      if line.startswith("MemAvailable:"):
        return int(line.split()[1]) * 1024
  raise OSError("cannot read MemAvailable from /proc/meminfo; set "
                "config.grid.memory_limit_gb")


def _gib(n: int) -> str:
  return f"{n / 2**30:.2f}"


def _pad_rows(a: np.ndarray, rows: int) -> np.ndarray:
  """`a` with rows up to `rows` (identity permutations on padding rows)."""
  if rows <= a.shape[0]:
    return a
  fill = np.broadcast_to(np.arange(a.shape[1], dtype=a.dtype),
                         (rows - a.shape[0], a.shape[1]))
  return np.concatenate([a, fill])
