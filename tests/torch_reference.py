"""Tiny torch re-implementations of the authors' modules, for parity tests.

Written from the design of CLCL-Geneva/BLM-SNFDisentangling (baselines/,
vaes/, utils/losses.py), not copied: the same layers, shapes, activations
and losses, so that with the same weights our Flax solvers must compute
the same numbers. torch (CPU) is a test-time dependency only; tests
importing this module skip without it.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn


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


def to_np(t) -> np.ndarray:
  return t.detach().numpy()
