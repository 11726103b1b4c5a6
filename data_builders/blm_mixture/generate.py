"""Generating Mixture instances of lexical types I, II and III.

Every instance draws its `templates.Rotation` of the appendix's table
(seeded by its id), so sentence 8 differs between instances and only the
context says which it is.

- Type I: one person, one premise and one consequent adjective and one
  incidental clause per gender throughout the instance (the attractor's
  number and gender are the template's); a seeded sample of `TYPE_I_SIZE`
  of the combinations (3 persons x 12 x 12 adjectives x 6 x 6 clauses).
- Type II: the person fixed per instance; each context sentence draws its
  adjectives and incidental clause; the answer set shares one draw.
- Type III: each context sentence also draws its person.

Type I instances are split by their adjective pair (`group_of`): the
sentences without an incidental recur across the instances of a pair, and
so never cross splits. Types II and III are split by context.

`generate(..., ctx=True)`: the context-necessary configs (`ctx_type_*`,
README "Context-necessary configs"): same lexical draws, rotations that
also draw the halves' progressions (`draw_ctx_rotation`), the correct
answer's anteriority balanced per split (`ctx_anterior`), answers
`templates.ctx_answers`.
"""

from __future__ import annotations

import itertools
import random
from typing import Sequence

from data_builders.blm_mixture import lexicon as lexicon_lib, templates
from data_builders.blm_sequence_of_tense import italian, realise
from data_builders.common import splits
from data_builders.common.schema import BLMInstance
from data_builders.common.instances import (make_instance, rng_for,
                                            stable_seed, unique_draws)

LANGUAGE = "it"
LEXICAL_TYPES = ("I", "II", "III")
TYPE_I_SIZE = 3000
VARIED_SIZE = 3000


def _filler(prem, cons, incidentals: dict) -> realise.Filler:
  """incidentals: gender -> the clause used for an attractor of it."""
  return realise.Filler(prem, cons,
                        lambda g, n: incidentals[g].text(g, n))


def draw_rotation(rng: random.Random) -> templates.Rotation:
  return templates.Rotation(
      first_number=rng.choice(italian.NUMBERS),
      first_gender=rng.choice(italian.GENDERS),
      attractor_half=rng.randrange(2),
      counterfactual_first=rng.random() < 0.5,
      simple_first=rng.random() < 0.5)


def draw_ctx_rotation(rng: random.Random,
                      anterior: bool) -> templates.Rotation:
  """A rotation of the context-necessary configs: also which half goes in
  blocks and each half's first pair on its own; `anterior`: the correct
  answer's anteriority (assigned apart, see `ctx_anterior`)."""
  return draw_rotation(rng)._replace(blocks_half=rng.randrange(2),
                                     second_simple_first=anterior)


def ctx_anterior(ids: Sequence[str], seed) -> dict[str, bool]:
  """id -> whether the instance's correct answer is the anterior pair of
  its mood (then ANT is the simple one). The ids are split as the builder
  splits them (`group_of_id`, default fractions), and within each split
  half of them (to one) get each value, in a seeded order of their own: so
  each alternant is correct in half of every split, independently of the
  lexical draws and of their retries."""
  parts = splits.assign_splits(list(ids), seed, group_of_id)
  out = {}
  for name, members in parts.items():
    rng = random.Random(stable_seed(templates.CTX_FAMILY, seed, "anterior",
                                    name))
    members = list(members)
    rng.shuffle(members)
    first = rng.random() < 0.5
    for k, id_ in enumerate(members):
      out[id_] = first if k % 2 == 0 else not first
  return out


def instance(id_: str, lexical_type: str, seed, persons: Sequence[str],
             fillers: Sequence[realise.Filler],
             answer_filler: realise.Filler,
             rot: templates.Rotation = templates.APPENDIX,
             ctx: bool = False) -> BLMInstance:
  """persons/fillers: one per context sentence; persons[-1] is the
  answers' person. `ctx`: the context-necessary answer set."""
  context = [realise.sentence(p, f) for p, f in
             zip(templates.context_patterns(persons, rot), fillers)]
  answers = (templates.ctx_answers if ctx else templates.answers)(
      persons[-1], rot)
  candidates = [(label, realise.sentence(p, answer_filler))
                for label, p in answers.items()]
  return make_instance(
      id=id_, family=templates.CTX_FAMILY if ctx else templates.FAMILY,
      language=LANGUAGE, lexical_type=lexical_type,
      subset=templates.CTX_SUBSET if ctx else "mixture", context=context,
      candidates=candidates, correct_label=templates.CORRECT, seed=seed)


def _draw(rng: random.Random, lex: lexicon_lib.Lexicon) -> realise.Filler:
  return _filler(rng.choice(lex.premise), rng.choice(lex.consequent),
                 {g: rng.choice(lex.incidentals[g]) for g in italian.GENDERS})


def generate(lexical_type: str, lex: lexicon_lib.Lexicon | None = None,
             seed: int = 0, size: int | None = None,
             ctx: bool = False) -> list[BLMInstance]:
  """`ctx`: the context-necessary config of the type (same lexical draws,
  rotations from `draw_ctx_rotation`, answers `templates.ctx_answers`)."""
  lex = lex or lexicon_lib.load()
  family = templates.CTX_FAMILY if ctx else templates.FAMILY
  anterior: dict[str, bool] = {}

  def rotation(rng: random.Random, id_: str) -> templates.Rotation:
    if ctx:
      return draw_ctx_rotation(rng, anterior[id_])
    return draw_rotation(rng)

  if lexical_type not in LEXICAL_TYPES:
    raise ValueError(f"unknown lexical type {lexical_type!r}; known: "
                     f"{LEXICAL_TYPES}")
  n = templates.N_CONTEXT + 1
  if lexical_type == "I":
    size = size or TYPE_I_SIZE
    combos = list(itertools.product(
        range(len(lex.premise)), range(len(lex.consequent)),
        italian.PERSONS, range(len(lex.incidentals["m"])),
        range(len(lex.incidentals["f"]))))
    if size < len(combos):
      keep = sorted(rng_for("mixture-I", seed).choice(len(combos), size,
                                                      replace=False))
      combos = [combos[i] for i in keep]
    ids = [f"I/{lex.premise[p].ms}-{lex.consequent[c].ms}/{person}/"
           f"m{im}f{if_}" for p, c, person, im, if_ in combos]
    if ctx:
      anterior.update(ctx_anterior(ids, seed))
    out = []
    for id_, (p, c, person, im, if_) in zip(ids, combos):
      prem, cons = lex.premise[p], lex.consequent[c]
      f = _filler(prem, cons, {"m": lex.incidentals["m"][im],
                               "f": lex.incidentals["f"][if_]})
      rot = rotation(random.Random(stable_seed(family, seed, id_)), id_)
      out.append(instance(id_, "I", seed, [person] * n, [f] * (n - 1), f,
                          rot, ctx))
    return out

  def draw(id_: str, rng: random.Random) -> BLMInstance:
    rot = rotation(rng, id_)
    if lexical_type == "II":
      persons = [rng.choice(italian.PERSONS)] * n
    else:
      persons = [rng.choice(italian.PERSONS) for _ in range(n)]
    fillers = [_draw(rng, lex) for _ in range(n)]
    return instance(id_, lexical_type, seed, persons, fillers[:-1],
                    fillers[-1], rot, ctx)

  size = size or VARIED_SIZE
  if ctx:
    anterior.update(ctx_anterior(
        [f"{lexical_type}/{i:05d}" for i in range(size)], seed))
  return unique_draws(family, lexical_type, seed, size, draw)


def group_of_id(id_: str) -> str:
  """The split group an instance's id names: type I's adjective pair, or
  (types II and III, ids `<type>/<i:05d>` of `unique_draws`) the id."""
  type_, rest = id_.split("/", 1)
  if type_ == "I":
    return rest.split("/")[0]
  return id_


def group_of(inst: BLMInstance) -> str:
  """Type I: the adjective pair. Types II and III: the context, which
  `unique_draws` keeps unique, so a context-necessary config groups by id
  (one context each), which it knows before drawing (`ctx_anterior`)."""
  if inst.lexical_type == "I" or inst.family == templates.CTX_FAMILY:
    return group_of_id(inst.id)
  return splits.context_key(inst)
