"""Embedding-only baselines on a built blm_chunks dataset (no VAE).

  BLM_DATA_DIR=... python studies/chunk_probe.py agreement_en

Prints: the accuracy of picking the candidate closest (cosine) to the input;
a ridge-regression probe from train inputs to their pattern (test accuracy);
and the accuracy of picking the candidate that scores highest on the input's
predicted pattern. A reference for what the frozen embeddings carry.
"""

import os
import sys

import numpy as np

from blm_jax.embedding import embed
from data_builders.common import loading as data


def main(name: str, ridge: float = 1.0) -> None:
  dd = os.environ["BLM_DATA_DIR"]
  splits = {s: data.load_instances(f"blm_chunks/{name}", s, dd)
            for s in ("train", "test")}
  texts = sorted({t.text for v in splits.values() for x in v
                  for t in x.context + x.answers})
  table = embed.embed_sentences(texts, embed.EncoderSpec("minilm"))
  row = {t: i for i, t in enumerate(texts)}
  emb = lambda s: table[row[s.text]]
  unit = lambda v: v / np.linalg.norm(v)
  test = splits["test"]
  cosine = np.mean([np.argmax([unit(emb(x.context[0])) @ unit(emb(a))
                               for a in x.answers]) == x.correct
                    for x in test])
  x_train = np.stack([emb(x.context[0]) for x in splits["train"]])
  pats = sorted({x.context[0].pattern for x in splits["train"]})
  y = np.eye(len(pats))[[pats.index(x.context[0].pattern)
                         for x in splits["train"]]]
  mu = x_train.mean(0)
  xc = x_train - mu
  w = np.linalg.solve(xc.T @ xc + ridge * np.eye(xc.shape[1]), xc.T @ y)
  scores = lambda s: (emb(s) - mu) @ w
  pattern_acc = np.mean([pats[int(np.argmax(scores(x.context[0])))]
                         == x.context[0].pattern for x in test])
  answer_acc = np.mean([
      np.argmax([scores(a)[np.argmax(scores(x.context[0]))]
                 for a in x.answers]) == x.correct for x in test])
  print(f"{name} cosine-to-input acc {cosine:.3f}; ridge probe pattern acc "
        f"{pattern_acc:.3f} over {len(pats)} patterns; probe-based answer acc "
        f"{answer_acc:.3f}")


if __name__ == "__main__":
  main(sys.argv[1])
