"""The authors' `vae_1d_2level` (VariationalAutoencoder_1D_2level in their
vaes/VAE.py): the two-level VAE with a dense (1-D) sentence level.

Sentence level: each context sentence [D] -> dense (D/2, ReLU) -> mean and
log-variance of its latent (5); its decoder is two dense layers
(latent -> D/2 -> D, no activation), scored against the context as in
vae2 (eq. 4 of 000). Task level, as vae2's 'conv' task level: the C x 5
matrix of sentence latents -> a 4x4 'VALID' convolution (32 channels,
ReLU) -> dense -> task latent; the answer is decoded by a dense layer and
a 15x15 transposed convolution with stride 15 onto the h x w sentence
array (padded as their code pads it, `strided_conv`), with a ReLU on the
output. The loss terms and their config keys are vae2's (`task_kl`,
`sentence_margin`, `sentence_kl`, ...), with their code's defaults.

Where their code and the paper differ, and which we follow:
- Their sentence-level negatives are the three sentences that follow each
  sentence in the flattened batch (utils/losses.py
  reconstruction_loss_sent), so they cross instance boundaries and depend
  on the batch order; ours are the instance's other context sentences
  (000 eq. 4, as vae2). They coincide for one instance of 4 sentences,
  which the parity test uses.
- Their sampler samples at test time; we decode the means.
- Their dense layers interleave means and log-variances; ours put the
  means first (a permutation of the outputs).
- No paper describes this variant; its defaults are their code's.
- Categorical latents at either level as in vae2 (latents.py).
"""

from __future__ import annotations

import flax.linen as nn

from blm_jax.models import (latents, registry, seq_vae, strided_conv,
                            two_level_vae)
from blm_jax.models.common import sentence_grid_shape

DEFAULTS = {
    "latent": 5,  # sentence latent
    "task_latent": 5,
    "task_channels": 32,  # the 4x4 task encoder and the answer decoder
    "task_kernel": 4,
    "grid_shape": (),  # the answer's 2-D array; () = derived (32x24 for 768)
    "answer_kernel": 15,
    "answer_stride": 15,
    # The latents' kinds (latents.py), as vae2.
    **latents.model_defaults(), **latents.model_defaults("task_"),
    **latents.SHARED_DEFAULTS,
}
# vae2's loss keys, with their code's settings (configs/vae2.py:reference).
LOSS_DEFAULTS = {
    **two_level_vae.LOSS_DEFAULTS,
    "sentence_reduction": "mean",
    "sentence_score": "normalized",
    "kl_scale": "latent_over_dim",
}


class DenseSentenceVAE(nn.Module):
  """[..., D] -> (decoded [..., D], posterior, z): the interface of
  `sentence_vae.SentenceVAE` with dense layers."""

  embed_dim: int
  latent: int = DEFAULTS["latent"]
  categorical: latents.Categorical | None = None  # None: Gaussian only

  def setup(self):
    hidden = self.embed_dim // 2
    self.enc_hidden = nn.Dense(hidden)
    self.enc_stats = nn.Dense(latents.stats_size(self.latent,
                                                 self.categorical))
    self.dec_hidden = nn.Dense(hidden)
    self.dec_out = nn.Dense(self.embed_dim)

  def encode(self, x) -> latents.Posterior:
    stats = self.enc_stats(nn.relu(self.enc_hidden(x)))
    return latents.split(stats, self.latent, self.categorical)

  def decode(self, z):
    return self.dec_out(self.dec_hidden(z))

  def __call__(self, x, train: bool = False):
    post = self.encode(x)
    z = latents.sample(self, post, self.categorical, train)
    return self.decode(z), post, z


class TwoLevelVAE1D(two_level_vae.TwoLevelVAE):
  """vae2's two levels with the dense sentence VAE and the strided answer
  decoder; `task_level` is 'conv'."""

  answer_grid: tuple[int, int] = (32, 24)
  answer_kernel: int = DEFAULTS["answer_kernel"]
  answer_stride: int = DEFAULTS["answer_stride"]

  def setup(self):
    if self.task_level != "conv":
      raise ValueError("vae_1d_2level's task level is 'conv'")
    self.task_enc = two_level_vae.ConvTaskEncoder(
        self.task_latent, self.task_channels, self.task_kernel,
        self.task_categorical)
    k, s = self.answer_kernel, self.answer_stride
    self.task_dec = seq_vae.StridedDecoder(
        self.answer_grid, (k, k), (s, s), self.task_channels,
        hidden_relu=False, output_relu=True)


def _build(model_cfg, loss_cfg, *, embed_dim, num_context, score):
  sentence, task = two_level_vae.LEVELS
  return TwoLevelVAE1D(
      sentence=DenseSentenceVAE(embed_dim, sentence.size(model_cfg),
                                sentence.categorical(model_cfg)),
      num_context=num_context,
      task_latent=task.size(model_cfg),
      task_categorical=task.categorical(model_cfg),
      categorical_kl=loss_cfg.categorical_kl,
      task_level="conv",
      task_channels=model_cfg.task_channels,
      task_kernel=model_cfg.task_kernel,
      sentence_score=loss_cfg.sentence_score or score,
      sentence_reduction=loss_cfg.sentence_reduction,
      answer_grid=sentence_grid_shape(embed_dim,
                                      tuple(model_cfg.grid_shape)),
      answer_kernel=model_cfg.answer_kernel,
      answer_stride=model_cfg.answer_stride)


def _check_data(config, data) -> None:
  m = config.model
  grid = sentence_grid_shape(data.embed_dim, tuple(m.grid_shape))
  k, s = m.answer_kernel, m.answer_stride
  try:
    strided_conv.plan(grid, (k, k), (s, s))
  except ValueError as e:
    raise ValueError(f"config.model.answer_kernel={k}, "
                     f"config.model.answer_stride={s} on the answer array "
                     f"{grid}: {e}") from None
  two_level_vae.check_context(config, data)
  two_level_vae.check_task_kernel(
      int(m.task_kernel), two_level_vae.LEVELS[0].width(m), data.num_context)


def _check_config(config) -> list[str]:
  problem = two_level_vae.task_kernel_problem(
      int(config.model.task_kernel),
      two_level_vae.LEVELS[0].width(config.model))
  return latents.check_config(config, two_level_vae.LEVELS, DEFAULTS,
                              LOSS_DEFAULTS) + ([problem] if problem else [])


SPEC = registry.SolverSpec(
    name="vae_1d_2level",
    model=DEFAULTS,
    loss=LOSS_DEFAULTS,
    build=_build,
    loss_terms=two_level_vae.SPEC.loss_terms,
    term_scales=two_level_vae.SPEC.term_scales,  # the same two KL terms
    active_terms=two_level_vae.SPEC.active_terms,
    check_data=_check_data,
    check_config=_check_config,
    choices={k: v for k, v in two_level_vae.SPEC.choices.items()
             if k.startswith("loss.") or k in latents.choices(
                 two_level_vae.LEVELS)},
    decodes_latent=True,
    sentence_latents=True,
    # Vmapped 10-18x slower than scanned on a CPU (benchmarks/README.md).
    scan_on=frozenset({"cpu"}))
