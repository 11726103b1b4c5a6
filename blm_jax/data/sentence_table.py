"""The sentence table: what every solver and the embedding step consume.

A split of BLM instances becomes the list of its distinct sentences plus int32
index arrays into that list, so each distinct sentence is embedded once and
solvers gather embeddings on device. Context and answer counts may vary per
instance: shorter rows are padded with index 0 and masked out.
"""

from __future__ import annotations

import dataclasses
from typing import Iterable, Sequence

import numpy as np

from data_builders.common import schema
from data_builders.common.attributes import AttributeSchema, encode_patterns


@dataclasses.dataclass(frozen=True)
class SentenceTable:
  """Distinct sentences plus per-instance index arrays.

  Attributes:
    sentences: the distinct sentence texts, in first-seen order.
    patterns: the pattern string each distinct sentence was generated from
      (the first one seen when a text occurs under several patterns).
    context: int32 [N, C] indices into `sentences`.
    context_mask: bool [N, C], False for padding.
    answers: int32 [N, A] indices into `sentences`.
    answer_mask: bool [N, A], False for padded candidates.
    correct: int32 [N], the correct answer's index.
    labels: int32 [N, A] ids into `label_names`, -1 for padding.
    label_names: the label inventory the ids refer to.
    instance_ids: the instances' ids, in row order.
    attributes: int32 [S, len(attribute_names)], each sentence's attribute
      value indices read off its pattern by the family's schema
      (`data_builders.common.attributes`), -1 where a pattern lacks one;
      [S, 0] when the data has no attributes.
    attribute_names: the columns of `attributes`, () when none.
    attribute_sizes: each column's number of values (the schema's).
    attributes_missing: why there are none ('' when there are).
  """

  sentences: tuple[str, ...]
  patterns: tuple[str, ...]
  context: np.ndarray
  context_mask: np.ndarray
  answers: np.ndarray
  answer_mask: np.ndarray
  correct: np.ndarray
  labels: np.ndarray
  label_names: tuple[str, ...]
  instance_ids: tuple[str, ...]
  attributes: np.ndarray = dataclasses.field(
      default_factory=lambda: np.zeros((0, 0), np.int32))
  attribute_names: tuple[str, ...] = ()
  attribute_sizes: tuple[int, ...] = ()
  attributes_missing: str = "built without an attribute schema"

  @property
  def num_instances(self) -> int:
    return int(self.correct.shape[0])

  @property
  def num_references(self) -> int:
    return int(self.context_mask.sum() + self.answer_mask.sum())

  @property
  def dedup_ratio(self) -> float:
    """Sentences referenced / distinct sentences (>= 1)."""
    return self.num_references / max(1, len(self.sentences))

  def select(self, rows: Sequence[int] | np.ndarray) -> "SentenceTable":
    """The same table restricted to some instances (sentences kept whole)."""
    rows = np.asarray(rows, dtype=np.int64)
    return dataclasses.replace(
        self,
        context=self.context[rows],
        context_mask=self.context_mask[rows],
        answers=self.answers[rows],
        answer_mask=self.answer_mask[rows],
        correct=self.correct[rows],
        labels=self.labels[rows],
        instance_ids=tuple(self.instance_ids[i] for i in rows),
    )


def build_sentence_table(
    instances: Iterable[schema.BLMInstance],
    label_names: Sequence[str] | None = None,
    sentences: Sequence[str] = (),
    attribute_schema: AttributeSchema | None = None,
) -> SentenceTable:
  """Builds the table for `instances`.

  Args:
    instances: BLM instances (any family, any counts).
    label_names: the label inventory for `labels`; by default the labels seen,
      in first-seen order. A label outside a given inventory is an error.
    sentences: sentences to put first, in this order (so several splits can
      share one table by passing the previous table's sentences).
    attribute_schema: the family design's schema; fills `attributes` when
      every sentence carries a pattern (a pattern it cannot read raises).
  """
  instances = list(instances)
  index: dict[str, int] = {}
  texts: list[str] = []
  patterns: list[str] = []

  def idx(s: schema.Sentence | str) -> int:
    text = s if isinstance(s, str) else s.text
    i = index.get(text)
    if i is None:
      i = index[text] = len(texts)
      texts.append(text)
      patterns.append("" if isinstance(s, str) else s.pattern)
    return i

  for s in sentences:
    idx(s)

  fixed = label_names is not None
  names = list(label_names or ())
  label_index = {n: i for i, n in enumerate(names)}
  n = len(instances)
  max_c = max((len(x.context) for x in instances), default=0)
  max_a = max((len(x.answers) for x in instances), default=0)
  context = np.zeros((n, max_c), np.int32)
  context_mask = np.zeros((n, max_c), bool)
  answers = np.zeros((n, max_a), np.int32)
  answer_mask = np.zeros((n, max_a), bool)
  labels = np.full((n, max_a), -1, np.int32)
  correct = np.zeros((n,), np.int32)
  for r, inst in enumerate(instances):
    for j, s in enumerate(inst.context):
      context[r, j] = idx(s)
      context_mask[r, j] = True
    for j, (s, lab) in enumerate(zip(inst.answers, inst.labels)):
      answers[r, j] = idx(s)
      answer_mask[r, j] = True
      if lab not in label_index:
        if fixed:
          raise ValueError(
              f"instance {inst.id!r}: label {lab!r} not in the inventory "
              f"{tuple(names)}")
        label_index[lab] = len(names)
        names.append(lab)
      labels[r, j] = label_index[lab]
    correct[r] = inst.correct
  codes, missing = encode_patterns(attribute_schema, patterns)
  return SentenceTable(
      sentences=tuple(texts),
      patterns=tuple(patterns),
      context=context,
      context_mask=context_mask,
      answers=answers,
      answer_mask=answer_mask,
      correct=correct,
      labels=labels,
      label_names=tuple(names),
      instance_ids=tuple(x.id for x in instances),
      attributes=codes,
      attribute_names=(attribute_schema.names if codes.shape[1] else ()),
      attribute_sizes=(attribute_schema.num_values if codes.shape[1]
                       else ()),
      attributes_missing=missing,
  )
