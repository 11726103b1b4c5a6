"""Embedding-only baselines on a built blm_chunks dataset (no VAE).

  BLM_DATA_DIR=... python benchmarks/chunk_probe.py agreement_en

Prints: the accuracy of picking the candidate closest (cosine) to the input;
a ridge-regression probe from train inputs to their pattern (test accuracy);
and the accuracy of picking the candidate that scores highest on the input's
predicted pattern. A reference for what the frozen embeddings carry.
"""
import os
import sys, numpy as np
from blm_jax import data, embed
name = sys.argv[1]
dd = os.environ["BLM_DATA_DIR"]
splits = {s: data.load_instances(f"blm_chunks/{name}", s, dd) for s in ("train", "test")}
texts = sorted({t.text for v in splits.values() for x in v for t in x.context + x.answers})
E = embed.embed_sentences(texts, "minilm")
idx = {t: i for i, t in enumerate(texts)}
def emb(s): return E[idx[s.text]]
# 1) cosine to the input
def cos(a, b): return a @ b / np.linalg.norm(a) / np.linalg.norm(b)
acc = np.mean([np.argmax([cos(emb(x.context[0]), emb(a)) for a in x.answers]) == x.correct for x in splits["test"]])
# 2) pattern classifier (linear probe) on train sentences, then pick the candidate with the input's predicted pattern prob
X = np.stack([emb(x.context[0]) for x in splits["train"]]); y = [x.context[0].pattern for x in splits["train"]]
pats = sorted(set(y)); Y = np.eye(len(pats))[[pats.index(p) for p in y]]
mu = X.mean(0); Xc = X - mu
W = np.linalg.solve(Xc.T @ Xc + 1.0 * np.eye(X.shape[1]), Xc.T @ Y)
Xt = np.stack([emb(x.context[0]) for x in splits["test"]]); yt = [x.context[0].pattern for x in splits["test"]]
pred = [pats[i] for i in np.argmax((Xt - mu) @ W, 1)]
pacc = np.mean([a == b for a, b in zip(pred, yt)])
# 3) probe-based chunk answer: candidate whose predicted pattern scores highest for the input's predicted pattern
sel = []
for x in splits["test"]:
  pin = np.argmax((emb(x.context[0]) - mu) @ W)
  sc = [((emb(a) - mu) @ W)[pin] for a in x.answers]
  sel.append(np.argmax(sc) == x.correct)
print(name, f"cosine-to-input acc {acc:.3f}; ridge probe pattern acc {pacc:.3f} over {len(pats)} patterns; probe-based answer acc {np.mean(sel):.3f}")
