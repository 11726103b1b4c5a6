"""Verbatim repeated context sentences, judged by lexical type.

000 (sec. 4) defines type I as "the same lexical elements for the verb,
AGENT, THEME, and LOC are found for every sentence in each context", so a
type I context repeats a sentence exactly when its progression repeats a
pattern; types II and III vary the words, so no context sentence may
repeat another. A family's `validate.py` wraps `repeated_context` in its
`Check`.
"""

from __future__ import annotations

from data_builders.common.schema import BLMInstance


def repeated_context(x: BLMInstance) -> list[str]:
  """One message per pair of context sentences that breaks the rule of
  `x.lexical_type` (above); none for a type this rule does not know."""
  out = []
  for j, b in enumerate(x.context):
    for i, a in enumerate(x.context[:j]):
      same_text = " ".join(a.text.split()) == " ".join(b.text.split())
      if x.lexical_type == "I":
        if same_text != (a.pattern == b.pattern):
          out.append(
              f"context {i + 1} and {j + 1}: "
              + ("the same words in two patterns" if same_text else
                 "one pattern in two wordings") + f" ({b.text!r})")
      elif x.lexical_type in ("II", "III") and same_text:
        out.append(f"context {i + 1} and {j + 1}: {b.text!r} twice, in a "
                   f"type {x.lexical_type} context that varies the words")
  return out
