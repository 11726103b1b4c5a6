"""The authors' one-level sequence VAE (`vae`: VariationalAutoencoder in
their vaes/VAE.py), an encoder-decoder over the stack of 2-D sentence arrays.

The context [C, D] is a stack of C sentence arrays h x w (32 x 24 for
D = 768); one 3-D convolution (kernel 3 x 15 x 15, stride 1 x 15 x 15,
32 channels, padded as their code pads it: `strided_conv`) and a dense
layer give the mean and log-variance of a latent (5); the answer is
decoded from it by a dense layer (ReLU) and the mirrored transposed
convolution (kernel 1 x 15 x 15) to one h x w array, scored against the
candidates with the answer margin; the objective adds the latent's KL
(`loss.task_kl`, times latent / D under `loss.kl_scale='latent_over_dim'`
as in their utils/losses.py).

Where their code and the paper differ, and which we follow:
- Their simple sampler samples the latent at test time too; we decode the
  mean (evaluation is deterministic, DESIGN.md).
- Their encoder's dense layer interleaves mean and log-variance
  (view(latent, 2)); ours puts the means first: a permutation of its
  outputs (tests/models/test_seq_vae.py maps one onto the other).
- Their reshape fixes 32 rows whatever D (MiniLM's 384 -> 32 x 12); ours is
  `sentence_grid_shape` (384 -> 24 x 16), as for the other VAEs; set
  `model.grid_shape=(32, 12)` for theirs.
- The papers describe the two-level VAE, not this one; it is in their code
  only, so its defaults are their code's.
- `model.latent_kind` makes its latent categorical or joint, as their
  `--categorical_dim` does (latents.py says where their sampler differs).
"""

from __future__ import annotations

from typing import Sequence

import flax.linen as nn
import jax

from blm_jax.models import latents, registry, sentence_vae, strided_conv
from blm_jax.models.common import sentence_grid_shape, SolverOutput

DEFAULTS = {
    "grid_shape": (),  # 2-D reshape of D; () = derived (32x24 for 768)
    "conv_kernel": (3, 15, 15),  # (sentences, rows, columns)
    "conv_stride": (1, 15, 15),
    "hidden_channels": 32,
    "latent": 5,
    **latents.model_defaults(),  # its latent's kind (latents.py)
    **latents.SHARED_DEFAULTS,
}
LEVEL = latents.Level("", "latent", "task_kl", "task_categorical_kl")
LOSS_DEFAULTS = {"task_kl": 1.0, "task_categorical_kl": 1.0,
                 "kl_scale": "latent_over_dim", **latents.LOSS_DEFAULTS}


class StridedDecoder(nn.Module):
  """latent -> dense -> transposed conv -> [..., h*w], torch-sized.

  `image`: the h x w array decoded; `kernel`, `stride` per axis;
  activations after the dense layer and on the output as flags (the
  authors' decoders differ in both).
  """

  image: tuple[int, int]
  kernel: tuple[int, int]
  stride: tuple[int, int]
  channels: int
  hidden_relu: bool = True
  output_relu: bool = False

  @nn.compact
  def __call__(self, z: jax.Array) -> jax.Array:
    p = strided_conv.plan(self.image, self.kernel, self.stride)
    y = nn.Dense(p["size"] * self.channels, name="dense")(z)
    if self.hidden_relu:
      y = nn.relu(y)
    lead = z.shape[:-1]
    y = y.reshape(-1, *p["windows"], self.channels)
    kernel = self.param("kernel", nn.initializers.lecun_normal(),
                        (*self.kernel, self.channels, 1))
    bias = self.param("bias", nn.initializers.zeros, (1,))
    out = strided_conv.conv_transpose(y, kernel, self.stride, p["pads"],
                                      p["out_pads"]) + bias
    out = out.reshape(*lead, -1)
    return nn.relu(out) if self.output_relu else out


class SeqVAE(nn.Module):
  embed_dim: int
  num_context: int
  grid_shape: tuple[int, int]
  kernel: Sequence[int] = DEFAULTS["conv_kernel"]
  stride: Sequence[int] = DEFAULTS["conv_stride"]
  hidden_channels: int = DEFAULTS["hidden_channels"]
  latent: int = DEFAULTS["latent"]
  categorical: latents.Categorical | None = None  # None: Gaussian only
  categorical_kl: str = latents.LOSS_DEFAULTS["categorical_kl"]

  def setup(self):
    shape = (self.num_context, *self.grid_shape)
    self._plan = strided_conv.plan(shape, tuple(self.kernel),
                                   tuple(self.stride))
    self.enc_kernel = self.param(
        "enc_kernel", nn.initializers.lecun_normal(),
        (*self.kernel, 1, self.hidden_channels))
    self.enc_bias = self.param("enc_bias", nn.initializers.zeros,
                               (self.hidden_channels,))
    self.enc_dense = nn.Dense(latents.stats_size(self.latent,
                                                 self.categorical))
    self.decoder = StridedDecoder(
        tuple(self.grid_shape), tuple(self.kernel[1:]),
        tuple(self.stride[1:]), self.hidden_channels)

  def encode(self, ctx, ctx_mask) -> latents.Posterior:
    """[B, C, D] -> the latent's posterior (mean, logvar [B, latent])."""
    x = (ctx * ctx_mask[..., None]).reshape(
        ctx.shape[0], self.num_context, *self.grid_shape, 1)
    y = strided_conv.conv(x, self.enc_kernel, self.stride,
                          self._plan["pads"])
    y = nn.relu(y + self.enc_bias)
    stats = self.enc_dense(y.reshape(y.shape[0], -1))
    return latents.split(stats, self.latent, self.categorical)

  # Probing entry points (latent traversal).
  def encode_latent(self, ctx, ctx_mask):
    return latents.evaluation_latent(self.encode(ctx, ctx_mask),
                                     self.categorical)

  def decode_latent(self, z):
    return self.decoder(z)

  def __call__(self, ctx, ctx_mask, train: bool = False) -> SolverOutput:
    post = self.encode(ctx, ctx_mask)
    z = latents.sample(self, post, self.categorical, train)
    return SolverOutput(
        pred=self.decoder(z), latent=z,
        terms=latents.kl_terms(post, self.categorical, self.categorical_kl,
                               LEVEL.gaussian_term, LEVEL.categorical_term))


def _build(model_cfg, loss_cfg, *, embed_dim, num_context, score):
  del score
  return SeqVAE(
      embed_dim=embed_dim, num_context=num_context,
      grid_shape=sentence_grid_shape(embed_dim, tuple(model_cfg.grid_shape)),
      kernel=tuple(model_cfg.conv_kernel),
      stride=tuple(model_cfg.conv_stride),
      hidden_channels=model_cfg.hidden_channels,
      latent=LEVEL.size(model_cfg), categorical=LEVEL.categorical(model_cfg),
      categorical_kl=loss_cfg.categorical_kl)


def check_plan(config, shape) -> None:
  """The kernel and stride fit `shape` (names the config keys)."""
  m = config.model
  kernel, stride = tuple(m.conv_kernel), tuple(m.conv_stride)
  keys = (f"config.model.conv_kernel={kernel}, "
          f"config.model.conv_stride={stride}")
  if len(kernel) != len(shape) or len(stride) != len(shape):
    raise ValueError(f"{keys}: need {len(shape)} sizes each")
  try:
    strided_conv.plan(shape, kernel, stride)
    # The decoder mirrors the sentence-array axes.
    strided_conv.plan(shape[1:], kernel[1:], stride[1:])
  except ValueError as e:
    raise ValueError(f"{keys} on an input of {tuple(shape)}: {e}") from None


def _check_data(config, data) -> None:
  grid = sentence_grid_shape(data.embed_dim, tuple(config.model.grid_shape))
  check_plan(config, (data.num_context, *grid))


SPEC = registry.SolverSpec(
    name="vae",
    model=DEFAULTS,
    loss=LOSS_DEFAULTS,
    build=_build,
    loss_terms=("task_kl", "task_categorical_kl"),
    term_scales=lambda config, dim: sentence_vae.kl_scales(
        config, dim, {"task_kl": "latent"}),
    active_terms=latents.active_terms([LEVEL]),
    check_data=_check_data,
    check_config=lambda config: latents.check_config(
        config, [LEVEL], DEFAULTS, LOSS_DEFAULTS),
    choices={"loss.kl_scale": sentence_vae.KL_SCALES,
             **latents.choices([LEVEL])},
    decodes_latent=True,
    # Vmapped, its 3-D convolution is a grouped convolution on a CPU: 3x
    # slower than the scanned cells (benchmarks/README.md).
    scan_on=frozenset({"cpu"}))
