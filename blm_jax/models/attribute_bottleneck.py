"""An attribute-bottleneck solver: sentences factored into slots, then
per-slot relations across positions.

The other solvers read whole sentence vectors, so they must discover both
how to read an attribute (number, argument order...) out of a vector and
the rule that relates it across positions from the answer signal alone;
on the sequence-necessary designs none gets above the answers-alone score.
Raven-type benchmarks took the same step (PGM, Barrett et al. 2018; the
attribute-factored solvers after it): compare attributes, not panels.

Here one shared map sends every sentence vector (context and candidates)
to K slots of `slot_size` each:

  'continuous'  each slot is a unit `slot_size`-dim vector; two slots
                relate by their cosine (1 when equal);
  'gumbel'      each slot is a one-hot over `slot_size` values, drawn with
                a straight-through Gumbel-softmax while training (hard
                forward, soft gradient) and the argmax at evaluation (so
                evaluation is deterministic); two slots relate by equality
                (their dot product: 1 when equal, else 0);
  'softmax'     each slot is a distribution over `slot_size` values (the
                softmax of its logits at `temperature`), at training and
                evaluation alike; two slots relate by the probability that
                they are equal (their dot product). With attribute targets
                this reads the trained value distributions directly, where
                'continuous' relates unit vectors whose unused dimensions
                the targets leave free.

Two options for the map's inputs and its training signal:
`normalize_input` standardises each sentence vector (a layer norm without
learned scale) before the map; `detach_slots` stops the answer signal's
gradient at the slots, so with attribute targets the map learns only to
read the attributes and the relation MLP only the rule from them (the
slots-then-relations schedule, in one pass).

On the toy task of tests/attribute_toy.py (4 attributes of 8 values, a
period per attribute drawn per instance, answer signal alone, 400-600
training instances) the continuous slots reached 0.965-0.99 test accuracy
in 10-20 epochs, the gumbel ones 0.40-0.49 in 20 (learning rates 1e-3 and
3e-3, temperatures 1 and 0.5): the straight-through gradient finds the
attributes far more slowly, so 'continuous' is the default.

For slot k and candidate a, the features are that relation between every
pair of context positions (i < j) and between every context position and
the candidate, with the pair masks (padded context positions give 0): the
equality pattern of [c_1 .. c_C, a] in that slot. ONE MLP, shared by every
slot, maps it to a number; the candidate's score is the sum over slots:

  score_a = sum_k mlp( rel_k(c_i, c_j) for i < j,  rel_k(c_i, a) for i )

The context length C comes from the data (never a fixed 7). The scores go
to the margin loss every solver uses and pick the prediction (the solver
is the scorer: `train.score` and `train.predict_score` do not apply).

Auxiliary attribute targets (`loss.aux_attribute` > 0, default 0: the
answer signal alone): where the sentence table carries `attributes` (int32
[sentences, attributes], -1 absent), slot j's `slot_size` values (or
vector, read as logits) are trained by cross-entropy to be attribute j's
value, over the context and the real candidates; the term's per-instance
mean is the loss term 'aux_attribute'. Absent values and padded positions
are left out. The targets follow the grid's controls (permuted with a
shuffled context, absent for a zeroed one: `variants.apply_view`).
"""

from __future__ import annotations

from typing import ClassVar, Sequence

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax

from blm_jax.models import registry
from blm_jax.models.common import SolverOutput

RELAXATIONS = ("continuous", "gumbel", "softmax")

DEFAULTS = {
    "slots": 8,  # K: slots per sentence
    "slot_size": 8,  # values of a gumbel slot, dims of a continuous one
    "relaxation": "continuous",  # RELAXATIONS
    "temperature": 1.0,  # of the Gumbel-softmax (its soft gradient)
    "encoder_hidden": (256,),  # the shared sentence -> slots map's layers
    "relation_hidden": (64, 64),  # the relation MLP shared by the slots
  "normalize_input": False,  # standardise each sentence vector first
  "detach_slots": False,  # no answer-signal gradient into the slot map
}
LOSS = {"aux_attribute": 0.0}  # weight of the attribute targets; 0 = off


class AttributeBottleneck(nn.Module):
  embed_dim: int
  slots: int = DEFAULTS["slots"]
  slot_size: int = DEFAULTS["slot_size"]
  relaxation: str = DEFAULTS["relaxation"]
  temperature: float = DEFAULTS["temperature"]
  encoder_hidden: Sequence[int] = DEFAULTS["encoder_hidden"]
  relation_hidden: Sequence[int] = DEFAULTS["relation_hidden"]
  normalize_input: bool = DEFAULTS["normalize_input"]
  detach_slots: bool = DEFAULTS["detach_slots"]
  # Whether the module returns the 'aux_attribute' term (the solver then
  # hands it each sentence's attributes).
  attribute_targets: bool = False
  # The solver calls it with the candidates and reads `SolverOutput.scores`.
  scores_candidates: ClassVar[bool] = True

  @property
  def reads_attributes(self) -> bool:
    return self.attribute_targets

  def _logits(self, x):
    """[..., D] -> slot logits [..., K, S], by one map shared by every
    sentence."""
    h = x
    if self.normalize_input:
      h = nn.LayerNorm(use_scale=False, use_bias=False, name="input_norm")(h)
    for k, width in enumerate(self.encoder_hidden):
      h = nn.relu(nn.Dense(width, name=f"encoder{k}")(h))
    out = nn.Dense(self.slots * self.slot_size, name="slots")(h)
    return out.reshape(*x.shape[:-1], self.slots, self.slot_size)

  def _values(self, logits, train: bool):
    """Slot values [..., K, S]: unit vectors (continuous), one-hots
    (gumbel) or distributions (softmax)."""
    if self.relaxation == "softmax":
      return jax.nn.softmax(logits / self.temperature, -1)
    if self.relaxation == "continuous":
      return logits / jnp.sqrt(jnp.sum(logits**2, -1, keepdims=True) + 1e-6)
    hard = jax.nn.one_hot(jnp.argmax(logits, -1), self.slot_size,
                          dtype=logits.dtype)
    if not train:
      return hard
    gumbel = jax.random.gumbel(self.make_rng("sample"), logits.shape,
                               logits.dtype)
    soft = jax.nn.softmax((logits + gumbel) / self.temperature, -1)
    hard = jax.nn.one_hot(jnp.argmax(soft, -1), self.slot_size,
                          dtype=logits.dtype)
    return hard + soft - jax.lax.stop_gradient(soft)

  def _relate(self, x, y):
    """Per-slot relation of slot values x, y [..., K, S] -> [..., K]: the
    cosine of unit vectors, the equality of one-hots, the probability that
    two distributions draw the same value."""
    return jnp.sum(x * y, -1)

  @nn.compact
  def __call__(self, ctx, ctx_mask, train: bool = False, ans=None,
               ans_mask=None, ctx_attributes=None,
               ans_attributes=None) -> SolverOutput:
    if ans is None:
      raise ValueError("AttributeBottleneck scores the candidates: call it "
                       "with `ans`")
    b, c = ctx.shape[:2]
    a = ans.shape[1]
    logits = self._logits(jnp.concatenate([ctx, ans], 1))  # [B, C+A, K, S]
    values = self._values(logits, train)
    if self.detach_slots:
      values = jax.lax.stop_gradient(values)
    vc, va = values[:, :c], values[:, c:]
    iu, ju = np.triu_indices(c, 1)
    ctx_pairs = self._relate(vc[:, iu], vc[:, ju])  # [B, P, K]
    pair_mask = (ctx_mask[:, iu] & ctx_mask[:, ju]).astype(ctx.dtype)
    cand = self._relate(vc[:, None], va[:, :, None])  # [B, A, C, K]
    cmask = ctx_mask.astype(ctx.dtype)
    feats = jnp.concatenate([
        jnp.broadcast_to((ctx_pairs * pair_mask[..., None])[:, None],
                         (b, a, len(iu), self.slots)),
        cand * cmask[:, None, :, None],
        jnp.broadcast_to(pair_mask[:, None, :, None],
                         (b, a, len(iu), self.slots)),
        jnp.broadcast_to(cmask[:, None, :, None], (b, a, c, self.slots)),
    ], 2)  # [B, A, F, K]
    h = jnp.swapaxes(feats, 2, 3)  # [B, A, K, F]: one MLP for every slot
    for k, width in enumerate(self.relation_hidden):
      h = nn.relu(nn.Dense(width, name=f"relation{k}")(h))
    scores = jnp.sum(nn.Dense(1, name="relation_out")(h)[..., 0], -1)
    terms = {}
    if self.attribute_targets and ctx_attributes is not None:
      targets = jnp.concatenate([ctx_attributes, ans_attributes], 1)
      terms["aux_attribute"] = attribute_loss(logits, targets)
    return SolverOutput(latent=vc.reshape(b, -1), scores=scores, terms=terms)


def attribute_loss(logits, targets):
  """Per-instance mean cross-entropy of slot j's logits [B, N, K, S]
  against attribute j [B, N, M] (M <= K, values < S; -1 = absent)."""
  m = targets.shape[-1]
  present = targets >= 0
  ce = optax.softmax_cross_entropy_with_integer_labels(
      logits[..., :m, :], jnp.where(present, targets, 0))
  ce = jnp.where(present, ce, 0.0)
  count = jnp.sum(present, (1, 2))
  return jnp.sum(ce, (1, 2)) / jnp.maximum(count, 1)


def _build(model_cfg, loss_cfg, *, embed_dim, num_context, score):
  del num_context, score
  return AttributeBottleneck(
      embed_dim=embed_dim, slots=model_cfg.slots,
      slot_size=model_cfg.slot_size, relaxation=model_cfg.relaxation,
      temperature=model_cfg.temperature,
      encoder_hidden=tuple(model_cfg.encoder_hidden),
      relation_hidden=tuple(model_cfg.relation_hidden),
      normalize_input=bool(model_cfg.normalize_input),
      detach_slots=bool(model_cfg.detach_slots),
      attribute_targets=float(loss_cfg.aux_attribute) > 0)


def _active_terms(config) -> tuple[str, ...]:
  return ("aux_attribute",) if float(config.loss.aux_attribute) > 0 else ()


def _check_config(config) -> list[str]:
  m, out = config.model, []
  for key in ("slots", "slot_size"):
    if m[key] < 1:
      out.append(f"config.model.{key}={m[key]}: must be >= 1")
  if m.relaxation == "gumbel" and m.slot_size < 2:
    out.append(f"config.model.slot_size={m.slot_size}: a gumbel slot needs "
               "at least 2 values")
  if not m.temperature > 0:
    out.append(f"config.model.temperature={m.temperature}: must be > 0")
  for key in ("encoder_hidden", "relation_hidden"):
    if tuple(m[key]) and min(m[key]) < 1:
      out.append(f"config.model.{key}={tuple(m[key])}: widths must be >= 1")
  if m.detach_slots and not float(config.loss.aux_attribute) > 0:
    out.append("config.model.detach_slots=True with "
               "config.loss.aux_attribute=0: nothing would train the slot "
               "map; set a positive weight or detach_slots=False")
  if config.train.predict_score:
    out.append(f"config.train.predict_score={config.train.predict_score!r}: "
               "attribute_bottleneck scores the candidates itself; leave it "
               "''")
  return out


def _check_data(config, data) -> None:
  if data.num_context < 1:
    raise ValueError(
        f"config.model.name='attribute_bottleneck' relates context "
        f"sentences to the candidates; {config.data.name!r} has none")
  weight = float(config.loss.aux_attribute)
  if weight <= 0:
    return
  attributes = getattr(data.table, "attributes", None)
  if attributes is None or np.asarray(attributes).shape[1] == 0:
    why = getattr(data.table, "attributes_missing", "") or (
        "its sentence table carries no `attributes`")
    raise ValueError(
        f"config.loss.aux_attribute={weight:g} needs the sentences' "
        f"attributes, and {config.data.name!r} has none ({why}): set "
        "config.loss.aux_attribute=0")
  attributes = np.asarray(attributes)
  names = tuple(getattr(data.table, "attribute_names", ()))
  if attributes.shape[1] > config.model.slots:
    raise ValueError(
        f"config.loss.aux_attribute={weight:g}: {config.data.name!r} has "
        f"{attributes.shape[1]} attributes {names} but "
        f"config.model.slots={config.model.slots}; one slot per attribute")
  top = int(attributes.max(initial=-1))
  if top >= config.model.slot_size:
    raise ValueError(
        f"config.loss.aux_attribute={weight:g}: an attribute of "
        f"{config.data.name!r} takes {top + 1} values but "
        f"config.model.slot_size={config.model.slot_size}")


SPEC = registry.SolverSpec(
    name="attribute_bottleneck",
    model=DEFAULTS,
    loss=LOSS,
    loss_terms=("aux_attribute",),
    active_terms=_active_terms,
    build=_build,
    check_config=_check_config,
    check_data=_check_data,
    choices={"model.relaxation": RELAXATIONS})
