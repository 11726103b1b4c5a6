"""The attribute-bottleneck solver: its scores recomputed by hand, masking,
the attribute targets (through the sentence table, the batches and the
grid's controls), its config and data checks, a grid cell against the cell
trained alone, and the toy task with a known rule that it solves and the
FFNN does not."""

import types

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from blm_jax import models
from blm_jax.models import attribute_bottleneck as ab
from blm_jax.models import registry
from blm_jax.training import config_check, trainer, variants
from blm_jax.training.solver import SplitIndex, gather
from configs import attribute_bottleneck as ab_config
from tests import attribute_toy, synthetic


def _model(**kw):
  cfg = ab_config.get_config(None).model
  cfg.slots, cfg.slot_size, cfg.encoder_hidden = 3, 4, (6,)
  cfg.relation_hidden = (5,)
  for k, v in kw.items():
    cfg[k] = v
  loss = ab_config.get_config(None).loss
  return models.create_model(cfg, embed_dim=8, num_context=5, score="dot",
                             loss_cfg=loss)


def _inputs(seed=0, b=2, c=5, a=3, d=8):
  k = jax.random.split(jax.random.key(seed), 2)
  return (jax.random.normal(k[0], (b, c, d)), jnp.ones((b, c), bool),
          jax.random.normal(k[1], (b, a, d)), jnp.ones((b, a), bool))


@pytest.mark.slow
@pytest.mark.parametrize("relaxation", ["continuous", "gumbel"])
def test_scores_are_summed_slot_relations_by_hand(relaxation):
  """score_a = sum_k mlp(relations of slot k between the context pairs and
  the context and a, with their masks), recomputed in numpy from the
  parameters, with a padded context position and 5 (not 7) positions."""
  m = _model(relaxation=relaxation)
  ctx, mask, ans, ans_mask = _inputs()
  mask = mask.at[1, 4].set(False)
  params = m.init({"params": jax.random.key(1),
                   "sample": jax.random.key(2)}, ctx, mask, False, ans,
                  ans_mask)
  out = m.apply(params, ctx, mask, False, ans, ans_mask)
  assert out.scores.shape == (2, 3) and out.pred is None
  assert out.latent.shape == (2, 5 * 3 * 4) and out.terms == {}
  p = jax.tree.map(np.asarray, params["params"])
  dense = lambda name, x: x @ p[name]["kernel"] + p[name]["bias"]
  relu = lambda x: np.maximum(x, 0)

  def slots(x):
    z = dense("slots", relu(dense("encoder0", x))).reshape(3, 4)
    if relaxation == "continuous":
      return z / np.sqrt((z**2).sum(-1, keepdims=True) + 1e-6)
    return np.eye(4)[z.argmax(-1)]

  for b in range(2):
    cs = [slots(np.asarray(ctx[b, i])) for i in range(5)]
    for a in range(3):
      va = slots(np.asarray(ans[b, a]))
      want = 0.0
      for k in range(3):
        pairs, pmask = [], []
        for i in range(5):
          for j in range(i + 1, 5):
            real = bool(mask[b, i] and mask[b, j])
            pairs.append(cs[i][k] @ cs[j][k] if real else 0.0)
            pmask.append(float(real))
        cand = [cs[i][k] @ va[k] if mask[b, i] else 0.0 for i in range(5)]
        feats = np.array(pairs + cand + pmask
                         + [float(x) for x in mask[b]])
        want += dense("relation_out", relu(dense("relation0", feats)))[0]
      np.testing.assert_allclose(out.scores[b, a], want, rtol=1e-4,
                                 atol=1e-5)


@pytest.mark.slow
def test_a_padded_context_sentence_changes_nothing():
  m = _model()
  ctx, mask, ans, ans_mask = _inputs()
  params = m.init(jax.random.key(1), ctx, mask, False, ans, ans_mask)
  short = mask.at[:, 4].set(False)
  a = m.apply(params, ctx, short, False, ans, ans_mask).scores
  b = m.apply(params, ctx.at[:, 4].set(123.0), short, False, ans,
              ans_mask).scores
  np.testing.assert_allclose(a, b, rtol=1e-6)


@pytest.mark.slow
def test_gumbel_slots_sample_in_training_and_not_at_evaluation():
  m = _model(relaxation="gumbel")
  ctx, mask, ans, ans_mask = _inputs()
  params = m.init({"params": jax.random.key(1),
                   "sample": jax.random.key(2)}, ctx, mask, False, ans,
                  ans_mask)
  run = lambda train, k: m.apply(params, ctx, mask, train, ans, ans_mask,
                                 rngs={"sample": jax.random.key(k)}).latent
  np.testing.assert_array_equal(run(False, 3), run(False, 4))
  assert not np.array_equal(run(True, 3), run(True, 4))
  # One-hot slots: each slot of each context sentence sums to 1.
  np.testing.assert_allclose(run(True, 3).reshape(2, 5, 3, 4).sum(-1), 1.0,
                             rtol=1e-6)


@pytest.mark.slow
def test_attribute_loss_by_hand_leaves_absent_values_out():
  logits = jnp.asarray(np.random.default_rng(0).normal(size=(1, 2, 3, 4)),
                       jnp.float32)
  targets = jnp.array([[[2, -1], [-1, 0]]])  # 2 attributes, 2 sentences
  got = ab.attribute_loss(logits, targets)
  lp = np.asarray(jax.nn.log_softmax(logits, -1))
  want = -(lp[0, 0, 0, 2] + lp[0, 1, 1, 0]) / 2
  np.testing.assert_allclose(got, [want], rtol=1e-6)
  assert ab.attribute_loss(logits, -jnp.ones((1, 2, 2), int))[0] == 0.0


def _attributed_table():
  data = attribute_toy.data(n_train=3, n_dev=2, n_test=2, num_context=4,
                            num_answers=4)
  return data, data.train["I"]


@pytest.mark.slow
def test_a_split_carries_each_positions_attributes():
  _, table = _attributed_table()
  split = SplitIndex.from_table(table, rows=5, attributes=True)
  assert split.context_attributes.shape == (5, 4, 3)
  assert split.answer_attributes.shape == (5, 4, 3)
  want = np.asarray(table.attributes)[table.context]
  np.testing.assert_array_equal(split.context_attributes[:3], want)
  assert (split.context_attributes[3:] == -1).all()  # padding rows
  assert SplitIndex.from_table(table).context_attributes is None
  batch = gather(jnp.zeros((len(table.sentences), 16)),
                 jax.tree.map(jnp.asarray, split), jnp.array([2, 0]))
  np.testing.assert_array_equal(batch.ans_attributes,
                                split.answer_attributes[[2, 0]])


def test_attribute_targets_follow_the_controls():
  _, table = _attributed_table()
  split = SplitIndex.from_table(table, attributes=True).replace(
      context_perm=variants.context_permutations(table))
  split = jax.tree.map(jnp.asarray, split)
  view = lambda mode: variants.View(offset=jnp.int32(0),
                                    ctx_mode=jnp.int32(mode),
                                    zero_row=jnp.int32(0))
  same = variants.apply_view(split, view(variants.AS_IS))
  np.testing.assert_array_equal(same.context_attributes,
                                split.context_attributes)
  shuffled = variants.apply_view(split, view(variants.SHUFFLED_CONTEXT))
  att = np.asarray(table.attributes)
  np.testing.assert_array_equal(shuffled.context_attributes,
                                att[np.asarray(shuffled.context)])
  zeroed = variants.apply_view(split, view(variants.ZERO_CONTEXT))
  assert (np.asarray(zeroed.context_attributes) == -1).all()


def test_its_config_checks_name_the_key():
  c = ab_config.get_config(None)
  assert registry.get("attribute_bottleneck").loss_terms == (
      "aux_attribute",)
  assert sorted(c.model) == ["detach_slots", "encoder_hidden", "name",
                             "normalize_input", "relation_hidden",
                             "relaxation", "slot_size", "slots",
                             "temperature"]
  assert c.loss.aux_attribute == 0.0  # the answer signal alone
  c.model.slots, c.model.relaxation = 0, "gumble"
  c.train.predict_score = "cosine"
  found = config_check.problems(c)
  assert "config.model.slots=0: must be >= 1" in found, found
  assert ("config.model.relaxation='gumble' is not known (did you mean "
          "'gumbel'?); expected one of 'continuous', 'gumbel', 'softmax'") in found
  assert any("config.train.predict_score='cosine': attribute_bottleneck "
             "scores the candidates itself" in f for f in found), found
  c = ab_config.get_config(None)
  c.model.relaxation, c.model.slot_size = "gumbel", 1
  assert config_check.problems(c) == [
      "config.model.slot_size=1: a gumbel slot needs at least 2 values"]


def test_the_aux_term_is_weighted_only_when_switched_on():
  """results.json's config.loss_weights (trainer.loss_weights) says
  whether the attribute targets were used."""
  c = ab_config.get_config(None)
  spec = registry.get("attribute_bottleneck")
  assert spec.weights(c, 384) == {}
  assert trainer.loss_weights(c, 384) == (("answer_margin", 1.0),)
  c.loss.aux_attribute = 0.5
  assert spec.weights(c, 384) == {"aux_attribute": 0.5}
  assert ab_config.get_config("aux").loss.aux_attribute == 1.0
  assert trainer.loss_weights(ab_config.get_config("aux,cpu"), 384) == (
      ("answer_margin", 1.0), ("aux_attribute", 1.0))


def test_aux_targets_on_data_without_attributes_is_one_line():
  cfg = synthetic.config("attribute_bottleneck", types=("I",))
  cfg.loss.aux_attribute = 1.0
  data = synthetic.data(n_train=10, n_dev=5, n_test=5, types=("I",))
  with pytest.raises(trainer.DataMismatchError) as e:
    trainer.check_compatible(cfg, data)
  assert str(e.value) == (
      "config.loss.aux_attribute=1 needs the sentences' attributes, and "
      "'synthetic_{}' has none (its family declares no attribute schema "
      "for this design): set config.loss.aux_attribute=0")
  cfg.loss.aux_attribute = 0.0
  trainer.check_compatible(cfg, data)  # the answer signal alone: fine


def test_aux_targets_need_a_slot_per_attribute_and_enough_values():
  cfg = synthetic.config("attribute_bottleneck", types=("I",))
  cfg.loss.aux_attribute = 1.0
  data, _ = _attributed_table()  # 3 attributes of 4 values
  cfg.model.slots = 2
  with pytest.raises(ValueError, match=r"has 3 attributes \('a0', 'a1', "
                     r"'a2'\) but config.model.slots=2"):
    registry.get("attribute_bottleneck").check_data(cfg, data)
  cfg.model.slots, cfg.model.slot_size = 3, 3
  with pytest.raises(ValueError, match="takes 4 values but "
                     "config.model.slot_size=3"):
    registry.get("attribute_bottleneck").check_data(cfg, data)
  with pytest.raises(ValueError, match="has none"):
    registry.get("attribute_bottleneck").check_data(
        cfg, types.SimpleNamespace(num_context=0))


def _small(cfg):
  cfg.model.slots, cfg.model.slot_size = 4, 4
  cfg.model.encoder_hidden, cfg.model.relation_hidden = (8,), (8,)
  cfg.grid.mode = "vmap"
  return cfg


@pytest.mark.slow
def test_a_grid_cell_equals_the_cell_trained_alone():
  """The candidates and the attribute targets reach the model through the
  vmapped grid as through one cell: the same first-step loss terms, and
  the same sentence-to-slot map after a step. (The margin's gradient on a
  candidate-independent part of the relation MLP cancels to rounding
  noise, which Adam's first step turns into +-lr either way: those
  parameters are not compared.)"""
  data = attribute_toy.data(n_train=20, n_dev=20, n_test=20, num_context=4)

  def grid_of(seeds, aux=1.0):
    cfg = _small(synthetic.config("attribute_bottleneck", seeds=seeds,
                                  types=("I",)))
    cfg.loss.aux_attribute = aux
    return trainer.build_grid(cfg, data)

  assert not grid_of((0,), aux=0.0).solver.reads_attributes

  def trained(seeds):
    grid = grid_of(seeds)
    assert grid.solver.reads_attributes
    state, m = grid.run_epoch(grid.init(), 0)
    assert m["train"]["aux_attribute"].shape == (len(seeds), 1)
    slots = {k: v for k, v in state.params["params"].items()
             if not k.startswith("relation")}
    return jax.tree.map(np.asarray, (m["train"], slots))

  both = trained((3, 7))
  alone = trained((7,))
  jax.tree.map(lambda a, b: np.testing.assert_allclose(a[1], b[0],
                                                       rtol=1e-5, atol=2e-5),
               both, alone)
  assert not np.allclose(both[0]["loss"][0], both[0]["loss"][1])


def _toy_accuracy(model, data, epochs):
  cfg = synthetic.config(model, epochs=epochs, seeds=(0,), types=("I",))
  cfg.train.batch_size, cfg.train.learning_rate = 50, 3e-3
  if model == "ffnn":
    cfg.model.hidden_factor = 4.0
  grid = trainer.build_grid(cfg, data)
  state = grid.init()
  for e in range(epochs):
    state, _ = grid.run_epoch(state, e)
  pred = grid.predict(state.best_params, grid.test["I"])["pred"][0]
  return float(np.mean(pred == data.test["I"].correct))


@pytest.mark.slow
def test_the_toy_rule_is_solved_by_slots_and_not_by_the_ffnn():
  """Sentences are sums of 4 attributes' codes (8 values each) and each
  attribute follows its own period (2, 3 or 4, drawn per instance): from
  the answer signal alone the slots and their relations solve it, the
  FFNN on the same schedule does not."""
  data = attribute_toy.data(n_train=400, n_dev=100, n_test=200,
                            num_attributes=4, num_values=8, num_answers=8)
  ours = _toy_accuracy("attribute_bottleneck", data, epochs=10)
  ffnn = _toy_accuracy("ffnn", data, epochs=10)
  assert ours >= 0.95, (ours, ffnn)
  assert ffnn < 0.95, (ours, ffnn)


@pytest.mark.slow
def test_attribute_targets_make_slot_j_read_attribute_j():
  """With loss.aux_attribute, gumbel slot j's value on held-out sentences
  is attribute j's (read from the latent: the context's one-hot slots)."""
  data = attribute_toy.data(n_train=200, n_dev=50, n_test=100)
  cfg = synthetic.config("attribute_bottleneck", epochs=4, seeds=(0,),
                         types=("I",))
  cfg.model.relaxation, cfg.model.slots, cfg.model.slot_size = "gumbel", 3, 4
  cfg.loss.aux_attribute = 1.0
  grid = trainer.build_grid(cfg, data)
  state = grid.init()
  for e in range(4):
    state, _ = grid.run_epoch(state, e)
  latent = grid.predict(state.best_params, grid.test["I"])["latent"][0]
  test = data.test["I"]
  read = latent.reshape(*test.context.shape, 3, 4).argmax(-1)
  truth = np.asarray(test.attributes)[test.context]
  # Chance 1/4; 0.937 when written (4 epochs of 200 instances).
  assert np.mean(read == truth) > 0.9, np.mean(read == truth)
