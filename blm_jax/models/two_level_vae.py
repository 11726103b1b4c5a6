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
"""

from __future__ import annotations

import flax.linen as nn
import jax
import jax.numpy as jnp

from blm_jax import losses
from blm_jax.models.common import SolverOutput
from blm_jax.models import patch_conv
from blm_jax.models.sentence_vae import SentenceVAE, sample

TASK_LEVELS = ("mlp", "conv")
SENTENCE_SCORES = losses.SCORES
SENTENCE_REDUCTIONS = ("sum", "mean")


class ConvTaskEncoder(nn.Module):
  """[B, C, L] latent matrix -> [B, 2 * latent] through a k x k 'VALID' conv.

  Written with `patch_conv` (like the sentence VAE), so the grid's vmap
  batches it instead of running a grouped convolution.
  """

  latent: int
  channels: int = 32
  kernel: int = 4

  @nn.compact
  def __call__(self, z: jax.Array) -> jax.Array:
    c, l = z.shape[-2:]
    k = min(self.kernel, c, l)
    kernel = self.param("kernel", nn.initializers.lecun_normal(),
                        (k * k, self.channels))
    bias = self.param("bias", nn.initializers.zeros, (self.channels,))
    x = z.reshape(*z.shape[:-2], c * l)
    y = nn.relu(patch_conv.conv_valid(x, kernel, (c, l)) + bias)  # [B, P, C]
    return nn.Dense(2 * self.latent, name="stats")(
        y.reshape(*y.shape[:-2], -1))


class ConvAnswerDecoder(nn.Module):
  """[B, latent] -> [B, D]: dense, then the 15x15 transposed convolution."""

  embed_dim: int
  grid_shape: tuple[int, int]
  channels: int = 32
  kernel: int = 15
  hidden_relu: bool = False
  output_relu: bool = True

  @nn.compact
  def __call__(self, z: jax.Array) -> jax.Array:
    h, w = self.grid_shape
    k = min(self.kernel, h, w)
    oh, ow = patch_conv.output_shape(self.grid_shape, k)
    y = nn.Dense(oh * ow * self.channels, name="dense")(z)
    if self.hidden_relu:
      y = nn.relu(y)
    y = y.reshape(*z.shape[:-1], oh * ow, self.channels)
    kernel = self.param("kernel", nn.initializers.lecun_normal(),
                        (self.channels, k * k))
    bias = self.param("bias", nn.initializers.zeros, (1,))
    out = patch_conv.conv_transpose_valid(y, kernel, self.grid_shape) + bias
    return nn.relu(out) if self.output_relu else out


class TwoLevelVAE(nn.Module):
  sentence: SentenceVAE
  num_context: int
  task_latent: int = 5
  task_hidden: int = 64  # 'mlp' task level
  task_level: str = "mlp"
  task_channels: int = 32  # 'conv' task level
  task_kernel: int = 4
  sentence_score: str = "cosine"
  sentence_reduction: str = "sum"

  def sentence_level(self, ctx, ctx_mask, train: bool):
    """Eq. (4) per context sentence: margin and KL [B, C], latents z."""
    b, c, _ = ctx.shape
    decoded, mean, logvar, z = self.sentence(ctx, train)  # [B, C, ...]
    kind = "dot" if self.sentence_score == "normalized" else self.sentence_score
    scores = losses.pairwise_score(decoded, ctx, kind)  # [B, C, C]
    pair_mask = ctx_mask[:, None, :] & ctx_mask[:, :, None]
    if self.sentence_score == "normalized":
      scores = losses.normalize_scores(scores, pair_mask)
    margin = losses.max_margin(scores, jnp.broadcast_to(jnp.arange(c), (b, c)),
                               pair_mask, reduction="mean")
    kl = losses.kl_to_standard_normal(mean, logvar)
    return margin, kl, z

  def reduce_sentences(self, x, ctx_mask):
    """Sum (eq. 6) or mean (the authors' code) over the real sentences."""
    total = jnp.sum(jnp.where(ctx_mask, x, 0.0), axis=-1)
    if self.sentence_reduction == "sum":
      return total
    return total / jnp.maximum(1, jnp.sum(ctx_mask, axis=-1))

  @nn.compact
  def __call__(self, ctx, ctx_mask, train: bool = False) -> SolverOutput:
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
    b = ctx.shape[0]
    margin, sent_kl, z = self.sentence_level(ctx, ctx_mask, train)
    # Task level, eq. (5): the latent sequence -> task latent -> answer.
    seq = z * ctx_mask[..., None]  # [B, C, L]
    if self.task_level == "mlp":
      h = nn.relu(nn.Dense(self.task_hidden, name="task_enc")(
          seq.reshape(b, -1)))
      stats = nn.Dense(2 * self.task_latent, name="task_stats")(h)
    else:
      stats = ConvTaskEncoder(self.task_latent, self.task_channels,
                              self.task_kernel, name="task_enc")(seq)
    t_mean, t_logvar = jnp.split(stats, 2, axis=-1)
    zt = sample(self, t_mean, t_logvar) if train else t_mean
    if self.task_level == "mlp":
      h = nn.relu(nn.Dense(self.task_hidden, name="task_dec")(zt))
      pred = nn.Dense(ctx.shape[-1], name="task_out")(h)
    else:
      s = self.sentence
      pred = ConvAnswerDecoder(
          ctx.shape[-1], s.grid_shape, self.task_channels, s.kernel,
          hidden_relu=s.decoder_hidden_relu,
          output_relu=s.decoder_output_relu, name="task_dec")(zt)
    return SolverOutput(
        pred=pred, latent=zt,
        terms={"task_kl": losses.kl_to_standard_normal(t_mean, t_logvar),
               "sentence_margin": self.reduce_sentences(margin, ctx_mask),
               "sentence_kl": self.reduce_sentences(sent_kl, ctx_mask)})
