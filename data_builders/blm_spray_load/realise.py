"""Turning a spray/load pattern plus lexical material into a Sentence.

One chunk per pattern slot, between the frame's own words: chunks are
(frame prefix, slot 1, ..., slot n, frame suffix, "."), with "" where the
frame has no prefix or suffix, so chunk i+1 always realises slot i and a
test can check each phrase against the slot it came from.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Mapping

from data_builders.blm_spray_load import english, templates
from data_builders.common.schema import Sentence
from data_builders.common.template import Pattern

CLAUSE = "{clause}"
# A verb slot's polarity (its `pol` attribute): absent, the seed frame's own.
AFF, NEG = "Aff", "Neg"
_POLARITIES = ("", AFF, NEG)


@dataclasses.dataclass(frozen=True)
class Frame:
  """The sentence type of a seed: a wrapper around the clause (imperative,
  relative, adverbial...), the verb group (tense/modal) and an adverb."""

  wrapper: str = CLAUSE
  group: str = "present"
  adverb: str = ""

  def split(self) -> tuple[str, str]:
    prefix, suffix = self.wrapper.split(CLAUSE)
    return prefix.strip(), suffix.strip()

  def polar(self, polarity: str) -> "Frame":
    """This frame affirmative (AFF) or negated (NEG); "" keeps it as is."""
    if not polarity:
      return self
    group, adverb = english.with_polarity(self.group, self.adverb,
                                          polarity == NEG)
    return dataclasses.replace(self, group=group, adverb=adverb)


@dataclasses.dataclass(frozen=True)
class VerbFrame:
  """A verb in its seed's frame: every verb group it needs, precomputed."""

  forms: english.VerbForms
  frame: Frame

  @functools.cached_property
  def prefix_suffix(self) -> tuple[str, str]:
    return self.frame.split()

  @functools.cached_property
  def groups(self) -> dict[tuple[str, str, str], str]:
    """(Verb|VerbPass, agreement, polarity) -> the verb group."""
    out = {}
    for pol in _POLARITIES:
      f = self.frame.polar(pol)
      out.update(((voice, agr, pol), fn(f.group, self.forms, agr, f.adverb))
                 for voice, fn in (("Verb", english.active),
                                   ("VerbPass", english.passive))
                 for agr in ("1sg", "3sg", "pl"))
    return out


@dataclasses.dataclass(frozen=True)
class Filler:
  """The lexical material of one sentence."""

  verb: VerbFrame
  args: Mapping[str, english.NP]        # role -> NP
  prep: str                             # the locative preposition
  wrong_prep: str = ""                  # LEXPREP
  modifiers: Mapping[str, str] = dataclasses.field(
      default_factory=dict)             # role -> noun-modifying PP (NOEMB)


def _prep(kind: str, f: Filler) -> str:
  if kind == templates.WRONG_PREP:
    return f.wrong_prep
  return f.prep if kind == templates.DEFAULT_PREP["Loc"] else kind


@functools.lru_cache(maxsize=None)
def plan(p: Pattern) -> tuple[str, tuple[tuple[str, str], ...]]:
  """(pattern string, one (op, argument) per slot), computed once per
  pattern: realising a dataset realises the same few patterns many times."""
  ops = []
  for i, s in enumerate(p.slots):
    if s.role == "NP":
      ops.append(("subject" if i == 0 else "object", s.get("arg")))
    elif s.role in ("Verb", "VerbPass"):
      ops.append((s.role, s.get("pol") or ""))
    elif s.role == "PP" and s.get("arg") == templates.EMB:
      ops.append(("modifier", p.slots[i - 1].get("arg")))
    elif s.role == "PP":
      ops.append((templates.prep_kind(s), s.get("arg")))
    else:
      raise ValueError(f"cannot realise slot {s} of pattern {p}")
  if ops[0][0] != "subject":
    raise ValueError(f"pattern {p} does not start with its subject NP")
  return str(p), tuple(ops)


Plan = tuple  # (pattern string, ((op, role), ...)) from `plan`.


def phrases(p: Pattern | Plan, f: Filler) -> list[str]:
  """One phrase per slot of `p` (the clause, uncapitalised)."""
  _, ops = p if isinstance(p, tuple) else plan(p)
  subject = f.args[ops[0][1]]
  out = []
  for op, arg in ops:
    if op == "subject":
      out.append(subject.text)
    elif op == "object":
      out.append(f.args[arg].accusative())
    elif op in ("Verb", "VerbPass"):
      out.append(f.verb.groups[op, subject.agreement, arg])
    elif op == "modifier":
      out.append(f.modifiers[arg])
    else:
      prep = _prep(op, f)
      if not prep:
        raise ValueError(f"no preposition {op!r} for pattern {p}")
      out.append(f"{prep} {f.args[arg].accusative()}")
  return out


def realise(p: Pattern | Plan, f: Filler) -> Sentence:
  """The sentence of pattern `p` (or its precomputed `plan(p)`) with `f`.

  Text and chunks are built from the same phrases, so the chunks always
  rebuild the text (what `template.realised` would check, at a cost the
  hot loop of a 15,000-instance build does not need to pay).
  """
  p = p if isinstance(p, tuple) else plan(p)
  prefix, suffix = f.verb.prefix_suffix
  chunks = [prefix, *phrases(p, f), suffix, "."]
  first = 0 if prefix else 1
  chunks[first] = english.capitalise(chunks[first])
  text = " ".join([c for c in chunks[:-2] if c]) + (
      f" {suffix}." if suffix else ".")
  return Sentence(text, p[0], tuple(chunks))
