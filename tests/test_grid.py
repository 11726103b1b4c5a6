"""A grid cell equals the same model trained alone; sharding changes nothing."""

import os
import subprocess
import sys
import textwrap

import jax
import numpy as np

from blm_jax import train
from tests import synthetic


def _train(config, data, epochs):
  grid = train.build_grid(config, data)
  state = grid.init()
  for e in range(epochs):
    state, _ = grid.run_epoch(state, e)
  return grid, state


def test_cell_equals_model_trained_alone():
  data = synthetic.data(n_train=60, n_dev=20, n_test=20)
  cfg = synthetic.config("vae2", seeds=(3, 7), types=("I", "II"))
  grid, state = _train(cfg, data, epochs=2)
  assert grid.num_cells == 4
  seen = []
  for i, (seed, t) in enumerate(grid.spec.cells):
    alone_cfg = synthetic.config("vae2", seeds=(seed,), types=(t,))
    _, alone = _train(alone_cfg, data, epochs=2)
    cell = jax.tree.map(lambda x: np.asarray(x)[i], state.params)
    ref = jax.tree.map(lambda x: np.asarray(x)[0], alone.params)
    jax.tree.map(lambda a, b: np.testing.assert_allclose(a, b, atol=2e-5),
                 cell, ref)
    seen.append(jax.tree.leaves(cell)[0])
  # Each seed really is a different seed: different initial parameters.
  assert not np.allclose(seen[0], seen[2])


def test_sharded_grid_equals_one_device():
  script = textwrap.dedent("""
      import jax, numpy as np
      from blm_jax import train
      from blm_jax.grid import make_mesh
      from tests import synthetic
      assert jax.device_count() == 4
      data = synthetic.data(n_train=60, n_dev=20, n_test=20)
      cfg = synthetic.config("ffnn", seeds=(0, 1, 2), types=("I", "II"))
      out = []
      for devices in (jax.devices(), jax.devices()[:1]):
        grid = train.build_grid(cfg, data, mesh=make_mesh(devices))
        state = grid.init()
        for e in range(2):
          state, _ = grid.run_epoch(state, e)
        out.append(grid.predict(state.params, grid.test["II"])["scores"])
        if len(devices) == 4:
          assert grid.padded_cells == 8, grid.padded_cells
          shard = state.params["params"]["layer1"]["kernel"].sharding
          assert len(shard.device_set) == 4, shard
      np.testing.assert_allclose(out[0], out[1], atol=1e-5)
      print("OK", out[0].shape)
      """)
  env = dict(os.environ,
             XLA_FLAGS="--xla_force_host_platform_device_count=4",
             JAX_PLATFORMS="cpu")
  root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
  proc = subprocess.run([sys.executable, "-c", script], cwd=root, env=env,
                        capture_output=True, text=True, timeout=600)
  assert proc.returncode == 0, proc.stderr[-3000:]
  assert "OK (6, 20, 4)" in proc.stdout
