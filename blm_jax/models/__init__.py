"""BLM solvers, one module each, chosen by name from `registry`.

Every solver maps a batch of context embeddings [B, C, D] (with a mask) to a
`SolverOutput`: the predicted answer embedding (or, for a solver that scores
the candidates itself, relnet and attribute_bottleneck, their scores) plus
the named loss terms its objective adds (its spec's `loss_terms`). The answer
loss itself (max-margin against the candidates) is computed by the trainer,
identically for every solver, and `config.loss` weights every term. Each solver module
declares its `SPEC` (config section, builder, checks); importing this
package registers the built-in ones.
"""

from __future__ import annotations

import ml_collections

from blm_jax.models import (attribute_bottleneck, cnn, cnn_seq, ffnn,
                            registry, relnet, sentence_vae, seq_vae,
                            two_level_vae, two_level_vae_1d,
                            two_level_vae_subnets)
from blm_jax.models.cnn import CNN
from blm_jax.models.common import SolverOutput, sentence_grid_shape
from blm_jax.models.ffnn import FFNN
from blm_jax.models.relnet import RelNet
from blm_jax.models.sentence_vae import SentenceVAE, SentenceVAESolver
from blm_jax.models.two_level_vae import TwoLevelVAE

for _spec in (ffnn.SPEC, cnn.SPEC, sentence_vae.SPEC, two_level_vae.SPEC,
              relnet.SPEC, cnn_seq.SPEC, seq_vae.SPEC,
              two_level_vae_1d.SPEC, two_level_vae_subnets.SPEC,
              attribute_bottleneck.SPEC):
  registry.register(_spec)
del _spec


def create_model(model_cfg, *, embed_dim: int, num_context: int,
                 score: str, loss_cfg=None):
  """The solver named by `model_cfg.name`, sized for the data.

  `score` is the training score; `loss_cfg` (config.loss) holds options of
  the solver's own loss terms (the two-level VAE's sentence-level score and
  reduction); None = the solver's defaults.
  """
  spec = registry.get(model_cfg.name)
  if loss_cfg is None:
    loss_cfg = ml_collections.ConfigDict(dict(spec.loss))
  return spec.build(model_cfg, loss_cfg, embed_dim=embed_dim,
                    num_context=num_context, score=score)


__all__ = ["create_model", "registry", "SolverOutput", "FFNN", "CNN", "RelNet",
           "SentenceVAE", "SentenceVAESolver", "TwoLevelVAE",
           "sentence_grid_shape"]
