"""Tiny torch re-implementations of the authors' modules, for parity tests.

Written from the design of CLCL-Geneva/BLM-SNFDisentangling (baselines/,
vaes/, utils/losses.py), not copied: the same layers, shapes, activations
and losses, so that with the same weights our Flax solvers must compute
the same numbers. torch (CPU) is a test-time dependency only; tests
importing this module skip without it.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import torch
from torch import nn

from blm_jax import models
from blm_jax.training import trainer
from blm_jax.training.solver import Batch, Solver


class CNNSeq(nn.Module):
  """BaselineCNN_1DxSeq: [B, C, D] -> 3 x (3x3 conv + ReLU) -> dense + ReLU."""

  def __init__(self, embed_dim: int, seq: int, channels=(4, 8, 16)):
    super().__init__()
    chans = (1, *channels)
    self.convs = nn.ModuleList(
        nn.Conv2d(chans[i], chans[i + 1], (3, 3)) for i in range(3))
    rows, cols = seq - 6, embed_dim - 6
    self.fc = nn.Linear(rows * cols * channels[-1], embed_dim)

  def forward(self, x):
    b, c, d = x.shape
    x = x.view(b, 1, c, d)
    for conv in self.convs:
      x = torch.relu(conv(x))
    return torch.relu(self.fc(x.reshape(b, -1)))


def answer_margin(pred, answers, correct):
  """Their answer loss: MarginRankingLoss(margin=1) of the correct
  candidate's dot score against each wrong one's, averaged over the batch,
  then over the wrong candidates."""
  scores = torch.einsum("bad,bd->ba", answers, pred)
  b, a = scores.shape
  pos = scores[torch.arange(b), correct]
  total = 0.0
  for j in range(a):
    wrong = correct != j
    hinge = torch.clamp(1 - pos + scores[:, j], min=0)
    total = total + torch.sum(torch.where(wrong, hinge, 0.0))
  return total / b / (a - 1)


def kl(mean, logvar):
  """Their KL: summed over the latent, averaged over the batch."""
  return torch.mean(-0.5 * torch.sum(1 + logvar - mean**2 - logvar.exp(), 1))


def their_discrete_kl(tm, s_logits, t_logits):
  """Their utils/losses.py counts one discrete KL: the sentence level's if
  its sampler is joint, else the task level's."""
  if tm.sent.n:
    return discrete_kl(s_logits, tm.sent.n, tm.sent.k)
  if tm.task.n:
    return discrete_kl(t_logits, tm.task.n, tm.task.k)
  return 0.0


def two_level_loss(tm, outputs, x, ans, correct):
  """Their two-level objective for one batch: the answer margin, the
  sentence margin, each Gaussian KL term times latent / D and, with the
  logits in `outputs` (a `TwoLevel` forward given noise), their discrete
  KL."""
  pred, t_mean, t_logvar, recon, mean, logvar = outputs[:6]
  total = answer_margin(pred, ans, correct) + sentence_margin(recon, x)
  for m, lv in ((t_mean, t_logvar), (mean, logvar)):
    if m is not None:
      total = total + kl(m, lv) * m.shape[-1] / x.shape[-1]
  if len(outputs) > 6:
    total = total + their_discrete_kl(tm, *outputs[6:])
  return total


def to_np(t) -> np.ndarray:
  return t.detach().numpy()


def padding(dim: int, k: int, s: int) -> int:
  """How their code pads a convolution (utils/misc.py get_padd)."""
  if dim % k == 0:
    return 0
  if s == 1:
    return max(0, k - dim)
  return k - (dim - s * (dim // s))


def sizes(dims, ks, ss):
  """(padding, windows, output padding) per axis, their formulas."""
  pads = [padding(d, k, s) for d, k, s in zip(dims, ks, ss)]
  n = [(d + 2 * p - k) // s + 1 for d, k, s, p in zip(dims, ks, ss, pads)]
  ops = [d - (m - 1) * s + 2 * p - k
         for d, m, k, s, p in zip(dims, n, ks, ss, pads)]
  return pads, n, ops


class StridedDecoder2D(nn.Module):
  """Decoder_2D / the image part of Decoder_answer_3D: dense, view
  (channels, nx, ny), padded strided ConvTranspose2d to x_dim x y_dim."""

  def __init__(self, latent, image, kernel, stride, ch, hidden_relu,
               output_relu):
    super().__init__()
    pads, n, ops = sizes(image, kernel, stride)
    self.n, self.ch = n, ch
    self.hidden_relu, self.output_relu = hidden_relu, output_relu
    self.lin = nn.Linear(latent, n[0] * n[1] * ch)
    self.convT = nn.ConvTranspose2d(ch, 1, tuple(kernel), tuple(stride),
                                    padding=tuple(pads),
                                    output_padding=tuple(ops))

  def forward(self, z):
    y = self.lin(z)
    if self.hidden_relu:
      y = torch.relu(y)
    out = self.convT(y.view(z.shape[0], self.ch, *self.n))
    out = torch.relu(out) if self.output_relu else out
    return out.reshape(z.shape[0], -1)


class JointSampler:
  """Their JointSampling (vaes/sampling.py) with the noise given: the
  encoder's vector is [categorical logits n x k, then (mean, logvar)
  interleaved]; each categorical variable's sample is their
  F.gumbel_softmax(softmax(logits), tau, hard=False), i.e.
  softmax((softmax(logits) + g) / tau); the Gaussian part is reparameterised
  (`eps`) or its mean (`eps` None: their eval mode); the sample is the
  categorical part flattened, then the Gaussian part. Returns (z, mean,
  logvar, logits [B, n * k])."""

  def __init__(self, cont, n=0, k=3, tau=0.5):
    self.cont, self.n, self.k, self.tau = cont, n, k, tau

  @property
  def width(self):
    return self.n * self.k + self.cont

  @property
  def stats(self):
    return self.n * self.k + 2 * self.cont

  def __call__(self, vec, gumbel=None, eps=None):
    b, nk = vec.shape[0], self.n * self.k
    logits = vec[:, :nk]
    parts = []
    if self.n:
      x = torch.softmax(logits.view(b, self.n, self.k), dim=-1)
      parts.append(torch.softmax((x + gumbel) / self.tau, -1).view(b, -1))
    mean = logvar = None
    if self.cont:
      mean, logvar = vec[:, nk:].reshape(-1, self.cont, 2).unbind(-1)
      parts.append(mean if eps is None
                   else mean + torch.exp(0.5 * logvar) * eps)
    return torch.cat(parts, 1), mean, logvar, logits

  def columns(self) -> np.ndarray:
    """Their encoder outputs in our order (logits, means, log-variances)."""
    nk = self.n * self.k
    return np.concatenate([np.arange(nk),
                           nk + interleaved_columns(self.cont)])


def discrete_kl(logits, n, k):
  """Their discrete_latent_loss_logit: q = softmax over the categories,
  q log(q + 1e-12) summed over the variables (dim 1), averaged over the
  rest, exponentiated."""
  q = torch.softmax(logits.reshape(-1, n, k), dim=2)
  return torch.exp(torch.mean(torch.sum(q * torch.log(q + 1e-12), dim=1)))


class SeqVAE(nn.Module):
  """Their one-level VAE: Encoder_3D (Conv3d + ReLU + dense to the
  sampler's vector), the sampler (simple, or `JointSampler` with n
  categorical variables), Decoder_answer_3D (dense + ReLU, ConvTranspose
  over the sentence array, no output activation). The decoder's sentence
  axis has size 1 and kernel 1, so it is 2-D here."""

  def __init__(self, dim, seq, x_dim, latent=5, ch=32, kernel=(3, 15, 15),
               stride=(1, 15, 15), n=0, k=3, tau=0.5):
    super().__init__()
    image = (x_dim, dim // x_dim)
    pads, windows, _ = sizes((seq, *image), kernel, stride)
    self.shape, self.latent = (seq, *image), latent
    self.sampler = JointSampler(latent, n, k, tau)
    self.conv = nn.Conv3d(1, ch, tuple(kernel), tuple(stride),
                          padding=tuple(pads))
    self.lin = nn.Linear(int(np.prod(windows)) * ch, self.sampler.stats)
    self.decoder = StridedDecoder2D(self.sampler.width, image, kernel[1:],
                                    stride[1:], ch, hidden_relu=True,
                                    output_relu=False)

  def forward(self, x, eps=None, gumbel=None):
    """(answer, mean, logvar, logits)."""
    b = x.shape[0]
    h = torch.relu(self.conv(x.view(b, 1, *self.shape))).reshape(b, -1)
    z, mean, logvar, logits = self.sampler(self.lin(h), gumbel, eps)
    return self.decoder(z), mean, logvar, logits


def interleaved_columns(latent: int) -> np.ndarray:
  """Their (mean_0, logvar_0, mean_1, ...) outputs in our order (means,
  then log-variances)."""
  return np.concatenate([np.arange(0, 2 * latent, 2),
                         np.arange(1, 2 * latent, 2)])


def dense_from_channels_first(lin, ch: int, windows, order_out=None) -> dict:
  """A torch Linear reading a (channel, *windows) flattening, as our Dense
  reading (*windows, channel); `order_out` permutes its outputs."""
  w = to_np(lin.weight)  # [out, ch * prod(windows)]
  nd = len(windows)
  w = w.reshape(w.shape[0], ch, *windows)
  w = w.transpose(*range(2, 2 + nd), 1, 0).reshape(-1, w.shape[0])
  b = to_np(lin.bias)
  if order_out is not None:
    w, b = w[:, order_out], b[order_out]
  return {"kernel": w, "bias": b}


def decoder_params(dec: StridedDecoder2D) -> dict:
  """Our StridedDecoder's parameters from theirs: the dense outputs in
  (nx, ny, channel) order, the kernel [kx, ky, ch, 1]."""
  w, b = to_np(dec.lin.weight), to_np(dec.lin.bias)  # [ch*nx*ny, L]
  nx, ny = dec.n
  w = w.reshape(dec.ch, nx, ny, -1).transpose(3, 1, 2, 0).reshape(
      w.shape[1], -1)
  b = b.reshape(dec.ch, nx, ny).transpose(1, 2, 0).reshape(-1)
  return {"dense": {"kernel": w, "bias": b},
          "kernel": to_np(dec.convT.weight).transpose(2, 3, 0, 1),
          "bias": to_np(dec.convT.bias)}


class Sentence1D(nn.Module):
  """Their Encoder_1D_sent / Decoder_1D_sent (D -> D/2 -> the sampler's
  vector, ReLU between; latent -> D/2 -> D, linear), with the sampler."""

  def __init__(self, dim, latent=5, n=0, k=3, tau=0.5):
    super().__init__()
    self.sampler = JointSampler(latent, n, k, tau)
    self.e1 = nn.Linear(dim, dim // 2)
    self.e2 = nn.Linear(dim // 2, self.sampler.stats)
    self.d1 = nn.Linear(self.sampler.width, dim // 2)
    self.d2 = nn.Linear(dim // 2, dim)

  def encode(self, x):
    return self.e2(torch.relu(self.e1(x)))

  def decode(self, z):
    return self.d2(self.d1(z))


class Sentence2D(nn.Module):
  """Their Encoder_2D / Decoder_2D at stride 1 (k x k convolution + ReLU +
  dense to the sampler's vector; dense, transposed convolution, ReLU
  output), with the sampler: the sentence level of
  VariationalAutoencoder_2level and, alone, their sentence_representations
  VariationalAutoencoder. `forward` [N, D] -> (decoded, mean, logvar,
  logits), decoding the means unless given the noise."""

  def __init__(self, dim, x_dim, latent=5, ch=32, k=15, n=0, cat_k=3,
               tau=0.5):
    super().__init__()
    self.image = (x_dim, dim // x_dim)
    pads, self.windows, _ = sizes(self.image, (k, k), (1, 1))
    self.sampler = JointSampler(latent, n, cat_k, tau)
    self.conv = nn.Conv2d(1, ch, (k, k), padding=tuple(pads))
    self.lin = nn.Linear(int(np.prod(self.windows)) * ch, self.sampler.stats)
    self.decoder = StridedDecoder2D(self.sampler.width, self.image, (k, k),
                                    (1, 1), ch, hidden_relu=False,
                                    output_relu=True)

  def encode(self, x):
    h = torch.relu(self.conv(x.view(x.shape[0], 1, *self.image)))
    return self.lin(h.reshape(x.shape[0], -1))

  def decode(self, z):
    return self.decoder(z)

  def forward(self, x, gumbel=None, eps=None):
    z, mean, logvar, logits = self.sampler(self.encode(x), gumbel, eps)
    return self.decode(z), mean, logvar, logits


class TwoLevel(nn.Module):
  """Their two-level VAEs around a sentence VAE (`Sentence1D`,
  `Sentence2D`): a 4x4 Encoder_2D over the [C, width] sentence latents,
  Decoder_2D (dense, strided ConvTranspose2d, ReLU output) for the answer.
  `task` is (n, k) of the task `JointSampler`'s categorical part ((0, 3):
  Gaussian only). `forward` decodes the means unless it is given the noise
  (their samplers' training path): {'sent_gumbel' [B*C, n, k], 'sent_eps'
  [B*C, latent], 'task_gumbel', 'task_eps'}."""

  def __init__(self, sentence, dim, seq, x_dim, task_latent=5, ch=32,
               task_k=4, ans_k=15, ans_s=15, task=(0, 3), tau=0.5):
    super().__init__()
    self.sentence, self.sent = sentence, sentence.sampler
    self.task = JointSampler(task_latent, *task, tau)
    self.task_latent, self.seq = task_latent, seq
    width = self.sent.width
    pads, n, _ = sizes((seq, width), (task_k, task_k), (1, 1))
    self.task_windows = n
    self.seq_conv = nn.Conv2d(1, ch, (task_k, task_k), padding=tuple(pads))
    self.seq_lin = nn.Linear(n[0] * n[1] * ch, self.task.stats)
    self.answer = StridedDecoder2D(self.task.width, (x_dim, dim // x_dim),
                                   (ans_k, ans_k), (ans_s, ans_s), ch,
                                   hidden_relu=False, output_relu=True)

  def forward(self, x, noise=None):
    """(answer, t_mean, t_logvar, recon, mean, logvar); with `noise`, also
    the sentence and task logits."""
    b, c, d = x.shape
    nz = noise or {}
    vec = self.sentence.encode(x.reshape(b * c, d))
    z, mean, logvar, s_logits = self.sent(vec, nz.get("sent_gumbel"),
                                          nz.get("sent_eps"))
    recon = self.sentence.decode(z).view(b, c, d)
    h = torch.relu(self.seq_conv(z.view(b, 1, c, self.sent.width)))
    zt, t_mean, t_logvar, t_logits = self.task(
        self.seq_lin(h.reshape(b, -1)), nz.get("task_gumbel"),
        nz.get("task_eps"))
    out = (self.answer(zt), t_mean, t_logvar, recon, mean, logvar)
    return out + (s_logits, t_logits) if noise is not None else out


class TwoLevel1D(TwoLevel):
  """Their VariationalAutoencoder_1D_2level: `Sentence1D`, the answer
  decoded by a transposed convolution of stride `ans_s`. `sent` and `task`
  are (n, k) of each level's categorical part."""

  def __init__(self, dim, seq, x_dim, latent=5, task_latent=5, ch=32,
               task_k=4, ans_k=15, ans_s=15, sent=(0, 3), task=(0, 3),
               tau=0.5):
    super().__init__(Sentence1D(dim, latent, *sent, tau), dim, seq, x_dim,
                     task_latent, ch, task_k, ans_k, ans_s, task, tau)


class TwoLevel2D(TwoLevel):
  """Their VariationalAutoencoder_2level: `Sentence2D` (`sent_ch`
  channels, k x k), the answer decoded by a k x k transposed convolution
  of stride 1 with the task level's `ch` channels."""

  def __init__(self, dim, seq, x_dim, latent=5, task_latent=5, sent_ch=40,
               ch=32, k=15, task_k=4, sent=(0, 3), task=(0, 3), tau=0.5):
    super().__init__(Sentence2D(dim, x_dim, latent, sent_ch, k, *sent, tau),
                     dim, seq, x_dim, task_latent, ch, task_k, k, 1, task,
                     tau)


def seq_vae_params(tm: SeqVAE) -> dict:
  """Our SeqVAE's parameters from theirs."""
  n = sizes(tm.shape, tm.conv.kernel_size, tm.conv.stride)[1]
  ch = tm.conv.out_channels
  return {"params": {
      "enc_kernel": to_np(tm.conv.weight).transpose(2, 3, 4, 1, 0),
      "enc_bias": to_np(tm.conv.bias),
      "enc_dense": dense_from_channels_first(
          tm.lin, ch, n, tm.sampler.columns()),
      "decoder": decoder_params(tm.decoder)}}


def _dense(lin, cols=None):
  w, b = to_np(lin.weight).T, to_np(lin.bias)
  if cols is not None:
    w, b = w[:, cols], b[cols]
  return {"kernel": w, "bias": b}


def conv_task_params(tm: TwoLevel) -> dict:
  """Our ConvTaskEncoder's parameters from their task-level Encoder_2D."""
  ch, k = tm.seq_conv.out_channels, tm.seq_conv.kernel_size[0]
  return {"kernel": to_np(tm.seq_conv.weight).reshape(ch, k * k).T,
          "bias": to_np(tm.seq_conv.bias),
          "stats": dense_from_channels_first(tm.seq_lin, ch, tm.task_windows,
                                             tm.task.columns())}


def banded_decoder_params(dec: StridedDecoder2D) -> dict:
  """Our stride-1 'VALID' transposed-convolution decoder's parameters
  (vae2's ConvAnswerDecoder): the kernel [channels, k*k]."""
  return {"dense": decoder_params(dec)["dense"],
          "kernel": to_np(dec.convT.weight).reshape(dec.ch, -1),
          "bias": to_np(dec.convT.bias)}


def two_level_1d_params(tm: TwoLevel1D) -> dict:
  """Our TwoLevelVAE1D's parameters from theirs."""
  s = tm.sentence
  return {"params": {
      "sentence": {
          "enc_hidden": _dense(s.e1),
          "enc_stats": _dense(s.e2, s.sampler.columns()),
          "dec_hidden": _dense(s.d1), "dec_out": _dense(s.d2)},
      "task_enc": conv_task_params(tm),
      "task_dec": decoder_params(tm.answer)}}


def sentence_2d_params(s: Sentence2D) -> dict:
  """Our SentenceVAE's parameters from their Encoder_2D / Decoder_2D."""
  ch = s.conv.out_channels
  dec = banded_decoder_params(s.decoder)
  return {"enc_kernel": to_np(s.conv.weight).reshape(ch, -1).T,
          "enc_bias": to_np(s.conv.bias),
          "enc_dense": dense_from_channels_first(s.lin, ch, s.windows,
                                                 s.sampler.columns()),
          "dec_dense": dec["dense"], "dec_kernel": dec["kernel"],
          "dec_bias": dec["bias"]}


def two_level_2d_params(tm: TwoLevel2D) -> dict:
  """Our TwoLevelVAE's ('conv' task level) parameters from theirs."""
  return {"params": {"sentence": sentence_2d_params(tm.sentence),
                     "task_enc": conv_task_params(tm),
                     "task_dec": banded_decoder_params(tm.answer)}}


def normalized_margin(pred, cands):
  """Their sentence_representations max_margin: the dot scores of
  candidates [N, M, D] (the positive first) with pred [N, D], divided by
  their L2 norm, [1 - s_pos + mean s_neg]^+, averaged over N."""
  s = torch.einsum("nmd,nd->nm", cands, pred)
  s = s / torch.linalg.norm(s, dim=1, keepdim=True)
  return torch.clamp(1 - s[:, 0] + s[:, 1:].mean(1), min=0).mean()


def sentence_margin(recon, x):
  """Their reconstruction_loss_sent: `normalized_margin` of each decoded
  sentence against itself and the next three sentences of the flattened
  batch."""
  d = x.shape[-1]
  recon, sents = recon.reshape(-1, d), x.reshape(-1, d)
  n = sents.shape[0]
  cands = torch.stack([sents[(torch.arange(n) + k) % n] for k in range(4)],
                      dim=1)
  return normalized_margin(recon, cands)


def drawn_noise(model, params, batch, rng) -> dict:
  """The Gumbel and normal noise our model draws with `rng` (sown into
  'intermediates'), as numpy arrays."""
  _, state = model.apply(params, batch.ctx, batch.ctx_mask, True,
                         rngs={"sample": rng}, mutable=["intermediates"])
  return jax.tree.map(np.asarray, state["intermediates"])


def two_level_noise(model, params, batch, rng, tm) -> dict:
  """Our two-level model's noise for `rng` in the layout of `TwoLevel`'s
  `noise` argument."""
  nz = drawn_noise(model, params, batch, rng)
  out = {}
  for drawn, level, name in ((nz.get("sentence", {}), tm.sent, "sent_"),
                             (nz, tm.task, "task_")):
    if "gumbel_noise" in drawn:
      out[name + "gumbel"] = drawn["gumbel_noise"][0].reshape(
          -1, level.n, level.k)
    if "normal_noise" in drawn:
      out[name + "eps"] = drawn["normal_noise"][0].reshape(-1, level.cont)
  return {k: torch.tensor(v) for k, v in out.items()}


def ours(config, dim: int, seq: int, correct, num_answers: int, seed=0):
  """Our solver for `config` (its model, scores, reduction and loss
  weights) and a random batch: (solver, batch, ctx, ans), ctx and ans as
  numpy arrays for the torch side."""
  model = models.create_model(config.model, embed_dim=dim, num_context=seq,
                              score=config.train.score, loss_cfg=config.loss)
  solver = Solver(model=model, tx=None, score=config.train.score,
                  predict_score=config.train.predict_score,
                  answer_reduction=config.loss.answer_reduction,
                  loss_weights=trainer.loss_weights(config, dim))
  rng = np.random.default_rng(seed)
  b = len(correct)
  ctx = rng.normal(size=(b, seq, dim)).astype(np.float32)
  ans = rng.normal(size=(b, num_answers, dim)).astype(np.float32)
  batch = Batch(ctx=jnp.asarray(ctx), ctx_mask=jnp.ones((b, seq), bool),
                ans=jnp.asarray(ans),
                ans_mask=jnp.ones((b, num_answers), bool),
                correct=jnp.asarray(np.asarray(correct)))
  return solver, batch, ctx, ans


def assert_same_shapes(solver, params, batch) -> None:
  """`params` (mapped from torch) has exactly our model's parameters."""
  want = jax.tree.map(np.shape, solver.model.init(
      {"params": jax.random.key(0), "sample": jax.random.key(1)},
      batch.ctx, batch.ctx_mask, False))
  assert jax.tree.map(np.shape, params) == want


class SubnetLinear(nn.Module):
  """Their MaskedLinear (`to_regions=False`: N region outputs -> U units,
  with a bias) or RevMaskedLinear (True: U units -> N outputs, no bias).
  Per region output i: weights W[:, i] ([U, N], their layout in both),
  scale s[i] (their Mask.weight) and mask logits m[i] (mask_weight), the
  mask softmax(m[i] / T) over the U units. Their per-Mask loop, written as
  one tensor expression."""

  def __init__(self, n, u, to_regions, temperature=1e-6):
    super().__init__()
    self.to_regions, self.t = to_regions, temperature
    self.weight = nn.Parameter(torch.randn(u, n) * 0.3)
    self.scale = nn.Parameter(np.sqrt(u) * (1 + 0.1 * torch.randn(n, u)))
    self.logits = nn.Parameter(torch.rand(n, u))
    self.bias = None if to_regions else nn.Parameter(torch.randn(u) * 0.1)

  def masked(self):
    """[N, U]: what their forward writes into masked_weights."""
    return self.weight.T * self.scale * torch.softmax(self.logits / self.t,
                                                      dim=1)

  def forward(self, x):
    if self.to_regions:
      return x @ self.masked().T
    return x @ self.masked() + self.bias


class TwoLevelSubnets(nn.Module):
  """Their VariationalAutoencoder_2level_subnets: Encoder_2D_subnets
  (strided Conv2d + ReLU, MaskedLinear and an unmasked Linear,
  concatenated and read as interleaved (mean, logvar) pairs by their
  simple sampler), Decoder_2D_subnets (RevMaskedLinear, ReLU, strided
  ConvTranspose2d, no output activation), a 4x4 Encoder_2D over the
  [C, latent] sentence latents, Decoder_2D of stride 1 (ReLU output) for
  the answer. `forward` decodes the means."""

  def __init__(self, dim, seq, x_dim, latent=5, task_latent=5, ch=40,
               k=15, task_ch=32, task_k=4, ans_ch=40, temperature=1e-6):
    super().__init__()
    self.latent, self.task_latent = latent, task_latent
    self.image = (x_dim, dim // x_dim)
    pads, n, ops = sizes(self.image, (k, k), (k, k))
    self.windows, self.ch = n, ch
    regions = n[0] * n[1] * ch
    self.conv = nn.Conv2d(1, ch, (k, k), (k, k), padding=tuple(pads))
    self.lin_mask = SubnetLinear(regions, latent, False, temperature)
    self.lin_sd = nn.Linear(regions, latent)
    self.dec_mask = SubnetLinear(regions, latent, True, temperature)
    self.convT = nn.ConvTranspose2d(ch, 1, (k, k), (k, k),
                                    padding=tuple(pads),
                                    output_padding=tuple(ops))
    tpads, tn, _ = sizes((seq, latent), (task_k, task_k), (1, 1))
    self.task_windows = tn
    self.seq_conv = nn.Conv2d(1, task_ch, (task_k, task_k),
                              padding=tuple(tpads))
    self.task = JointSampler(task_latent)
    self.seq_lin = nn.Linear(tn[0] * tn[1] * task_ch, self.task.stats)
    self.answer = StridedDecoder2D(task_latent, self.image, (k, k), (1, 1),
                                   ans_ch, hidden_relu=False,
                                   output_relu=True)

  def forward(self, x):
    b, c, d = x.shape
    h = torch.relu(self.conv(x.reshape(b * c, 1, *self.image)))
    h = h.reshape(b * c, -1)
    vec = torch.cat([self.lin_mask(h), self.lin_sd(h)], dim=1)
    mean, logvar = vec.view(-1, self.latent, 2).unbind(-1)
    y = torch.relu(self.dec_mask(mean)).view(b * c, self.ch, *self.windows)
    recon = self.convT(y).reshape(b, c, d)
    t = torch.relu(self.seq_conv(mean.view(b, 1, c, self.latent)))
    zt, t_mean, t_logvar, _ = self.task(self.seq_lin(t.reshape(b, -1)))
    return self.answer(zt), t_mean, t_logvar, recon, mean, logvar


def assert_two_level_parity(solver, params, batch, tm, ctx, ans, correct,
                            rng=None):
  """Our objective against their two-level module's forward and loss with
  the same weights: the prediction, the sentence margin and the total
  loss agree. With `rng`, on the training path: their samplers get the
  Gumbel and normal noise our model draws with `rng`. Returns their
  module's outputs for further checks."""
  assert_same_shapes(solver, params, batch)
  train = rng is not None
  total, terms, out, _ = solver.objective(params, batch, train, rng)
  noise = (two_level_noise(solver.model, params, batch, rng, tm) if train
           else None)
  x = torch.tensor(ctx)
  with torch.no_grad():
    outputs = tm(x) if noise is None else tm(x, noise)
    want = two_level_loss(tm, outputs, x, torch.tensor(ans),
                          torch.tensor(correct))
  pred, recon = outputs[0], outputs[3]
  np.testing.assert_allclose(out.pred, to_np(pred), rtol=1e-4, atol=1e-5)
  np.testing.assert_allclose(
      terms["sentence_margin"], float(sentence_margin(recon, x)),
      rtol=1e-4)
  np.testing.assert_allclose(float(jnp.mean(total)), float(want), rtol=1e-4)
  return outputs
