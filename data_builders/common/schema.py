"""One instance schema for every BLM family.

A BLM instance is a context (a sequence of sentences) plus a candidate answer
set with exactly one correct answer; every sentence carries the pattern it was
generated from. Counts are per instance: nothing here assumes 7 context
sentences or 8 answers.

`BLMInstance` is the typed Python view; `features()` is the matching TFDS
`FeaturesDict`, and `to_example` / `from_example` convert between the two
(decoded TFDS records give bytes for text, which `from_example` accepts).
Chunk lists are stored per sentence as a JSON list string ("" when absent)
because nested ragged text sequences do not round-trip without TensorFlow.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Mapping, Sequence

import numpy as np

LEXICAL_TYPES = ("I", "II", "III", "MinLex", "MaxLex", "")


@dataclasses.dataclass(frozen=True)
class Sentence:
  """A realised sentence and the pattern it was realised from."""

  text: str
  pattern: str = ""
  chunks: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class BLMInstance:
  """One BLM puzzle in the family-independent schema.

  `labels` uses the papers' error names (e.g. AEN1, ALT-NP); `raw_labels`
  keeps the source's own label where it differs (the published files), and
  equals `labels` for generated data.
  """

  id: str
  family: str
  language: str
  lexical_type: str
  subset: str
  context: tuple[Sentence, ...]
  answers: tuple[Sentence, ...]
  correct: int
  labels: tuple[str, ...]
  raw_labels: tuple[str, ...] = ()

  def __post_init__(self):
    if not self.raw_labels:
      object.__setattr__(self, "raw_labels", tuple(self.labels))
    if len(self.labels) != len(self.answers):
      raise ValueError(
          f"instance {self.id!r}: {len(self.answers)} answers but "
          f"{len(self.labels)} labels")
    if len(self.raw_labels) != len(self.answers):
      raise ValueError(
          f"instance {self.id!r}: {len(self.answers)} answers but "
          f"{len(self.raw_labels)} raw labels")
    if not 0 <= self.correct < len(self.answers):
      raise ValueError(
          f"instance {self.id!r}: correct index {self.correct} outside "
          f"0..{len(self.answers) - 1}")

  @property
  def correct_answer(self) -> Sentence:
    return self.answers[self.correct]

  def to_example(self) -> dict[str, Any]:
    """The TFDS example dict for `features()`."""
    return {
        "id": self.id,
        "family": self.family,
        "language": self.language,
        "lexical_type": self.lexical_type,
        "subset": self.subset,
        "context": [s.text for s in self.context],
        "context_patterns": [s.pattern for s in self.context],
        "context_chunks": [_chunks_to_str(s.chunks) for s in self.context],
        "answers": [s.text for s in self.answers],
        "answer_patterns": [s.pattern for s in self.answers],
        "answer_chunks": [_chunks_to_str(s.chunks) for s in self.answers],
        "correct": np.int32(self.correct),
        "labels": list(self.labels),
        "raw_labels": list(self.raw_labels),
    }

  @classmethod
  def from_example(cls, ex: Mapping[str, Any]) -> "BLMInstance":
    """Inverse of `to_example`; accepts decoded TFDS records (bytes)."""

    def sentences(prefix_text, prefix_pat, prefix_chunks):
      texts = [_str(t) for t in ex[prefix_text]]
      pats = [_str(t) for t in ex[prefix_pat]]
      chunks = [_chunks_from_str(_str(t)) for t in ex[prefix_chunks]]
      return tuple(Sentence(t, p, c) for t, p, c in zip(texts, pats, chunks))

    return cls(
        id=_str(ex["id"]),
        family=_str(ex["family"]),
        language=_str(ex["language"]),
        lexical_type=_str(ex["lexical_type"]),
        subset=_str(ex["subset"]),
        context=sentences("context", "context_patterns", "context_chunks"),
        answers=sentences("answers", "answer_patterns", "answer_chunks"),
        correct=int(ex["correct"]),
        labels=tuple(_str(x) for x in ex["labels"]),
        raw_labels=tuple(_str(x) for x in ex["raw_labels"]),
    )


def features():
  """The TFDS FeaturesDict every BLM builder writes."""
  import tensorflow_datasets as tfds  # Imported lazily: heavy.

  text_seq = lambda: tfds.features.Sequence(tfds.features.Text())
  return tfds.features.FeaturesDict({
      "id": tfds.features.Text(),
      "family": tfds.features.Text(),
      "language": tfds.features.Text(),
      "lexical_type": tfds.features.Text(),
      "subset": tfds.features.Text(),
      "context": text_seq(),
      "context_patterns": text_seq(),
      "context_chunks": text_seq(),
      "answers": text_seq(),
      "answer_patterns": text_seq(),
      "answer_chunks": text_seq(),
      "correct": tfds.features.Scalar(dtype=np.int32),
      "labels": text_seq(),
      "raw_labels": text_seq(),
  })


def _str(x) -> str:
  return x.decode("utf-8") if isinstance(x, bytes) else str(x)


def _chunks_to_str(chunks: Sequence[str]) -> str:
  return json.dumps(list(chunks), ensure_ascii=False) if chunks else ""


def _chunks_from_str(s: str) -> tuple[str, ...]:
  return tuple(json.loads(s)) if s else ()
