"""Validators for the lexical slips a reader found in spray/load data (shared
by both spray/load packages: they realise the same lexicon).

- `verb_form_stutters`: a sentence in which a noun is a form of the
  sentence's own verb ("the baker sprinkles the cookies with sprinkles").
- `emitter_with_variants`: spurt in the with-variant with a leaking pipe or
  valve as its agent ("The leaking valve has spurted the ceiling with
  water."): spurt's with-variant needs an agent that aims.
- `repeated_context`: `common.repeats` (type I repeats a sentence exactly
  when its progression repeats a pattern; types II and III never).

`CHECKS` holds them for `lint` (`common.validation`); the `seq` configs scan
to zero on each (tests/data_builders/test_cos_od_validate.py).
"""

from __future__ import annotations

import functools
import re
from typing import Iterable

from data_builders.blm_spray_load import lexicon as lexicon_lib
from data_builders.common import repeats
from data_builders.common.validation import Check

_WORD = re.compile(r"[a-z]+(?:-[a-z]+)*")
EMITTERS = ("pipe", "pipes", "valve", "valves", "boiler", "boilers",
            "radiator", "radiators")


def _forms_by_word(lex: lexicon_lib.Lexicon) -> dict[str, set[str]]:
  out: dict[str, set[str]] = {}
  for e in lex.entries:
    for w in lexicon_lib.verb_form_words(e.forms):
      out.setdefault(w, set()).add(e.verb)
  return out


def verb_form_stutters(texts: Iterable[str],
                       lex: lexicon_lib.Lexicon) -> list[str]:
  """The texts in which two words are forms of one lexicon verb and no other
  lexicon verb occurs: that verb is the sentence's, and one of the two is a
  noun. (A v0 WS candidate repeats its noun by design, "Every autumn seeds
  scatter with seeds": there the verb is another one.)"""
  by_word = _forms_by_word(lex)
  out = []
  for text in texts:
    counts: dict[str, int] = {}
    for w in _WORD.findall(text.lower()):
      for verb in by_word.get(w, ()):
        counts[verb] = counts.get(verb, 0) + 1
    if len(counts) == 1 and max(counts.values()) > 1:
      out.append(text)
  return out


def emitter_with_variants(texts: Iterable[str],
                          lex: lexicon_lib.Lexicon) -> list[str]:
  """The texts where spurt takes the with-variant with an emitter agent."""
  forms = lexicon_lib.verb_form_words(lex["spurt"].forms)
  out = []
  for text in texts:
    words = set(_WORD.findall(text.lower()))
    if words & forms and " with " in text and words & set(EMITTERS):
      out.append(text)
  return out


def _texts(x) -> list[str]:
  return [s.text for s in (*x.context, *x.answers)]


@functools.lru_cache(maxsize=None)
def _lexicon() -> lexicon_lib.Lexicon:
  return lexicon_lib.load_lexicon()


CHECKS = (
    Check("verb_form_stutters",
          "no sentence uses a form of its own verb as a noun",
          lambda x: [f"{t!r}" for t in verb_form_stutters(_texts(x),
                                                          _lexicon())]),
    Check("emitter_with_variants",
          "spurt's with-variant has an agent that aims, not a leaking "
          "emitter", lambda x: [f"{t!r}" for t in emitter_with_variants(
              _texts(x), _lexicon())]),
    Check("repeated_context",
          "type I repeats a context sentence exactly where its pattern "
          "repeats (000: the same lexical elements in every sentence); "
          "types II and III never", repeats.repeated_context),
)


if __name__ == "__main__":
  # python -m data_builders.blm_spray_load.validate: instances breaking each
  # check per `seq` type at full size (seq_rules and seq_extrap split the
  # same instances).
  from data_builders.blm_spray_load import generate
  from data_builders.common.validation import findings

  for lexical_type in generate.LEXICAL_TYPES:
    counts = {c.name: 0 for c in CHECKS}
    xs = generate.generate_seq(lexical_type, _lexicon())
    for x in xs:
      for name in findings(CHECKS, x):
        counts[name] += 1
    print(f"seq_type_{lexical_type}: {len(xs)} instances, " + ", ".join(
        f"{k} {v}" for k, v in counts.items()), flush=True)
