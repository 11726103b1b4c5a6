"""Instances of the context-necessary CoS / OD BLMs (templates.py, last
section; README "Context-necessary configs").

Per instance the missing form (the phase of the cycle) is drawn so that each
of the four forms is correct in a quarter of every verb's instances, shuffled
with the config's generator; the lexical material is drawn as in `generate`
(types I, II, III), independently of the phase. The answer set holds the
other forms with the by-NP, which a type I context (one frame) shows
verbatim: so a type I instance draws one frame for its context and another
one for all its answers, and a type II/III candidate that equals a context
sentence redraws its material. No candidate repeats a context sentence.
"""

from __future__ import annotations

import random

from data_builders.blm_cos_od import generate, lexicon as lexicon_lib
from data_builders.blm_cos_od import realise, templates
from data_builders.common import instances
from data_builders.common.instances import make_instance
from data_builders.common.schema import BLMInstance

MAX_REDRAWS = 200


def config_name(verb_class: str, language: str, lexical_type: str) -> str:
  return f"{verb_class}_{language}_ctx_type_{lexical_type}"


def generate_ctx(verb_class: str, language: str, lexical_type: str,
                 num_instances: int = generate.INSTANCES_PER_CONFIG,
                 seed: int = 0,
                 lex: lexicon_lib.Lexicon | None = None) -> list[BLMInstance]:
  name = config_name(verb_class, language, lexical_type)
  lex, rng = generate.start(verb_class, language, lexical_type, name, seed,
                            lex)
  forms = templates.FORMS
  ctx_pats = {f: [realise.compiled(p) for p in
                  templates.ctx_context_patterns(verb_class, language, f)]
              for f in forms}
  ans_pats = {f: {lab: realise.compiled(p) for lab, p in
                  templates.ctx_answer_patterns(verb_class, language,
                                                f).items()}
              for f in forms}
  per_verb = generate._spread(num_instances, len(lex.verbs))
  missing = _balanced_phases(per_verb, len(forms), rng)
  designs = [(ctx_pats[forms[m]], ans_pats[forms[m]]) for m in missing]
  return realise_designed(name, templates.CTX_FAMILY[verb_class], language,
                          lexical_type, designs, lex, rng, seed)


def realise_designed(name: str, family: str, language: str,
                     lexical_type: str, designs, lex: lexicon_lib.Lexicon,
                     rng: random.Random, seed: int,
                     plausible: bool = False) -> list[BLMInstance]:
  """Instances from per-instance (context patterns, {label: answer
  pattern}) (compiled), words drawn as in `generate` by lexical type. A type
  I instance draws one frame for its context and another for all its
  answers; a type II/III candidate equal to a context sentence redraws its
  material: no candidate repeats a context sentence.

  `plausible` (the `_seq` design): a type II/III context sentence equal to
  an earlier one redraws its material; material honours the verbs' declared
  selectional restrictions (`VerbEntry.compatible`); a type I instance's
  argument that by/da follows in E-INT is no landmark, so E-INT keeps the
  instance's own noun; Italian present and imperfect passives take
  *venire*, since *essere* + participle there reads as a state ("Le
  piastrelle sono incrinate")."""
  marks = {a.text: a.time_point for a in lex.adverbials}
  by_role = ("Agent" if templates.intransitive_subject(lex.verb_class)
             == "Theme" else "Theme")

  def say(shape, m, f):
    return realise.realise_compiled(shape, m, f, language)

  def allowed(m):
    return realise.frames_for(language, marks[m.p_np] or marks[m.by_np])

  def frame(m):
    tense = rng.choice(allowed(m))
    venire = rng.random() < 0.5
    return realise.Frame(tense, venire=venire or (
        plausible and tense in realise.STATIVE_ESSERE_TENSES))

  def fits(verb, agent, theme, p_np, by_np):
    return verb.compatible(agent.text, theme.text, p_np, by_np,
                           verb.not_landmark(agent, "Agent").text,
                           verb.not_landmark(theme, "Theme").text)

  def material(verb):
    for _ in range(MAX_REDRAWS):
      m = realise.Material(verb, rng.choice(verb.agents),
                           rng.choice(verb.themes), rng.choice(verb.p_nps),
                           rng.choice(verb.by_nps))
      if not plausible or fits(verb, m.agent, m.theme, m.p_np, m.by_np):
        return m
    raise ValueError(f"{name}: verb {verb.lemma!r}: no material its "
                     f"restrictions allow in {MAX_REDRAWS} draws")

  def type_i_keep(verb):
    if not plausible:
      return None
    return lambda a, t, p, b: (
        fits(verb, a, t, p, b)
        and (a if by_role == "Agent" else t).text not in verb.landmarks)

  verbs = lex.verbs
  per_verb = generate._spread(len(designs), len(verbs))
  type_i_combos = {}
  used_frames: dict = {}
  out = []
  for i, (cpats, apats) in enumerate(designs):
    verb = verbs[per_verb[i]]
    if lexical_type == "I":
      if verb.lemma not in type_i_combos:
        n = per_verb.count(per_verb[i])
        type_i_combos[verb.lemma] = (
            generate._cycled_combos(verb, n, rng, type_i_keep(verb))
            if plausible else generate._distinct_combos(verb, n, rng))
      combo = type_i_combos[verb.lemma].pop()
      m = realise.Material(verb, *combo)
      f = frame(m)
      if plausible:
        # A combination drawn again takes a context frame it had not.
        tenses = used_frames.setdefault((verb.lemma, combo), set())
        for _ in range(MAX_REDRAWS):
          if f.tense not in tenses:
            break
          f = frame(m)
        else:
          raise ValueError(f"{name}-{i:05d}: verb {verb.lemma!r} repeats "
                           "an argument combination in every frame")
        tenses.add(f.tense)
      context = [say(p, m, f) for p in cpats]
      seen = {s.text for s in context}
      others = [t for t in allowed(m) if t != f.tense]
      for _ in range(MAX_REDRAWS):
        tense = rng.choice(others)
        g = realise.Frame(tense, venire=f.venire or (
            plausible and tense in realise.STATIVE_ESSERE_TENSES))
        cands = [(lab, say(p, m, g)) for lab, p in apats.items()]
        if not seen & {s.text for _, s in cands}:
          break
      else:
        raise ValueError(f"{name}-{i:05d}: no answer frame keeps every "
                         "candidate out of the context")
    else:
      if lexical_type == "II":
        ctx_verbs = [verb] * len(cpats)
        ans_verbs = [verb] * len(apats)
      else:
        ctx_verbs = generate._distinct_verbs(verbs, len(cpats), rng)
        ans_verbs = generate._distinct_verbs(verbs, len(apats), rng)
      context = []
      for p, v in zip(cpats, ctx_verbs):
        s = say(p, *_with_frame(material(v), frame))
        # Types II and III vary the words: no context sentence twice.
        for _ in range(MAX_REDRAWS if plausible else 0):
          if s.text not in {c.text for c in context}:
            break
          s = say(p, *_with_frame(material(v), frame))
        context.append(s)
      seen = {s.text for s in context}
      cands = []
      for (lab, p), v in zip(apats.items(), ans_verbs):
        for _ in range(MAX_REDRAWS):
          s = say(p, *_with_frame(material(v), frame))
          if s.text not in seen:
            break
        else:
          raise ValueError(f"{name}-{i:05d}: candidate {lab} repeats the "
                           f"context in {MAX_REDRAWS} draws")
        cands.append((lab, s))
    out.append(make_instance(
        id=f"{name}-{i:05d}", family=family, language=language,
        lexical_type=lexical_type, subset="main", context=context,
        candidates=cands, correct_label="CORRECT", seed=seed))
  return out


def missing_form(inst: BLMInstance) -> str:
  """The form of the correct answer, read from its pattern."""
  cls = {v: k for k, v in templates.CTX_FAMILY.items()}[inst.family]
  pat = inst.correct_answer.pattern
  for f in templates.FORMS:
    if pat == str(templates.form_pattern(f, cls, inst.language,
                                         templates.BY_NP)):
      return f
  raise ValueError(f"{inst.id}: correct pattern {pat!r} is no form")


def _with_frame(m, frame):
  return m, frame(m)


def _balanced_phases(per_verb: list[int], k: int, rng) -> list[int]:
  """Per instance, the index of its missing form: every form as often as
  possible (counts differing by at most one) within each verb's block and
  over all instances, shuffled within the block."""
  out = [0] * len(per_verb)
  blocks: dict[int, list[int]] = {}
  for i, v in enumerate(per_verb):
    blocks.setdefault(v, []).append(i)
  offset = 0  # each block starts where the previous one stopped
  for idx in blocks.values():
    phases = instances.balanced_cycle(len(idx), k, rng, offset)
    offset += len(idx)
    for i, p in zip(idx, phases):
      out[i] = p
  return out
