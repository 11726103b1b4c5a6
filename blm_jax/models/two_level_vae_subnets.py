"""The authors' `two_level_vae_subnets` (VariationalAutoencoder_2level_subnets
in their vaes/VAE.py): the two-level VAE whose sentence encoder is sparsified
so that each reading of a region of the embedding (one convolution window,
one channel) feeds one latent unit.

Nastase and Merlo (RepL4NLP 2024, "Tracking linguistic information in
transformer-based sentence embeddings through targeted sparsification";
cited by 000 and 002) use it to ask where in the embedding a property lives.
Written from their code (Encoder_2D_subnets, Decoder_2D_subnets,
utils/mask_weights.py MaskedLinear / RevMaskedLinear / Mask); the paper
itself is not among ours.

Sentence level: the h x w sentence array -> a k x k convolution with stride
k (40 channels, ReLU; padded as their code pads it, `strided_conv`) -> N =
windows x channels outputs, each the reading of one region (window) of the
array. A masked dense layer maps them to the latent means: input i reaches
unit u through w[i, u] * s[i, u] * softmax(m[i] / T)[u], and at their
temperature T = 1e-6 the softmax is one-hot, so each (window, channel)
output feeds exactly one unit. The log-variances come from an unmasked
dense layer. The decoder mirrors it: a masked dense layer whose every
output is fed by one latent unit (no bias), ReLU, the transposed strided
convolution. Task level: vae2's 'conv' level (4x4 convolution, 32
channels) and an answer decoder of 15x15 stride 1 (40 channels, ReLU
output).

Where their code and its purpose differ, and which we follow (docs/
docs/explanation/solvers.md has the table):
- Their masked layers copy the masked weights into a tensor's `.data`, so
  no gradient reaches the weights, scales or mask logits: the sparse
  connections and their weights stay as initialised (only the encoder
  layer's bias trains). Ours train them (`model.masked_weights_train`;
  False gives theirs), though at T = 1e-6 the one-hot softmax passes the
  logits no gradient: which output feeds which unit stays as drawn.
- Their encoder concatenates [masked outputs, unmasked outputs] and their
  sampler reads the result as interleaved (mean, log-variance) pairs, so
  latent means 0-2 are masked outputs 0, 2, 4 and means 3-4 come from the
  unmasked layer. Ours (`model.latent_layout='split'`): the masked layer
  gives every mean, the unmasked one every log-variance, so each latent
  mean is fed by its own regions; 'interleaved' is theirs.
- Schedule: their Mask has `prune` (mask logits <- min(T * m, 0)) and
  `update_temperature`, but their training code calls neither, and
  `update_temperature` resets T to its start value (their comment: a
  decreasing temperature "doesn't improve learning"). So T stays 1e-6 for
  the whole run and nothing is pruned; we do the same
  (`model.mask_temperature`, constant). Their `prune` would set every
  logit, which starts in [0, 1), to 0: uniform masks, every region feeding
  every unit, the opposite of sparsification; it is left out.
- Their mask logits start uniform in [0, 1), which can leave a unit fed by
  no region when the region outputs are few; ours start in [0, 1) too but
  with a random balanced assignment (`balanced_logits`), so every unit is
  fed whenever there are at least as many outputs as units (checked).
- As in their other VAEs we decode the latent means at test time.
"""

from __future__ import annotations

import math

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np

from blm_jax.models import (latents, registry, sentence_vae, strided_conv,
                            two_level_vae, two_level_vae_1d)
from blm_jax.models.common import sentence_grid_shape

LATENT_LAYOUTS = ("split", "interleaved")
# A region output "feeds" a unit when the unit gets at least this share of
# its mask; a temperature at which no share can reach it leaves no unit fed.
FED_SHARE = 0.5

DEFAULTS = {
    "grid_shape": (),  # 2-D reshape of D; () = derived (32x24 for 768)
    "hidden_channels": 40,  # sentence convolution (theirs: 40)
    "kernel": 15,  # sentence convolution and answer decoder, k x k (the
    # unpadded answer decoder needs k <= both sides of the array)
    "stride": 15,  # sentence convolution: one window per region
    "latent": 5,  # sentence latent = masked units
    "task_latent": 5,
    "task_channels": 32,  # the 4x4 task encoder
    "task_kernel": 4,
    "answer_channels": 40,  # the answer decoder (their hidden_channels_sent)
    "mask_temperature": 1e-6,  # T of softmax(m / T), constant (their code)
    "masked_weights_train": True,  # False: frozen at init, as in their code
    "latent_layout": "split",  # LATENT_LAYOUTS; 'interleaved' = their code
}
# vae2's loss keys with their code's settings (as vae_1d_2level).
LOSS_DEFAULTS = {k: v for k, v in two_level_vae_1d.LOSS_DEFAULTS.items()
                 if "categorical" not in k}


def max_share(temperature: float, units: int) -> float:
  """The largest mask share one unit can get at initialisation, when the
  mask logits lie in [0, 1): softmax of (1, 0, ..., 0) / T."""
  if units <= 1:
    return 1.0
  return 1.0 / (1.0 + (units - 1) * math.exp(-1.0 / temperature))


def highest_temperature(units: int) -> float:
  """The temperature above which no unit can get `FED_SHARE` of a region."""
  if units <= 2:
    return math.inf
  return 1.0 / math.log((units - 1) * FED_SHARE / (1 - FED_SHARE))


def balanced_logits(key, shape, dtype=jnp.float32) -> jax.Array:
  """Mask logits [N, U] in [0, 1) whose argmax gives every unit N // U or
  N // U + 1 region outputs, drawn at random: (uniform + one-hot of a
  random balanced assignment) / 2. Their uniform logits can leave a unit
  with no region when N is small (6 outputs, 5 units: most draws)."""
  n, u = shape
  k_noise, k_assign = jax.random.split(key)
  noise = jax.random.uniform(k_noise, shape, dtype)
  assign = jax.random.permutation(k_assign, jnp.arange(n) % u)
  return (noise + jax.nn.one_hot(assign, u, dtype=dtype)) / 2


class SubnetDense(nn.Module):
  """A dense layer between N region outputs and U units whose every region
  output is connected to the units through a softmax mask (their
  MaskedLinear with Mask; RevMaskedLinear with RevMask when `to_regions`).

  Parameters, all [N, U]: `kernel` (w), `scale` (s, their Mask.weight,
  sqrt(U)), `logits` (m, their mask_weight, in [0, 1): `balanced_logits`).
  `to_regions=False`: [..., N] -> [..., U] plus a bias; True: [..., U] ->
  [..., N], no bias (their RevMaskedLinear drops it).
  """

  units: int
  temperature: float = DEFAULTS["mask_temperature"]
  trainable: bool = True
  to_regions: bool = False

  def mask(self) -> jax.Array:
    """[N, U]: each region output's share of each unit."""
    return jax.nn.softmax(self.get_variable("params", "logits")
                          / self.temperature, axis=-1)

  @nn.compact
  def __call__(self, x: jax.Array, regions: int | None = None) -> jax.Array:
    u = self.units
    n = regions if self.to_regions else x.shape[-1]
    fan_in = (-1, -2) if self.to_regions else (-2, -1)
    init = nn.initializers.variance_scaling(1.0, "fan_in", "truncated_normal",
                                            in_axis=fan_in[0],
                                            out_axis=fan_in[1])
    kernel = self.param("kernel", init, (n, u))
    scale = self.param("scale", nn.initializers.constant(math.sqrt(u)),
                       (n, u))
    logits = self.param("logits", balanced_logits, (n, u))
    eff = kernel * scale * jax.nn.softmax(logits / self.temperature, axis=-1)
    if not self.trainable:
      eff = jax.lax.stop_gradient(eff)
    if self.to_regions:
      return x @ eff.T
    bias = self.param("bias", nn.initializers.zeros, (u,))
    return x @ eff + bias


class SubnetSentenceVAE(nn.Module):
  """[..., D] -> (decoded [..., D], posterior, z): the interface of
  `sentence_vae.SentenceVAE`, with the sparsified layers."""

  embed_dim: int
  grid_shape: tuple[int, int]
  channels: int = DEFAULTS["hidden_channels"]
  kernel: int = DEFAULTS["kernel"]
  stride: int = DEFAULTS["stride"]
  latent: int = DEFAULTS["latent"]
  temperature: float = DEFAULTS["mask_temperature"]
  masked_weights_train: bool = DEFAULTS["masked_weights_train"]
  latent_layout: str = DEFAULTS["latent_layout"]
  categorical = None  # Gaussian only (the interface of a sentence VAE)

  def setup(self):
    k, s = (self.kernel,) * 2, (self.stride,) * 2
    self.plan = strided_conv.plan(self.grid_shape, k, s)
    init = nn.initializers.lecun_normal()
    self.enc_kernel = self.param("enc_kernel", init, (*k, 1, self.channels))
    self.enc_bias = self.param("enc_bias", nn.initializers.zeros,
                               (self.channels,))
    self.enc_masked = SubnetDense(self.latent, self.temperature,
                                  self.masked_weights_train)
    self.enc_logvar = nn.Dense(self.latent)
    self.dec_masked = SubnetDense(self.latent, self.temperature,
                                  self.masked_weights_train, to_regions=True)
    self.dec_kernel = self.param("dec_kernel", init, (*k, self.channels, 1))
    self.dec_bias = self.param("dec_bias", nn.initializers.zeros, (1,))

  @property
  def regions(self) -> int:
    """Inputs of the masked layer: windows x channels."""
    return self.plan["size"] * self.channels

  def conv_features(self, x: jax.Array) -> jax.Array:
    """[..., D] -> [..., N]: ReLU of the strided convolution, flattened
    (window row, window column, channel)."""
    lead = x.shape[:-1]
    img = x.reshape(-1, *self.grid_shape, 1)
    y = strided_conv.conv(img, self.enc_kernel, (self.stride,) * 2,
                          self.plan["pads"]) + self.enc_bias
    return nn.relu(y).reshape(*lead, -1)

  def encode(self, x: jax.Array) -> latents.Posterior:
    """[..., D] -> the posterior (mean, logvar [..., latent])."""
    h = self.conv_features(x)
    masked, other = self.enc_masked(h), self.enc_logvar(h)
    if self.latent_layout == "split":
      return latents.gaussian(masked, other)
    pairs = jnp.concatenate([masked, other], axis=-1)
    return latents.gaussian(pairs[..., 0::2], pairs[..., 1::2])

  def decode(self, z: jax.Array) -> jax.Array:
    """[..., latent] -> [..., D]."""
    lead = z.shape[:-1]
    y = nn.relu(self.dec_masked(z, self.regions))
    y = y.reshape(-1, *self.plan["windows"], self.channels)
    out = strided_conv.conv_transpose(y, self.dec_kernel, (self.stride,) * 2,
                                      self.plan["pads"],
                                      self.plan["out_pads"]) + self.dec_bias
    return out.reshape(*lead, -1)

  def __call__(self, x: jax.Array, train: bool = False):
    post = self.encode(x)
    z = latents.sample(self, post, None, train)
    return self.decode(z), post, z

  def region_masks(self) -> dict:
    """The encoder's masks and effective weights, each [windows_h,
    windows_w, channels, K], for the K latent means the masked layer gives
    (probing's region map); `units` [K]: which means they are (all under
    'split'; under 'interleaved' the masked outputs 0, 2, 4, ... are means
    0, 1, 2, ...)."""
    m = self.enc_masked
    mask = m.mask()
    p = m.variables["params"]
    weight = p["kernel"] * p["scale"] * mask
    cols = units = np.arange(self.latent)
    if self.latent_layout == "interleaved":
      cols = cols[0::2]
      units = cols // 2
    shape = (*self.plan["windows"], self.channels, len(cols))
    return {"mask": mask[:, cols].reshape(shape),
            "weight": weight[:, cols].reshape(shape),
            "units": jnp.asarray(units)}


class TwoLevelVAESubnets(two_level_vae.TwoLevelVAE):
  """vae2's two levels with the sparsified sentence VAE; the task level is
  'conv' and the answer decoder has its own channel count."""

  answer_channels: int = DEFAULTS["answer_channels"]

  def setup(self):
    if self.task_level != "conv":
      raise ValueError("two_level_vae_subnets' task level is 'conv'")
    self.task_enc = two_level_vae.ConvTaskEncoder(
        self.task_latent, self.task_channels, self.task_kernel)
    s = self.sentence
    # Their Decoder_2D with stride 1 is vae2's 'VALID' transposed
    # convolution (no padding while the kernel fits the array), whose
    # banded matmuls train 2x faster here than lax's convolution
    # (benchmarks/README.md); its kernel's fan-in is channels x k x k, as
    # for the sentence decoder's.
    self.task_dec = two_level_vae.ConvAnswerDecoder(
        s.embed_dim, s.grid_shape, self.answer_channels, s.kernel,
        hidden_relu=False, output_relu=True,
        kernel_init=nn.initializers.variance_scaling(
            1.0, "fan_in", "truncated_normal", in_axis=(-2, -1),
            out_axis=()))

  def region_masks(self) -> dict:
    """Probing entry point: `sentence.region_masks()`."""
    return self.sentence.region_masks()

  def region_spans(self) -> list[dict]:
    """The regions of `region_masks`, in its order (needs no parameters)."""
    s = self.sentence
    return region_spans(s.grid_shape, s.kernel, s.stride)


def region_spans(grid_shape, kernel: int, stride: int) -> list[dict]:
  """Each window's rows and columns of the h x w sentence array (padding
  cut off; embedding dimension = row x w + column) and how many
  dimensions it holds."""
  p = strided_conv.plan(grid_shape, (kernel,) * 2, (stride,) * 2)
  h, w = grid_shape
  spans = []
  for i in range(p["windows"][0]):
    for j in range(p["windows"][1]):
      r0 = max(0, i * stride - p["pads"][0])
      r1 = min(h, i * stride - p["pads"][0] + kernel)
      c0 = max(0, j * stride - p["pads"][1])
      c1 = min(w, j * stride - p["pads"][1] + kernel)
      spans.append({"window": [i, j], "rows": [r0, r1], "cols": [c0, c1],
                    "dims": (r1 - r0) * (c1 - c0)})
  return spans


def answer_kernel_problem(model_cfg, embed_dim: int) -> str | None:
  """Why `config.model.kernel` does not fit the answer decoder (None when
  it fits). The sentence convolution pads a larger kernel (their code); the
  'VALID' answer decoder would have to shrink it."""
  grid = sentence_grid_shape(embed_dim, tuple(model_cfg.grid_shape))
  return sentence_vae.kernel_fit_problem(
      model_cfg.kernel, grid,
      None if tuple(model_cfg.grid_shape) else embed_dim,
      "transposed convolution (the answer decoder)")


def _sentence(model_cfg, embed_dim: int) -> SubnetSentenceVAE:
  return SubnetSentenceVAE(
      embed_dim=embed_dim,
      grid_shape=sentence_grid_shape(embed_dim, tuple(model_cfg.grid_shape)),
      channels=model_cfg.hidden_channels, kernel=model_cfg.kernel,
      stride=model_cfg.stride, latent=model_cfg.latent,
      temperature=model_cfg.mask_temperature,
      masked_weights_train=model_cfg.masked_weights_train,
      latent_layout=model_cfg.latent_layout)


def _build(model_cfg, loss_cfg, *, embed_dim, num_context, score):
  problem = answer_kernel_problem(model_cfg, embed_dim)
  if problem:
    raise ValueError(problem)
  return TwoLevelVAESubnets(
      sentence=_sentence(model_cfg, embed_dim),
      num_context=num_context,
      task_latent=model_cfg.task_latent,
      task_level="conv",
      task_channels=model_cfg.task_channels,
      task_kernel=model_cfg.task_kernel,
      sentence_score=loss_cfg.sentence_score or score,
      sentence_reduction=loss_cfg.sentence_reduction,
      answer_channels=model_cfg.answer_channels)


def _check_config(config) -> list[str]:
  """Sizes at least 1, the kernel fitting a set grid_shape, and a mask
  schedule that leaves every latent unit fed by some region."""
  m = config.model
  out = []
  for key in ("hidden_channels", "kernel", "stride", "latent"):
    if int(m[key]) < 1:
      out.append(f"config.model.{key}={m[key]} must be at least 1")
  grid = sentence_vae.set_grid(m)
  if m.kernel >= 1 and grid:  # A derived array needs D (`_check_data`).
    problem = answer_kernel_problem(m, grid[0] * grid[1])
    out.extend([problem] if problem else [])
  if m.latent >= 1:
    problem = two_level_vae.task_kernel_problem(int(m.task_kernel),
                                                int(m.latent))
    out.extend([problem] if problem else [])
  t = float(m.mask_temperature)
  if not t > 0:
    out.append(f"config.model.mask_temperature={m.mask_temperature} must be "
               "> 0 (the masks are softmax(mask logits / temperature))")
  elif m.latent >= 1 and max_share(t, m.latent) < FED_SHARE:
    out.append(
        f"config.model.mask_temperature={m.mask_temperature} leaves no "
        f"latent unit fed: with {m.latent} units a region gives at most "
        f"{max_share(t, m.latent):.2f} of its mask to one unit (logits "
        f"start in [0, 1)), so every region feeds every unit about "
        f"equally; use at most {highest_temperature(m.latent):.3g} (their "
        "code: 1e-6)")
  return out


def _check_data(config, data) -> None:
  m = config.model
  grid = sentence_grid_shape(data.embed_dim, tuple(m.grid_shape))
  try:
    p = strided_conv.plan(grid, (m.kernel,) * 2, (m.stride,) * 2)
  except ValueError as e:
    raise ValueError(f"config.model.kernel={m.kernel}, config.model.stride="
                     f"{m.stride} on the sentence array {grid}: {e}") from None
  problem = answer_kernel_problem(m, data.embed_dim)
  if problem:
    raise ValueError(problem)
  inputs = p["size"] * m.hidden_channels
  if inputs < m.latent:
    raise ValueError(
        f"config.model.latent={m.latent} masked units but the sentence "
        f"encoder has only {inputs} region outputs ({p['size']} windows x "
        f"config.model.hidden_channels={m.hidden_channels}): some unit "
        "would be fed by no region")
  two_level_vae.check_context(config, data)
  two_level_vae.check_task_kernel(int(m.task_kernel), int(m.latent),
                                  data.num_context)


SPEC = registry.SolverSpec(
    name="two_level_vae_subnets",
    model=DEFAULTS,
    loss=LOSS_DEFAULTS,
    build=_build,
    loss_terms=("task_kl", "sentence_margin", "sentence_kl"),
    term_scales=two_level_vae.SPEC.term_scales,  # the same two KL terms
    check_data=_check_data,
    check_config=_check_config,
    choices={"model.latent_layout": LATENT_LAYOUTS,
             **{k: v for k, v in two_level_vae.SPEC.choices.items()
                if k.startswith("loss.") and k in
                {f"loss.{x}" for x in LOSS_DEFAULTS}}},
    decodes_latent=True,
    sentence_latents=True,
    region_map=True,
    scan_on=frozenset({"cpu"}))
