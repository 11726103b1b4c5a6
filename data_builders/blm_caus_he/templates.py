"""The CausH template (002 sec. 4.3, Figure 11): a type C BLM over binyanim.

The context is three complete pairs and one incomplete pair: each pair is two
sentences whose main verb is in the same binyan; the three complete pairs show
three binyanim in the canonical order Paal, Nifal, Hifil, Hufal, and the
fourth pair's first sentence shows the remaining one. The answer set has one
sentence per binyan; the correct one is in the remaining binyan. Figure 11's
four columns are the four choices of the remaining binyan:

    remaining HUFAL:  PAAL PAAL  NIFAL NIFAL  HIFIL HIFIL  HUFAL ?
    remaining HIFIL:  PAAL PAAL  NIFAL NIFAL  HUFAL HUFAL  HIFIL ?
    remaining NIFAL:  PAAL PAAL  HIFIL HIFIL  HUFAL HUFAL  NIFAL ?
    remaining PAAL:   NIFAL NIFAL  HIFIL HIFIL  HUFAL HUFAL  PAAL ?

Rule: the missing sentence completes its pair, so it has the binyan of
sentence 7. A wrong candidate is labelled by the binyan it shows instead
(002: "All the wrong candidates are errors of Grammar").
"""

from __future__ import annotations

from data_builders.blm_caus_he.morph import BINYANIM

CORRECT = "CORRECT"


def context_binyanim(target: str) -> tuple[str, ...]:
  """The binyan of each of the seven context sentences (one column)."""
  if target not in BINYANIM:
    raise ValueError(f"unknown binyan {target!r}; known: {BINYANIM}")
  others = [b for b in BINYANIM if b != target]
  return tuple(b for b in others for _ in range(2)) + (target,)


def answer_labels(target: str) -> dict[str, str]:
  """binyan of each candidate -> its label."""
  return {b: CORRECT if b == target else b for b in BINYANIM}
