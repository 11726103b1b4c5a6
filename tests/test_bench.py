"""The grid benchmark's timing harness and its JSON record."""

import json

import jax

from blm_jax import bench


def test_timed_grid_counts_instances_and_advances(tmp_path):
  data = bench.random_data(("I", "II"), num_train=30, embed_dim=8)
  config = bench.config_for("ffnn", 8, channels=4, hidden_factor=1.0)
  config.train.batch_size = 10
  config.data.train_types, config.grid.seeds = ("I", "II"), (0, 1)
  timed = bench.TimedGrid(config, data)  # compiles with one epoch
  assert timed.instances_per_epoch == 4 * 3 * 10  # cells x steps x batch
  before = jax.tree.map(lambda x: x.copy(), timed.state.params)
  assert timed.run(2) > 0 and timed.epoch == 3
  moved = jax.tree.map(lambda a, b: bool((a != b).any()), before,
                       timed.state.params)
  assert all(jax.tree.leaves(moved))

  path = bench.write_record("t", {"figures": [1.0]}, str(tmp_path / "r.json"))
  record = json.loads(open(path).read())
  assert record["benchmark"] == "t" and record["figures"] == [1.0]
  env = record["environment"]
  assert env["platform"] == jax.devices()[0].platform
  assert env["jax"] == jax.__version__ and env["device_count"] >= 1
