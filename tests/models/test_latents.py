"""Categorical and joint latents of the VAEs (blm_jax/models/latents.py):
by hand, against a torch re-implementation of the authors' JointSampling
and discrete KL with the same weights and noise, tiny grids, probing and
the config checks."""

import types

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from blm_jax import models
from blm_jax.analysis import probing, restore
from blm_jax.models import latents
from blm_jax.results.experiment import run_experiment
from blm_jax.training import config_check
from configs import sent_vae, vae, vae2, vae_1d_2level
from tests import synthetic
from tests.training.test_config_check import _problems as problems_of

CONFIGS = {"sent_vae": sent_vae, "vae": vae, "vae2": vae2,
           "vae_1d_2level": vae_1d_2level}


def _post(seed=0, shape=(4,), n=2, k=3, cont=5):
  r = np.random.default_rng(seed)
  return latents.Posterior(
      jnp.asarray(r.normal(size=(*shape, cont)), jnp.float32),
      jnp.asarray(r.normal(size=(*shape, cont)), jnp.float32),
      jnp.asarray(2 * r.normal(size=(*shape, n, k)), jnp.float32))


def test_categorical_kls_by_hand():
  post = _post()
  q = np.asarray(jax.nn.softmax(post.logits, -1), np.float64)
  # KL(q || uniform), summed over the variables, per item.
  want = np.sum(q * np.log(q * 3), axis=(-2, -1))
  np.testing.assert_allclose(latents.categorical_kl(post, "uniform"), want,
                             rtol=1e-5)
  # Theirs: exp of the mean over items and categories of the sum over the
  # variables of q log q; every item carries the batch's value, and a
  # masked item does not count.
  mask = np.array([True, True, False, True])
  ent = np.sum(q * np.log(q + 1e-12), axis=-2)[mask]  # [items, K]
  got = latents.categorical_kl(post, "authors", jnp.asarray(mask))
  np.testing.assert_allclose(got, np.full(4, np.exp(ent.mean())), rtol=1e-5)


@pytest.mark.parametrize("gumbel_input", latents.GUMBEL_INPUTS)
def test_evaluation_latent_is_the_sampled_distributions_mean(gumbel_input):
  """Evaluation decodes the categories' probabilities (then the Gaussian
  means): the Gumbel-softmax of the same input with no noise at
  temperature 1, and the limit of many samples' argmax."""
  post = _post(n=2, k=3)
  cat = latents.Categorical(2, 3, 1.0, gumbel_input)
  z = latents.evaluation_latent(post, cat)
  assert z.shape == (4, 2 * 3 + 5)
  np.testing.assert_allclose(z[:, 6:], post.mean)
  no_noise = latents.relaxed(post, cat, jnp.zeros((4, 2, 3)))
  np.testing.assert_allclose(z[:, :6], no_noise.reshape(4, 6), rtol=1e-6)
  g = jax.random.gumbel(jax.random.key(0), (20000, 4, 2, 3))
  x = post.logits if gumbel_input == "logits" else jax.nn.softmax(
      post.logits, -1)
  hits = jax.nn.one_hot(jnp.argmax(x + g, -1), 3).mean(0)
  np.testing.assert_allclose(hits.reshape(4, 6), z[:, :6], atol=0.02)


def _draws(model, params, batch, rng):
  """The Gumbel and normal noise our model draws with `rng` (sown)."""
  _, state = model.apply(params, batch.ctx, batch.ctx_mask, True,
                         rngs={"sample": rng}, mutable=["intermediates"])
  return state["intermediates"]


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["joint", "categorical"])
def test_vae_matches_the_authors_joint_sampler_and_loss(kind):
  torch = pytest.importorskip("torch")
  from tests import torch_reference as ref
  dim, x_dim, seq, a, n, k = 60, 6, 7, 4, 2, 3
  cont = 5 if kind == "joint" else 0
  torch.manual_seed(0)
  tm = ref.SeqVAE(dim, seq, x_dim, cont, ch=3, kernel=(3, 4, 4),
                  stride=(1, 4, 4), n=n, k=k, tau=0.5)
  c = vae.get_config("reference")
  c.model.grid_shape, c.model.conv_kernel, c.model.conv_stride = (
      (x_dim, dim // x_dim), (3, 4, 4), (1, 4, 4))
  c.model.hidden_channels = 3
  c.model.latent_kind, c.model.categorical_vars, c.model.categories = (
      kind, n, k)
  c.model.gumbel_input, c.loss.categorical_kl = "probabilities", "authors"
  assert config_check.problems(c) == []
  correct = np.array([1, 3, 0])
  solver, batch, ctx, ans = ref.ours(c, dim, seq, correct, a)
  params = ref.seq_vae_params(tm)
  ref.assert_same_shapes(solver, params, batch)
  rng = jax.random.key(3)
  noise = ref.drawn_noise(solver.model, params, batch, rng)
  total, terms, out, _ = solver.objective(params, batch, True, rng)
  assert ("task_kl" in terms) == (kind == "joint")
  eps = noise.get("normal_noise", (None,))[0]
  with torch.no_grad():
    pred, mean, logvar, logits = tm(
        torch.tensor(ctx), None if eps is None else torch.tensor(eps),
        torch.tensor(noise["gumbel_noise"][0]))
    want = (ref.answer_margin(pred, torch.tensor(ans), torch.tensor(correct))
            + ref.discrete_kl(logits, n, k))
    if kind == "joint":
      want = want + ref.kl(mean, logvar) * cont / dim
  np.testing.assert_allclose(out.pred, ref.to_np(pred), rtol=1e-4,
                             atol=1e-5)
  np.testing.assert_allclose(float(jnp.mean(total)), float(want), rtol=1e-4)


@pytest.mark.slow
def test_vae_1d_2level_matches_the_authors_with_both_levels_joint():
  """Their loss counts the sentence level's discrete KL only (an elif in
  utils/losses.py): the task level's weight is 0 here. One instance of 4
  sentences, so their batch-crossing negatives are the instance's."""
  torch = pytest.importorskip("torch")
  from tests import torch_reference as ref
  dim, x_dim, seq, a = 60, 6, 4, 5
  torch.manual_seed(0)
  tm = ref.TwoLevel1D(dim, seq, x_dim, ch=3, ans_k=4, ans_s=4, sent=(2, 3),
                      task=(3, 2))
  c = vae_1d_2level.get_config("reference")
  c.model.grid_shape = (x_dim, dim // x_dim)
  c.model.answer_kernel = c.model.answer_stride = 4
  c.model.task_channels = 3
  c.model.latent_kind = c.model.task_latent_kind = "joint"
  c.model.categorical_vars, c.model.categories = 2, 3
  c.model.task_categorical_vars, c.model.task_categories = 3, 2
  c.model.gumbel_input, c.loss.categorical_kl = "probabilities", "authors"
  c.loss.task_categorical_kl = 0.0
  assert config_check.problems(c) == []
  correct = np.array([2])
  solver, batch, ctx, ans = ref.ours(c, dim, seq, correct, a, seed=1)
  params = ref.two_level_1d_params(tm)
  _, terms, _, _ = solver.objective(params, batch, False)
  assert set(terms) == {"answer_margin", "sentence_margin", "task_kl",
                        "sentence_kl", "task_categorical_kl",
                        "sentence_categorical_kl"}
  ref.assert_two_level_parity(solver, params, batch, tm, ctx, ans, correct,
                              rng=jax.random.key(4))


def _categorical(cfg, kind="categorical", task=True):
  cfg.model.latent_kind = kind
  cfg.model.categorical_vars, cfg.model.categories = 2, 3
  if task and "task_latent_kind" in cfg.model:
    cfg.model.task_latent_kind = kind
    cfg.model.task_categorical_vars, cfg.model.task_categories = 2, 2
  return cfg


@pytest.mark.slow
@pytest.mark.parametrize("model", ["sent_vae", "vae", "vae_1d_2level"])
def test_a_tiny_grid_with_categorical_latents_trains(model, tmp_path):
  types = ("chunks",) if model == "sent_vae" else ("I",)
  cfg = _categorical(synthetic.config(model, epochs=1, seeds=(0,),
                                      types=types))
  if model == "vae":
    cfg.model.grid_shape, cfg.model.conv_kernel, cfg.model.conv_stride = (
        (4, 2), (2, 2, 2), (1, 2, 2))
    cfg.model.hidden_channels = 2
  if model == "vae_1d_2level":
    cfg.model.answer_kernel = cfg.model.answer_stride = 2
    cfg.model.task_channels, cfg.model.task_kernel = 2, 2
  if model == "sent_vae":  # one input sentence
    cfg.data.name = "blm_chunks/spray_load_ALT-ATL"
    data = synthetic.chunk_data(n_train=40, n_dev=20, n_test=20)
  else:
    data = synthetic.data(n_train=40, n_dev=20, n_test=20, types=("I",))
  res = run_experiment(cfg, str(tmp_path), data=data)
  history = res["cells"][0]["history"]["train"]
  kls = {k for k in history if k.endswith("_kl")}
  want = {"sent_vae": {"sentence_categorical_kl"},
          "vae": {"task_categorical_kl"}}.get(
              model, {"sentence_categorical_kl", "task_categorical_kl"})
  assert kls == want  # no Gaussian KL: the latents have no Gaussian part
  assert set(res["config"]["loss_weights"]) == {"answer_margin"} | want | (
      {"sentence_margin"} if model == "vae_1d_2level" else set())


@pytest.fixture(scope="module")
def vae2_joint_run(tmp_path_factory):
  workdir = str(tmp_path_factory.mktemp("vae2_joint"))
  d = synthetic.data(n_train=60, n_dev=20, n_test=30)
  cfg = _categorical(synthetic.config("vae2", epochs=2, seeds=(0,)),
                     kind="joint")
  cfg.model.latent = 3
  res = run_experiment(cfg, workdir, data=d)
  return workdir, d, res


@pytest.mark.slow
def test_vae2_joint_run_probes(vae2_joint_run):
  workdir, d, res = vae2_joint_run
  assert set(res["cells"][0]["history"]["train"]) >= {
      "task_kl", "sentence_kl", "task_categorical_kl",
      "sentence_categorical_kl"}
  run = restore.restore(workdir, d)
  out = run.apply(d.embeddings, d.test["II"])
  # Latents: categorical probabilities, then the Gaussian means.
  assert out["latent"].shape == (2, 30, 2 * 2 + 5)
  assert out["sentence_latent"].shape == (2, 30, 4, 2 * 3 + 3)
  probs = out["sentence_latent"][..., :6].reshape(2, 30, 4, 2, 3)
  np.testing.assert_allclose(probs.sum(-1), 1.0, rtol=1e-5)
  for i, c in enumerate(res["cells"]):
    if c["train_type"] == "II":
      acc = np.mean(out["pred"][i] == d.test["II"].correct)
      assert acc == pytest.approx(c["test"]["II"]["accuracy"])
  result = probing.analyze(workdir, ("traversal", "projection"), data=d,
                           steps=3)
  cell = next(iter(result["traversal"]["train_types"]["I"]["cells"].values()))
  assert np.asarray(cell["values"]).shape == (9, 3)


@pytest.mark.slow
def test_the_gumbel_noise_follows_each_cells_rng_under_vmap():
  """Vmapped over the cells' keys (as the grid runs them), each cell draws
  the noise its own key draws alone, and two keys draw different noise;
  tests/training/test_grid.py checks that each cell gets its own key."""
  cfg = _categorical(synthetic.config("vae_1d_2level"), kind="joint")
  model = models.create_model(cfg.model, embed_dim=8, num_context=4,
                              score="dot", loss_cfg=cfg.loss)
  batch = types.SimpleNamespace(
      ctx=jax.random.normal(jax.random.key(1), (8, 4, 8)),
      ctx_mask=jnp.ones((8, 4), bool))
  params = jax.jit(model.init, static_argnums=3)(
      {"params": jax.random.key(2)}, batch.ctx, batch.ctx_mask, False)
  draws = jax.jit(lambda k: _draws(model, params, batch, k))
  keys = jax.random.split(jax.random.key(0), 2)
  both = jax.jit(jax.vmap(draws))(keys)
  for i in range(2):
    jax.tree.map(lambda a, b: np.testing.assert_allclose(
        np.asarray(a)[i], b, rtol=1e-6), both, draws(keys[i]))
  g = np.asarray(both["sentence"]["gumbel_noise"][0])
  assert g.shape == (2, 8, 4, 2, 3) and not np.allclose(g[0], g[1])


def _problems(model="vae2", **keys):
  return problems_of(CONFIGS[model], **keys)


def test_bad_latent_settings_are_named():
  assert _problems(model__latent_kind="catgorical") == [
      "config.model.latent_kind='catgorical' is not known (did you mean "
      "'categorical'?); expected one of 'gaussian', 'categorical', 'joint'"]
  assert _problems(model__task_latent_kind="discrete")[0].startswith(
      "config.model.task_latent_kind='discrete' is not known")
  assert _problems(model__latent_kind="joint", model__categories=1) == [
      "config.model.categories=1: must be an integer >= 2 (categories per "
      "variable of a categorical latent)"]
  assert _problems("vae", model__latent_kind="joint",
                   model__categorical_vars=0) == [
      "config.model.categorical_vars=0: must be an integer >= 1 (variables "
      "of a categorical latent)"]
  assert _problems("sent_vae", model__latent_kind="categorical",
                   model__temperature=0.0) == [
      "config.model.temperature=0.0: must be a number > 0 (the "
      "Gumbel-softmax temperature)"]
  assert _problems("vae_1d_2level", loss__categorical_kl="kl") == [
      "config.loss.categorical_kl='kl' is not known; expected one of "
      "'uniform', 'authors'",
      "config.loss.categorical_kl='kl' applies to categorical latents, but "
      "config.model.latent_kind, config.model.task_latent_kind = "
      "'gaussian'"]


def test_keys_of_the_other_latent_kind_are_refused():
  assert _problems("vae", model__categories=4) == [
      "config.model.categories=4 sets a categorical latent, but "
      "config.model.latent_kind='gaussian' (use 'categorical' or 'joint')"]
  assert _problems(model__task_latent_kind="categorical",
                   model__task_latent=8) == [
      "config.model.task_latent=8 belongs to a Gaussian latent, but "
      "config.model.task_latent_kind='categorical' has none (use 'joint' "
      "for both)"]
  assert _problems("sent_vae", model__latent_kind="categorical",
                   loss__sentence_kl=0.5) == [
      "config.loss.sentence_kl=0.5 belongs to a Gaussian latent, but "
      "config.model.latent_kind='categorical' has none (use 'joint' for "
      "both)"]
  assert _problems(loss__sentence_categorical_kl=2.0) == [
      "config.loss.sentence_categorical_kl=2.0 weights a categorical "
      "latent, but config.model.latent_kind='gaussian'"]
  assert _problems("vae", model__gumbel_input="probabilities") == [
      "config.model.gumbel_input='probabilities' applies to categorical "
      "latents, but config.model.latent_kind = 'gaussian'"]
  # One categorical level is enough for the shared keys.
  assert _problems(model__task_latent_kind="joint",
                   model__temperature=1.0) == []


def test_runs_saved_before_these_keys_keep_their_identity():
  """At their defaults the latent keys stay out of a run's identity, so a
  workdir saved before they existed resumes; set, they count."""
  from blm_jax.training import run_identity

  def keys(c):
    return set(run_identity.identity_keys(
        run_identity.flatten(c.to_dict())))

  c = vae2.get_config(None)
  assert not {k for k in keys(c) if "categor" in k or "latent_kind" in k
              or k in ("model.temperature", "model.gumbel_input")}
  c.model.task_latent_kind = "joint"
  assert "model.task_latent_kind" in keys(c)
