"""English realiser of the Roll patterns (simple past, as 000 Figure 10).

A sentence combines one scene's material: the paradigm tag of each slot picks
the scene, so P-errors really reuse paradigm 1's words. `was`/`were` agrees
with the subject; "did it" stands for the agent diagnostic whatever the
theme's number (it resumes the event). Chunks: subject, verb, complement, stop.
"""

from __future__ import annotations

import dataclasses

from data_builders.blm_roll.lexicon import Location, NP, Verb
from data_builders.common.schema import Sentence
from data_builders.common.template import Pattern, realised


@dataclasses.dataclass(frozen=True)
class Material:
  """The words of one paradigm: the scene's choices for this instance."""

  agent: NP
  theme: NP
  location: Location


def realise(pat: Pattern, materials: dict[str, Material],
            verb: Verb | None) -> Sentence:
  """`verb` realises V-roll (None is allowed only for did/was patterns)."""
  subj = pat.slot("NP")
  m = materials[subj.get("par")]
  subject = {"Agent": m.agent, "Theme": m.theme}[subj.get("arg")]
  kind = pat.slot("V").get("kind")
  if kind == "roll":
    if verb is None:
      raise ValueError(f"pattern {pat} needs a verb")
    v = verb.past
  elif kind == "did":
    v = "did"
  elif kind == "was":
    v = "was" if subject.number == "sg" else "were"
  else:
    raise ValueError(f"no realisation for verb slot {pat.slot('V')}")
  tail = pat.slots[2]
  tm = materials[tail.get("par")]
  if tail.role == "OBJ":
    comp = {"Agent": tm.agent, "Theme": tm.theme}[tail.get("arg")].text
  elif tail.role == "PRO":
    comp = "it"
  elif tail.role == "LOC":
    comp = tm.location.path if tail.get("kind") == "path" else tm.location.state
  else:
    raise ValueError(f"no realisation for slot {tail} in {pat}")
  chunks = [subject.text[:1].upper() + subject.text[1:], v, comp, "."]
  return realised(" ".join(chunks[:-1]) + ".", pat, chunks)
