"""The two-level VAE of 000 sec. 8 (eq. 4-6).

Sentence level: each context sentence is compressed to its latent by the
sentence VAE, decoded, and scored against the context (positive: the
sentence itself; negatives: the other context sentences), eq. (4).
Task level: the sequence of sentence latents is encoded into its own latent
and decoded into the answer embedding; the trainer adds the max-margin
against the wrong candidates, eq. (5).

The model returns its loss terms unweighted and by name (`task_kl`,
`sentence_margin`, `sentence_kl`); `config.loss` weights them, so eq. (6)
is the config with every weight 1 and `sentence_reduction='sum'`, and the
authors' code is weights 5/D on both KL terms and `sentence_reduction='mean'`
(configs/vae2.py:reference).

Task level, two architectures:
- 'mlp': latents [C x 5] -> dense -> task latent -> dense -> D.
- 'conv' (the authors' VariationalAutoencoder_2level): the C x 5 latent
  matrix is one image, a 4x4 'VALID' convolution (32 channels) and a dense
  layer give the task latent; the answer is decoded by the same 15x15
  transposed-convolution decoder family as the sentence level.

Either latent may be categorical or joint (`model.latent_kind`,
`model.task_latent_kind`; latents.py), as the authors' `--latent_sent_categ`
and `--categorical_dim` make them.

A sentence VAE here is any module with `categorical` (its
`latents.Categorical`, None for a Gaussian latent), `encode(x) ->
latents.Posterior`, `decode(z)` and `__call__(x, train) -> (decoded,
posterior, z)`, as `sentence_vae.SentenceVAE` (a Gaussian-only encoder
returns `latents.gaussian(mean, logvar)` and samples with
`latents.sample(module, posterior, None, train)`).
"""

from __future__ import annotations

from typing import Callable

import flax.linen as nn
import jax
import jax.numpy as jnp

from blm_jax.models import latents, losses, patch_conv, registry, sentence_vae
from blm_jax.models.common import SolverOutput
from blm_jax.models.sentence_vae import SentenceVAE

TASK_LEVELS = ("mlp", "conv")
SENTENCE_SCORES = losses.SCORES
SENTENCE_REDUCTIONS = ("sum", "mean")

# config.model of the two-level VAE: the sentence VAE's keys plus its task
# level.
DEFAULTS = {
    **sentence_vae.DEFAULTS,
    "task_latent": 5,
    "task_level": "mlp",  # 'mlp' (ours) or 'conv' (the authors' code)
    "task_hidden": 64,  # 'mlp' task level
    "task_channels": 32,  # 'conv' task level: 4x4 encoder, 15x15 decoder
    "task_kernel": 4,
    **latents.model_defaults("task_"),  # the task latent's kind
}
LEVELS = (sentence_vae.LEVEL, latents.Level("task_", "task_latent", "task_kl",
                                            "task_categorical_kl"))
# Its config.loss keys: eq. (6) of 000 is every weight 1 with
# sentence_reduction='sum'.
LOSS_DEFAULTS = {
    "task_kl": 1.0,  # KL_seq of eq. 5
    "sentence_margin": 1.0,  # maxM of eq. 4, per context sentence
    "sentence_kl": 1.0,  # KL of eq. 4
    # KLs of categorical latents (latents.py; not scaled by kl_scale).
    "task_categorical_kl": 1.0,
    "sentence_categorical_kl": 1.0,
    **latents.LOSS_DEFAULTS,
    # The sentence terms over the context, 'sum' (eq. 6) or 'mean'.
    "sentence_reduction": "sum",
    # Sentence-level score: '' = train.score; 'normalized' = dot scores
    # L2-normalised over (positive, negatives), as in the authors' code.
    "sentence_score": "",
    "kl_scale": "none",  # sentence_vae.KL_SCALES
}


class ConvTaskEncoder(nn.Module):
  """[B, C, L] latent matrix -> [B, 2 * latent] through a k x k 'VALID' conv.

  Written with `patch_conv` (like the sentence VAE), so the grid's vmap
  batches it instead of running a grouped convolution.
  """

  latent: int
  channels: int = 32
  kernel: int = 4
  categorical: latents.Categorical | None = None

  @nn.compact
  def __call__(self, z: jax.Array) -> jax.Array:
    c, l = z.shape[-2:]
    k = self.kernel  # `task_kernel_problem` refuses a kernel that does not fit
    if not 1 <= k <= min(c, l):
      raise ValueError(task_kernel_problem(k, l, c))
    kernel = self.param("kernel", nn.initializers.lecun_normal(),
                        (k * k, self.channels))
    bias = self.param("bias", nn.initializers.zeros, (self.channels,))
    x = z.reshape(*z.shape[:-2], c * l)
    y = nn.relu(patch_conv.conv_valid(x, kernel, (c, l)) + bias)  # [B, P, C]
    stats = nn.Dense(latents.stats_size(self.latent, self.categorical),
                     name="stats")
    return stats(y.reshape(*y.shape[:-2], -1))


class ConvAnswerDecoder(nn.Module):
  """[B, latent] -> [B, D]: dense, then the 15x15 transposed convolution."""

  embed_dim: int
  grid_shape: tuple[int, int]
  channels: int = 32
  kernel: int = 15
  pads: tuple[int, int] = (0, 0)  # the sentence array's (`sentence_vae`)
  hidden_relu: bool = False
  output_relu: bool = True
  # The kernel [channels, k*k]: lecun_normal reads its fan-in as the
  # channels; nn.initializers.variance_scaling(..., in_axis=(-2, -1))
  # counts channels x k x k, as lax's convolution kernels do.
  kernel_init: Callable = nn.initializers.lecun_normal()

  @nn.compact
  def __call__(self, z: jax.Array) -> jax.Array:
    k = self.kernel  # Refused by output_shape where it does not fit.
    oh, ow = patch_conv.output_shape(self.grid_shape, k, self.pads)
    y = nn.Dense(oh * ow * self.channels, name="dense")(z)
    if self.hidden_relu:
      y = nn.relu(y)
    y = y.reshape(*z.shape[:-1], oh * ow, self.channels)
    kernel = self.param("kernel", self.kernel_init, (self.channels, k * k))
    bias = self.param("bias", nn.initializers.zeros, (1,))
    out = patch_conv.conv_transpose_valid(y, kernel, self.grid_shape,
                                          self.pads) + bias
    return nn.relu(out) if self.output_relu else out


class TwoLevelVAE(nn.Module):
  sentence: SentenceVAE
  num_context: int
  task_latent: int = DEFAULTS["task_latent"]
  task_hidden: int = DEFAULTS["task_hidden"]  # 'mlp' task level
  task_level: str = DEFAULTS["task_level"]
  task_channels: int = DEFAULTS["task_channels"]  # 'conv' task level
  task_kernel: int = DEFAULTS["task_kernel"]
  sentence_score: str = "cosine"
  sentence_reduction: str = LOSS_DEFAULTS["sentence_reduction"]
  task_categorical: latents.Categorical | None = None  # None: Gaussian
  categorical_kl: str = LOSS_DEFAULTS["categorical_kl"]

  def sentence_level(self, ctx, ctx_mask, train: bool):
    """Eq. (4) per context sentence: margin [B, C], KL terms {name:
    [B, C]}, latents z."""
    b, c, _ = ctx.shape
    decoded, post, z = self.sentence(ctx, train)  # [B, C, ...]
    kind = "dot" if self.sentence_score == "normalized" else self.sentence_score
    scores = losses.pairwise_score(decoded, ctx, kind)  # [B, C, C]
    pair_mask = ctx_mask[:, None, :] & ctx_mask[:, :, None]
    if self.sentence_score == "normalized":
      scores = losses.normalize_scores(scores, pair_mask)
    margin = losses.max_margin(scores, jnp.broadcast_to(jnp.arange(c), (b, c)),
                               pair_mask, reduction="mean")
    level = sentence_vae.LEVEL
    kl = latents.kl_terms(post, self.sentence.categorical,
                          self.categorical_kl, level.gaussian_term,
                          level.categorical_term, ctx_mask)
    return margin, kl, z

  def reduce_sentences(self, x, ctx_mask):
    """Sum (eq. 6) or mean (the authors' code) over the real sentences."""
    total = jnp.sum(jnp.where(ctx_mask, x, 0.0), axis=-1)
    if self.sentence_reduction == "sum":
      return total
    return total / jnp.maximum(1, jnp.sum(ctx_mask, axis=-1))

  def setup(self):
    if self.task_level not in TASK_LEVELS:
      raise ValueError(f"config.model.task_level={self.task_level!r}; "
                       f"expected one of {TASK_LEVELS}")
    if self.sentence_score not in SENTENCE_SCORES:
      raise ValueError(f"config.loss.sentence_score={self.sentence_score!r}; "
                       f"expected one of {SENTENCE_SCORES}")
    if self.sentence_reduction not in SENTENCE_REDUCTIONS:
      raise ValueError(
          f"config.loss.sentence_reduction={self.sentence_reduction!r}; "
          f"expected one of {SENTENCE_REDUCTIONS}")
    # Attribute names are the parameter names (task_enc, task_stats,
    # task_dec, task_out), as the checkpoints hold them.
    s = self.sentence
    if self.task_level == "mlp":
      self.task_enc = nn.Dense(self.task_hidden)
      self.task_stats = nn.Dense(latents.stats_size(self.task_latent,
                                                    self.task_categorical))
      self.task_dec = nn.Dense(self.task_hidden)
      self.task_out = nn.Dense(s.embed_dim)
    else:
      self.task_enc = ConvTaskEncoder(self.task_latent, self.task_channels,
                                      self.task_kernel, self.task_categorical)
      self.task_dec = ConvAnswerDecoder(
          s.embed_dim, s.grid_shape, self.task_channels, s.kernel, s.pads,
          hidden_relu=s.decoder_hidden_relu,
          output_relu=s.decoder_output_relu)

  def task_statistics(self, z, ctx_mask) -> latents.Posterior:
    """Sentence latents [B, C, L] -> the task latent's posterior (mean,
    logvar [B, task_latent])."""
    seq = z * ctx_mask[..., None]  # [B, C, L]
    if self.task_level == "mlp":
      h = nn.relu(self.task_enc(seq.reshape(seq.shape[0], -1)))
      stats = self.task_stats(h)
    else:
      stats = self.task_enc(seq)
    return latents.split(stats, self.task_latent, self.task_categorical)

  def decode_latent(self, zt):
    """[B, task_latent] -> [B, D]: the answer decoded from a task latent
    (also a probing entry point: latent traversal)."""
    if self.task_level == "mlp":
      return self.task_out(nn.relu(self.task_dec(zt)))
    return self.task_dec(zt)

  # Probing entry points (`model.apply(params, ..., method=...)`).
  def sentence_latent(self, ctx, ctx_mask):
    """[B, C, D] -> [B, C, latent]: each context sentence's latent mean."""
    del ctx_mask
    return latents.evaluation_latent(self.sentence.encode(ctx),
                                     self.sentence.categorical)

  def encode_latent(self, ctx, ctx_mask):
    """[B, C, D] -> [B, task_latent]: the task latent mean (what evaluation
    decodes)."""
    return latents.evaluation_latent(
        self.task_statistics(self.sentence_latent(ctx, ctx_mask), ctx_mask),
        self.task_categorical)

  def __call__(self, ctx, ctx_mask, train: bool = False) -> SolverOutput:
    margin, sent_kl, z = self.sentence_level(ctx, ctx_mask, train)
    # Task level, eq. (5): the latent sequence -> task latent -> answer.
    post = self.task_statistics(z, ctx_mask)
    zt = latents.sample(self, post, self.task_categorical, train)
    pred = self.decode_latent(zt)
    task = LEVELS[1]
    return SolverOutput(
        pred=pred, latent=zt,
        terms={**latents.kl_terms(post, self.task_categorical,
                                  self.categorical_kl, task.gaussian_term,
                                  task.categorical_term),
               "sentence_margin": self.reduce_sentences(margin, ctx_mask),
               **{k: self.reduce_sentences(v, ctx_mask)
                  for k, v in sent_kl.items()}})


def _build(model_cfg, loss_cfg, *, embed_dim, num_context, score):
  return TwoLevelVAE(
      sentence=sentence_vae.build_sentence(model_cfg, embed_dim),
      num_context=num_context,
      task_latent=LEVELS[1].size(model_cfg),
      task_hidden=model_cfg.task_hidden,
      task_level=model_cfg.task_level,
      task_channels=model_cfg.task_channels,
      task_kernel=model_cfg.task_kernel,
      sentence_score=loss_cfg.sentence_score or score,
      sentence_reduction=loss_cfg.sentence_reduction,
      task_categorical=LEVELS[1].categorical(model_cfg),
      categorical_kl=loss_cfg.categorical_kl)


def task_kernel_problem(kernel: int, width: int,
                        num_context: int | None = None) -> str | None:
  """Why the conv task level's k x k kernel cannot read the [context
  sentences x latent width] matrix (None when it can; `num_context` None:
  not known before the data)."""
  where = (f"config.model.task_kernel={kernel} does not fit the conv task "
           "level's [context sentences x sentence latent] matrix")
  if kernel < 1:
    return f"config.model.task_kernel={kernel} must be at least 1"
  if kernel > width:
    return (f"{where}: the sentence latent is {width} wide; use a kernel "
            f"of at most {width} or a wider latent")
  if num_context is not None and kernel > num_context:
    return (f"{where}: the data has {num_context} context sentences; use a "
            f"kernel of at most {num_context}")
  return None


def check_task_kernel(kernel: int, width: int, num_context: int) -> None:
  """`task_kernel_problem` on the data, as the ValueError a data check
  raises."""
  problem = task_kernel_problem(kernel, width, num_context)
  if problem:
    raise ValueError(problem)


def _task_kernel_problems(config) -> list[str]:
  m = config.model
  if m.task_level != "conv":
    return []
  problem = task_kernel_problem(int(m.task_kernel), LEVELS[0].width(m))
  return [problem] if problem else []


def check_context(config, data) -> None:
  """The sentence level needs negatives: at least 2 context sentences."""
  if data.num_context < 2:
    raise ValueError(f"config.model.name={config.model.name!r} needs at "
                     "least 2 context sentences (the others are each "
                     "sentence's negatives)")


def _check_data(config, data) -> None:
  sentence_vae.check_grid_shape(config, data)
  check_context(config, data)
  m = config.model
  if m.task_level == "conv":
    check_task_kernel(int(m.task_kernel), LEVELS[0].width(m),
                      data.num_context)


SPEC = registry.SolverSpec(
    name="vae2",
    model=DEFAULTS,
    loss=LOSS_DEFAULTS,
    build=_build,
    loss_terms=("task_kl", "sentence_margin", "sentence_kl",
                "task_categorical_kl", "sentence_categorical_kl"),
    term_scales=lambda config, dim: sentence_vae.kl_scales(
        config, dim, {"task_kl": "task_latent", "sentence_kl": "latent"}),
    active_terms=latents.active_terms(LEVELS, ("sentence_margin",)),
    check_data=_check_data,
    check_config=lambda config: latents.check_config(
        config, LEVELS, DEFAULTS, LOSS_DEFAULTS)
    + sentence_vae.kernel_problems(config.model)
    + _task_kernel_problems(config),
    choices={"model.task_level": TASK_LEVELS,
             "loss.sentence_reduction": SENTENCE_REDUCTIONS,
             "loss.sentence_score": ("",) + SENTENCE_SCORES,
             "loss.kl_scale": sentence_vae.KL_SCALES,
             "model.sentence_array": sentence_vae.SENTENCE_ARRAYS,
             **latents.choices(LEVELS)},
    decodes_latent=True,
    sentence_latents=True,
    scan_on=frozenset({"cpu"}))
