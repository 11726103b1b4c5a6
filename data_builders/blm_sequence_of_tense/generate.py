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

`ctx=True` gives the context-necessary configs: the same progressions and
lexical types with the product answer set (`templates.CTX_ANSWERS`, 16
candidates, family `sequence_of_tense_ctx`), drawn under their own seeds;
sentence 8's number and anteriority (which of the four bases is correct)
come from a balanced seeded schedule (`balanced_targets`), per premise
adjective in type I (its split groups), over the instance ids otherwise.
"""

from __future__ import annotations

import itertools
import random
from typing import Callable, NamedTuple, Sequence

from data_builders.blm_sequence_of_tense import italian
from data_builders.blm_sequence_of_tense import lexicon as lexicon_lib
from data_builders.blm_sequence_of_tense import realise
from data_builders.blm_sequence_of_tense import templates
from data_builders.common import splits
from data_builders.common.schema import BLMInstance
from data_builders.common.template import Pattern
from data_builders.common.instances import (balanced_cycle, make_instance,
                                            rng_for, stable_seed,
                                            unique_draws)

LANGUAGE = "it"
LEXICAL_TYPES = ("I", "II", "III")
VARIED_SIZE = 3000


class Design(NamedTuple):
  """An answer set: the family it is recorded under, its labels and the
  candidates' patterns of a progression."""

  family: str
  labels: tuple[str, ...]
  answers: Callable[[templates.Progression], dict[str, Pattern]]
  # Sentence 8's number and anteriority from `balanced_targets` (else drawn
  # with the rest of the progression).
  balanced: bool


PAPER = Design(templates.FAMILY, templates.LABELS, templates.answers, False)
CTX = Design(templates.CTX_FAMILY, templates.CTX_LABELS, templates.ctx_answers,
             True)


def instance(id_: str, lexical_type: str, seed, prog: templates.Progression,
             fillers: Sequence[realise.Filler],
             answer_fillers: Sequence[realise.Filler],
             design: Design = PAPER) -> BLMInstance:
  """fillers: one per context sentence; answer_fillers: one per candidate
  (in `design.labels` order)."""
  context = [realise.sentence(p, f) for p, f in
             zip(templates.context_patterns(prog), fillers)]
  candidates = [(label, realise.sentence(p, f)) for (label, p), f in
                zip(design.answers(prog).items(), answer_fillers)]
  return make_instance(
      id=id_, family=design.family, language=LANGUAGE,
      lexical_type=lexical_type, subset="hypothetical", context=context,
      candidates=candidates, correct_label=templates.CORRECT, seed=seed)


def draw_progression(rng: random.Random) -> templates.Progression:
  person = rng.choice(italian.PERSONS)
  return templates.Progression(
      first_pair=rng.randrange(len(templates.TENSE_PAIRS)),
      first_number=rng.choice(italian.NUMBERS), person=person,
      gender=rng.choice(italian.GENDERS),
      wrong_person=rng.choice([p for p in italian.PERSONS if p != person]))


# (number, anteriority) of sentence 8: which of the context-necessary
# answer set's four bases is the correct one.
TARGETS = tuple((n, a) for n in italian.NUMBERS for a in (0, 1))


def balanced_targets(n: int, *seed_parts) -> list[tuple[str, int]]:
  """n TARGETS, each as often as the others (up to one), in an order
  seeded by `seed_parts`: each base is correct in a quarter of the
  instances, whatever their adjectives."""
  rng = random.Random(stable_seed(*seed_parts))
  return [TARGETS[j] for j in balanced_cycle(n, len(TARGETS), rng)]


def progression_to(rng: random.Random, number: str,
                   anteriority: int) -> templates.Progression:
  """A progression whose sentence 8 has `number` and `anteriority`; its
  reality, person and gender drawn."""
  last = 2 * rng.randrange(2) + anteriority
  person = rng.choice(italian.PERSONS)
  return templates.Progression(
      first_pair=(last - templates.N_CONTEXT // 2) % len(templates.TENSE_PAIRS),
      first_number=templates.other(number), person=person,
      gender=rng.choice(italian.GENDERS),
      wrong_person=rng.choice([p for p in italian.PERSONS if p != person]))


def _draw_filler(rng: random.Random, lex: lexicon_lib.Lexicon):
  return realise.Filler(rng.choice(lex.premise), rng.choice(lex.consequent))


def _type_i(lex, seed, size, design: Design) -> list[BLMInstance]:
  n_ans = len(design.labels)
  combos = [(p, c, a) for p, c, a in itertools.product(
      range(len(lex.premise)), range(len(lex.consequent)),
      range(len(lex.consequent))) if a != c]
  keep = sorted(rng_for(design.family, "I", seed).choice(
      len(combos), min(size, len(combos)), replace=False))
  targets = {}  # ctx: balanced within each premise adjective (split group)
  if design.balanced:
    for p in range(len(lex.premise)):
      ks = [k for k in keep if combos[k][0] == p]
      targets.update(zip(ks, balanced_targets(
          len(ks), design.family, seed, "I", lex.premise[p].ms)))
  out = []
  for k in keep:
    p, c, a = combos[k]
    prem = lex.premise[p]
    f = realise.Filler(prem, lex.consequent[c])
    answer = realise.Filler(prem, lex.consequent[a])
    id_ = f"I/{prem.ms}/{lex.consequent[c].ms}-{lex.consequent[a].ms}"
    rng = random.Random(stable_seed(design.family, seed, id_))
    prog = (progression_to(rng, *targets[k]) if design.balanced
            else draw_progression(rng))
    out.append(instance(id_, "I", seed, prog, [f] * templates.N_CONTEXT,
                        [answer] * n_ans, design))
  return out


def generate(lexical_type: str, lex: lexicon_lib.Lexicon | None = None,
             seed: int = 0, size: int = VARIED_SIZE,
             ctx: bool = False) -> list[BLMInstance]:
  """The paper-style configs' instances, or with `ctx` the
  context-necessary configs'."""
  lex = lex or lexicon_lib.load()
  design = CTX if ctx else PAPER
  if lexical_type not in LEXICAL_TYPES:
    raise ValueError(f"unknown lexical type {lexical_type!r}; known: "
                     f"{LEXICAL_TYPES}")
  if lexical_type == "I":
    return _type_i(lex, seed, size, design)
  n_ans = len(design.labels)
  targets = balanced_targets(size, design.family, seed, lexical_type)

  def draw(id_: str, rng: random.Random) -> BLMInstance:
    prog = (progression_to(rng, *targets[int(id_.split("/")[1])])
            if design.balanced else draw_progression(rng))
    fillers = [_draw_filler(rng, lex) for _ in range(templates.N_CONTEXT)]
    if lexical_type == "II":
      used = {(f.premise, f.consequent) for f in fillers}
      answer = _draw_filler(rng, lex)
      while (answer.premise, answer.consequent) in used:
        answer = _draw_filler(rng, lex)
      answers = [answer] * n_ans
    else:
      answers = [_draw_filler(rng, lex) for _ in range(n_ans)]
    return instance(id_, lexical_type, seed, prog, fillers, answers, design)

  return unique_draws(design.family, lexical_type, seed, size, draw)


def group_of(inst: BLMInstance) -> str:
  """Type I: the premise adjective; otherwise the context."""
  if inst.lexical_type == "I":
    return inst.id.split("/")[1]
  return splits.context_key(inst)
