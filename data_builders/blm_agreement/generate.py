"""Building agreement BLM instances of lexical types I, II and III.

- Type I (000 sec. 4.4): one seed (a frame with one choice of subject, N2 and
  verb phrase, plus the clause's matrix or relative clause) realised in its
  eight number variants (`templates.VARIANTS`): same words everywhere.
- Type II: a type I instance with one noun or verb replaced in each context
  sentence by one of the frame's curated alternatives, and one replacement
  shared by the whole answer set (so no candidate stands out lexically). No
  context sentence may equal a candidate (redrawn until none does).
- Type III: the answer set and patterns of a type II instance, each context
  sentence taken from a different type II instance of the same clause type and
  number variant (so the same pattern), from other frames where the split has
  them; donors come from the same split, so no sentence leaks across splits.

Instances are grouped for splitting by language, frame, clause type and
prefix or relative clause (`group_key`): sentences of different groups never
coincide, since every sentence holds its frame's subject, first preposition
and N1 (or their alternatives; no two frames share such a triple) and its
clause's prefix or relative clause.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import random
from typing import Sequence

from data_builders.blm_agreement import lexicon as lexicon_lib
from data_builders.blm_agreement import realise
from data_builders.blm_agreement import seq_templates
from data_builders.blm_agreement import templates
from data_builders.common import instances as inst_lib, splits
from data_builders.common.schema import BLMInstance, Sentence
from data_builders.common.template import (AnswerTemplate, answer_patterns,
                                           Pattern)

@dataclasses.dataclass(frozen=True)
class Seed:
  """A type I seed: option indices into its frame, plus the clause extra."""

  frame: lexicon_lib.Frame
  clause: str
  n: int
  n2: int
  vp: int
  extra: int  # Index into prefixes (completive) or relatives; 0 for main.
  # Index into prefixes: the matrix clause of the sentences a `_seq` plan
  # embeds (`generate_seq`); None elsewhere.
  matrix: int | None = None

  @property
  def code(self) -> str:
    m = "" if self.matrix is None else f"m{self.matrix}"
    return f"n{self.n}n2{self.n2}v{self.vp}x{self.extra}{m}"


def seeds(lex: lexicon_lib.Lexicon, clause: str) -> list[Seed]:
  """Every seed of one clause type, in a fixed order."""
  if clause not in templates.CLAUSE_TYPES:
    raise ValueError(f"unknown clause type {clause!r}; known: "
                     f"{templates.CLAUSE_TYPES}")
  extras = {"main": 1, "completive": len(lex.prefixes),
            "relative": len(lex.relatives)}[clause]
  return [Seed(f, clause, n, n2, vp, x) for f in lex.frames
          for n, n2, vp, x in itertools.product(
              range(len(f.n)), range(len(f.n2)), range(len(f.vp)),
              range(extras))]


def group_key(language: str, seed: Seed) -> str:
  """Frame, clause type and prefix/relative clause: two groups never share a
  sentence (a type II replacement changes neither). A `_seq` seed's matrix
  clause is not part of it: a frame's main-clause sentences, embedded under
  any matrix clause or not, are one group."""
  return f"{language}/{seed.frame.id}/{seed.clause}.{seed.extra}"


def group_of(inst: BLMInstance) -> str:
  """The split group of an instance (its id starts with the group key)."""
  return "/".join(inst.id.split("/")[:3])


class Realiser:
  """Realises sentences of one language, memoised (type II/III reuse them)."""

  def __init__(self, lex: lexicon_lib.Lexicon):
    self.lex = lex
    self._cache: dict = {}

  def words(self, seed: Seed, swap: tuple[str, str] | None = None,
            n1: str | None = None, n2: str | None = None) -> tuple:
    """Word keys of a seed, with an optional (slot, key) replacement."""
    f = seed.frame
    keys = {"n": f.n[seed.n], "n1": n1 or f.n1[0],
            "n2": n2 or f.n2[seed.n2], "vp": f.vp[seed.vp]}
    if swap:
      keys[swap[0]] = swap[1]
    return (keys["n"], keys["n1"], keys["n2"], keys["vp"])

  def sentence(self, seed: Seed, pat: Pattern, keys: tuple,
               pat_str: str) -> Sentence:
    ck = (seed.frame.id, seed.clause, seed.extra, seed.matrix, pat_str, keys)
    s = self._cache.get(ck)
    if s is None:
      lex, f = self.lex, seed.frame
      w = realise.Words(
          lex.nouns[keys[0]], f.p1, lex.nouns[keys[1]], f.p2,
          lex.nouns[keys[2]], lex.verbs[keys[3]],
          prefix=(lex.prefixes[seed.extra] if seed.clause == "completive"
                  else "" if seed.matrix is None
                  else lex.prefixes[seed.matrix]),
          rc=lex.relatives[seed.extra] if seed.clause == "relative" else "")
      s = self._cache[ck] = realise.sentence(lex.language, pat, w, pat_str)
    return s


@dataclasses.dataclass(frozen=True)
class AnswerSet:
  """The candidates an instance gets: its family and answer templates (the
  first one is the correct answer)."""

  family: str
  templates: tuple[AnswerTemplate, ...]


PAPER_SET = AnswerSet(templates.FAMILY, templates.ANSWERS)


# An instance's number plan: a paper number variant, or the rules drawn for
# a sequence-necessary instance (`seq_templates.Plan`, which carries its own
# answer templates: `answer_templates` is then not used).
NumberPlan = templates.NumberVariant | seq_templates.Plan


def _answers(clause: str, v: NumberPlan,
             answer_templates: tuple[AnswerTemplate, ...] = templates.ANSWERS):
  """(label, pattern, pattern string) of the answer set, memoised (a
  `_seq` plan's by what it depends on: its answer's numbers and its
  errors; the plans themselves rarely repeat)."""
  if isinstance(v, seq_templates.Plan):
    return _seq_answers(clause, v.terms(seq_templates.LENGTH - 1), v.errors)
  return _paper_answers(clause, v, answer_templates)


@functools.lru_cache(maxsize=None)
def _paper_answers(clause: str, v: templates.NumberVariant,
                   answer_templates: tuple[AnswerTemplate, ...]):
  return _answer_tuples(templates.correct_pattern(clause, v),
                        answer_templates, templates.RULES)


@functools.lru_cache(maxsize=None)
def _seq_answers(clause: str, correct_terms: tuple, errors: tuple):
  return _answer_tuples(
      seq_templates.sentence_pattern(clause, *correct_terms),
      seq_templates.answer_templates(errors), seq_templates.RULES)


def _answer_tuples(correct: Pattern, answer_templates, rules):
  return tuple((lab, p, str(p)) for lab, p in answer_patterns(
      correct, answer_templates, rules).items())


def _context(clause: str, v: NumberPlan):
  """(pattern, pattern string) of the seven context sentences, memoised
  (a `_seq` plan's by its sentences' numbers)."""
  if isinstance(v, seq_templates.Plan):
    return _seq_context(clause, v.context_terms())
  return _paper_context(clause, v)


@functools.lru_cache(maxsize=None)
def _paper_context(clause: str, v: templates.NumberVariant):
  return tuple((p, str(p)) for p in templates.context_patterns(clause, v))


@functools.lru_cache(maxsize=None)
def _seq_context(clause: str, terms: tuple):
  return tuple((p, str(p))
               for p in seq_templates.context_patterns_of(clause, terms))


def _rng(*parts) -> random.Random:
  """Cheap seeded draws (numpy Generators cost more to create than to use)."""
  return random.Random(inst_lib.stable_seed(*parts))


def _alternatives(seed: Seed, slot_name: str, current: str) -> list[str]:
  opts = {"n": seed.frame.n, "n1": seed.frame.n1, "n2": seed.frame.n2,
          "vp": seed.frame.vp}[slot_name]
  return [o for o in opts if o != current]


def _instance(r: Realiser, *, id: str, seed: Seed, lexical_type: str,
              context: Sequence[Sentence], answers: dict[str, Sentence],
              config_seed, answer_set: AnswerSet = PAPER_SET) -> BLMInstance:
  return inst_lib.make_instance(
      id=id, family=answer_set.family, language=r.lex.language,
      lexical_type=lexical_type, subset=seed.clause, context=context,
      candidates=list(answers.items()),
      correct_label=answer_set.templates[0].label, seed=config_seed)


def type_i(r: Realiser, seed: Seed, v: NumberPlan, config_seed,
           keep_copy_cue: bool = True,
           answer_set: AnswerSet = PAPER_SET) -> BLMInstance:
  """A type I instance; without the copy cue the answer set uses the frame's
  next N1 and N2 (all eight candidates alike, so none stands out)."""
  keys = r.words(seed)
  ctx = [r.sentence(seed, p, keys, ps) for p, ps in _context(seed.clause, v)]
  akeys = keys
  if not keep_copy_cue:
    f = seed.frame
    akeys = r.words(seed, n1=f.n1[1], n2=f.n2[(seed.n2 + 1) % len(f.n2)])
  answers = {lab: r.sentence(seed, p, akeys, ps)
             for lab, p, ps in _answers(seed.clause, v,
                                        answer_set.templates)}
  id = (f"{group_key(r.lex.language, seed)}/I/"
        f"{seed.code}/{v.code}")
  return _instance(r, id=id, seed=seed, lexical_type="I", context=ctx,
                   answers=answers, config_seed=config_seed,
                   answer_set=answer_set)


def _swap(rng, seed: Seed, slots: Sequence[str], base: tuple):
  name = rng.choice(slots)
  current = base[("n", "n1", "n2", "vp").index(name)]
  return name, rng.choice(_alternatives(seed, name, current))


def type_ii_sentence(r: Realiser, rng, seed: Seed, pat: Pattern,
                     pat_str: str) -> Sentence:
  """A context sentence with one noun or verb replaced."""
  base = r.words(seed)
  slots = ("n", "n1", "n2", "vp") if "PP2" in pat_str else ("n", "n1", "vp")
  return r.sentence(seed, pat, r.words(seed, swap=_swap(rng, seed, slots,
                                                        base)), pat_str)


def _distinct_sentence(r: Realiser, rng, seed: Seed, pat: Pattern,
                       pat_str: str, taken: set[str]) -> Sentence | None:
  """A context sentence with one replacement (drawn among those whose text
  is not `taken`), or, where every one-replacement sentence is taken (a
  pattern repeated in four sentences and the answer), two replacements;
  None if those are taken too."""
  names = ("n", "n1", "n2", "vp") if "PP2" in pat_str else ("n", "n1", "vp")
  base = dict(zip(("n", "n1", "n2", "vp"), r.words(seed)))
  for k in (1, 2):
    options = []
    for chosen in itertools.combinations(names, k):
      for keys in itertools.product(*(
          _alternatives(seed, n, base[n]) for n in chosen)):
        words = dict(base, **dict(zip(chosen, keys)))
        options.append(tuple(words[n] for n in ("n", "n1", "n2", "vp")))
    rng.shuffle(options)
    for keys in options:
      s = r.sentence(seed, pat, keys, pat_str)
      if s.text not in taken:
        return s
  return None


def type_ii_answers(r: Realiser, rng, seed: Seed, v: NumberPlan,
                    answer_set: AnswerSet = PAPER_SET
                    ) -> dict[str, Sentence]:
  """The answer set with one replacement shared by all candidates (never in
  N2, which WNA lacks)."""
  keys = r.words(seed, swap=_swap(rng, seed, ("n", "n1", "vp"),
                                  r.words(seed)))
  return {lab: r.sentence(seed, p, keys, ps)
          for lab, p, ps in _answers(seed.clause, v, answer_set.templates)}


MAX_DRAWS = 50


def _type_ii_id(language: str, seed: Seed, index: int) -> str:
  return f"{group_key(language, seed)}/II/{index:06d}"


def type_ii(r: Realiser, seed: Seed, v: NumberPlan, index: int,
            config_seed, answer_set: AnswerSet = PAPER_SET,
            distinct_context: bool = False) -> BLMInstance:
  """`distinct_context`: no context sentence repeats another (the `_seq`
  plans repeat patterns; the paper's variants never do, so the paper
  configs need no redraw and keep their draws)."""
  id = _type_ii_id(r.lex.language, seed, index)
  rng = _rng("II", config_seed, id)
  answers = type_ii_answers(r, rng, seed, v, answer_set)
  texts = {s.text for s in answers.values()}
  ctx = []
  for p, ps in _context(seed.clause, v):
    if distinct_context:
      s = _distinct_sentence(r, rng, seed, p, ps,
                             texts | {c.text for c in ctx})
      if s is None:
        raise ValueError(f"{id}: no one or two replacements keep context "
                         f"sentence {p} apart from the candidates and the "
                         "context")
      ctx.append(s)
      continue
    for _ in range(MAX_DRAWS):
      s = type_ii_sentence(r, rng, seed, p, ps)
      if s.text not in texts:
        break
    else:
      raise ValueError(f"{id}: no replacement keeps context sentence "
                       f"{p} apart from the candidates")
    ctx.append(s)
  return _instance(r, id=id, seed=seed, lexical_type="II", context=ctx,
                   answers=answers, config_seed=config_seed,
                   answer_set=answer_set)


def type_iii(r: Realiser, seed: Seed, v: NumberPlan, index: int,
             donors: dict[str, list[Seed]], config_seed,
             answer_set: AnswerSet = PAPER_SET) -> BLMInstance:
  """The answer set of type II instance `index`; sentence i from a type II
  sentence of another seed of the same clause and variant (`donors`: frame
  id -> seeds), from distinct other frames while the split has them."""
  anchor_id = _type_ii_id(r.lex.language, seed, index)
  answers = type_ii_answers(r, _rng("II", config_seed, anchor_id), seed, v,
                            answer_set)
  id = anchor_id.replace("/II/", "/III/")
  rng = _rng("III", config_seed, id)
  texts = {s.text for s in answers.values()}
  frames = sorted(f for f in donors if f != seed.frame.id) or sorted(donors)
  rng.shuffle(frames)
  ctx = []
  for i, (p, ps) in enumerate(_context(seed.clause, v)):
    for _ in range(MAX_DRAWS):
      d = rng.choice(donors[frames[i % len(frames)]])
      s = type_ii_sentence(r, rng, d, p, ps)
      if s.text not in texts and all(s.text != c.text for c in ctx):
        break
    else:
      raise ValueError(f"{id}: no donor sentence for pattern {p}")
    ctx.append(s)
  return _instance(r, id=id, seed=seed, lexical_type="III", context=ctx,
                   answers=answers, config_seed=config_seed,
                   answer_set=answer_set)


def _sample(items: list, k: int, *parts) -> list:
  if k >= len(items):
    return list(items)
  idx = sorted(inst_lib.rng_for(*parts).choice(len(items), k, replace=False))
  return [items[i] for i in idx]


def _agrf_sources() -> dict[str, str]:
  """6-candidate label -> the 8-candidate label breaking the same rules."""
  by_rules = {t.breaks: t.label for t in templates.ANSWERS}
  return {t.label: by_rules[t.breaks] for t in templates.ANSWERS_AGRF}


def agrf_answer_set(inst: BLMInstance, config_seed) -> BLMInstance:
  """The instance with BLM-AgrF's 6-candidate answer set (001 Figure 3).

  Every 6-set answer template breaks the same rules as one 8-set template
  (AE as AEV), so its candidate is that one, relabelled; the candidates are
  shuffled again (seeded by id), the family is `agreement6`.
  """
  by_label = dict(zip(inst.labels, inst.answers))
  return inst_lib.make_instance(
      id=inst.id, family=templates.FAMILY_AGRF, language=inst.language,
      lexical_type=inst.lexical_type, subset=inst.subset,
      context=inst.context,
      candidates=[(lab, by_label[src])
                  for lab, src in _agrf_sources().items()],
      correct_label=templates.ANSWERS_AGRF[0].label, seed=config_seed)


ANSWER_SETS = ("full", "agrf6")


def generate(language: str, clauses: Sequence[str], lexical_type: str,
             per_clause: int, config_seed, keep_copy_cue: bool = True,
             lexicon_root=None, answer_set: str = "full",
             fractions=splits.DEFAULT_FRACTIONS) -> list[BLMInstance]:
  """`per_clause` instances of each clause type (type I: at most that many,
  one per seed and number variant). `answer_set`: "full" (000 Figure 3's
  8 candidates) or "agrf6" (001 Figure 3's 6); `fractions`: the builder's
  split fractions (type III draws donors from the anchor's own split)."""
  if answer_set not in ANSWER_SETS:
    raise ValueError(f"unknown answer set {answer_set!r}; known: "
                     f"{ANSWER_SETS}")
  out = _generate(language, clauses, lexical_type, per_clause, config_seed,
                  keep_copy_cue, lexicon_root, fractions)
  if answer_set == "agrf6":
    out = [agrf_answer_set(x, config_seed) for x in out]
  return out


# --- Context-necessary configs (README "Context-necessary configs"). --------
# An instance draws a phase pair of variants (`templates.phase_pair`; the
# pair is named by its member whose N1 starts singular) and which member its
# context shows; the answer set (`templates.ANSWERS_CTX`) is the same
# sentences for both members.

CTX_ANSWER_SETS = {
    "full": AnswerSet(templates.FAMILY_CTX, templates.ANSWERS_CTX),
    "agrf6": AnswerSet(templates.FAMILY_AGRF_CTX, templates.ANSWERS_AGRF_CTX),
}
PAIR_VARIANTS = tuple(v for v in templates.VARIANTS if v.n1 == "sg")


def ctx_phase(config_seed, id_: str,
              v: templates.NumberVariant) -> templates.NumberVariant:
  """`v` or its phase pair, 50/50, from a stream of its own (independent of
  the lexical draws and of their retries)."""
  if _rng("N1 phase", config_seed, id_).random() < 0.5:
    return v
  return templates.phase_pair(v)


def generate_ctx(language: str, clauses: Sequence[str], lexical_type: str,
                 per_clause: int, config_seed, lexicon_root=None,
                 answer_set: str = "full",
                 fractions=splits.DEFAULT_FRACTIONS) -> list[BLMInstance]:
  """The context-necessary instances of one language and lexical type.

  Type I: `per_clause // 2` seeds x phase pairs, each realised in both
  members of the pair (the same answer set twice, each member's context
  once), with the answer set in the frame's other N1 and N2 so that no
  candidate repeats a context sentence. Types II and III: `per_clause`
  anchors as in `generate`, each showing the member of its pair that
  `ctx_phase` draws.
  """
  if answer_set not in CTX_ANSWER_SETS:
    raise ValueError(f"unknown answer set {answer_set!r}; known: "
                     f"{tuple(CTX_ANSWER_SETS)}")
  return _generate(language, clauses, lexical_type, per_clause, config_seed,
                   False, lexicon_root, fractions,
                   ctx_set=CTX_ANSWER_SETS[answer_set])


def _generate(language, clauses, lexical_type, per_clause, config_seed,
              keep_copy_cue, lexicon_root, fractions,
              ctx_set: AnswerSet | None = None) -> list[BLMInstance]:
  """`ctx_set`: the context-necessary answer set, or None for the paper's."""
  if lexical_type not in ("I", "II", "III"):
    raise ValueError(f"unknown lexical type {lexical_type!r}; known: I, II, "
                     "III")
  lex = lexicon_lib.load(language, lexicon_root)
  r = Realiser(lex)
  variants = templates.VARIANTS if ctx_set is None else PAIR_VARIANTS
  pools = {c: [(s, v) for s in seeds(lex, c) for v in variants]
           for c in clauses}
  if lexical_type == "I" and ctx_set is not None:
    return [type_i(r, s, w, config_seed, False, ctx_set)
            for c in clauses
            for s, v in _sample(pools[c], per_clause // 2, "I", config_seed,
                                language, c, "ctx")
            for w in (v, templates.phase_pair(v))]
  if lexical_type == "I":
    return [type_i(r, s, v, config_seed, keep_copy_cue)
            for c in clauses
            for s, v in _sample(pools[c], per_clause, "I", config_seed,
                                language, c)]
  anchors = []  # (seed, variant, index) of the type II instances.
  for c in clauses:
    rng = _rng("II", config_seed, language, c)
    for j in range(per_clause):
      s, v = pools[c][rng.randrange(len(pools[c]))]
      if ctx_set is not None:
        v = ctx_phase(config_seed, _type_ii_id(language, s, j), v)
      anchors.append((s, v, j))
  answer_set = ctx_set or PAPER_SET
  if lexical_type == "II":
    return [type_ii(r, s, v, j, config_seed, answer_set)
            for s, v, j in anchors]
  # Type III: donors from the anchor's own split only. The split of a group
  # is the one the builder will give it: same keys, same seed, same cut.
  parts = splits.assign_splits(
      sorted({group_key(language, s) for s, _, _ in anchors}), config_seed,
      group_of=lambda k: k, fractions=fractions)
  split_of = {k: name for name, keys in parts.items() for k in keys}
  buckets: dict = {}
  for c in clauses:
    for s in seeds(lex, c):
      for v in templates.VARIANTS:
        key = (split_of.get(group_key(language, s)), c, v)
        buckets.setdefault(key, {}).setdefault(s.frame.id, []).append(s)
  return [type_iii(r, s, v, j,
                   buckets[(split_of[group_key(language, s)], s.clause, v)],
                   config_seed, answer_set)
          for s, v, j in anchors]
