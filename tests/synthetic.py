"""A learnable synthetic BLM in memory, for solver and trainer tests.

Sentence embeddings are random; the correct answer of an instance is the
sentence whose embedding is c0 - c1 + c2 of its context (an analogy the
FFNN can learn), the wrong ones are near misses of it. Two 'lexical types'
differ in their noise level.
"""

import numpy as np

from blm_jax.data import input_pipeline
from data_builders.common import schema

DIM = 8
LABELS = ("CORRECT", "W1", "W2", "W3")


def instances(n: int, lexical_type: str, seed: int, num_context: int = 4):
  rng = np.random.default_rng(seed)
  out, vectors = [], {}
  for i in range(n):
    key = f"{lexical_type}-{seed}-{i}"
    ctx = [schema.Sentence(f"{key} c{j}", f"P{j}") for j in range(num_context)]
    for s in ctx:
      vectors[s.text] = rng.normal(size=DIM)
    target = (vectors[ctx[0].text] - vectors[ctx[1].text]
              + vectors[ctx[2].text])
    noise = 0.1 if lexical_type == "I" else 0.5
    answers = []
    for j, lab in enumerate(LABELS):
      s = schema.Sentence(f"{key} a{j}", lab)
      v = target + (noise if j == 0 else 1.5) * rng.normal(size=DIM)
      vectors[s.text] = v
      answers.append(s)
    order = rng.permutation(len(LABELS))
    out.append(schema.BLMInstance(
        id=key, family="toy", language="en", lexical_type=lexical_type,
        subset="toy", context=tuple(ctx),
        answers=tuple(answers[k] for k in order),
        correct=int(np.argmax(order == 0)),
        labels=tuple(LABELS[k] for k in order)))
  return out, vectors


def data(n_train=120, n_dev=40, n_test=60, types=("I", "II"), seed=0,
         num_context=4) -> input_pipeline.BLMData:
  parts, vectors = {}, {}
  for k, t in enumerate(types):
    for split, n in (("train", n_train), ("dev", n_dev), ("test", n_test)):
      insts, vecs = instances(n, t, seed * 1000 + k * 10 + len(split),
                              num_context)
      parts[t, split] = insts
      vectors.update(vecs)
  return input_pipeline.from_parts(
      parts, lambda sents: np.stack([vectors[x] for x in sents]))


def config(model="ffnn", epochs=3, seeds=(0, 1), types=("I", "II")):
  from configs import common
  c = common.base(model)
  c.data.name = "synthetic_{}"
  c.data.train_types = types
  c.data.test_types = types
  c.grid.seeds = seeds
  small = {"hidden_factor": 2.0, "grid_shape": (4, 2), "kernel": 2,
           "task_hidden": 16,
           "channels": (4, 4, 4) if model == "cnn" else (4,)}
  for key, value in small.items():  # Each solver has some of these keys.
    if key in c.model:
      c.model[key] = value
  c.train.epochs = epochs
  c.train.batch_size = 20
  c.train.checkpoint_every_epochs = 1
  c.train.checkpoint_min_seconds = 0.0
  c.progress = False
  # The context-free baselines fit a network per run: tests of them
  # (test_context_free.py) switch them on; the others stay fast.
  c.results.context_free = False
  return c


PATTERNS = ("NP-sg VP-sg", "NP-pl VP-pl", "NP-sg PP-sg VP-sg",
            "NP-pl PP-sg VP-pl")


def chunk_data(n_train=60, n_dev=20, n_test=40, seed=0):
  """blm_chunks-like data: one input sentence, its positive (same pattern)
  and 3 negatives of the other patterns; a sentence is its pattern's centre
  plus noise, so the patterns are learnable."""
  rng = np.random.default_rng(seed)
  centres = {p: rng.normal(size=DIM) for p in PATTERNS}
  vectors, parts = {}, {}

  def sentence(key, p):
    s = schema.Sentence(key, p)
    vectors[key] = centres[p] + 0.3 * rng.normal(size=DIM)
    return s

  for split, n in (("train", n_train), ("dev", n_dev), ("test", n_test)):
    insts = []
    for i in range(n):
      p = PATTERNS[i % len(PATTERNS)]
      key = f"{split}-{i}"
      answers = [sentence(f"{key} pos", p)] + [
          sentence(f"{key} neg{j}", q)
          for j, q in enumerate(x for x in PATTERNS if x != p)]
      labs = ["POS"] + ["NEG"] * (len(answers) - 1)
      order = rng.permutation(len(answers))
      insts.append(schema.BLMInstance(
          id=key, family="sentence_chunks", language="en",
          lexical_type="chunks", subset="toy",
          context=(sentence(f"{key} in", p),),
          answers=tuple(answers[k] for k in order),
          correct=int(np.argmax(order == 0)),
          labels=tuple(labs[k] for k in order)))
    parts["chunks", split] = insts
  return input_pipeline.from_parts(
      parts, lambda sents: np.stack([vectors[x] for x in sents]))
