"""BLM solvers, one module each; `create_model` picks one by config name.

Every solver maps a batch of context embeddings [B, C, D] (with a mask) to a
`SolverOutput`: the predicted answer embedding plus the named loss terms its
objective adds (`LOSS_TERMS`). The answer loss itself (max-margin against the
candidates) is computed by the trainer, identically for every solver, and
`config.loss` weights every term.
"""

from __future__ import annotations

from blm_jax.models.common import (LOSS_TERMS, SolverOutput,
                                   sentence_grid_shape)
from blm_jax.models.cnn import CNN
from blm_jax.models.ffnn import FFNN
from blm_jax.models.sentence_vae import SentenceVAE, SentenceVAESolver
from blm_jax.models.two_level_vae import TwoLevelVAE

MODELS = ("ffnn", "cnn", "sent_vae", "vae2")


def create_model(model_cfg, *, embed_dim: int, num_context: int,
                 score: str, loss_cfg=None):
  """The solver named by `model_cfg.name`, sized for the data.

  `score` is the training score; `loss_cfg` (config.loss) gives the
  two-level VAE's sentence-level score and its reduction over sentences.
  """
  name = model_cfg.name
  if name == "ffnn":
    return FFNN(embed_dim=embed_dim, hidden_factor=model_cfg.hidden_factor)
  if name == "cnn":
    return CNN(embed_dim=embed_dim, channels=tuple(model_cfg.channels))
  if name in ("sent_vae", "vae2"):
    sentence = SentenceVAE(
        embed_dim=embed_dim,
        grid_shape=sentence_grid_shape(embed_dim, tuple(model_cfg.grid_shape)),
        channels=model_cfg.channels[0] if model_cfg.channels else 1,
        kernel=model_cfg.kernel,
        latent=model_cfg.latent,
        decoder_hidden_relu=model_cfg.get("decoder_hidden_relu", True),
        decoder_output_relu=model_cfg.get("decoder_output_relu", False))
    if name == "sent_vae":
      return SentenceVAESolver(sentence=sentence)
    loss_cfg = loss_cfg or {}
    return TwoLevelVAE(
        sentence=sentence, num_context=num_context,
        task_latent=model_cfg.task_latent,
        task_hidden=model_cfg.task_hidden,
        task_level=model_cfg.get("task_level", "mlp"),
        task_channels=model_cfg.get("task_channels", 32),
        task_kernel=model_cfg.get("task_kernel", 4),
        sentence_score=loss_cfg.get("sentence_score") or score,
        sentence_reduction=loss_cfg.get("sentence_reduction", "sum"))
  raise ValueError(
      f"config.model.name={name!r} is not a known solver; expected one of "
      f"{MODELS}")


__all__ = ["create_model", "MODELS", "LOSS_TERMS", "SolverOutput", "FFNN", "CNN",
           "SentenceVAE", "SentenceVAESolver", "TwoLevelVAE"]
