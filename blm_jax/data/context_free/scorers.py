"""Each context-free scorer but the MLP, per (train type, test type) of a grid.

The grid's train types' training tables fit each scorer; its test types'
test tables score it. Each score is an accuracy with ties shared out
evenly, the same quantity as the heatmap's F1 (one correct and one chosen
answer per instance): the word logit (`answers_only`, every train type's
fit at once by `stacked_logit`), odd-one-in (nothing fitted: it depends on
the test type only) and the set scorers (`set_scorer`).
"""

from __future__ import annotations

import numpy as np

from blm_jax.data.context_free import answers_only, set_scorer, stacked_logit
from blm_jax.data.sentence_table import SentenceTable


def _answer_texts(table: SentenceTable, sentences) -> list[list[str]]:
  return [[sentences[i] for i, m in zip(row, mask) if m]
          for row, mask in zip(table.answers, table.answer_mask)]


def _real_correct(table: SentenceTable) -> np.ndarray:
  """The correct index among each instance's real (unmasked) candidates."""
  before = np.cumsum(table.answer_mask, axis=1) - 1
  return before[np.arange(table.num_instances), table.correct]


def _word_batch(table: SentenceTable, sentences):
  return answers_only.batch_texts(_answer_texts(table, sentences),
                                  _real_correct(table))


def word_logit_accuracy(train: dict[str, SentenceTable],
                        test: dict[str, SentenceTable],
                        sentences) -> dict[str, dict[str, float]]:
  """{train type: {test type: expected accuracy}} of the word logit, one
  fit per train type, all fitted together (`stacked_logit`)."""
  held = {u: _word_batch(table, sentences) for u, table in test.items()}
  fitted = stacked_logit.fit_logits([_word_batch(table, sentences)
                                     for table in train.values()])
  return {t: {u: answers_only.held_out_accuracy(w, b)
              for u, b in held.items()} for t, w in zip(train, fitted)}


def set_scorer_accuracy(train: dict[str, SentenceTable],
                        test: dict[str, SentenceTable], sentences
                        ) -> dict[str, dict[str, dict[str, float]]]:
  """{scorer: {train type: {test type: expected accuracy}}} of the set
  scorers (`set_scorer.SCORERS`), one fit per train type."""
  held = {u: (_answer_texts(t, sentences), _real_correct(t))
          for u, t in test.items()}
  out = {s: {} for s in set_scorer.SCORERS}
  for t, table in train.items():
    model = set_scorer.fit(_answer_texts(table, sentences),
                           _real_correct(table))
    for u, (texts, correct) in held.items():
      got = model.scores(texts)
      for s in set_scorer.SCORERS:
        out[s].setdefault(t, {})[u] = set_scorer.containment(
            got[s], correct, 1)
  return out


def odd_one_in_accuracy(test: SentenceTable, sentences) -> float:
  """Odd-one-in's expected accuracy on `test` (nothing fitted)."""
  return float(np.mean([
      answers_only.odd_one_in_hit(texts, k) for texts, k in zip(
          _answer_texts(test, sentences), _real_correct(test))]))
