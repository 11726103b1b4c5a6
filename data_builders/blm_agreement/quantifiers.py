"""The quantifier phrases the agreement lexicons hold, per language: a
matrix clause (*Tout le monde sait que*), a relative clause (*dont tout le
monde parle*) and a verb phrase (*a surpris tout le monde*) may each hold
one, and a sentence holding the same one twice reads as a slip. The
`_seq` generator keeps such combinations out (`generate_seq.seeds`); the
validator (`validate.py`) counts them.

Each phrase is matched as whole words, case-insensitively; the tests check
that every quantifier word in the lexicons' prefixes, relatives and verb
phrases is listed here.
"""

from __future__ import annotations

import functools
import re

QUANTIFIERS = {
    "en": ("everyone", "everybody", "nobody", "no one"),
    "fr": ("tout le monde", "personne"),
    "it": ("tutti", "nessuno"),
    "ro": ("toată lumea", "nimeni", "toți"),
}

_PATTERNS = {lang: {q: re.compile(rf"(?<!\w){re.escape(q)}(?!\w)",
                                  re.IGNORECASE) for q in qs}
             for lang, qs in QUANTIFIERS.items()}


def counts(language: str, text: str) -> dict[str, int]:
  """{quantifier phrase: occurrences} of those `text` holds."""
  if language not in _PATTERNS:
    raise ValueError(f"no quantifier list for language {language!r}; known: "
                     f"{sorted(_PATTERNS)}")
  out = {}
  for q, pat in _PATTERNS[language].items():
    n = len(pat.findall(text))
    if n:
      out[q] = n
  return out


@functools.lru_cache(maxsize=4096)
def repeated(language: str, *texts: str) -> tuple[str, ...]:
  """The quantifier phrases that occur more than once in `texts` taken
  together."""
  return tuple(sorted(q for q, n in counts(language, " ".join(texts)).items()
                      if n > 1))
