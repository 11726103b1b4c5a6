"""Instances of the CoS / OD BLMs for one class, language and lexical type.

Lexical types (000 sec. 4.1-4.2; 002 MinLex/MaxLex):
  I    one verb, agent, theme, p-NP, by-NP and tense frame for the whole
       instance, context and answers (002 Figure 7, MinLex);
  II   one verb; every sentence, context and answer, draws its own agent,
       theme, p-NP, by-NP and tense/modal frame from that verb's seeds
       (000 Figure 12);
  III  every sentence also draws its own verb of the class, all distinct
       within the context and within the answers (the reshuffle of type II
       into fully varied instances; 002 Figure 8, MaxLex).
Verbs are spread evenly over instances; all draws come from a generator
seeded by (class, language, type, seed), so a rebuild is identical. A
sentence's tense/modal frame is drawn after its lexical material, among the
frames its p-NP and by-NP both accept (no English present perfect with a
time-point adverbial: realise.INCOMPATIBLE_FRAMES).
"""

from __future__ import annotations

import itertools
import random

from data_builders.blm_cos_od import lexicon as lexicon_lib, realise, templates
from data_builders.common.instances import make_instance, stable_seed
from data_builders.common.schema import BLMInstance
from data_builders.common.template import answer_patterns

LEXICAL_TYPES = ("I", "II", "III")
INSTANCES_PER_CONFIG = 3000


def config_name(verb_class: str, language: str, lexical_type: str) -> str:
  return f"{verb_class}_{language}_type_{lexical_type}"


def start(verb_class: str, language: str, lexical_type: str, name: str,
          seed: int, lex: lexicon_lib.Lexicon | None
          ) -> tuple[lexicon_lib.Lexicon, random.Random]:
  """What every design of the family starts from: a checked lexical type,
  the lexicon and the generator seeded by (config name, seed)."""
  if lexical_type not in LEXICAL_TYPES:
    raise ValueError(f"unknown lexical type {lexical_type!r}; known: "
                     f"{LEXICAL_TYPES}")
  lex = lex or lexicon_lib.load(verb_class, language)
  return lex, random.Random(stable_seed("blm_cos_od", name, seed))


def generate(verb_class: str, language: str, lexical_type: str,
             num_instances: int = INSTANCES_PER_CONFIG, seed: int = 0,
             lex: lexicon_lib.Lexicon | None = None) -> list[BLMInstance]:
  name = config_name(verb_class, language, lexical_type)
  lex, rng = start(verb_class, language, lexical_type, name, seed, lex)
  ctx_pats = [realise.compiled(p)
              for p in templates.context_patterns(verb_class, language)]
  ans_pats = {label: realise.compiled(p) for label, p in answer_patterns(
      templates.correct_pattern(verb_class, language),
      templates.answer_templates(verb_class, language),
      templates.RULES).items()}
  marks = {a.text: a.time_point for a in lex.adverbials}

  def say(shape, m, f):
    return realise.realise_compiled(shape, m, f, language)

  def frame(m):
    allowed = realise.frames_for(language, marks[m.p_np] or marks[m.by_np])
    return realise.Frame(rng.choice(allowed), venire=rng.random() < 0.5)

  def material(verb):
    return realise.Material(verb, rng.choice(verb.agents),
                            rng.choice(verb.themes), rng.choice(verb.p_nps),
                            rng.choice(verb.by_nps))

  verbs = lex.verbs
  per_verb = _spread(num_instances, len(verbs))
  type_i_combos = {}
  out = []
  for i in range(num_instances):
    verb = verbs[per_verb[i]]
    if lexical_type == "I":
      if verb.lemma not in type_i_combos:
        type_i_combos[verb.lemma] = _distinct_combos(
            verb, per_verb.count(per_verb[i]), rng)
      agent, theme, p_np, by_np = type_i_combos[verb.lemma].pop()
      m = realise.Material(verb, agent, theme, p_np, by_np)
      f = frame(m)
      context = [say(p, m, f) for p in ctx_pats]
      cands = [(lab, say(p, m, f)) for lab, p in ans_pats.items()]
    else:
      if lexical_type == "II":
        ctx_verbs = [verb] * len(ctx_pats)
        ans_verbs = [verb] * len(ans_pats)
      else:
        ctx_verbs = _distinct_verbs(verbs, len(ctx_pats), rng)
        ans_verbs = _distinct_verbs(verbs, len(ans_pats), rng)
      context = [say(p, *_with_frame(material(v), frame))
                 for p, v in zip(ctx_pats, ctx_verbs)]
      cands = [(lab, say(p, *_with_frame(material(v), frame)))
               for (lab, p), v in zip(ans_pats.items(), ans_verbs)]
    out.append(make_instance(
        id=f"{name}-{i:05d}", family=verb_class, language=language,
        lexical_type=lexical_type, subset="main", context=context,
        candidates=cands, correct_label="CORRECT", seed=seed))
  return out


def _with_frame(m, frame):
  return m, frame(m)


def _spread(n: int, k: int) -> list[int]:
  """Verb index per instance: as even as possible, in blocks."""
  return [i * k // n for i in range(n)]


def _distinct_combos(verb, count, rng):
  combos = list(itertools.product(verb.agents, verb.themes, verb.p_nps,
                                  verb.by_nps))
  if count > len(combos):
    raise ValueError(f"verb {verb.lemma!r}: {count} type I instances asked, "
                     f"only {len(combos)} distinct argument combinations")
  return rng.sample(combos, count)


def _cycled_combos(verb, count, rng, keep):
  """`count` (agent, theme, p-NP, by-NP) of `verb` that `keep` allows, each
  as often as the others (+-1), in shuffled rounds; a verb whose
  restrictions leave fewer combinations than instances repeats them (the
  caller then varies the frame)."""
  combos = [c for c in itertools.product(verb.agents, verb.themes,
                                         verb.p_nps, verb.by_nps)
            if keep(*c)]
  if not combos:
    raise ValueError(f"verb {verb.lemma!r}: its restrictions allow no "
                     "argument combination")
  out = []
  while len(out) < count:
    out += rng.sample(combos, len(combos))
  return out[:count]


def _distinct_verbs(verbs, count, rng):
  return rng.sample(verbs, count)
