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

from blm_jax.models import losses, patch_conv, registry
from blm_jax.models.common import sentence_grid_shape, SolverOutput

# config.model keys of the sentence VAE, shared by the two-level VAE.
DEFAULTS = {
    "grid_shape": (),  # 2-D reshape of D; () = derived (32x24 for 768)
    "channels": (32,),  # output channels of the 15x15 convolution
    "kernel": 15,
    "latent": 5,
    "decoder_hidden_relu": True,  # ReLU after the decoder's dense layer
    "decoder_output_relu": False,  # ... and on its output (authors' code)
}
# Every KL weight times 'none' = 1, or 'latent_over_dim' = latent size / D
# (the authors' code: 5/768, without which, they note, nothing is learnt).
KL_SCALES = ("none", "latent_over_dim")


class SentenceVAE(nn.Module):
  """15x15 'VALID' convolution encoder, mirrored transposed-conv decoder.

  The convolutions are `patch_conv`'s banded matmuls: identical maths to
  nn.Conv / nn.ConvTranspose, but under the grid's vmap the per-cell kernels
  become batched matmuls, whereas XLA's CPU backend runs a vmapped 15x15
  convolution as a slow grouped convolution (measured: 9 cells 13x slower
  than one), and an im2col scatter-add decoder spent most of the step
  moving a [..., P, k*k] array (benchmarks/README.md).
  """

  embed_dim: int
  grid_shape: tuple[int, int]
  channels: int = DEFAULTS["channels"][0]
  kernel: int = DEFAULTS["kernel"]
  latent: int = DEFAULTS["latent"]
  # Decoder activations. Ours: ReLU after the dense layer, linear output.
  # The authors' Decoder_2D: linear dense layer, ReLU on the decoded output.
  decoder_hidden_relu: bool = DEFAULTS["decoder_hidden_relu"]
  decoder_output_relu: bool = DEFAULTS["decoder_output_relu"]

  def setup(self):
    h, w = self.grid_shape
    k = min(self.kernel, h, w)
    oh, ow = patch_conv.output_shape(self.grid_shape, k)
    n_pos = oh * ow
    init = nn.initializers.lecun_normal()
    self.enc_kernel = self.param("enc_kernel", init, (k * k, self.channels))
    self.enc_bias = self.param("enc_bias", nn.initializers.zeros,
                               (self.channels,))
    self.enc_dense = nn.Dense(2 * self.latent)
    self.dec_dense = nn.Dense(n_pos * self.channels)
    self.dec_kernel = self.param("dec_kernel", init, (self.channels, k * k))
    self.dec_bias = self.param("dec_bias", nn.initializers.zeros, (1,))

  def encode(self, x: jax.Array) -> tuple[jax.Array, jax.Array]:
    """[..., D] -> mean, logvar [..., latent]."""
    y = patch_conv.conv_valid(x, self.enc_kernel, self.grid_shape)
    y = nn.relu(y + self.enc_bias)  # [..., P, C]
    stats = self.enc_dense(y.reshape(*y.shape[:-2], -1))
    mean, logvar = jnp.split(stats, 2, axis=-1)
    return mean, logvar

  def decode(self, z: jax.Array) -> jax.Array:
    """[..., latent] -> [..., D]."""
    y = self.dec_dense(z)
    if self.decoder_hidden_relu:
      y = nn.relu(y)
    y = y.reshape(*z.shape[:-1], -1, self.channels)  # [..., P, C]
    out = patch_conv.conv_transpose_valid(y, self.dec_kernel, self.grid_shape)
    out = out + self.dec_bias
    return nn.relu(out) if self.decoder_output_relu else out

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

  With `loss.answer_reduction='mean'` the answer loss is maxM of eq. (3);
  the `sentence_kl` term completes eq. (2).
  """

  sentence: SentenceVAE

  def __call__(self, ctx, ctx_mask, train: bool = False) -> SolverOutput:
    del ctx_mask
    decoded, mean, logvar, z = self.sentence(ctx[:, 0], train)
    return SolverOutput(
        pred=decoded, latent=z,
        terms={"sentence_kl": losses.kl_to_standard_normal(mean, logvar)})

  # Probing entry points (`model.apply(params, ..., method=...)`): the latent
  # the solver decodes at test time, and the decoder from any latent
  # (latent traversal, 000 sec. 7).
  def encode_latent(self, ctx, ctx_mask):
    """[B, 1, D] -> [B, latent]: the latent mean (what evaluation decodes)."""
    del ctx_mask
    return self.sentence.encode(ctx[:, 0])[0]

  def decode_latent(self, z):
    """[B, latent] -> [B, D]: the answer embedding decoded from `z`."""
    return self.sentence.decode(z)


def build_sentence(model_cfg, embed_dim: int) -> SentenceVAE:
  """The sentence VAE of a VAE solver's `config.model`."""
  return SentenceVAE(
      embed_dim=embed_dim,
      grid_shape=sentence_grid_shape(embed_dim, tuple(model_cfg.grid_shape)),
      channels=model_cfg.channels[0] if model_cfg.channels else 1,
      kernel=model_cfg.kernel,
      latent=model_cfg.latent,
      decoder_hidden_relu=model_cfg.decoder_hidden_relu,
      decoder_output_relu=model_cfg.decoder_output_relu)


def kl_scales(config, embed_dim: int, latents: dict) -> dict:
  """{KL term: factor}: latent size / D per term under 'latent_over_dim'.

  `latents` maps each KL term to the config.model key of its latent size.
  """
  kind = config.loss.kl_scale
  if kind not in KL_SCALES:
    raise ValueError(f"config.loss.kl_scale={kind!r}; expected one of "
                     f"{KL_SCALES}")
  if kind == "none":
    return {}
  return {term: config.model[key] / embed_dim for term, key in latents.items()}


def check_grid_shape(config, data) -> None:
  """The sentence reshape fits the data's D (names config.model.grid_shape)."""
  sentence_grid_shape(data.embed_dim, tuple(config.model.grid_shape))


def _build(model_cfg, loss_cfg, *, embed_dim, num_context, score):
  del loss_cfg, num_context, score
  return SentenceVAESolver(sentence=build_sentence(model_cfg, embed_dim))


def _check_data(config, data) -> None:
  check_grid_shape(config, data)
  if data.num_context != 1:
    raise ValueError(
        f"config.model.name='sent_vae' solves one-sentence inputs (the "
        f"blm_chunks datasets); {config.data.name!r} has "
        f"{data.num_context} context sentences")


SPEC = registry.SolverSpec(
    name="sent_vae",
    model=DEFAULTS,
    # sentence_kl completes eq. (2); kl_scale as KL_SCALES says.
    loss={"sentence_kl": 1.0, "kl_scale": "none"},
    build=_build,
    loss_terms=("sentence_kl",),
    term_scales=lambda config, dim: kl_scales(config, dim,
                                              {"sentence_kl": "latent"}),
    check_data=_check_data,
    choices={"loss.kl_scale": KL_SCALES},
    decodes_latent=True,
    # Its input is one sentence: probing counts input x chosen patterns.
    confusion="pattern",
    scan_on=frozenset({"cpu"}))
