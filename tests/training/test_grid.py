"""A grid cell equals the same model trained alone; sharding changes nothing."""

import os
import subprocess
import sys
import textwrap

import jax
import numpy as np
import pytest

from blm_jax.training import config_check, grid as grid_lib, trainer as train
from tests import ROOT, synthetic, xla_flags_with_devices


def _train(config, data, epochs):
  grid = train.build_grid(config, data)
  state = grid.init()
  for e in range(epochs):
    state, _ = grid.run_epoch(state, e)
  return grid, state


@pytest.mark.slow
def test_cell_equals_model_trained_alone():
  # Both grid forms against each cell trained alone (a one-cell grid,
  # which runs its cell unbatched).
  data = synthetic.data(n_train=60, n_dev=20, n_test=20)
  grids = {}
  for mode in ("vmap", "scan"):
    cfg = synthetic.config("vae2", seeds=(3, 7), types=("I", "II"))
    cfg.grid.mode = mode
    grids[mode] = _train(cfg, data, epochs=2)
    assert grids[mode][0].num_cells == 4 and grids[mode][0].mode == mode
  # Cells 1 and 2 differ in both seed and type, and a grid that ordered
  # its cells type-major instead of seed-major would swap them (training
  # every cell alone adds two compilations and checks nothing more).
  cells = grids["vmap"][0].spec.cells
  assert cells[1][0] != cells[2][0] and cells[1][1] != cells[2][1]
  seen = []
  for i in (1, 2):
    seed, t = cells[i]
    alone_cfg = synthetic.config("vae2", seeds=(seed,), types=(t,))
    alone_cfg.grid.mode = "vmap"
    _, alone = _train(alone_cfg, data, epochs=2)
    ref = jax.tree.map(lambda x: np.asarray(x)[0], alone.params)
    for mode, (_, state) in grids.items():
      cell = jax.tree.map(lambda x: np.asarray(x)[i], state.params)
      jax.tree.map(lambda a, b: np.testing.assert_allclose(
          a, b, atol=2e-5, err_msg=mode), cell, ref)
    seen.append(jax.tree.leaves(cell)[0])
  # Each seed really is a different seed: different initial parameters.
  assert not np.allclose(seen[0], seen[1])


@pytest.mark.slow
def test_scanned_grid_measures_like_vmapped():
  # Not only the parameters: the per-step losses and the dev figures that
  # pick the evaluated epoch, and the selected (best) parameters.
  data = synthetic.data(n_train=60, n_dev=20, n_test=20)
  out = {}
  for mode in ("vmap", "scan"):
    cfg = synthetic.config("ffnn", seeds=(0, 1), types=("I", "II"))
    cfg.grid.mode = mode
    grid = train.build_grid(cfg, data)
    state = grid.init()
    measured = []
    for e in range(2):
      state, m = grid.run_epoch(state, e)
      measured.append(m)
    out[mode] = (measured, state.best_params,
                 grid.predict(state.best_params, grid.test["I"])["scores"])
  jax.tree.map(lambda a, b: np.testing.assert_allclose(a, b, atol=2e-5),
               out["vmap"], out["scan"])


def test_grid_mode_auto_and_errors():
  assert grid_lib.resolve_mode("auto", "vae2", "cpu") == "scan"
  assert grid_lib.resolve_mode("auto", "vae2", "gpu") == "vmap"
  assert grid_lib.resolve_mode("auto", "sent_vae", "cpu") == "scan"
  assert grid_lib.resolve_mode("auto", "cnn", "cpu") == "scan"
  assert grid_lib.resolve_mode("auto", "ffnn", "cpu") == "vmap"
  assert grid_lib.resolve_mode("scan", "ffnn", "gpu") == "scan"
  with pytest.raises(ValueError, match=r"grid.mode='loop': expected one of"):
    grid_lib.resolve_mode("loop", "ffnn", "cpu")
  cfg = synthetic.config("ffnn")
  cfg.grid.mode = "vmapp"
  found = config_check.problems(cfg)
  assert any("config.grid.mode='vmapp' is not known (did you mean 'vmap'?)"
             in p for p in found), found
  cfg.grid.mode = "scan"
  assert not config_check.problems(cfg)
  data = synthetic.data(n_train=20, n_dev=10, n_test=10)
  assert train.build_grid(cfg, data).mode == "scan"


@pytest.mark.slow
def test_sharded_grid_equals_one_device():
  script = textwrap.dedent("""
      import jax, numpy as np
      from blm_jax.training import trainer as train
      from blm_jax.training.grid import make_mesh
      from tests import synthetic
      assert jax.device_count() == 4
      data = synthetic.data(n_train=60, n_dev=20, n_test=20)
      cfg = synthetic.config("ffnn", seeds=(0, 1, 2), types=("I", "II"))
      out = []
      for devices, mode in ((jax.devices(), "vmap"), (jax.devices(), "scan"),
                            (jax.devices()[:1], "vmap")):
        cfg.grid.mode = mode
        grid = train.build_grid(cfg, data, mesh=make_mesh(devices))
        grid.fit_memory(2**40, may_scan=False)  # run_epoch: the AOT epoch
        state = grid.init()
        for e in range(2):
          state, _ = grid.run_epoch(state, e)
        out.append(grid.predict(state.params, grid.test["II"])["scores"])
        if len(devices) == 4:
          assert grid.padded_cells == 8, grid.padded_cells
          shard = state.params["params"]["layer1"]["kernel"].sharding
          assert len(shard.device_set) == 4, shard
      np.testing.assert_allclose(out[0], out[2], atol=1e-5)
      np.testing.assert_allclose(out[1], out[2], atol=1e-5)
      print("OK", out[0].shape)
      """)
  env = dict(os.environ,
             XLA_FLAGS=xla_flags_with_devices(4),
             JAX_PLATFORMS="cpu")
  root = ROOT
  proc = subprocess.run([sys.executable, "-c", script], cwd=root, env=env,
                        capture_output=True, text=True, timeout=600)
  assert proc.returncode == 0, proc.stderr[-3000:]
  assert "OK (6, 20, 4)" in proc.stdout


@pytest.mark.slow
def test_grid_that_does_not_fit_is_scanned_or_refused():
  data = synthetic.data(n_train=60, n_dev=20, n_test=20)
  cfg = synthetic.config("ffnn", seeds=(0, 1, 2), types=("I", "II"))
  cfg.grid.mode = "vmap"
  need = {}
  for mode in ("vmap", "scan"):
    cfg.grid.mode = mode
    need[mode] = train.build_grid(cfg, data).compile_epoch()
  # The vmapped epoch holds every cell's temporaries at once.
  assert need["scan"] < need["vmap"], need
  between = (need["scan"] + need["vmap"]) // 2

  cfg.grid.mode = "vmap"
  grid = train.build_grid(cfg, data)
  said = grid.fit_memory(between, may_scan=True)
  assert grid.mode == "scan", said
  assert "scanning the cells instead" in said[0]
  state, _ = grid.run_epoch(grid.init(), 0)  # The compiled scan runs.
  assert np.isfinite(np.asarray(state.best_dev_loss)).all()

  grid = train.build_grid(cfg, data)  # grid.mode='vmap' as configured
  with pytest.raises(MemoryError, match=r"the grid's 6 cells need about "
                     r"[0-9.]+ GiB for one epoch \(vmap\) but [0-9.]+ GiB are "
                     r"available: train fewer cells \(config.grid.seeds"):
    grid.fit_memory(between, may_scan=False)
  grid = train.build_grid(cfg, data)
  with pytest.raises(MemoryError, match=r"\(scan\) but 0.00 GiB"):
    grid.fit_memory(need["scan"] - 1, may_scan=True)
  grid = train.build_grid(cfg, data)
  assert grid.fit_memory(need["vmap"], may_scan=True)[-1].startswith(
      "epoch memory (vmap, 6 cells)")
  assert grid.mode == "vmap"


@pytest.mark.slow
def test_run_that_does_not_fit_stops_before_making_its_workdir(tmp_path):
  data = synthetic.data(n_train=60, n_dev=20, n_test=20)
  cfg = synthetic.config("ffnn", seeds=(0,), types=("I",))
  cfg.grid.memory_limit_gb = 1e-6
  workdir = tmp_path / "run"
  with pytest.raises(MemoryError, match="set by config.grid.memory_limit_gb"):
    train.train_and_evaluate(cfg, str(workdir), data=data)
  assert not workdir.exists()
  cfg.grid.memory_limit_gb = -1.0
  with pytest.raises(config_check.ConfigError,
                     match=r"config.grid.memory_limit_gb=-1.0: must be a "
                     r"number >= 0"):
    train.train_and_evaluate(cfg, str(workdir), data=data)


def test_available_bytes_reads_the_host_on_cpu():
  n = grid_lib.available_bytes(jax.devices()[0])
  assert 2**20 < n < 2**50
