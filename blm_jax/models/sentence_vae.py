"""The sentence-level VAE of 000 sec. 7 (chunk structure).

A sentence embedding is reshaped to a 2-D array (32 x 24 for D = 768), a
15x15 convolution and a dense layer give the mean and log-variance of a small
latent (5), and a decoder mirroring the encoder unpacks a latent back to an
embedding. It is an encoder-decoder, not an auto-encoder: the decoded vector
is scored against candidates, not against its input. At test time the latent
mean is decoded (deterministic evaluation). `model.latent_kind` makes the
latent categorical, or both (`latents.py`).
"""

from __future__ import annotations

import flax.linen as nn
import jax

from blm_jax.models import latents, patch_conv, registry, strided_conv
from blm_jax.models.common import sentence_grid_shape, SolverOutput

# config.model keys of the sentence VAE, shared by the two-level VAE.
DEFAULTS = {
    "grid_shape": (),  # 2-D reshape of D; () = derived (32x24 for 768)
    # 'ours': `grid_shape`, unpadded; a kernel larger than a derived array
    # shrinks to fit it, one larger than a set grid_shape is refused
    # (`sentence_kernel`). 'authors': their code's array, 32 rows of D / 32,
    # zero-padded as their convolutions pad it (`authors_array`).
    "sentence_array": "ours",
    "channels": (32,),  # output channels of the 15x15 convolution
    "kernel": 15,
    "latent": 5,
    "decoder_hidden_relu": True,  # ReLU after the decoder's dense layer
    "decoder_output_relu": False,  # ... and on its output (authors' code)
    # 'gaussian', 'categorical' or 'joint' (latents.py): `latent` Gaussian
    # units and/or `categorical_vars` variables of `categories` each.
    **latents.model_defaults(),
    **latents.SHARED_DEFAULTS,
}
SENTENCE_ARRAYS = ("ours", "authors")
AUTHORS_ROWS = 32  # their scripts' x_dim, whatever D


def authors_array(embed_dim: int, kernel: int
                  ) -> tuple[tuple[int, int], tuple[int, int]]:
  """(grid shape, pads) of their sentence array: 32 x D/32, each side of
  an axis padded by their get_padd at stride 1 (k - size when the kernel
  is larger and does not divide it): D = 768 gives 32 x 24 unpadded, ours
  too; D = 384 gives 32 x 12 padded by 3 columns on each side."""
  if embed_dim % AUTHORS_ROWS:
    raise ValueError(
        f"config.model.sentence_array='authors' reshapes D to "
        f"{AUTHORS_ROWS} rows; D={embed_dim} is not a multiple of "
        f"{AUTHORS_ROWS}")
  grid = (AUTHORS_ROWS, embed_dim // AUTHORS_ROWS)
  return grid, tuple(strided_conv.authors_padding(d, kernel, 1)
                     for d in grid)


def sentence_array(model_cfg, embed_dim: int
                   ) -> tuple[tuple[int, int], tuple[int, int]]:
  """(grid shape, pads) of `config.model`'s sentence array."""
  kind = model_cfg.sentence_array
  if kind not in SENTENCE_ARRAYS:
    raise ValueError(f"config.model.sentence_array={kind!r}; expected one "
                     f"of {SENTENCE_ARRAYS}")
  if kind == "ours":
    return sentence_grid_shape(embed_dim, tuple(model_cfg.grid_shape)), (0, 0)
  if tuple(model_cfg.grid_shape):
    raise ValueError(
        "config.model.grid_shape is set with config.model.sentence_array="
        "'authors', which fixes the array (32 x D/32): set one of them")
  return authors_array(embed_dim, model_cfg.kernel)


def kernel_fit_problem(kernel: int, grid: tuple[int, int],
                       embed_dim: int | None = None,
                       what: str = "convolution") -> str | None:
  """Why `config.model.kernel` does not fit the sentence array (None when
  it fits): the array `config.model.grid_shape` sets, or, with
  `embed_dim`, the one derived from D. Shrinking the kernel instead would
  train another model than the config names."""
  side = min(grid)
  if kernel <= side:
    return None
  where = (f"the {grid[0]} x {grid[1]} sentence array derived from D = "
           f"{embed_dim} (config.model.grid_shape unset)" if embed_dim
           else f"config.model.grid_shape={tuple(grid)}")
  return (f"config.model.kernel={kernel} does not fit {where}: a "
          f"{kernel}x{kernel} {what} needs both sides >= {kernel}; set "
          f"config.model.kernel <= {side}")


def set_grid(model_cfg) -> tuple[int, int] | None:
  """`config.model.grid_shape` when set to two sizes, else None: derived
  from D, or malformed (`sentence_grid_shape` names it once D is known)."""
  grid = tuple(model_cfg.grid_shape)
  if len(grid) == 2 and all(isinstance(d, int) and d >= 1 for d in grid):
    return grid
  return None


def kernel_problems(model_cfg) -> list[str]:
  """`check_config`'s part: the kernel against a set grid_shape, before
  any data (a derived array needs D)."""
  k, grid = model_cfg.kernel, set_grid(model_cfg)
  if k < 1:  # An integer: config_check checks the types first.
    return [f"config.model.kernel={k}: must be at least 1"]
  # The authors' array is padded to fit any kernel (and `sentence_array`
  # refuses a grid_shape set with it); a derived one needs D.
  if model_cfg.sentence_array != "ours" or grid is None:
    return []
  problem = kernel_fit_problem(k, grid)
  return [problem] if problem else []


def sentence_kernel(model_cfg, grid: tuple[int, int],
                    pads: tuple[int, int]) -> int:
  """The k of the k x k convolution on the sentence array: config.model.
  kernel, shrunk to a derived array's shorter side (D = 8: 4 x 2, k = 2);
  refused (ValueError) where a set grid_shape is too small for it. The
  authors' array is padded to fit any kernel."""
  k = model_cfg.kernel
  if model_cfg.sentence_array == "ours" and tuple(model_cfg.grid_shape):
    problem = kernel_fit_problem(k, grid)
    if problem:
      raise ValueError(problem)
  return min(k, *patch_conv.padded_shape(grid, pads))


# Its latent: size `latent`, KL terms `sentence_kl`, `sentence_categorical_kl`.
LEVEL = latents.Level("", "latent", "sentence_kl", "sentence_categorical_kl")
# Every KL weight times 'none' = 1, or 'latent_over_dim' = latent size / D
# (the authors' code: 5/768, without which, they note, nothing is learnt).
KL_SCALES = ("none", "latent_over_dim")
# Its config.loss keys: sentence_kl completes eq. (2); the categorical KL
# (latents.py) replaces or joins it under latent_kind.
LOSS_DEFAULTS = {"sentence_kl": 1.0, "sentence_categorical_kl": 1.0,
                 "kl_scale": "none", **latents.LOSS_DEFAULTS}


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
  pads: tuple[int, int] = (0, 0)  # zeros on each side (`sentence_array`)
  kernel: int = DEFAULTS["kernel"]  # at most the padded array's sides
  latent: int = DEFAULTS["latent"]
  # Decoder activations. Ours: ReLU after the dense layer, linear output.
  # The authors' Decoder_2D: linear dense layer, ReLU on the decoded output.
  decoder_hidden_relu: bool = DEFAULTS["decoder_hidden_relu"]
  decoder_output_relu: bool = DEFAULTS["decoder_output_relu"]
  categorical: latents.Categorical | None = None  # None: Gaussian only

  def setup(self):
    k = self.kernel  # `sentence_kernel`: it fits the padded array.
    oh, ow = patch_conv.output_shape(self.grid_shape, k, self.pads)
    n_pos = oh * ow
    init = nn.initializers.lecun_normal()
    self.enc_kernel = self.param("enc_kernel", init, (k * k, self.channels))
    self.enc_bias = self.param("enc_bias", nn.initializers.zeros,
                               (self.channels,))
    self.enc_dense = nn.Dense(latents.stats_size(self.latent,
                                                 self.categorical))
    self.dec_dense = nn.Dense(n_pos * self.channels)
    self.dec_kernel = self.param("dec_kernel", init, (self.channels, k * k))
    self.dec_bias = self.param("dec_bias", nn.initializers.zeros, (1,))

  def encode(self, x: jax.Array) -> latents.Posterior:
    """[..., D] -> the latent's posterior (mean, logvar [..., latent])."""
    y = patch_conv.conv_valid(x, self.enc_kernel, self.grid_shape,
                              self.pads)
    y = nn.relu(y + self.enc_bias)  # [..., P, C]
    stats = self.enc_dense(y.reshape(*y.shape[:-2], -1))
    return latents.split(stats, self.latent, self.categorical)

  def decode(self, z: jax.Array) -> jax.Array:
    """[..., latent] -> [..., D]."""
    y = self.dec_dense(z)
    if self.decoder_hidden_relu:
      y = nn.relu(y)
    y = y.reshape(*z.shape[:-1], -1, self.channels)  # [..., P, C]
    out = patch_conv.conv_transpose_valid(y, self.dec_kernel,
                                          self.grid_shape, self.pads)
    out = out + self.dec_bias
    return nn.relu(out) if self.decoder_output_relu else out

  def __call__(self, x: jax.Array, train: bool = False):
    """Returns (decoded, posterior, z) for embeddings x [..., D]."""
    post = self.encode(x)
    z = latents.sample(self, post, self.categorical, train)
    return self.decode(z), post, z


class SentenceVAESolver(nn.Module):
  """The sentence VAE as a solver: context = the one input sentence.

  With `loss.answer_reduction='mean'` the answer loss is maxM of eq. (3);
  the `sentence_kl` term completes eq. (2).
  """

  sentence: SentenceVAE
  categorical_kl: str = latents.LOSS_DEFAULTS["categorical_kl"]

  def __call__(self, ctx, ctx_mask, train: bool = False) -> SolverOutput:
    del ctx_mask
    decoded, post, z = self.sentence(ctx[:, 0], train)
    return SolverOutput(
        pred=decoded, latent=z,
        terms=latents.kl_terms(post, self.sentence.categorical,
                               self.categorical_kl, LEVEL.gaussian_term,
                               LEVEL.categorical_term))

  # Probing entry points (`model.apply(params, ..., method=...)`): the latent
  # the solver decodes at test time, and the decoder from any latent
  # (latent traversal, 000 sec. 7).
  def encode_latent(self, ctx, ctx_mask):
    """[B, 1, D] -> [B, latent]: the latent mean (what evaluation decodes)."""
    del ctx_mask
    return latents.evaluation_latent(self.sentence.encode(ctx[:, 0]),
                                     self.sentence.categorical)

  def decode_latent(self, z):
    """[B, latent] -> [B, D]: the answer embedding decoded from `z`."""
    return self.sentence.decode(z)


def build_sentence(model_cfg, embed_dim: int) -> SentenceVAE:
  """The sentence VAE of a VAE solver's `config.model`."""
  grid, pads = sentence_array(model_cfg, embed_dim)
  return SentenceVAE(
      embed_dim=embed_dim,
      grid_shape=grid,
      pads=pads,
      channels=model_cfg.channels[0] if model_cfg.channels else 1,
      kernel=sentence_kernel(model_cfg, grid, pads),
      latent=LEVEL.size(model_cfg),
      decoder_hidden_relu=model_cfg.decoder_hidden_relu,
      decoder_output_relu=model_cfg.decoder_output_relu,
      categorical=LEVEL.categorical(model_cfg))


def kl_scales(config, embed_dim: int, sizes: dict) -> dict:
  """{KL term: factor}: latent size / D per Gaussian KL term under
  'latent_over_dim' (a categorical KL is not scaled, as in their code).

  `sizes` maps each Gaussian KL term to the config.model key of its size.
  """
  kind = config.loss.kl_scale
  if kind not in KL_SCALES:
    raise ValueError(f"config.loss.kl_scale={kind!r}; expected one of "
                     f"{KL_SCALES}")
  if kind == "none":
    return {}
  return {term: config.model[key] / embed_dim for term, key in sizes.items()}


def check_grid_shape(config, data) -> None:
  """The sentence reshape fits the data's D (names config.model.grid_shape
  or config.model.sentence_array)."""
  sentence_array(config.model, data.embed_dim)


def _build(model_cfg, loss_cfg, *, embed_dim, num_context, score):
  del num_context, score
  return SentenceVAESolver(sentence=build_sentence(model_cfg, embed_dim),
                           categorical_kl=loss_cfg.categorical_kl)


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
    loss=LOSS_DEFAULTS,
    build=_build,
    loss_terms=("sentence_kl", "sentence_categorical_kl"),
    term_scales=lambda config, dim: kl_scales(config, dim,
                                              {"sentence_kl": "latent"}),
    active_terms=latents.active_terms([LEVEL]),
    check_data=_check_data,
    check_config=lambda config: latents.check_config(
        config, [LEVEL], DEFAULTS, LOSS_DEFAULTS)
    + kernel_problems(config.model),
    choices={"loss.kl_scale": KL_SCALES,
             "model.sentence_array": SENTENCE_ARRAYS,
             **latents.choices([LEVEL])},
    decodes_latent=True,
    # Its input is one sentence: probing counts input x chosen patterns.
    confusion="pattern",
    scan_on=frozenset({"cpu"}))
