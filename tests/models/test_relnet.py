"""The relation-network solver: pair sums by hand, masking, its config
checks, and a tiny grid trained end to end."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from blm_jax import models
from blm_jax.models import registry
from blm_jax.results.experiment import run_experiment
from blm_jax.training import config_check
from configs import relnet as relnet_config
from tests import synthetic


def _model(**kw):
  cfg = relnet_config.get_config(None).model
  cfg.panel_dim, cfg.g_hidden, cfg.f_hidden = 3, (5, 4), (6,)
  for k, v in kw.items():
    cfg[k] = v
  return models.create_model(cfg, embed_dim=8, num_context=4, score="dot")


def _inputs(seed=0, b=2, c=4, a=3, d=8):
  k = jax.random.split(jax.random.key(seed), 2)
  return (jax.random.normal(k[0], (b, c, d)), jnp.ones((b, c), bool),
          jax.random.normal(k[1], (b, a, d)), jnp.ones((b, a), bool))


def test_scores_are_f_of_summed_pair_relations_by_hand():
  """score_k = f(sum_{i<j} g(c_i, c_j) + sum_i g(c_i, a_k)), recomputed
  pair by pair from the parameters, with a padded context sentence."""
  m = _model()
  ctx, mask, ans, ans_mask = _inputs()
  mask = mask.at[1, 3].set(False)
  params = jax.jit(m.init, static_argnums=3)(jax.random.key(1), ctx, mask,
                                              False, ans, ans_mask)
  out = jax.jit(m.apply, static_argnums=3)(params, ctx, mask, False, ans,
                                           ans_mask)
  assert out.scores.shape == (2, 3) and out.pred is None
  p = jax.tree.map(np.asarray, params["params"])
  dense = lambda name, x: x @ p[name]["kernel"] + p[name].get("bias", 0)
  relu = lambda x: np.maximum(x, 0)
  c = 4
  tag = np.eye(c + 1)

  def panel(x, pos):
    return np.concatenate([dense("panel", x), tag[pos]])

  def g(x, y):
    h = relu(dense("g_left", x) + y @ p["g_right"]["kernel"])
    return relu(dense("g1", h))

  ctx_np, ans_np = np.asarray(ctx), np.asarray(ans)
  for b in range(2):
    real = [i for i in range(c) if mask[b, i]]
    pc = {i: panel(ctx_np[b, i], i) for i in real}
    context = sum(g(pc[i], pc[j]) for i in real for j in real if i < j)
    np.testing.assert_allclose(out.latent[b], context, rtol=1e-5,
                               atol=1e-6)
    for k in range(3):
      pa = panel(ans_np[b, k], c)
      h = relu(dense("f0", context + sum(g(pc[i], pa) for i in real)))
      want = dense("f_out", h)[0]
      np.testing.assert_allclose(out.scores[b, k], want, rtol=1e-5,
                                 atol=1e-6)


@pytest.mark.slow
def test_a_padded_context_sentence_changes_nothing():
  m = _model()
  ctx, mask, ans, ans_mask = _inputs(c=4)
  params = m.init(jax.random.key(1), ctx, mask, False, ans, ans_mask)
  short = mask.at[:, 3].set(False)
  a = m.apply(params, ctx, short, False, ans, ans_mask).scores
  b = m.apply(params, ctx.at[:, 3].set(123.0), short, False, ans,
              ans_mask).scores
  np.testing.assert_allclose(a, b, rtol=1e-6)


@pytest.mark.slow
def test_a_tiny_grid_trains_and_learns(tmp_path):
  cfg = synthetic.config("relnet", epochs=8, seeds=(0,), types=("I",))
  cfg.model.panel_dim, cfg.model.g_hidden, cfg.model.f_hidden = 16, (32, 32), (32,)
  data = synthetic.data(n_train=200, n_dev=40, n_test=60, types=("I",))
  res = run_experiment(cfg, str(tmp_path), data=data)
  assert res["config"]["model"] == "relnet"
  hist = res["cells"][0]["history"]["train"]["loss"]
  assert hist[-1] < hist[0]
  # Chance is 1/4; the analogy c0 - c1 + c2 is learnable from pairs.
  assert res["summary"]["I"]["I"]["f1_mean"] > 0.5


@pytest.mark.slow
def test_a_grid_cell_equals_the_cell_trained_alone():
  """The candidates reach the model through the vmapped grid as through
  one cell."""
  from blm_jax.training import trainer

  def trained(seeds):
    cfg = synthetic.config("relnet", seeds=seeds, types=("I",))
    cfg.model.panel_dim, cfg.model.g_hidden, cfg.model.f_hidden = (
        4, (8,), (8,))
    cfg.grid.mode = "vmap"
    grid = trainer.build_grid(cfg, data)
    state, _ = grid.run_epoch(grid.init(), 0)
    return jax.tree.map(np.asarray, state.params)

  data = synthetic.data(n_train=40, n_dev=20, n_test=20, types=("I",))
  both = trained((3, 7))
  for i, seed in enumerate((3, 7)):
    alone = trained((seed,))
    jax.tree.map(lambda a, b: np.testing.assert_allclose(a[i], b[0],
                                                         atol=2e-5),
                 both, alone)


def test_its_config_checks_name_the_key():
  c = relnet_config.get_config(None)
  assert registry.get("relnet").loss_terms == ()
  assert sorted(c.model) == ["f_hidden", "g_hidden", "name", "panel_dim"]
  c.model.g_hidden = ()
  c.train.predict_score = "cosine"
  found = config_check.problems(c)
  assert any("config.model.g_hidden=()" in f for f in found), found
  assert any("config.train.predict_score='cosine': relnet scores the "
             "candidates itself" in f for f in found), found


def test_another_solvers_key_is_refused():
  c = relnet_config.get_config(None)
  c.model.task_latent = 5
  c.loss.sentence_kl = 1.0
  assert config_check.problems(c) == [
      "config.model.task_latent is not a key of the 'relnet' solver; its "
      "config.model keys: f_hidden, g_hidden, name, panel_dim",
      "config.loss.sentence_kl is not a key of the 'relnet' solver; its "
      "config.loss keys: answer_margin, answer_reduction"]


def test_one_context_sentence_is_refused():
  import types
  cfg = synthetic.config("relnet")
  with pytest.raises(ValueError, match="relnet' relates pairs of context "
                     "sentences; 'synthetic_{}' has 1"):
    registry.get("relnet").check_data(cfg, types.SimpleNamespace(
        num_context=1))
