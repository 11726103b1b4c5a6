"""The attribute-bottleneck solver's options for real sentence vectors:
softmax slots (relations are the probability of equal values), input
standardisation, and slots detached from the answer signal."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from blm_jax import models
from blm_jax.training import config_check
from configs import attribute_bottleneck as ab_config


def _model(aux=0.0, **kw):
  cfg = ab_config.get_config(None).model
  cfg.slots, cfg.slot_size, cfg.encoder_hidden = 3, 4, (6,)
  cfg.relation_hidden = (5,)
  for k, v in kw.items():
    cfg[k] = v
  loss = ab_config.get_config(None).loss
  loss.aux_attribute = aux
  return models.create_model(cfg, embed_dim=8, num_context=5, score="dot",
                             loss_cfg=loss)


def _inputs(seed=0, b=2, c=5, a=3, d=8):
  k = jax.random.split(jax.random.key(seed), 2)
  return (jax.random.normal(k[0], (b, c, d)), jnp.ones((b, c), bool),
          jax.random.normal(k[1], (b, a, d)), jnp.ones((b, a), bool))


def _attributes(b=2, c=5, a=3):
  rng = np.random.default_rng(0)
  return (jnp.asarray(rng.integers(0, 4, (b, c, 2)), jnp.int32),
          jnp.asarray(rng.integers(0, 4, (b, a, 2)), jnp.int32))


def test_softmax_slots_are_distributions_and_relate_by_equal_probability():
  m = _model(relaxation="softmax", temperature=0.5)
  ctx, mask, ans, ans_mask = _inputs()
  params = m.init(jax.random.key(1), ctx, mask, False, ans, ans_mask)
  out_eval = m.apply(params, ctx, mask, False, ans, ans_mask)
  out_train = m.apply(params, ctx, mask, True, ans, ans_mask,
                      rngs={"sample": jax.random.key(3)})
  # Deterministic in training too, and the same values.
  np.testing.assert_allclose(out_eval.scores, out_train.scores, rtol=1e-6)
  values = np.asarray(out_eval.latent).reshape(2, 5, 3, 4)
  np.testing.assert_allclose(values.sum(-1), 1.0, rtol=1e-5)
  # The slot map's logits at temperature 0.5 give these distributions.
  p = jax.tree.map(np.asarray, params["params"])
  x = np.asarray(ctx[0, 0])
  h = np.maximum(x @ p["encoder0"]["kernel"] + p["encoder0"]["bias"], 0)
  z = (h @ p["slots"]["kernel"] + p["slots"]["bias"]).reshape(3, 4) / 0.5
  want = np.exp(z - z.max(-1, keepdims=True))
  want /= want.sum(-1, keepdims=True)
  np.testing.assert_allclose(values[0, 0], want, rtol=1e-4, atol=1e-6)


def test_normalize_input_makes_the_scores_blind_to_a_scale_and_shift():
  m = _model(normalize_input=True)
  ctx, mask, ans, ans_mask = _inputs()
  params = m.init(jax.random.key(1), ctx, mask, False, ans, ans_mask)
  a = m.apply(params, ctx, mask, False, ans, ans_mask).scores
  b = m.apply(params, 7.0 * ctx + 3.0, mask, False, 7.0 * ans + 3.0,
              ans_mask).scores
  np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
  plain = _model()
  pp = plain.init(jax.random.key(1), ctx, mask, False, ans, ans_mask)
  assert not np.allclose(plain.apply(pp, ctx, mask, False, ans,
                                     ans_mask).scores,
                         plain.apply(pp, 7.0 * ctx + 3.0, mask, False,
                                     7.0 * ans + 3.0, ans_mask).scores,
                         rtol=1e-3)


@pytest.mark.slow
@pytest.mark.parametrize("detach", [False, True])
def test_detached_slots_take_no_gradient_from_the_scores(detach):
  """The answer signal (the scores) reaches the slot map only when the
  slots are not detached; the attribute term reaches it either way, and
  the relation MLP is trained by the scores either way."""
  m = _model(aux=1.0, detach_slots=detach)
  ctx, mask, ans, ans_mask = _inputs()
  ca, aa = _attributes()
  params = m.init(jax.random.key(1), ctx, mask, False, ans, ans_mask, ca, aa)
  run = lambda p: m.apply(p, ctx, mask, False, ans, ans_mask, ca, aa)
  g_scores = jax.grad(lambda p: jnp.sum(run(p).scores ** 2))(params)
  g_aux = jax.grad(lambda p: jnp.sum(run(p).terms["aux_attribute"]))(params)
  norm = lambda g: float(sum(jnp.sum(x ** 2) for x in jax.tree.leaves(g)))
  enc = lambda g: {k: g["params"][k] for k in ("encoder0", "slots")}
  assert (norm(enc(g_scores)) == 0.0) == detach
  assert norm(enc(g_aux)) > 0
  assert norm(g_scores["params"]["relation0"]) > 0


def test_detach_without_attribute_targets_names_the_keys():
  c = ab_config.get_config(None)
  c.model.detach_slots = True
  assert config_check.problems(c) == [
      "config.model.detach_slots=True with config.loss.aux_attribute=0: "
      "nothing would train the slot map; set a positive weight or "
      "detach_slots=False"]
  c.loss.aux_attribute = 1.0
  assert config_check.problems(c) == []


def test_the_aux_variant_detaches_the_slots_and_the_default_does_not():
  assert ab_config.get_config(None).model.detach_slots is False
  aux = ab_config.get_config("dataset=agreement_en_seq,aux")
  assert aux.model.detach_slots is True and aux.loss.aux_attribute == 1.0
  assert config_check.problems(aux) == []
