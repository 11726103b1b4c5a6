"""Turning a pattern plus a seed's words into a chunked sentence.

Chunks follow the published agreement data: [matrix clause of a completive],
subject NP, PP1, PP2 (or its coordinated replacement, or "" when absent),
[relative clause, after the PPs: it attaches to the nearest noun], verb
phrase, "." . Morphology is per language
(`morph_<lang>.py`); this module only orders and capitalises.
"""

from __future__ import annotations

import dataclasses
import types

from data_builders.common.schema import Sentence
from data_builders.blm_agreement import (morph_en, morph_fr, morph_it,
                                         morph_ro, templates)
from data_builders.common.template import Pattern, realised

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


def chunks(language: str, pat: Pattern, w: Words) -> tuple[str, ...]:
  m = MORPHOLOGY[language]
  nums = {s.role: s.get("num") for s in pat.slots}
  subj = nums[templates.NP]
  out = []
  for role in pat.roles():
    num = nums[role]
    if role == templates.PREFIX:
      out.append(w.prefix)
    elif role == templates.NP:
      out.append(m.np(w.n, num))
    elif role == templates.PP1:
      out.append(m.pp(w.p1, w.n1, num))
      if not (pat.has(templates.PP2) or pat.has(templates.COORD)):
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


def sentence(language: str, pat: Pattern, w: Words) -> Sentence:
  chs = chunks(language, pat, w)
  return realised(join(chs), pat, chs)
