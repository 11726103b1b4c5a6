"""The cue of blm_roll 1.1.0's context-necessary answer set, as a rule on
the candidates' words (no fitting, no context).

  python studies/roll_ctx_cue_rule.py

Each candidate is read as subject + verb + complement (its chunks). The
theme is the NP in most candidates; an NP is any candidate's subject, any
other complement is a path. Well-formed frames: I (theme + path) and T
(other NP + theme). The rule: (1) the asked frame is the more frequent of
the well-formed ones; (2) the context's material is the one whose words
recur least (TI: the rarer agent; IT: the rarer path), and the answer is
the asked-frame candidate that shares that material with the role-error
candidate `Agent V path`. Prints the rule's accuracy on every type at full
size: 1.000 on 1.1.0 (seven answers), about 1/2 on 1.2.0, where both
materials carry the same candidates and every count ties.
"""

from __future__ import annotations

import collections
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from data_builders.blm_roll import generate  # noqa: E402


def _kinds(x):
  cands = [(s.chunks[0].lower(), s.chunks[2].lower()) for s in x.answers]
  subjects = {a for a, _ in cands}
  counts = collections.Counter([a for a, _ in cands] +
                               [b for _, b in cands if b in subjects])
  theme = counts.most_common(1)[0][0]
  kinds = []
  for a, b in cands:
    path = b not in subjects
    kinds.append(("I" if path else "TRS") if a == theme else
                 ("IRR" if path else "T"))
  return cands, kinds, theme


def pick(x) -> int | None:
  """The rule's choice, None where it cannot decide."""
  cands, kinds, theme = _kinds(x)
  well_formed = collections.Counter(k for k in kinds if k in ("I", "T"))
  asked = well_formed.most_common(1)[0][0]
  rows = list(zip(cands, kinds))
  if asked == "I":
    agents = collections.Counter(
        n for (a, b), _ in rows for n in (a, b)
        if n != theme and n in {c[0] for c in cands})
    rare = min(agents, key=agents.get)
    path = next((b for (a, b), k in rows if k == "IRR" and a == rare), None)
    return next((i for i, ((a, b), k) in enumerate(rows)
                 if k == "I" and b == path), None)
  paths = collections.Counter(b for (a, b), k in rows if k in ("I", "IRR"))
  rare = min(paths, key=paths.get)
  agent = next((a for (a, b), k in rows if k == "IRR" and b == rare), None)
  return next((i for i, ((a, b), k) in enumerate(rows)
               if k == "T" and a == agent), None)


def main():
  for t in generate.LEXICAL_TYPES:
    xs = generate.generate(t, context_necessary=True)
    hits = sum(pick(x) == x.correct for x in xs)
    print(f"ctx_type_{t}: {hits}/{len(xs)} = {hits / len(xs):.3f}")


if __name__ == "__main__":
  main()
