"""Building the sequence-necessary agreement instances (`<lang>_seq_type_<T>`,
README "Sequence-necessary configs"): the lexical types of `generate.py`,
each instance with its own plan (`seq_templates.draw_plan`), drawn from a
random stream of its own seeded by the instance's id, apart from the
lexical draws.

Clause types: main and relative clauses (`CLAUSES`); the completive is the
plan's embedding attribute, so every seed carries a matrix clause of the
lexicon's prefixes (`Seed.matrix`, one per instance), which precedes the
sentences the plan embeds.

- Type I: `per_clause` seeds per clause type drawn with replacement, each
  with its plan; the answer set in the frame's other N1 and N2, so that no
  candidate repeats a context sentence (as the `_ctx` type I).
- Types II and III: anchors drawn as in `generate._generate`, each with its
  plan in place of the paper's number variant; type III's donors (other
  seeds) bring their own matrix clauses. No context sentence repeats
  another word for word (type II redraws its replacement, type III its
  donor sentence).

The lexicon is loaded with its corrections (`lexicon/<lang>/corrections.tsv`:
Romanian object marking). A seed whose matrix clause, relative clause and any of its frame's verb
phrases hold the same quantifier phrase twice (*Tout le monde sait que ...
a surpris tout le monde*; `quantifiers.py`) is left out of the pools.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

from data_builders.blm_agreement import generate as gen
from data_builders.blm_agreement import lexicon as lexicon_lib
from data_builders.blm_agreement import quantifiers
from data_builders.blm_agreement import seq_templates
from data_builders.common import splits
from data_builders.common.schema import BLMInstance

SEQ_SET = gen.AnswerSet(seq_templates.FAMILY, seq_templates.ALL_TEMPLATES)
CLAUSES = ("main", "relative")
_MAX_REDRAWS = 50


def seeds(lex: lexicon_lib.Lexicon, clause: str) -> list[gen.Seed]:
  """Every seed of one clause type, each with every matrix clause that
  shares no quantifier phrase with its relative clause or with any verb
  phrase of its frame (type II may swap in any of them)."""
  if clause not in CLAUSES:
    raise ValueError(f"unknown _seq clause type {clause!r}; known: "
                     f"{CLAUSES} (the completive is the embedding attribute)")
  return [dataclasses.replace(s, matrix=m) for s in gen.seeds(lex, clause)
          for m in range(len(lex.prefixes))
          if not repeats_a_quantifier(lex, s, m)]


def repeats_a_quantifier(lex: lexicon_lib.Lexicon, seed: gen.Seed,
                         matrix: int) -> bool:
  """Whether a sentence of `seed` under matrix clause `matrix` could hold
  one quantifier phrase twice."""
  relative = lex.relatives[seed.extra] if seed.clause == "relative" else ""
  return any(quantifiers.repeated(lex.language, lex.prefixes[matrix],
                                  relative, lex.verbs[vp].sg)
             for vp in seed.frame.vp)


def plan_for(config_seed, *id_parts) -> seq_templates.Plan:
  return seq_templates.draw_plan(gen._rng("seq plan", config_seed, *id_parts))


def generate_seq(language: str, clauses: Sequence[str], lexical_type: str,
                 per_clause: int, config_seed, lexicon_root=None,
                 fractions=splits.DEFAULT_FRACTIONS) -> list[BLMInstance]:
  """`per_clause` instances of each clause type, of one lexical type."""
  if lexical_type not in ("I", "II", "III"):
    raise ValueError(f"unknown lexical type {lexical_type!r}; known: I, II, "
                     "III")
  lex = lexicon_lib.load(language, lexicon_root, corrected=True)
  r = gen.Realiser(lex)
  pools = {c: seeds(lex, c) for c in clauses}
  if lexical_type == "I":
    out, seen = [], set()
    for c in clauses:
      rng = gen._rng("seq I", config_seed, language, c)
      for j in range(per_clause):
        # A (seed, plan) pair drawn twice (a small seed pool, as Romanian's)
        # is drawn again, with the attempt in the plan's stream; the first
        # attempt is what every pair that is not repeated keeps.
        for attempt in range(_MAX_REDRAWS):
          s = pools[c][rng.randrange(len(pools[c]))]
          plan = plan_for(config_seed, language, c, "I", j,
                          *((attempt,) if attempt else ()))
          inst = gen.type_i(r, s, plan, config_seed, False, SEQ_SET)
          if inst.id not in seen:
            break
        else:
          raise ValueError(f"{language} seq type I, {c}: {_MAX_REDRAWS} "
                           f"draws of instance {j} repeat earlier ones")
        seen.add(inst.id)
        out.append(inst)
    return out
  anchors = []
  for c in clauses:
    rng = gen._rng("II", config_seed, language, c)
    for j in range(per_clause):
      s = pools[c][rng.randrange(len(pools[c]))]
      anchors.append((s, plan_for(config_seed,
                                  gen._type_ii_id(language, s, j)), j))
  if lexical_type == "II":
    return [gen.type_ii(r, s, p, j, config_seed, SEQ_SET,
                        distinct_context=True) for s, p, j in anchors]
  # Type III: donors (any seed of the clause type can realise any pattern)
  # from the anchor's own split, as in `generate._generate`.
  parts = splits.assign_splits(
      sorted({gen.group_key(language, s) for s, _, _ in anchors}),
      config_seed, group_of=lambda k: k, fractions=fractions)
  split_of = {k: name for name, keys in parts.items() for k in keys}
  donors: dict = {}
  for c in clauses:
    for s in pools[c]:
      key = (split_of.get(gen.group_key(language, s)), c)
      donors.setdefault(key, {}).setdefault(s.frame.id, []).append(s)
  return [gen.type_iii(
      r, s, p, j, donors[(split_of[gen.group_key(language, s)], s.clause)],
      config_seed, SEQ_SET) for s, p, j in anchors]
