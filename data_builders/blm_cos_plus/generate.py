"""Instances of the COS+ BLMs for one language variant, direction, lexicality.

Variants (002 sec. 4.2): `en`, `it`, and German `de_case` (masculine
singular agents and patients only, so nominative der and accusative den tell
the patient's two roles apart) and `de_mix` (all genders and plural
patients, where die/das do not).

Lexicality (002 sec. 3):
  MinLex  one verb, agent, patient, place and tense for the whole instance,
          context and answers; each (verb, agent, patient) is used once per
          config, verbs spread evenly (153-167 instances each over the
          12-13 verbs of `lexicon_for`);
  MaxLex  every sentence, context and answers, draws its own verb (distinct
          within the context and within the answers), agent (distinct within
          the instance), patient and place; the tense is shared.
German I2T: the Grammar answer `Pa Verb Ag` ("Die Bratwurst hat die
Konditorin gebraten") is an ordinary object-first sentence with the correct
meaning when neither article shows case (die/das are nominative and
accusative alike) and the verb's number does not pick the subject. So the
transitive answers' agent and patient are drawn where the roles show: one
of them masculine singular (der/den), or the patient plural (the verb
agrees with it). In MinLex that is the instance's pair; in MaxLex the pairs
of Correct and Grammar (both, so the restriction is no answers-only cue).
The context keeps all genders, as 002 sec. 4.2's Mix.

Context-necessary configs (`<variant>_ctx_<lexicality>`, `generate_ctx`):
the direction is drawn per instance from its id alone (`direction_of`:
opposite in the two instances of a pair, which share a split), and the
answers add Direction, the well-formed alternant the context already shows
(templates.CTX_LABELS). In MinLex, Correct and Grammar take the context's
agent and patient, Direction and Sequence a second pair of the same verb
(drawn alike, so neither pair is marked; the context's own transitive or
intransitive would be a copy of its first sentence). In German every
transitive answer shows its subject (`swap_visible`), in both pairs.
All draws come from a generator seeded by (config, seed): a rebuild is
identical. Every sentence passes `validate.problems` or generation fails.
"""

from __future__ import annotations

import dataclasses
import random

from data_builders.blm_cos_plus import lexicon as lexicon_lib
from data_builders.blm_cos_plus import realise
from data_builders.blm_cos_plus import templates
from data_builders.blm_cos_plus import validate
from data_builders.common.instances import make_instance, stable_seed
from data_builders.common.schema import BLMInstance
from data_builders.common.template import answer_patterns

FAMILY = "cos_plus"
VARIANTS = ("en", "it", "de_case", "de_mix")
LEXICALITIES = ("MinLex", "MaxLex")
INSTANCES_PER_CONFIG = 2000  # 1600 train(+dev) / 400 test, 002 Table 2
MAX_REDRAWS = 200  # context-necessary configs: draws that repeat the context


def config_name(variant: str, direction: str, lexicality: str) -> str:
  return f"{variant}_{direction}_{lexicality}"


def ctx_config_name(variant: str, lexicality: str) -> str:
  return f"{variant}_ctx_{lexicality}"


def ctx_pair(instance_id: str) -> str:
  """Instances 2k and 2k+1 of a context-necessary config form a pair: one
  is T2I, the other I2T, and they share a split (the builder's
  `group_of`), so every split, and every verb's instances in MinLex, are
  exactly half T2I."""
  name, index = instance_id.rsplit("-", 1)
  return f"{name}-pair-{int(index) // 2}"


def direction_of(instance_id: str, seed: int = 0) -> str:
  """T2I or I2T from the instance id only (whatever the words): a seeded
  coin for its pair, the other direction for the pair's second instance."""
  first = stable_seed("blm_cos_plus-direction", ctx_pair(instance_id),
                      seed) % 2
  return templates.DIRECTIONS[(first + int(instance_id.rsplit("-", 1)[1]))
                             % 2]


def language_of(variant: str) -> str:
  return variant.split("_")[0]


def lexicon_for(variant: str, lex: lexicon_lib.Lexicon | None = None):
  """The variant's lexicon: the verbs under which 002's role errors are no
  good sentences (`Lexicon.cos_verbs`); de_case keeps the case-marked
  (masc. sg.) NPs."""
  if variant not in VARIANTS:
    raise ValueError(f"unknown variant {variant!r}; known: {VARIANTS}")
  lex = lex or lexicon_lib.load(language_of(variant))
  lex = dataclasses.replace(lex, verbs=lex.cos_verbs)
  if variant != "de_case":
    return lex
  verbs = []
  for v in lex.verbs:
    pats = tuple(p for p in v.patients if p.case_marked)
    if len(pats) < 2:
      raise lexicon_lib.LexiconError(
          f"{lex.folder}/patients.tsv: verb {v.lemma!r} has {len(pats)} "
          "masculine singular patient(s); de_case needs >= 2")
    verbs.append(dataclasses.replace(v, patients=pats))
  agents = tuple(a for a in lex.agents if a.case_marked)
  return dataclasses.replace(lex, verbs=tuple(verbs), agents=agents)


def generate(variant: str, direction: str, lexicality: str,
             num_instances: int = INSTANCES_PER_CONFIG, seed: int = 0,
             lex: lexicon_lib.Lexicon | None = None) -> list[BLMInstance]:
  templates.check_direction(direction)
  if lexicality not in LEXICALITIES:
    raise ValueError(f"unknown lexicality {lexicality!r}; known: "
                     f"{LEXICALITIES}")
  lex = lexicon_for(variant, lex)
  language = language_of(variant)
  name = config_name(variant, direction, lexicality)
  rng = random.Random(stable_seed("blm_cos_plus", name, seed))
  ctx = [(label, realise.parse(p)) for label, p in
         templates.CONTEXTS[direction]]
  answers = [(label, realise.parse(p)) for label, p in answer_patterns(
      templates.CORRECT[direction], templates.answer_templates(direction),
      templates.RULES).items()]

  def say(shape, m, tense, where):
    return _validated(shape, m, tense, language, f"{name} {where}")

  # German I2T: the transitive answers (Correct, Grammar) show who is who.
  need_visible = language == "de" and direction == "I2T"
  visible_k = [k for k, (_, shape) in enumerate(answers)
               if need_visible and shape.transitive]
  verbs = lex.verbs
  per_verb = [i * len(verbs) // num_instances for i in range(num_instances)]
  pairs: dict[str, list] = {}
  out = []
  for i in range(num_instances):
    iid = f"{name}-{i:05d}"
    tense = rng.choice(realise.TENSES)
    if lexicality == "MinLex":
      verb = verbs[per_verb[i]]
      if verb.lemma not in pairs:
        pairs[verb.lemma] = _distinct_pairs(
            verb, lex.agents, per_verb.count(per_verb[i]), rng, need_visible)
      agent, patient = pairs[verb.lemma].pop()
      m = realise.Material(verb, agent, patient, rng.choice(lex.places))
      mats_ctx, mats_ans = [m] * len(ctx), [m] * len(answers)
    else:
      mats_ctx, mats_ans = _maxlex_materials(lex, verbs, len(ctx),
                                             len(answers), rng)
      for k in visible_k:
        a = mats_ans[k]
        if not swap_visible(a.agent, a.patient):
          mats_ans[k] = dataclasses.replace(a, patient=rng.choice(
              [p for p in a.verb.patients if swap_visible(a.agent, p)]))
    for k in visible_k:
      a = mats_ans[k]
      if not swap_visible(a.agent, a.patient):
        raise ValueError(f"{iid} answer {answers[k][0]}: agent "
                         f"{a.agent.text!r} and patient {a.patient.text!r} "
                         "do not show which is the subject")
    context = [say(shape, m, tense, f"{iid} context {label}")
               for (label, shape), m in zip(ctx, mats_ctx)]
    cands = [(label, say(shape, m, tense, f"{iid} answer {label}"))
             for (label, shape), m in zip(answers, mats_ans)]
    out.append(make_instance(
        id=iid, family=FAMILY, language=language, lexical_type=lexicality,
        subset=f"{variant}_{direction}", context=context, candidates=cands,
        correct_label="Correct", seed=seed))
  return out


def swap_visible(agent: lexicon_lib.NP, patient: lexicon_lib.NP) -> bool:
  """German: `Pa Verb Ag` cannot be read as object-first with the right
  meaning: an article shows case (der/den) or the verb agrees with the
  patient only (a plural patient, a singular agent)."""
  return (agent.case_marked or patient.case_marked
          or agent.number != patient.number)


def _validated(shape, m, tense, language: str, where: str):
  """The realised sentence, refused (naming `where`) when `validate` finds
  a problem in it."""
  s = realise.realise(shape, m, tense, language)
  bad = validate.problems(s.text, shape, m, tense, language)
  if bad:
    raise ValueError(f"{where}: {s.text!r} ({shape.text}): "
                     + "; ".join(bad))
  return s


def _maxlex_materials(lex, verbs, n_ctx: int, n_answers: int,
                      rng: random.Random):
  """MaxLex: every sentence its own agent and verb (context and answers
  each from distinct verbs), patient and place; (context, answers)."""
  agents = rng.sample(lex.agents, n_ctx + n_answers)
  v_ctx = rng.sample(verbs, n_ctx)
  v_ans = rng.sample(verbs, n_answers)
  mats = [realise.Material(v, a, rng.choice(v.patients),
                           rng.choice(lex.places))
          for v, a in zip(v_ctx + v_ans, agents)]
  return mats[:n_ctx], mats[n_ctx:]


def _distinct_pairs(verb, agents, count, rng, visible_only=False):
  combos = [(a, p) for a in agents for p in verb.patients
            if not visible_only or swap_visible(a, p)]
  if count > len(combos):
    raise ValueError(f"verb {verb.lemma!r}: {count} MinLex instances asked, "
                     f"only {len(combos)} (agent, patient) pairs")
  return rng.sample(combos, count)


def generate_ctx(variant: str, lexicality: str,
                 num_instances: int = INSTANCES_PER_CONFIG, seed: int = 0,
                 lex: lexicon_lib.Lexicon | None = None) -> list[BLMInstance]:
  """The context-necessary config: directions drawn per instance, four
  answers (templates.CTX_LABELS); the rest as `generate`."""
  if lexicality not in LEXICALITIES:
    raise ValueError(f"unknown lexicality {lexicality!r}; known: "
                     f"{LEXICALITIES}")
  lex = lexicon_for(variant, lex)
  language = language_of(variant)
  name = ctx_config_name(variant, lexicality)
  rng = random.Random(stable_seed("blm_cos_plus", name, seed))
  shapes = {d: ([(label, realise.parse(p))
                 for label, p in templates.CONTEXTS[d]],
                [(label, realise.parse(p)) for label, p in answer_patterns(
                    templates.CORRECT[d], templates.ctx_answer_templates(d),
                    templates.RULES).items()])
            for d in templates.DIRECTIONS}

  def say(shape, m, tense, where):
    return _validated(shape, m, tense, language, f"{name} {where}")

  visible = language == "de"  # every transitive answer shows its subject
  verbs = lex.verbs
  per_verb = [i * len(verbs) // num_instances for i in range(num_instances)]
  pairs: dict[str, list] = {}
  out = []
  i = redraws = 0
  while len(out) < num_instances:
    i = len(out)
    iid = f"{name}-{i:05d}"
    direction = direction_of(iid, seed)
    ctx, answers = shapes[direction]
    tense = rng.choice(realise.TENSES)
    if lexicality == "MinLex":
      verb = verbs[per_verb[i]]
      if verb.lemma not in pairs:
        pairs[verb.lemma] = _distinct_pairs(
            verb, lex.agents, per_verb.count(per_verb[i]), rng, visible)
      agent, patient = pairs[verb.lemma].pop()
      place = rng.choice(lex.places)
      m = realise.Material(verb, agent, patient, place)
      foil = rng.choice(
          [(a, p) for a in lex.agents for p in verb.patients
           if a.text != agent.text and p.text != patient.text
           and (not visible or swap_visible(a, p))])
      mf = realise.Material(verb, foil[0], foil[1], place)
      mats_ctx = [m] * len(ctx)
      mats_ans = [m if label in templates.CTX_ON_CONTEXT_PAIR else mf
                  for label, _ in answers]
    else:
      mats_ctx, mats_ans = _maxlex_materials(lex, verbs, len(ctx),
                                             len(answers), rng)
      for k, (_, shape) in enumerate(answers):
        a = mats_ans[k]
        if visible and shape.transitive and not swap_visible(a.agent,
                                                             a.patient):
          mats_ans[k] = dataclasses.replace(a, patient=rng.choice(
              [p for p in a.verb.patients if swap_visible(a.agent, p)]))
    for k, (label, shape) in enumerate(answers):
      a = mats_ans[k]
      if visible and shape.transitive and not swap_visible(a.agent,
                                                           a.patient):
        raise ValueError(f"{iid} answer {label}: agent {a.agent.text!r} and "
                         f"patient {a.patient.text!r} do not show which is "
                         "the subject")
    context = [say(shape, m, tense, f"{iid} context {label}")
               for (label, shape), m in zip(ctx, mats_ctx)]
    cands = [(label, say(shape, m, tense, f"{iid} answer {label}"))
             for (label, shape), m in zip(answers, mats_ans)]
    shown = {s.text for s in context}
    if any(s.text in shown for _, s in cands):
      # MaxLex: a fresh Direction can be the context's first sentence.
      redraws += 1
      if redraws > MAX_REDRAWS:
        raise ValueError(f"{iid}: every draw repeats a context sentence")
      continue
    out.append(make_instance(
        id=iid, family=FAMILY, language=language, lexical_type=lexicality,
        subset=f"{variant}_ctx", context=context, candidates=cands,
        correct_label="Correct", seed=seed))
  return out
