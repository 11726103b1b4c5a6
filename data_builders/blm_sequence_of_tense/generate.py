"""Generating sequence-of-tense instances of lexical types I, II and III.

- Type I: one person, one gender, one premise and one consequent adjective
  throughout the instance; every combination (3 x 2 x 12 x 12 = 864 with
  the shipped lexicon).
- Type II: person and gender fixed per instance, each context sentence draws
  its own adjectives; the answer set shares one draw (no candidate stands
  out by its words).
- Type III: each context sentence draws its person, gender and adjectives;
  the answer set shares one draw.

Draws are seeded by the instance id and the config seed. Type I instances
are split by their adjective pair (`group_of`), so no adjective pair (hence
no sentence) is in two splits; types II and III by context, as the other
families.
"""

from __future__ import annotations

import itertools
import random
from typing import Sequence

from blm_jax.schema import BLMInstance
from data_builders.blm_sequence_of_tense import italian
from data_builders.blm_sequence_of_tense import lexicon as lexicon_lib
from data_builders.blm_sequence_of_tense import realise, templates
from data_builders.common import splits
from data_builders.common.instances import make_instance, stable_seed

LANGUAGE = "it"
LEXICAL_TYPES = ("I", "II", "III")
VARIED_SIZE = 3000
_MAX_RETRIES = 100


def _rng(*parts) -> random.Random:
  return random.Random(stable_seed(*parts))


def instance(id_: str, lexical_type: str, seed, persons: Sequence[str],
             genders: Sequence[str], fillers: Sequence[realise.Filler],
             answer_filler: realise.Filler) -> BLMInstance:
  """persons/genders/fillers: one per context sentence, then the answers'."""
  ctx = templates.context_patterns(persons, genders)
  context = [realise.sentence(p, f) for p, f in zip(ctx, fillers)]
  candidates = [(label, realise.sentence(p, answer_filler)) for label, p in
                templates.answers(persons[-1], genders[-1]).items()]
  return make_instance(
      id=id_, family=templates.FAMILY, language=LANGUAGE,
      lexical_type=lexical_type, subset="hypothetical", context=context,
      candidates=candidates, correct_label=templates.CORRECT, seed=seed)


def _draw_filler(rng: random.Random, lex: lexicon_lib.Lexicon):
  return realise.Filler(rng.choice(lex.premise), rng.choice(lex.consequent))


def generate(lexical_type: str, lex: lexicon_lib.Lexicon | None = None,
             seed: int = 0, size: int = VARIED_SIZE) -> list[BLMInstance]:
  lex = lex or lexicon_lib.load()
  if lexical_type not in LEXICAL_TYPES:
    raise ValueError(f"unknown lexical type {lexical_type!r}; known: "
                     f"{LEXICAL_TYPES}")
  n = templates.N_CONTEXT + 1
  if lexical_type == "I":
    out = []
    for prem, cons, person, gender in itertools.product(
        lex.premise, lex.consequent, italian.PERSONS, italian.GENDERS):
      f = realise.Filler(prem, cons)
      out.append(instance(f"I/{prem.ms}-{cons.ms}/{person}{gender}", "I",
                          seed, [person] * n, [gender] * n, [f] * n, f))
    return out
  out, seen = [], set()
  for i in range(size):
    id_ = f"{lexical_type}/{i:05d}"
    for retry in range(_MAX_RETRIES):
      rng = _rng(templates.FAMILY, seed, id_, retry)
      if lexical_type == "II":
        persons = [rng.choice(italian.PERSONS)] * n
        genders = [rng.choice(italian.GENDERS)] * n
      else:
        persons = [rng.choice(italian.PERSONS) for _ in range(n)]
        genders = [rng.choice(italian.GENDERS) for _ in range(n)]
      fillers = [_draw_filler(rng, lex) for _ in range(n)]
      inst = instance(id_, lexical_type, seed, persons, genders, fillers[:-1],
                      fillers[-1])
      key = tuple(s.text for s in inst.context)
      if key not in seen:
        seen.add(key)
        out.append(inst)
        break
    else:
      raise RuntimeError(f"{id_}: no new context in {_MAX_RETRIES} draws")
  return out


def group_of(inst: BLMInstance) -> str:
  """Type I: the adjective pair; otherwise the context."""
  if inst.lexical_type == "I":
    return inst.id.split("/")[1]
  return splits.context_key(inst)
