"""The sentence-level VAE of 000 sec. 7 (chunk structure).

A sentence embedding is reshaped to a 2-D array (32 x 24 for D = 768), a
15x15 convolution and a dense layer give the mean and log-variance of a small
latent (5), and a decoder mirroring the encoder unpacks a latent back to an
embedding. It is an encoder-decoder, not an auto-encoder: the decoded vector
is scored against candidates, not against its input. At test time the latent
mean is decoded (deterministic evaluation).
"""

from __future__ import annotations

import flax.linen as nn
import jax
import jax.numpy as jnp

from blm_jax import losses
from blm_jax.models.common import SolverOutput


class SentenceVAE(nn.Module):
  embed_dim: int
  grid_shape: tuple[int, int]
  channels: int = 1
  kernel: int = 15
  latent: int = 5

  def setup(self):
    h, w = self.grid_shape
    k = min(self.kernel, h, w)
    self._k = k
    self._conv_out = (h - k + 1, w - k + 1, self.channels)
    self.enc_conv = nn.Conv(self.channels, (k, k), padding="VALID")
    self.enc_dense = nn.Dense(2 * self.latent)
    self.dec_dense = nn.Dense(
        self._conv_out[0] * self._conv_out[1] * self.channels)
    self.dec_conv = nn.ConvTranspose(1, (k, k), padding="VALID")

  def encode(self, x: jax.Array) -> tuple[jax.Array, jax.Array]:
    """[..., D] -> mean, logvar [..., latent]."""
    lead = x.shape[:-1]
    y = x.reshape((-1, *self.grid_shape, 1))
    y = nn.relu(self.enc_conv(y)).reshape(y.shape[0], -1)
    stats = self.enc_dense(y)
    mean, logvar = jnp.split(stats, 2, axis=-1)
    return mean.reshape(*lead, -1), logvar.reshape(*lead, -1)

  def decode(self, z: jax.Array) -> jax.Array:
    """[..., latent] -> [..., D]."""
    lead = z.shape[:-1]
    y = nn.relu(self.dec_dense(z.reshape(-1, z.shape[-1])))
    y = self.dec_conv(y.reshape(-1, *self._conv_out))
    return y.reshape(*lead, self.embed_dim)

  def __call__(self, x: jax.Array, train: bool = False):
    """Returns (decoded, mean, logvar, z) for embeddings x [..., D]."""
    mean, logvar = self.encode(x)
    z = sample(self, mean, logvar) if train else mean
    return self.decode(z), mean, logvar, z


def sample(module: nn.Module, mean: jax.Array, logvar: jax.Array) -> jax.Array:
  """Reparameterised sample; the rng stream is 'sample'."""
  eps = jax.random.normal(module.make_rng("sample"), mean.shape, mean.dtype)
  return mean + jnp.exp(0.5 * logvar) * eps


class SentenceVAESolver(nn.Module):
  """The sentence VAE as a solver: context = the one input sentence.

  With the trainer's margin reduction 'mean' the answer loss is maxM of
  eq. (3), and `kl` completes eq. (2).
  """

  sentence: SentenceVAE

  def __call__(self, ctx, ctx_mask, train: bool = False) -> SolverOutput:
    del ctx_mask
    decoded, mean, logvar, z = self.sentence(ctx[:, 0], train)
    return SolverOutput(pred=decoded,
                        kl=losses.kl_to_standard_normal(mean, logvar),
                        aux_loss=jnp.zeros(decoded.shape[:1], decoded.dtype),
                        latent=z)
