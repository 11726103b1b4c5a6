"""Generating sequence-of-tense instances of lexical types I, II and III.

Every instance draws its progression (`templates.Progression`: where the
tense cycle and the number alternation start, the subject's person and
gender); the lexical types differ in the adjectives only:

- Type I: one premise and one consequent adjective throughout the context;
  the answer set keeps the premise adjective and takes another consequent
  adjective (with the context's words, WNUM, WANT and WREAL would each
  repeat a context sentence: the copy cue). A seeded sample of `VARIED_SIZE`
  of the combinations.
- Type II: each context sentence draws its adjectives; the answer set
  shares one draw, a pair no context sentence uses.
- Type III: each context sentence and each candidate draws its adjectives.

No candidate repeats a context sentence. Type I instances are split by their
premise adjective (`group_of`), which every sentence of the instance holds,
so no sentence is in two splits; types II and III by context, as the other
families.
"""

from __future__ import annotations

import itertools
import random
from typing import Sequence

from data_builders.blm_sequence_of_tense import italian
from data_builders.blm_sequence_of_tense import lexicon as lexicon_lib
from data_builders.blm_sequence_of_tense import realise
from data_builders.blm_sequence_of_tense import templates
from data_builders.common import splits
from data_builders.common.schema import BLMInstance
from data_builders.common.instances import (make_instance, rng_for,
                                            stable_seed, unique_draws)

LANGUAGE = "it"
LEXICAL_TYPES = ("I", "II", "III")
VARIED_SIZE = 3000


def instance(id_: str, lexical_type: str, seed, prog: templates.Progression,
             fillers: Sequence[realise.Filler],
             answer_fillers: Sequence[realise.Filler]) -> BLMInstance:
  """fillers: one per context sentence; answer_fillers: one per candidate
  (in `templates.LABELS` order)."""
  context = [realise.sentence(p, f) for p, f in
             zip(templates.context_patterns(prog), fillers)]
  candidates = [(label, realise.sentence(p, f)) for (label, p), f in
                zip(templates.answers(prog).items(), answer_fillers)]
  return make_instance(
      id=id_, family=templates.FAMILY, language=LANGUAGE,
      lexical_type=lexical_type, subset="hypothetical", context=context,
      candidates=candidates, correct_label=templates.CORRECT, seed=seed)


def draw_progression(rng: random.Random) -> templates.Progression:
  person = rng.choice(italian.PERSONS)
  return templates.Progression(
      first_pair=rng.randrange(len(templates.TENSE_PAIRS)),
      first_number=rng.choice(italian.NUMBERS), person=person,
      gender=rng.choice(italian.GENDERS),
      wrong_person=rng.choice([p for p in italian.PERSONS if p != person]))


def _draw_filler(rng: random.Random, lex: lexicon_lib.Lexicon):
  return realise.Filler(rng.choice(lex.premise), rng.choice(lex.consequent))


def _type_i(lex, seed, size) -> list[BLMInstance]:
  n_ans = len(templates.LABELS)
  combos = [(p, c, a) for p, c, a in itertools.product(
      range(len(lex.premise)), range(len(lex.consequent)),
      range(len(lex.consequent))) if a != c]
  keep = sorted(rng_for(templates.FAMILY, "I", seed).choice(
      len(combos), min(size, len(combos)), replace=False))
  out = []
  for k in keep:
    p, c, a = combos[k]
    prem = lex.premise[p]
    f = realise.Filler(prem, lex.consequent[c])
    answer = realise.Filler(prem, lex.consequent[a])
    id_ = f"I/{prem.ms}/{lex.consequent[c].ms}-{lex.consequent[a].ms}"
    prog = draw_progression(random.Random(
        stable_seed(templates.FAMILY, seed, id_)))
    out.append(instance(id_, "I", seed, prog, [f] * templates.N_CONTEXT,
                        [answer] * n_ans))
  return out


def generate(lexical_type: str, lex: lexicon_lib.Lexicon | None = None,
             seed: int = 0, size: int = VARIED_SIZE) -> list[BLMInstance]:
  lex = lex or lexicon_lib.load()
  if lexical_type not in LEXICAL_TYPES:
    raise ValueError(f"unknown lexical type {lexical_type!r}; known: "
                     f"{LEXICAL_TYPES}")
  if lexical_type == "I":
    return _type_i(lex, seed, size)
  n_ans = len(templates.LABELS)

  def draw(id_: str, rng: random.Random) -> BLMInstance:
    prog = draw_progression(rng)
    fillers = [_draw_filler(rng, lex) for _ in range(templates.N_CONTEXT)]
    if lexical_type == "II":
      used = {(f.premise, f.consequent) for f in fillers}
      answer = _draw_filler(rng, lex)
      while (answer.premise, answer.consequent) in used:
        answer = _draw_filler(rng, lex)
      answers = [answer] * n_ans
    else:
      answers = [_draw_filler(rng, lex) for _ in range(n_ans)]
    return instance(id_, lexical_type, seed, prog, fillers, answers)

  return unique_draws(templates.FAMILY, lexical_type, seed, size, draw)


def group_of(inst: BLMInstance) -> str:
  """Type I: the premise adjective; otherwise the context."""
  if inst.lexical_type == "I":
    return inst.id.split("/")[1]
  return splits.context_key(inst)
