"""The VAEs' latents: Gaussian, categorical (Gumbel-softmax) or both.

One place for the sampling, the evaluation latent and the KL terms of
every VAE (sent_vae, vae, vae2, vae_1d_2level). A latent has `size`
Gaussian units and, optionally, `Categorical` variables of a few
categories each: the authors' `JointSampling` (vaes/sampling.py of
CLCL-Geneva/BLM-SNFDisentangling, itself after JointVAE, Dupont 2018).
The encoder's outputs are the categorical logits [variables x categories]
first, then the Gaussian means, then the log-variances; the latent the
decoder reads is the categorical part flattened, then the Gaussian part.

- Training: Gaussian units are reparameterised, each categorical variable
  is a Gumbel-softmax sample softmax((x + g) / temperature) (Jang et al.
  2017; Maddison et al. 2017), g ~ Gumbel(0, 1). Their code puts
  x = softmax(logits) (probabilities where the method has logits):
  `gumbel_input='probabilities'`; the usual x = logits is 'logits'.
- Evaluation decodes the mean (the project's rule, docs/explanation/solvers.md): the
  Gaussian means and, per categorical variable, the probabilities of the
  categorical distribution the Gumbel trick samples from, softmax(x). Their
  code decodes a soft Gumbel sample at test time too (its hard sample is
  reached only after their probing `encode` flips a flag).
- KL of the categorical part (`categorical_kl`), on q = softmax(logits):
  'uniform' is KL(q || uniform) summed over the variables, per item (the
  JointVAE term their code cites); 'authors' is their
  discrete_latent_loss_logit, exp(mean of q log(q + 1e-12) summed over
  the variables and averaged over the items and the categories): a value
  of the whole batch, which every item carries, so the batch mean of the
  term is theirs.
- The temperature is fixed: their sampler stores an anneal rate (3e-5)
  that nothing reads.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import flax.linen as nn
import jax
import jax.numpy as jnp

from blm_jax.models import losses

KINDS = ("gaussian", "categorical", "joint")
GUMBEL_INPUTS = ("logits", "probabilities")
CATEGORICAL_KLS = ("uniform", "authors")
EPS = 1e-12  # their log(q + EPS)


@dataclasses.dataclass(frozen=True)
class Categorical:
  """The categorical part of a latent (hashable: a Flax module field)."""

  variables: int
  categories: int = 3
  temperature: float = 0.5
  gumbel_input: str = "logits"


class Posterior(NamedTuple):
  """What an encoder gives for a latent; `logits` [..., 0, 1] when it has
  no categorical part, `mean` and `logvar` [..., 0] when no Gaussian one."""

  mean: jax.Array  # [..., size]
  logvar: jax.Array  # [..., size]
  logits: jax.Array  # [..., variables, categories]


def stats_size(size: int, cat: Categorical | None) -> int:
  """Encoder outputs for a latent: logits, means, log-variances."""
  return (cat.variables * cat.categories if cat else 0) + 2 * size


def gaussian(mean: jax.Array, logvar: jax.Array) -> Posterior:
  """The posterior of a Gaussian-only latent, for an encoder that gives
  its means and log-variances itself."""
  return Posterior(mean, logvar,
                   jnp.zeros((*mean.shape[:-1], 0, 1), mean.dtype))


def split(stats: jax.Array, size: int, cat: Categorical | None) -> Posterior:
  """[..., stats_size] encoder outputs -> Posterior."""
  n = cat.variables * cat.categories if cat else 0
  mean, logvar = jnp.split(stats[..., n:n + 2 * size], 2, axis=-1)
  if cat is None:
    return gaussian(mean, logvar)
  logits = stats[..., :n].reshape(*stats.shape[:-1], cat.variables,
                                  cat.categories)
  return Posterior(mean, logvar, logits)


def _flat(x: jax.Array) -> jax.Array:
  return x.reshape(*x.shape[:-2], -1)


def _gumbel_input(post: Posterior, cat: Categorical) -> jax.Array:
  """[..., V, K] what the Gumbel noise is added to: the logits, or their
  softmax (their code)."""
  if cat.gumbel_input == "probabilities":
    return jax.nn.softmax(post.logits, axis=-1)
  return post.logits


def probabilities(post: Posterior, cat: Categorical) -> jax.Array:
  """[..., V, K] the categorical distribution the Gumbel trick samples
  from: the softmax of its input."""
  return jax.nn.softmax(_gumbel_input(post, cat), axis=-1)


def relaxed(post: Posterior, cat: Categorical, gumbel: jax.Array):
  """[..., V, K] Gumbel-softmax sample for the noise `gumbel`."""
  return jax.nn.softmax((_gumbel_input(post, cat) + gumbel)
                        / cat.temperature, axis=-1)


def evaluation_latent(post: Posterior, cat: Categorical | None) -> jax.Array:
  """[..., width] the latent evaluation decodes (the mean)."""
  if cat is None:
    return post.mean
  return jnp.concatenate([_flat(probabilities(post, cat)), post.mean], -1)


def gaussian_sample(module: nn.Module, mean: jax.Array,
                    logvar: jax.Array) -> jax.Array:
  """Reparameterised sample; the rng stream is 'sample'."""
  eps = jax.random.normal(module.make_rng("sample"), mean.shape, mean.dtype)
  module.sow("intermediates", "normal_noise", eps)
  return mean + jnp.exp(0.5 * logvar) * eps


def sample(module: nn.Module, post: Posterior, cat: Categorical | None,
           train: bool) -> jax.Array:
  """[..., width]: a sample while training (the noise is sown into the
  'intermediates' collection, for tests), else `evaluation_latent`."""
  if not train:
    return evaluation_latent(post, cat)
  if cat is None:
    return gaussian_sample(module, post.mean, post.logvar)
  g = jax.random.gumbel(module.make_rng("sample"), post.logits.shape,
                        post.logits.dtype)
  module.sow("intermediates", "gumbel_noise", g)
  parts = [_flat(relaxed(post, cat, g))]
  if post.mean.shape[-1]:
    parts.append(gaussian_sample(module, post.mean, post.logvar))
  return jnp.concatenate(parts, -1)


def categorical_kl(post: Posterior, form: str,
                   mask: jax.Array | None = None) -> jax.Array:
  """[...] the categorical part's KL term per item (`CATEGORICAL_KLS`);
  `mask` [...] marks the items the 'authors' batch value averages."""
  log_q = jax.nn.log_softmax(post.logits, axis=-1)
  q = jnp.exp(log_q)
  items = post.logits.shape[:-2]
  if form == "uniform":
    k = post.logits.shape[-1]
    return jnp.sum(q * (log_q + jnp.log(k)), axis=(-2, -1))
  if form != "authors":
    raise ValueError(f"config.loss.categorical_kl={form!r}; expected one of "
                     f"{CATEGORICAL_KLS}")
  neg_entropy = jnp.sum(q * jnp.log(q + EPS), axis=-2)  # [..., K]
  w = (jnp.ones(items) if mask is None else mask.astype(q.dtype))[..., None]
  mean = jnp.sum(neg_entropy * w) / jnp.maximum(
      1.0, jnp.sum(w) * neg_entropy.shape[-1])
  return jnp.broadcast_to(jnp.exp(mean), items)


def kl_terms(post: Posterior, cat: Categorical | None, form: str,
             gaussian: str, categorical: str,
             mask: jax.Array | None = None) -> dict:
  """{term name: [...]} of a latent: its Gaussian KL under `gaussian` when
  it has Gaussian units, its categorical KL under `categorical` when it
  has a categorical part (the names its solver weights)."""
  out = {}
  if post.mean.shape[-1]:
    out[gaussian] = losses.kl_to_standard_normal(post.mean, post.logvar)
  if cat is not None:
    out[categorical] = categorical_kl(post, form, mask)
  return out


# --- config: one latent per VAE level ------------------------------------

# config.model keys of one latent; two-level VAEs add them again with the
# prefix 'task_' for the task latent. `temperature` and `gumbel_input` are
# shared by both levels. No paper sets them: categories 3, temperature 0.5
# are their code's defaults; 5 variables mirror the 5 Gaussian units.
MODEL_DEFAULTS = {"latent_kind": "gaussian", "categorical_vars": 5,
                  "categories": 3}
SHARED_DEFAULTS = {"temperature": 0.5, "gumbel_input": "logits"}
LOSS_DEFAULTS = {"categorical_kl": "uniform"}


def model_defaults(prefix: str = "") -> dict:
  return {prefix + k: v for k, v in MODEL_DEFAULTS.items()}


def neutral_defaults(section: str) -> dict:
  """The latent keys of a config section at their defaults: runs saved
  before these keys existed had Gaussian latents (run_identity)."""
  if section == "model":
    return {**model_defaults(), **model_defaults("task_"), **SHARED_DEFAULTS}
  return {**LOSS_DEFAULTS, "sentence_categorical_kl": 1.0,
          "task_categorical_kl": 1.0}


@dataclasses.dataclass(frozen=True)
class Level:
  """One latent of a VAE: its config keys and the loss terms of its KLs."""

  prefix: str  # '' or 'task_'
  size_key: str  # config.model key of its Gaussian size
  gaussian_term: str  # loss term of its Gaussian KL
  categorical_term: str  # loss term of its categorical KL

  def kind(self, model_cfg) -> str:
    return model_cfg[self.prefix + "latent_kind"]

  def size(self, model_cfg) -> int:
    """Gaussian units (0 for a categorical-only latent)."""
    return 0 if self.kind(model_cfg) == "categorical" else int(
        model_cfg[self.size_key])

  def width(self, model_cfg) -> int:
    """The sampled latent's length: Gaussian units plus the categorical
    variables' one-hot slots."""
    cat = self.categorical(model_cfg)
    return self.size(model_cfg) + (cat.variables * cat.categories
                                   if cat else 0)

  def categorical(self, model_cfg) -> Categorical | None:
    if self.kind(model_cfg) == "gaussian":
      return None
    p = self.prefix
    return Categorical(int(model_cfg[p + "categorical_vars"]),
                       int(model_cfg[p + "categories"]),
                       float(model_cfg.temperature),
                       str(model_cfg.gumbel_input))

  def terms(self, model_cfg) -> tuple[str, ...]:
    """The loss terms its VAE returns for this latent."""
    kind = self.kind(model_cfg)
    return ((self.gaussian_term,) if kind != "categorical" else ()) + (
        (self.categorical_term,) if kind != "gaussian" else ())


def active_terms(levels, other: tuple[str, ...] = ()):
  """SolverSpec.active_terms for a VAE with these latents."""
  def terms(config) -> tuple[str, ...]:
    return other + sum((lv.terms(config.model) for lv in levels), ())
  return terms


def choices(levels) -> dict:
  """SolverSpec.choices of the latent keys."""
  out = {f"model.{lv.prefix}latent_kind": KINDS for lv in levels}
  return {**out, "model.gumbel_input": GUMBEL_INPUTS,
          "loss.categorical_kl": CATEGORICAL_KLS}


def check_config(config, levels, defaults: dict,
                 loss_defaults: dict) -> list[str]:
  """Messages naming the key: bad categorical sizes and temperature, and
  keys of a latent kind that is not the configured one set away from
  their defaults (they would do nothing)."""
  m, out = config.model, []
  for lv in levels:
    p = lv.prefix
    for key, low, what in ((p + "categorical_vars", 1, "variables"),
                           (p + "categories", 2, "categories per variable")):
      v = m[key]
      if not isinstance(v, int) or isinstance(v, bool) or v < low:
        out.append(f"config.model.{key}={v!r}: must be an integer >= {low} "
                   f"({what} of a categorical latent)")
  t = m.temperature
  if not isinstance(t, (int, float)) or isinstance(t, bool) or t <= 0:
    out.append(f"config.model.temperature={t!r}: must be a number > 0 (the "
               "Gumbel-softmax temperature)")
  if out:
    return out
  kinds = {lv.prefix: lv.kind(m) for lv in levels}
  if any(k not in KINDS for k in kinds.values()):
    return []  # `choices` names it.

  def changed(section, key, dflt):
    return config[section][key] != dflt[key]

  for lv in levels:
    p, kind = lv.prefix, kinds[lv.prefix]
    where = f"config.model.{p}latent_kind={kind!r}"
    if kind == "gaussian":
      for key in (p + "categorical_vars", p + "categories"):
        if changed("model", key, defaults):
          out.append(f"config.model.{key}={m[key]!r} sets a categorical "
                     f"latent, but {where} (use 'categorical' or 'joint')")
    elif kind == "categorical":
      keys = [("model", lv.size_key, defaults),
              ("loss", lv.gaussian_term, loss_defaults)]
      for section, key, dflt in keys:
        if changed(section, key, dflt):
          out.append(f"config.{section}.{key}={config[section][key]!r} "
                     f"belongs to a Gaussian latent, but {where} has none "
                     "(use 'joint' for both)")
    if kind == "gaussian" and changed("loss", lv.categorical_term,
                                      loss_defaults):
      out.append(f"config.loss.{lv.categorical_term}="
                 f"{config.loss[lv.categorical_term]!r} weights a "
                 f"categorical latent, but {where}")
  if all(k == "gaussian" for k in kinds.values()):
    shared = [("model", k, defaults) for k in SHARED_DEFAULTS] + [
        ("loss", "categorical_kl", loss_defaults)]
    keys = ", ".join(f"config.model.{lv.prefix}latent_kind" for lv in levels)
    for section, key, dflt in shared:
      if changed(section, key, dflt):
        out.append(f"config.{section}.{key}={config[section][key]!r} "
                   f"applies to categorical latents, but {keys} = "
                   "'gaussian'")
  return out
