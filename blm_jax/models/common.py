"""What every solver returns, and the 2-D reshape the sentence VAE needs."""

from __future__ import annotations

import math

import flax.struct
import jax
import jax.numpy as jnp


@flax.struct.dataclass
class SolverOutput:
  """What a solver returns for a batch.

  latent: [B, L] the representation probing reads (task latent for VAEs).
  pred: [B, D] the answer embedding, scored against the candidates
    (`train.score`); None for a solver that scores them itself.
  terms: {name: [B]} unweighted loss terms, named in the solver's spec
    (`registry.SolverSpec.loss_terms`); the trainer adds the answer margin
    and weights each term by `config.loss.<name>`, logs each per epoch and
    keeps them in results.json.
  scores: [B, A] the candidates' scores, from a solver that scores them
    itself (its module has `scores_candidates = True` and is called with
    the candidates: relnet); None otherwise.
  """

  latent: jax.Array
  pred: jax.Array | None = None
  terms: dict = flax.struct.field(default_factory=dict)
  scores: jax.Array | None = None


def sentence_grid_shape(embed_dim: int,
                        requested: tuple[int, ...] = ()) -> tuple[int, int]:
  """The 2-D shape a sentence embedding is reshaped to (000 sec. 7).

  The paper reshapes Electra's 768 dims to 32 x 24; for other sizes we take
  the factorisation H x W with H >= W closest to that 4:3 aspect ratio
  (MiniLM's 384 -> 24 x 16). An explicit request must multiply to D.
  """
  if requested:
    if len(requested) != 2 or requested[0] * requested[1] != embed_dim:
      raise ValueError(
          f"config.model.grid_shape={tuple(requested)} does not reshape an "
          f"embedding of dimension {embed_dim} (need two factors of "
          f"{embed_dim})")
    return int(requested[0]), int(requested[1])
  best = None
  for w in range(1, int(math.isqrt(embed_dim)) + 1):
    if embed_dim % w == 0:
      h = embed_dim // w
      cost = abs(math.log((h / w) / (4 / 3)))
      if best is None or cost < best[0]:
        best = (cost, h, w)
  return best[1], best[2]
