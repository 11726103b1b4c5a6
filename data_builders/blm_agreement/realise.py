"""Turning a pattern plus a seed's words into a chunked sentence.

Chunks follow the published agreement data: [matrix clause of a completive],
subject NP, PP1, PP2 (or its coordinated replacement, or "" when absent),
[relative clause, after the PPs: it attaches to the nearest noun], verb
phrase, "." . Morphology is per language
(`morph_<lang>.py`); this module only orders and capitalises.
"""

from __future__ import annotations

import dataclasses
import functools
import types

from data_builders.common.schema import Sentence
from data_builders.blm_agreement import (morph_en, morph_fr, morph_it,
                                         morph_ro, templates)
from data_builders.common.template import Pattern

MORPHOLOGY: dict[str, types.ModuleType] = {
    "en": morph_en, "fr": morph_fr, "it": morph_it, "ro": morph_ro}


@dataclasses.dataclass(frozen=True)
class Words:
  """The lexical material of one sentence (nouns and verb as entries)."""

  n: object
  p1: str
  n1: object
  p2: str
  n2: object
  vp: object
  prefix: str = ""
  rc: str = ""


@functools.lru_cache(maxsize=None)
def _layout(pat: Pattern) -> tuple[tuple[tuple[str, str], ...], str, bool]:
  """((role, number) per slot, the subject's number, whether the pattern
  has a second attractor), once per pattern: a build realises the same few
  patterns with many words."""
  nums = {s.role: s.get("num") for s in pat.slots}
  roles = pat.roles()
  return (tuple((role, nums[role]) for role in roles), nums[templates.NP],
          templates.PP2 in roles or templates.COORD in roles)


def chunks(language: str, pat: Pattern, w: Words) -> tuple[str, ...]:
  m = MORPHOLOGY[language]
  slots, subj, two_attractors = _layout(pat)
  out = []
  for role, num in slots:
    if role == templates.PREFIX:
      out.append(w.prefix)
    elif role == templates.NP:
      out.append(m.np(w.n, num))
    elif role == templates.PP1:
      out.append(m.pp(w.p1, w.n1, num))
      if not two_attractors:
        out.append("")  # Keeps the chunk positions of two-attractor sentences.
    elif role == templates.PP2:
      out.append(m.pp(w.p2, w.n2, num))
    elif role == templates.COORD:
      out.append(m.coord(w.p1, w.n2, num, w.n, subj))
    elif role == templates.RC:
      out.append(w.rc)
    elif role == templates.VP:
      out.append(w.vp.form(num))
    else:
      raise ValueError(f"pattern {pat} has unknown role {role!r}")
  out[0] = out[0][:1].upper() + out[0][1:]
  return tuple(out) + (".",)


def join(chs) -> str:
  return " ".join(c for c in chs[:-1] if c) + chs[-1]


def sentence(language: str, pat: Pattern, w: Words,
             pat_str: str | None = None) -> Sentence:
  """The sentence of `pat` with `w`; `pat_str`: `str(pat)`, when the
  caller has it. The text is joined from the chunks, so the check of
  `template.realised` (the chunks rebuild the text) always holds: the hot
  loop of a 30,000-instance build does not pay for it."""
  chs = chunks(language, pat, w)
  return Sentence(join(chs), str(pat) if pat_str is None else pat_str, chs)
