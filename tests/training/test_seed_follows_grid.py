"""data.seed_follows_grid: each grid seed trains on its own data sample."""

import dataclasses

import jax
import numpy as np
import pytest

from blm_jax.data import input_pipeline
from blm_jax.training import trainer as train
from tests import synthetic

POOL = 60  # instances per type and split in the fake dataset
SEEDS = (3, 7)


@pytest.fixture
def fake_dataset(monkeypatch):
  """A dataset without a dev split, in memory: (pools, embed_fn)."""
  pools, vectors = {}, {}
  for k, t in enumerate(("I", "II")):
    for split in ("train", "test"):
      pools[t, split], vecs = synthetic.instances(POOL, t, 10 * k + len(split))
      vectors.update(vecs)
  loading = input_pipeline.data
  monkeypatch.setattr(loading, "split_names",
                      lambda name, *a, **k: ("train", "test"))
  monkeypatch.setattr(
      loading, "load_instances",
      lambda name, split, *a, **k: pools[name.rsplit("_", 1)[1], split])
  return pools, lambda sents: np.stack([vectors[x] for x in sents])


def _config(follow: bool, seeds=SEEDS, types=("I", "II")):
  c = synthetic.config("ffnn", seeds=seeds, types=types)
  c.data.num_train = 25
  c.data.seed_follows_grid = follow
  return c


def _ids(table):
  return list(table.instance_ids)


def test_each_seed_gets_the_sample_of_its_data_seed(fake_dataset):
  pools, embed = fake_dataset
  c = _config(True)
  data = input_pipeline.load(c.data, embed, seeds=SEEDS)
  fixed = input_pipeline.load(_config(False).data, embed)
  for t in ("I", "II"):
    for s in SEEDS:
      want_train, want_dev = input_pipeline.sample_train_dev(
          pools[t, "train"], 25, 0.2, s, t)
      assert _ids(data.train_of(s, t)) == [x.id for x in want_train]
      assert _ids(data.dev_of(s, t)) == [x.id for x in want_dev]
    assert _ids(data.train_of(3, t)) != _ids(data.train_of(7, t))
    assert _ids(data.train[t]) == _ids(data.train_of(SEEDS[0], t))
    # The test sets do not follow the seed.
    assert _ids(data.test[t]) == _ids(fixed.test[t])
  with pytest.raises(ValueError, match="needs the grid's seeds"):
    input_pipeline.load(c.data, embed)


def _train(config, data, epochs=2):
  grid = train.build_grid(config, data)
  state = grid.init()
  for e in range(epochs):
    state, _ = grid.run_epoch(state, e)
  return grid, state


@pytest.mark.slow
def test_cell_equals_model_trained_alone_on_its_seeds_sample(fake_dataset):
  _, embed = fake_dataset
  c = _config(True)
  data = input_pipeline.load(c.data, embed, seeds=SEEDS)
  train.check_compatible(c, data)
  grid, state = _train(c, data)
  for i, (seed, t) in enumerate(grid.spec.cells):
    own = dataclasses.replace(
        data, train={t: data.train_of(seed, t)},
        dev={t: data.dev_of(seed, t)}, train_by_seed={}, dev_by_seed={})
    _, alone = _train(_config(False, seeds=(seed,), types=(t,)), own)
    cell = jax.tree.map(lambda x: np.asarray(x)[i], state.params)
    ref = jax.tree.map(lambda x: np.asarray(x)[0], alone.params)
    jax.tree.map(lambda a, b: np.testing.assert_allclose(a, b, atol=2e-5),
                 cell, ref)
  # Data without the per-seed samples is refused, not silently shared.
  with pytest.raises(ValueError, match="seed_follows_grid"):
    train.check_compatible(c, synthetic.data())
