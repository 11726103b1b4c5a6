"""The two-level VAE objective term by term, the reference variant, dev
selection and chunked evaluation."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from blm_jax import models
from blm_jax.models import losses
from blm_jax.training import trainer as train
from blm_jax.training.solver import CellState, Solver
from configs import common, vae2
from tests import synthetic


def test_mean_hinge_is_the_mean_of_hinges_by_hand():
  scores = jnp.array([[0.5, 0.2, 0.9, 7.0]])
  mask = jnp.array([[True, True, True, False]])
  got = losses.max_margin(scores, jnp.array([0]), mask, "mean_hinge")
  # ([1 - .5 + .2]^+ + [1 - .5 + .9]^+) / 2 = (0.7 + 1.4) / 2
  np.testing.assert_allclose(got, [1.05], rtol=1e-6)
  scores = jnp.array([[3.0, 0.0, 2.5]])
  got = losses.max_margin(scores, jnp.array([0]), jnp.ones((1, 3), bool),
                          "mean_hinge")
  # ([1 - 3 + 0]^+ + [1 - 3 + 2.5]^+) / 2 = (0 + 0.5) / 2; maxM would be 0.
  np.testing.assert_allclose(got, [0.25], rtol=1e-6)


def test_normalize_scores_by_hand_ignores_padding():
  got = losses.normalize_scores(jnp.array([[3.0, 4.0, 100.0]]),
                                jnp.array([[True, True, False]]))
  np.testing.assert_allclose(got, [[0.6, 0.8, 0.0]], rtol=1e-6)


def _vae2(**model):
  cfg = common.base("vae2").model
  cfg.channels = (2,)
  cfg.grid_shape = (4, 2)
  cfg.kernel = 2
  cfg.latent = 2
  cfg.task_latent = 2
  for k, v in model.items():
    cfg[k] = v
  return cfg


def _loss_cfg(**kw):
  c = common.base("vae2").loss
  for k, v in kw.items():
    c[k] = v
  return c


@pytest.mark.slow
def test_sentence_terms_by_hand_sum_and_mean():
  """eq. (4) recomputed from the sentence VAE's own outputs."""
  ctx = jax.random.normal(jax.random.key(0), (2, 3, 8))
  mask = jnp.array([[True, True, True], [True, True, False]])
  outs = {}
  for reduction in ("sum", "mean"):
    m = models.create_model(_vae2(), embed_dim=8, num_context=3,
                            score="dot",
                            loss_cfg=_loss_cfg(sentence_reduction=reduction))
    params = jax.jit(m.init, static_argnums=3)({"params": jax.random.key(1)},
                                               ctx, mask, False)
    outs[reduction] = jax.jit(lambda p: m.apply(p, ctx, mask, False).terms)(
        params)
    decoded, post, _ = jax.jit(lambda p: m.apply(
        p, ctx, False, method=lambda mod, x, t: mod.sentence(x, t)))(params)
  dec, ctx_np = np.asarray(decoded), np.asarray(ctx)
  mean, logvar = np.asarray(post.mean), np.asarray(post.logvar)
  want_margin, want_kl = np.zeros(2), np.zeros(2)
  for b in range(2):
    real = [i for i in range(3) if mask[b, i]]
    for i in real:
      s = [dec[b, i] @ ctx_np[b, j] for j in real]
      pos = s[real.index(i)]
      negs = [x for j, x in zip(real, s) if j != i]
      want_margin[b] += max(0.0, 1 - pos + np.mean(negs))
      want_kl[b] += 0.5 * np.sum(np.exp(logvar[b, i]) + mean[b, i] ** 2
                                 - 1 - logvar[b, i])
  n_real = np.array([3, 2])
  np.testing.assert_allclose(outs["sum"]["sentence_margin"], want_margin,
                             rtol=1e-5, atol=1e-6)
  np.testing.assert_allclose(outs["sum"]["sentence_kl"], want_kl, rtol=1e-5)
  np.testing.assert_allclose(outs["mean"]["sentence_margin"],
                             want_margin / n_real, rtol=1e-5, atol=1e-6)
  np.testing.assert_allclose(outs["mean"]["sentence_kl"], want_kl / n_real,
                             rtol=1e-5)


@pytest.mark.slow
def test_total_loss_weights_every_term_and_kl_scale():
  cfg = synthetic.config("vae2")
  cfg.loss.answer_margin = 2.0
  cfg.loss.task_kl = 3.0
  cfg.loss.sentence_margin = 0.5
  cfg.loss.sentence_kl = 0.0
  assert dict(train.loss_weights(cfg, 8)) == {
      "answer_margin": 2.0, "task_kl": 3.0, "sentence_margin": 0.5,
      "sentence_kl": 0.0}
  cfg.loss.kl_scale = "latent_over_dim"
  cfg.model.task_latent, cfg.model.latent = 5, 4
  w = dict(train.loss_weights(cfg, 768))
  assert w["task_kl"] == pytest.approx(3.0 * 5 / 768)
  assert w["answer_margin"] == 2.0 and w["sentence_margin"] == 0.5
  cfg.loss.kl_scale = "per_dim"
  with pytest.raises(ValueError, match="config.loss.kl_scale='per_dim'"):
    train.loss_weights(cfg, 8)

  data = synthetic.data(n_train=20, n_dev=20, n_test=20, num_context=4)
  cfg = synthetic.config("vae2")
  cfg.loss.answer_margin, cfg.loss.task_kl = 2.0, 3.0
  cfg.loss.sentence_margin, cfg.loss.sentence_kl = 0.5, 0.25
  grid = train.build_grid(cfg, data)
  solver = grid.solver
  state = jax.tree.map(lambda x: x[0], grid.init())
  from blm_jax.training.solver import gather
  batch = gather(grid.emb, jax.tree.map(lambda x: x[0], grid.train),
                 jnp.arange(10))
  # Compiled whole, as training runs them (op by op, each op compiles).
  total, terms, _, _ = jax.jit(solver.objective, static_argnums=2)(
      state.params, batch, False)
  want = (2.0 * terms["answer_margin"] + 3.0 * terms["task_kl"]
          + 0.5 * terms["sentence_margin"] + 0.25 * terms["sentence_kl"])
  np.testing.assert_allclose(total, want, rtol=1e-6)
  loss, measured = jax.jit(solver.loss)(state.params, batch,
                                       jax.random.key(0))
  assert set(measured) == {"loss", "answer_margin", "task_kl",
                           "sentence_margin", "sentence_kl"}


@pytest.mark.slow
@pytest.mark.parametrize("dim,want", [(768, 178_126), (384, 88_270)])
def test_reference_variant_matches_the_authors_architecture(dim, want):
  """Parameter counts of the authors' VariationalAutoencoder_2level (their
  code instantiated with simple samplers, latent 5 at both levels, x_dim
  32 as their scripts pass it: at D = 384 a 32 x 12 array padded by 3
  columns on each side; docs/explanation/solvers.md)."""
  c = vae2.get_config("reference")
  m = models.create_model(c.model, embed_dim=dim, num_context=7,
                          score=c.train.score, loss_cfg=c.loss)
  x = jax.random.normal(jax.random.key(0), (3, 7, dim))
  mask = jnp.ones((3, 7), bool)
  params = jax.jit(m.init, static_argnums=3)(
      {"params": jax.random.key(1), "sample": jax.random.key(2)}, x, mask,
      False)
  assert sum(p.size for p in jax.tree.leaves(params)) == want
  p = params["params"]
  assert p["task_enc"]["kernel"].shape == (16, 32)  # 4x4 conv, 32 channels
  assert p["task_dec"]["kernel"].shape == (32, 225)  # 15x15 transposed conv
  assert p["sentence"]["enc_kernel"].shape == (225, 40)
  out = jax.jit(lambda p: m.apply(p, x, mask, True,
                                  rngs={"sample": jax.random.key(3)}))(params)
  assert out.pred.shape == (3, dim) and out.latent.shape == (3, 5)
  assert bool(jnp.all(out.pred >= 0))  # the authors' ReLU output
  assert c.train.score == "dot" and c.train.predict_score == "cosine"
  assert c.train.select_by == "loss"


def _state(acc, loss, epoch):
  return CellState(params=jnp.float32(epoch), opt_state=(),
                   best_params=jnp.float32(epoch),
                   best_dev_accuracy=jnp.float32(acc),
                   best_dev_loss=jnp.float32(loss),
                   best_epoch=jnp.int32(epoch))


@pytest.mark.parametrize("select_by,acc,loss,keeps_new", [
    ("accuracy", 0.9, 5.0, True),   # higher accuracy wins whatever the loss
    ("accuracy", 0.8, 1.0, False),  # lower accuracy never wins
    ("accuracy", 0.85, 1.5, True),  # tie: the lower dev loss wins
    ("accuracy", 0.85, 2.5, False),  # tie, higher loss: keep the old one
    ("accuracy", 0.85, 2.0, True),  # full tie: the later epoch
    ("loss", 0.1, 1.9, True),
    ("loss", 0.99, 2.1, False),
    ("last", 0.0, 9.0, True),
])
def test_dev_selection_tie_breaking(select_by, acc, loss, keeps_new):
  solver = Solver(model=None, tx=None, select_by=select_by)
  old = _state(0.85, 2.0, epoch=3).replace(params=jnp.float32(7))
  new = solver.select(old, jnp.int32(7), jnp.float32(acc),
                      jnp.float32(loss))
  assert int(new.best_epoch) == (7 if keeps_new else 3)
  assert float(new.best_params) == (7.0 if keeps_new else 3.0)


@pytest.mark.slow
def test_chunked_evaluation_equals_unchunked():
  # One trained epoch's parameters, predicted by grids that differ only
  # in their evaluation chunk (training each again adds nothing).
  data = synthetic.data(n_train=40, n_dev=20, n_test=53, num_context=4)
  out, params = {}, None
  for chunk in (1000, 16, 7):
    cfg = synthetic.config("vae2", seeds=(0,), types=("I",))
    cfg.train.eval_chunk = chunk
    grid = train.build_grid(cfg, data)
    if params is None:
      state, _ = grid.run_epoch(grid.init(), 0)
      params = state.params
    out[chunk] = grid.predict(params, grid.test["II"])
    assert out[chunk]["scores"].shape == (1, 53, 4)
  for chunk in (16, 7):
    np.testing.assert_allclose(out[chunk]["scores"], out[1000]["scores"],
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(out[chunk]["pred"], out[1000]["pred"])


def test_sent_vae_reference_is_maxm_on_normalised_dot_scores_by_hand():
  """configs/sent_vae.py:reference = the authors' sentence_representations
  loss: maxM (eq. 3) on the candidates' dot scores divided by their L2 norm,
  predicted with the cosine."""
  from blm_jax.training.solver import Batch
  from configs import sent_vae
  c = sent_vae.get_config("reference,source=spray_load_ALT-ATL")
  assert (c.train.score, c.train.predict_score) == ("normalized", "cosine")
  assert c.loss.answer_reduction == "mean" and c.train.select_by == "loss"
  c.model.sentence_array, c.model.grid_shape = "ours", (4, 2)
  c.model.kernel = 2
  m = models.create_model(c.model, embed_dim=8, num_context=1,
                          score=c.train.score, loss_cfg=c.loss)
  k = jax.random.split(jax.random.key(0), 3)
  batch = Batch(ctx=jax.random.normal(k[0], (2, 1, 8)),
                ctx_mask=jnp.ones((2, 1), bool),
                ans=jax.random.normal(k[1], (2, 4, 8)),
                ans_mask=jnp.array([[True] * 4, [True, True, True, False]]),
                correct=jnp.array([2, 0]))
  params = m.init({"params": k[2], "sample": k[2]}, batch.ctx,
                  batch.ctx_mask, False)
  solver = Solver(model=m, tx=None, score=c.train.score,
                  predict_score=c.train.predict_score,
                  answer_reduction=c.loss.answer_reduction,
                  loss_weights=(("answer_margin", 1.0), ("task_kl", 0.0),
                                ("sentence_margin", 0.0),
                                ("sentence_kl", 0.0)))
  _, terms, out, scores = solver.objective(params, batch, False)
  pred, ans = np.asarray(out.pred), np.asarray(batch.ans)
  for i, (n, c_i) in enumerate([(4, 2), (3, 0)]):
    dots = ans[i, :n] @ pred[i]
    s = dots / np.linalg.norm(dots)
    want = max(0.0, 1 - s[c_i] + np.mean(np.delete(s, c_i)))
    np.testing.assert_allclose(terms["answer_margin"][i], want, rtol=1e-5)
    np.testing.assert_allclose(scores[i, :n], s, rtol=1e-5)
