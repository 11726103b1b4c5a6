"""A relation-network solver (Barrett et al. 2018's WReN, for sentences).

Raven-type matrices whose rule is drawn per instance defeat solvers that
concatenate the panels; WReN scores each candidate from a learned function
g of every pair of panels, summed, then a learned f. Here a panel is a
sentence embedding: each context sentence and each candidate is projected
to `panel_dim` and tagged with its position (one-hot: context position i,
or C for a candidate). For candidate k,

    score_k = f( sum_{i<j} g(c_i, c_j) + sum_i g(c_i, a_k) )

over the real (unmasked) context sentences. The context pairs are the same
for every candidate and are computed once; g's first layer is split into a
left and a right matrix applied to each panel once, so a pair costs only
g's upper layers. The scores go straight into the margin loss every solver
uses (`losses.max_margin`, `loss.answer_reduction`); `train.score` and
`train.predict_score` do not apply (the solver is the scorer).

Where we differ from WReN (Barrett et al. 2018): its panels are
images through a CNN, ours are fixed embeddings through one dense layer;
it sums over every ordered pair of the nine panels, we over unordered
pairs (i < j for the context, (c_i, a_k) for a candidate: the tags already
say which is which), which halves the cost; its g is 4 layers of 512 and f
has dropout, ours are config sizes (`g_hidden`, `f_hidden`) without
dropout (evaluation and training stay deterministic functions of the
parameters); it trains with a softmax cross-entropy over the candidates,
we with the margin loss the other solvers use, so the comparison between
solvers is one of architecture.
"""

from __future__ import annotations

from typing import ClassVar, Sequence

import flax.linen as nn
import jax.numpy as jnp
import numpy as np

from blm_jax.models import registry
from blm_jax.models.common import SolverOutput

DEFAULTS = {
    "panel_dim": 128,  # each sentence projected to this, plus its position tag
    "g_hidden": (256, 256, 256),  # layers of g (pairs of panels)
    "f_hidden": (256, 256),  # layers of f before its scalar output
}


class RelNet(nn.Module):
  embed_dim: int
  panel_dim: int = DEFAULTS["panel_dim"]
  g_hidden: Sequence[int] = DEFAULTS["g_hidden"]
  f_hidden: Sequence[int] = DEFAULTS["f_hidden"]
  # The solver calls it with the candidates and reads `SolverOutput.scores`.
  scores_candidates: ClassVar[bool] = True

  def _panels(self, ctx, ans):
    """Projected, position-tagged panels: [B, C, P+C+1], [B, A, P+C+1]."""
    c = ctx.shape[-2]
    embed = nn.Dense(self.panel_dim, name="panel")
    tags = jnp.eye(c + 1, dtype=ctx.dtype)
    pc = jnp.concatenate(
        [embed(ctx), jnp.broadcast_to(tags[:c], (*ctx.shape[:-2], c, c + 1))],
        -1)
    pa = jnp.concatenate(
        [embed(ans),
         jnp.broadcast_to(tags[c], (*ans.shape[:-1], c + 1))], -1)
    return pc, pa

  @nn.compact
  def __call__(self, ctx, ctx_mask, train: bool = False, ans=None,
               ans_mask=None) -> SolverOutput:
    del train, ans_mask  # Deterministic; padded candidates: the loss masks.
    if ans is None:
      raise ValueError("RelNet scores the candidates: call it with `ans`")
    c = ctx.shape[-2]
    pc, pa = self._panels(ctx, ans)
    # g's first layer on a pair (x, y) = left(x) + right(y) + bias.
    left = nn.Dense(self.g_hidden[0], name="g_left")(pc)  # [B, C, H0]
    right_c = nn.Dense(self.g_hidden[0], use_bias=False, name="g_right")
    g_upper = [nn.Dense(h, name=f"g{k + 1}")
               for k, h in enumerate(self.g_hidden[1:])]

    def g(h0):
      h = nn.relu(h0)
      for layer in g_upper:
        h = nn.relu(layer(h))
      return h

    iu, ju = np.triu_indices(c, 1)
    ctx_pairs = g(left[:, iu] + right_c(pc)[:, ju])  # [B, C(C-1)/2, H]
    pair_mask = ctx_mask[:, iu] & ctx_mask[:, ju]
    context = jnp.sum(jnp.where(pair_mask[..., None], ctx_pairs, 0.0), 1)
    cand_pairs = g(left[:, None] + right_c(pa)[:, :, None])  # [B, A, C, H]
    cand = jnp.sum(jnp.where(ctx_mask[:, None, :, None], cand_pairs, 0.0), 2)
    h = context[:, None] + cand  # [B, A, H]
    for k, width in enumerate(self.f_hidden):
      h = nn.relu(nn.Dense(width, name=f"f{k}")(h))
    scores = nn.Dense(1, name="f_out")(h)[..., 0]
    return SolverOutput(latent=context, scores=scores)


def _build(model_cfg, loss_cfg, *, embed_dim, num_context, score):
  del loss_cfg, num_context, score
  return RelNet(embed_dim=embed_dim, panel_dim=model_cfg.panel_dim,
                g_hidden=tuple(model_cfg.g_hidden),
                f_hidden=tuple(model_cfg.f_hidden))


def _check_config(config) -> list[str]:
  m, out = config.model, []
  if m.panel_dim < 1:
    out.append(f"config.model.panel_dim={m.panel_dim}: must be >= 1")
  if not tuple(m.g_hidden) or min(m.g_hidden) < 1:
    out.append(f"config.model.g_hidden={tuple(m.g_hidden)}: needs at least "
               "one layer, each width >= 1")
  if tuple(m.f_hidden) and min(m.f_hidden) < 1:
    out.append(f"config.model.f_hidden={tuple(m.f_hidden)}: widths must be "
               ">= 1")
  if config.train.predict_score:
    out.append(f"config.train.predict_score={config.train.predict_score!r}: "
               "relnet scores the candidates itself; leave it ''")
  return out


def _check_data(config, data) -> None:
  if data.num_context < 2:
    raise ValueError(
        f"config.model.name='relnet' relates pairs of context sentences; "
        f"{config.data.name!r} has {data.num_context} context sentence(s)")


SPEC = registry.SolverSpec(
    name="relnet",
    model=DEFAULTS,
    build=_build,
    check_config=_check_config,
    check_data=_check_data)
