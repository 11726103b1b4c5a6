"""vae2 and sent_vae `reference` against torch re-implementations of the
authors' VariationalAutoencoder_2level and sentence_representations
VariationalAutoencoder with the same weights (and the same noise on the
training path), with Gaussian, joint and categorical latents."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from blm_jax.training import config_check
from configs import sent_vae, vae2

torch = pytest.importorskip("torch")
from tests import torch_reference as ref  # noqa: E402

SEQ, ANSWERS = 4, 5


def _array(c, dim, x_dim, k):
  """Their sentence array of `x_dim` rows: the reference's own
  (`sentence_array='authors'`, 32 rows) or, at tiny sizes, an explicit
  grid, which their padding rule leaves unpadded there."""
  c.model.kernel = k
  if x_dim != 32:
    c.model.sentence_array = "ours"
    c.model.grid_shape = (x_dim, dim // x_dim)


def _vae2(dim, x_dim, k, sent=("gaussian", 0, 3), task=("gaussian", 0, 3),
          task_categorical_kl=1.0):
  """configs/vae2.py:reference at tiny sizes (3 sentence and task
  channels), each level's (kind, variables, categories), and their module
  with the same sizes."""
  c = vae2.get_config("reference")
  _array(c, dim, x_dim, k)
  c.model.channels, c.model.task_channels = (3,), 3
  c.model.latent_kind, c.model.task_latent_kind = sent[0], task[0]
  if sent[0] != "gaussian":
    c.model.categorical_vars, c.model.categories = sent[1:]
  if task[0] != "gaussian":
    c.model.task_categorical_vars, c.model.task_categories = task[1:]
  if (sent[0], task[0]) != ("gaussian", "gaussian"):
    c.model.gumbel_input, c.loss.categorical_kl = "probabilities", "authors"
    c.loss.task_categorical_kl = task_categorical_kl
  assert config_check.problems(c) == []
  torch.manual_seed(0)
  tm = ref.TwoLevel2D(dim, SEQ, x_dim,
                      latent=0 if sent[0] == "categorical" else 5,
                      task_latent=0 if task[0] == "categorical" else 5,
                      sent_ch=3, ch=3, k=k, sent=sent[1:], task=task[1:])
  return c, tm


# D = 384: their 32 x 12 array, the 15 x 15 convolutions padded by 3
# columns on each side (MiniLM's width; our default array is 24 x 16).
@pytest.mark.slow
@pytest.mark.parametrize("dim,x_dim,k", [(60, 6, 4), (768, 32, 15),
                                         (384, 32, 15)])
def test_vae2_reference_matches_the_authors_module(dim, x_dim, k):
  # One instance of 4 sentences: their negatives (the next three of the
  # flattened batch) are then exactly the instance's other sentences.
  c, tm = _vae2(dim, x_dim, k)
  correct = np.array([2])
  solver, batch, ctx, ans = ref.ours(c, dim, SEQ, correct, ANSWERS, seed=1)
  params = ref.two_level_2d_params(tm)
  outputs = ref.assert_two_level_parity(solver, params, batch, tm, ctx, ans,
                                        correct)
  sent = solver.model.apply(params, batch.ctx, batch.ctx_mask,
                            method="sentence_latent")
  np.testing.assert_allclose(sent[0], ref.to_np(outputs[4]), rtol=1e-4,
                             atol=1e-5)
  # Training: both levels decode a sample, with the same normal noise.
  ref.assert_two_level_parity(solver, params, batch, tm, ctx, ans, correct,
                              rng=jax.random.key(2))


@pytest.mark.parametrize("sent,task,task_categorical_kl", [
    (("joint", 2, 3), ("joint", 3, 2), 0.0),
    (("joint", 2, 3), ("categorical", 2, 2), 0.0),
    (("gaussian", 0, 3), ("categorical", 2, 3), 1.0),
])
def test_vae2_matches_the_authors_with_categorical_latents(
    sent, task, task_categorical_kl):
  """Their loss counts one discrete KL, the sentence level's if it has
  categories, else the task level's: `loss.task_categorical_kl` is 0 when
  both have. Their code cannot run a categorical-only sentence latent (its
  loss reads the sentence means, None then). The training path, with the
  Gumbel and normal noise our model draws."""
  dim, x_dim = 60, 6
  c, tm = _vae2(dim, x_dim, 4, sent, task, task_categorical_kl)
  correct = np.array([1])
  solver, batch, ctx, ans = ref.ours(c, dim, SEQ, correct, ANSWERS, seed=3)
  params = ref.two_level_2d_params(tm)
  ref.assert_two_level_parity(solver, params, batch, tm, ctx, ans, correct,
                              rng=jax.random.key(5))


def _their_sent_vae_loss(tm, outputs, ans, correct):
  """sentence_representations/losses.py compute_vae_loss: their
  max_margin on the [positive, negatives] dot scores, KL x latent / D, the
  discrete KL when the latent has categories."""
  pred, mean, logvar, logits = outputs
  order = np.array([[i] + [j for j in range(ans.shape[1]) if j != i]
                    for i in correct])
  cands = torch.tensor(np.take_along_axis(ans, order[..., None], axis=1))
  total = ref.normalized_margin(pred, cands)
  if mean is not None:
    total = total + ref.kl(mean, logvar) * mean.shape[-1] / ans.shape[-1]
  if tm.sampler.n:
    total = total + ref.discrete_kl(logits, tm.sampler.n, tm.sampler.k)
  return total


@pytest.mark.parametrize("kind,dim,x_dim,k", [
    ("gaussian", 60, 6, 4), ("joint", 60, 6, 4), ("categorical", 60, 6, 4),
    ("gaussian", 384, 32, 15)])
def test_sent_vae_reference_matches_the_authors_module(kind, dim, x_dim, k):
  n, cat_k = 2, 3
  c = sent_vae.get_config("reference,source=spray_load_ALT-ATL")
  _array(c, dim, x_dim, k)
  c.model.channels = (3,)
  if kind != "gaussian":
    c.model.latent_kind, c.model.categorical_vars, c.model.categories = (
        kind, n, cat_k)
    c.model.gumbel_input, c.loss.categorical_kl = "probabilities", "authors"
  else:
    n = 0
  assert config_check.problems(c) == []
  torch.manual_seed(0)
  tm = ref.Sentence2D(dim, x_dim, 0 if kind == "categorical" else 5, ch=3,
                      k=k, n=n, cat_k=cat_k)
  correct = np.array([1, 4, 0])
  solver, batch, ctx, ans = ref.ours(c, dim, 1, correct, ANSWERS, seed=2)
  # The prediction is >= 0 (their ReLU output): a long positive with
  # positive entries and a negative with negative ones score far apart, so
  # their hinge of the mean negative score differs from the mean of the
  # hinges (the solver's other reduction).
  rows = np.arange(len(correct))
  ans[rows, correct] = 4 * np.abs(ans[rows, correct])
  ans[rows, (correct + 1) % ANSWERS] = -np.abs(ans[rows, correct])
  batch = batch.replace(ans=jnp.asarray(ans))
  params = {"params": {"sentence": ref.sentence_2d_params(tm)}}
  ref.assert_same_shapes(solver, params, batch)
  x = torch.tensor(ctx[:, 0])
  paths = [jax.random.key(7)]
  if kind == "gaussian":  # their categorical evaluation is random
    paths.insert(0, None)
  for rng in paths:
    total, _, out, scores = solver.objective(params, batch, rng is not None,
                                             rng)
    assert np.all(scores[rows, correct] - scores[rows, (correct + 1)
                                                 % ANSWERS] > 1)
    noise = ({} if rng is None else
             ref.drawn_noise(solver.model, params, batch, rng)["sentence"])
    with torch.no_grad():
      outputs = tm(x, *(None if key not in noise else torch.tensor(
          noise[key][0]) for key in ("gumbel_noise", "normal_noise")))
      want = _their_sent_vae_loss(tm, outputs, ans, correct)
    np.testing.assert_allclose(out.pred, ref.to_np(outputs[0]), rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(float(jnp.mean(total)), float(want),
                               rtol=1e-4)
