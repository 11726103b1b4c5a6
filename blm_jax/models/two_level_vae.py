"""The two-level VAE of 000 sec. 8 (eq. 4-6).

Sentence level: each context sentence is compressed to its latent by the
sentence VAE, decoded, and scored against the context (positive: the
sentence itself; negatives: the other context sentences), eq. (4).
Task level: the sequence of sentence latents is encoded into its own latent
and decoded into the answer embedding; the trainer adds the max-margin
against the wrong candidates, and `kl` is KL_seq of eq. (5). `aux_loss` is
the sum over context sentences of eq. (4), so the trainer's total is eq. (6).
"""

from __future__ import annotations

import flax.linen as nn
import jax.numpy as jnp

from blm_jax import losses
from blm_jax.models.common import SolverOutput
from blm_jax.models.sentence_vae import SentenceVAE, sample


class TwoLevelVAE(nn.Module):
  sentence: SentenceVAE
  num_context: int
  task_latent: int = 5
  task_hidden: int = 64
  score: str = "cosine"

  @nn.compact
  def __call__(self, ctx, ctx_mask, train: bool = False) -> SolverOutput:
    b, c, _ = ctx.shape
    decoded, mean, logvar, z = self.sentence(ctx, train)  # [B, C, ...]
    # Sentence level, eq. (4): decoded s_i against every context sentence.
    scores = losses.pairwise_score(decoded, ctx, self.score)  # [B, C, C]
    pair_mask = ctx_mask[:, None, :] & ctx_mask[:, :, None]
    margin = losses.max_margin(scores, jnp.broadcast_to(jnp.arange(c), (b, c)),
                               pair_mask, reduction="mean")
    sent_kl = losses.kl_to_standard_normal(mean, logvar)
    sent_loss = jnp.sum(jnp.where(ctx_mask, margin + sent_kl, 0.0), axis=-1)
    # Task level, eq. (5): the latent sequence -> task latent -> answer.
    seq = (z * ctx_mask[..., None]).reshape(b, -1)
    h = nn.relu(nn.Dense(self.task_hidden, name="task_enc")(seq))
    stats = nn.Dense(2 * self.task_latent, name="task_stats")(h)
    t_mean, t_logvar = jnp.split(stats, 2, axis=-1)
    zt = sample(self, t_mean, t_logvar) if train else t_mean
    h = nn.relu(nn.Dense(self.task_hidden, name="task_dec")(zt))
    pred = nn.Dense(ctx.shape[-1], name="task_out")(h)
    return SolverOutput(pred=pred,
                        kl=losses.kl_to_standard_normal(t_mean, t_logvar),
                        aux_loss=sent_loss, latent=zt)
