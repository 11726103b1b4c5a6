"""A toy BLM whose sentences are sums of attribute codes, for the
attribute-bottleneck solver's tests.

Each sentence has `num_attributes` attributes of `num_values` values; its
vector is the sum of one random code vector per (attribute, value), plus a
little noise. In every instance each attribute follows its own period p
(2, 3 or 4, drawn per instance and attribute) across the context positions
and the answer: values base[t mod p] with p distinct base values. No single
context position decides the answer for every period (p = 2 copies position
C - 2, p = 3 position C - 3, p = 4 position C - 4), and a wrong candidate
differs from the correct one in the value of one attribute. The sentence
table carries each sentence's attributes (`attributes`, `attribute_names`),
as the data side's attribute schemas give them.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from blm_jax.data import input_pipeline
from blm_jax.data.sentence_table import SentenceTable
from data_builders.common import schema

PERIODS = (2, 3, 4)


@dataclasses.dataclass(frozen=True)
class _AttributedTable(SentenceTable):
  """A sentence table with attributes, where SentenceTable has none."""

  attributes: np.ndarray | None = None
  attribute_names: tuple[str, ...] = ()


def with_attributes(table: SentenceTable, attributes: np.ndarray,
                    names: tuple[str, ...]) -> SentenceTable:
  """`table` carrying per-sentence `attributes` [sentences, M] and
  their `names`."""
  fields = {f.name for f in dataclasses.fields(SentenceTable)}
  if "attributes" in fields:
    return dataclasses.replace(table, attributes=attributes,
                               attribute_names=names)
  return _AttributedTable(**{f: getattr(table, f) for f in fields},
                          attributes=attributes, attribute_names=names)


def data(n_train=1000, n_dev=200, n_test=300, num_context=7,
         num_attributes=3, num_values=4, num_answers=6, dim=16, noise=0.05,
         seed=0, attributes=True) -> input_pipeline.BLMData:
  """The toy as one 'lexical type' I; with `attributes`, its tables carry
  the sentences' attributes."""
  rng = np.random.default_rng(seed)
  codes = rng.normal(size=(num_attributes, num_values, dim)) / np.sqrt(
      num_attributes)
  vectors, values = {}, {}
  labels = ("CORRECT",) + tuple(f"W{k}" for k in range(1, num_answers))

  def sentence(key, vals):
    vectors[key] = (codes[np.arange(num_attributes), vals].sum(0)
                    + noise * rng.normal(size=dim))
    values[key] = vals
    return schema.Sentence(key, " ".join(f"a{m}={v}"
                                         for m, v in enumerate(vals)))

  def instance(key):
    seq = np.zeros((num_context + 1, num_attributes), np.int64)
    for m in range(num_attributes):
      p = rng.choice(PERIODS)
      base = rng.permutation(num_values)[:p]
      seq[:, m] = base[np.arange(num_context + 1) % p]
    answer = seq[-1]
    cands = [tuple(answer)]
    while len(cands) < num_answers:
      wrong = answer.copy()
      m = (len(cands) - 1) % num_attributes
      wrong[m] = rng.choice([v for v in range(num_values) if v != answer[m]])
      if tuple(wrong) not in cands:
        cands.append(tuple(wrong))
    order = rng.permutation(num_answers)
    return schema.BLMInstance(
        id=key, family="toy", language="en", lexical_type="I",
        subset="toy",
        context=tuple(sentence(f"{key} c{t}", seq[t])
                      for t in range(num_context)),
        answers=tuple(sentence(f"{key} a{k}", np.array(cands[k]))
                      for k in order),
        correct=int(np.argmax(order == 0)),
        labels=tuple(labels[k] for k in order))

  parts = {("I", split): [instance(f"{split}-{i}") for i in range(n)]
           for split, n in (("train", n_train), ("dev", n_dev),
                            ("test", n_test))}
  out = input_pipeline.from_parts(
      parts, lambda sents: np.stack([vectors[s] for s in sents]))
  if not attributes:
    return out
  names = tuple(f"a{m}" for m in range(num_attributes))
  table_attributes = np.stack([values[s] for s in out.table.sentences]
                              ).astype(np.int32)
  add = lambda t: with_attributes(t, table_attributes, names)
  return dataclasses.replace(
      out, table=add(out.table),
      train={k: add(v) for k, v in out.train.items()},
      dev={k: add(v) for k, v in out.dev.items()},
      test={k: add(v) for k, v in out.test.items()})
