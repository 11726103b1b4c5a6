"""The grid benchmark's timing harness and its JSON record."""

import json

import jax
import numpy as np
import pytest

from blm_jax.cli import bench
from blm_jax.results import benchmark_record
from blm_jax.training import throughput


@pytest.mark.slow
def test_timed_grid_counts_instances_and_advances(tmp_path):
  data = throughput.random_data(("I", "II"), num_train=30, embed_dim=8)
  config = throughput.config_for("ffnn", 8, channels=4, hidden_factor=1.0)
  config.train.batch_size = 10
  config.data.train_types, config.grid.seeds = ("I", "II"), (0, 1)
  timed = throughput.TimedGrid(config, data)  # compiles with one epoch
  assert timed.instances_per_epoch == 4 * 3 * 10  # cells x steps x batch
  before = jax.tree.map(lambda x: x.copy(), timed.state.params)
  assert timed.run(2) > 0 and timed.epoch == 3
  moved = jax.tree.map(lambda a, b: bool((a != b).any()), before,
                       timed.state.params)
  assert all(jax.tree.leaves(moved))

  path = benchmark_record.write_record("t", {"figures": [1.0]},
                                      str(tmp_path / "r.json"))
  record = json.loads(open(path).read())
  assert record["benchmark"] == "t" and record["figures"] == [1.0]
  env = record["environment"]
  assert env["platform"] == jax.devices()[0].platform
  assert env["jax"] == jax.__version__ and env["device_count"] >= 1


@pytest.mark.slow
def test_forms_time_every_form_of_the_same_grid():
  from blm_jax.training.throughput import Forms
  forms = Forms("ffnn", 8, ["vmap", "scan", "loop"], seeds=(0, 1),
                types=("I", "II"), num_train=30, channels=4,
                hidden_factor=1.0)
  loop = forms.timed["loop"]
  assert len(loop) == 4 and len(forms.timed["vmap"]) == 1
  # The loop's cells share one compiled epoch, yet each trains its own cell
  # (own seed, own train type): cell i of the vmapped and of the scanned
  # grid after the compiling epoch.
  assert all(c.grid._epoch is loop[0].grid._epoch for c in loop)
  for form in ("vmap", "scan"):
    grid_state = forms.timed[form][0].state.params
    for i, cell in enumerate(loop):
      jax.tree.map(lambda g, c: np.testing.assert_allclose(
          np.asarray(g)[i], np.asarray(c)[0], atol=1e-5, err_msg=form),
                   grid_state, cell.state.params)
  assert forms.timed["scan"][0].grid.mode == "scan"
  for form in ("vmap", "scan", "loop"):
    assert forms.rate(form, 1) > 0
  # XLA's count covers at least the dense layers' forward and backward
  # matmuls (2 * batch * fan_in * fan_out each, three per layer).
  kernels = [k for k in jax.tree.leaves(loop[0].state.params) if k.ndim == 3]
  dense = sum(2 * forms.batch * k.shape[1] * k.shape[2] for k in kernels)
  assert kernels and forms.flops >= 2 * dense
  with pytest.raises(ValueError, match="unknown form 'pmap'"):
    Forms("ffnn", 8, ["pmap"], seeds=(0,), types=("I",), num_train=30,
          channels=4, hidden_factor=1.0)


def test_matmul_rate_is_positive_per_dtype():
  rates = throughput.matmul_gflops(n=64, reps=2)
  assert set(rates) == {"f32", "bf16"} and min(rates.values()) > 0


def test_markdown_table_reads_the_record():
  record = {"forms": ["vmap", "loop"], "summary": {"vae2_D8": {
      "model": "vae2", "embed_dim": 8, "gflop_per_step": 1.5,
      "instances_per_s": {"vmap": 90.4, "loop": 100.0},
      "efficiency": {"vmap": 0.25, "loop": 0.5},
      "ratio_over_loop_rounds": {"vmap": [0.8, 1.1, 0.9]},
      "ratio_over_loop": {"vmap": 0.9}}}}
  lines = bench.markdown_table(record).splitlines()
  assert lines[2] == "| vae2 | 8 | vmap | 90 | 0.90 | 0.80, 1.10, 0.90 | 1.50 | 25% |"
  assert lines[3] == "| vae2 | 8 | loop | 100 |  |  | 1.50 | 50% |"
