"""Instances of the Roll BLM for one lexical type.

Lexical types (000 Table 1 ticks I-III for Caus-Roll; sec. 4.3):
  I    one verb for the whole instance; its two paradigms come from two
       different scenes of that verb (000 Figure 10: man/dice/cup and
       explorer/mat/pillow, both with `rolled`);
  II   two verbs: paradigm 1 from a scene of one, paradigm 2 (and the
       answers that continue it) from a scene of the other (sec. 4.3:
       "Type II has two distinct verbs");
  III  every sentence with a roll verb draws its own verb among its scene's
       verbs (sentences 1 and 4 of a paradigm always differ), the answers
       too; paradigms keep their own agent, theme and location, so the
       "did it" / "was in" diagnostics still refer.
Within an instance the two paradigms share no agent, theme or location, and
no two instances of a config share a context. All draws come from a
generator seeded by (type, seed), so a rebuild is identical.

Context-necessary configs (`ctx_type_<t>`, `context_necessary=True`): the
direction of the alternation (templates.TI or IT) is drawn from the instance
id alone, so it is independent of verbs and nouns; paradigm 2 also gets a
foil material (another agent and location of its scene, named nowhere in
the context) on which the answers mirror the errors (templates.CTX_LABELS).
"""

from __future__ import annotations

import random

from data_builders.blm_roll import lexicon as lexicon_lib, realise, templates
from data_builders.common.instances import make_instance, stable_seed
from data_builders.common.schema import BLMInstance
from data_builders.common.template import answer_patterns

FAMILY = "roll"
LEXICAL_TYPES = ("I", "II", "III")
INSTANCES_PER_CONFIG = 3000  # as CoS/OD (000 Table 4)
MAX_TRIES = 200


def config_name(lexical_type: str, context_necessary: bool = False) -> str:
  return f"{'ctx_' if context_necessary else ''}type_{lexical_type}"


def direction(instance_id: str, seed: int = 0) -> str:
  """TI or IT, from the instance id only (half each, whatever the words)."""
  return templates.DIRECTIONS[stable_seed("blm_roll-direction", instance_id,
                                          seed) % 2]


def generate(lexical_type: str, num_instances: int = INSTANCES_PER_CONFIG,
             seed: int = 0,
             lex: lexicon_lib.Lexicon | None = None,
             context_necessary: bool = False) -> list[BLMInstance]:
  if lexical_type not in LEXICAL_TYPES:
    raise ValueError(f"unknown lexical type {lexical_type!r}; known: "
                     f"{LEXICAL_TYPES}")
  lex = lex or lexicon_lib.load()
  bad = lexicon_lib.path_problems(lex)  # also for a lexicon built in code
  if bad:
    raise lexicon_lib.LexiconError("; ".join(bad))
  name = config_name(lexical_type, context_necessary)
  rng = random.Random(stable_seed("blm_roll", name, seed))
  ctx_pats = templates.context_patterns()
  ans_pats = answer_patterns(templates.correct_pattern(), templates.ANSWERS,
                             templates.RULES)
  p2_scenes = lex.scenes
  if context_necessary:  # the foil needs a second location
    p2_scenes = tuple(s for s in lex.scenes if len(s.locations) >= 2)
  verbs = sorted(lex.verbs)
  pairs = [(a, b) for a in verbs for b in verbs if a != b]
  seen: set[tuple[str, ...]] = set()
  out = []
  for i in range(num_instances):
    iid = f"roll-{name}-{i:05d}"
    if context_necessary:
      d = direction(iid, seed)
      ctx_pats = templates.ctx_context_patterns(d)
      ans_pats = answer_patterns(templates.ctx_correct_pattern(d),
                                 templates.ctx_answers(d),
                                 templates.CTX_RULES)
    for _ in range(MAX_TRIES):
      if lexical_type == "I":
        v = verbs[i * len(verbs) // num_instances]
        if context_necessary:
          s2 = rng.choice([s for s in lex.scenes_of(v) if s in p2_scenes])
          s1 = rng.choice([s for s in lex.scenes_of(v) if s != s2])
        else:
          s1, s2 = rng.sample(lex.scenes_of(v), 2)
        pick = _fixed({templates.P1: v, templates.P2: v, templates.FOIL: v})
      elif lexical_type == "II":
        v1, v2 = pairs[i * len(pairs) // num_instances]
        s1 = rng.choice(lex.scenes_of(v1))
        s2 = rng.choice([s for s in lex.scenes_of(v2)
                         if s != s1 and s in p2_scenes])
        pick = _fixed({templates.P1: v1, templates.P2: v2,
                       templates.FOIL: v2})
      else:
        s2 = p2_scenes[i * len(p2_scenes) // num_instances]
        s1 = rng.choice([s for s in lex.scenes if s != s2])
        pick = None
      m = _materials(s1, s2, rng, foil=context_necessary)
      if m is None:
        continue
      scenes = {templates.P1: s1, templates.P2: s2, templates.FOIL: s2}
      if pick is None:
        pick = _per_sentence(scenes, rng)
      context = [realise.realise(p, m, lex.verbs.get(pick(p, k)) if
                                 pick(p, k) else None)
                 for k, p in enumerate(ctx_pats)]
      key = tuple(s.text for s in context)
      if key in seen:
        continue
      seen.add(key)
      cands = [(lab, realise.realise(p, m, lex.verbs.get(pick(p, 7 + k))
                                     if pick(p, 7 + k) else None))
               for k, (lab, p) in enumerate(ans_pats.items())]
      break
    else:
      raise ValueError(f"blm_roll/{name}: no new instance after {MAX_TRIES} "
                       f"draws at instance {i}; the lexicon is too small for "
                       f"{num_instances} instances")
    out.append(make_instance(
        id=iid, family=FAMILY, language="en",
        lexical_type=lexical_type, subset="main", context=context,
        candidates=cands, correct_label="CORRECT", seed=seed))
  return out


def _materials(s1, s2, rng, foil=False):
  """One agent and location per scene; None if they cannot be kept apart.
  `foil`: also a second agent and location of scene 2 (templates.FOIL),
  drawn exactly as the first, so neither is marked by how it was drawn."""
  a1, l1 = rng.choice(s1.agents), rng.choice(s1.locations)
  a2s = [a for a in s2.agents if a.text != a1.text]
  l2s = [l for l in s2.locations
         if l.path != l1.path and l.state != l1.state]
  if not a2s or not l2s:
    return None
  if not foil:
    return {templates.P1: realise.Material(a1, s1.theme, l1),
            templates.P2: realise.Material(rng.choice(a2s), s2.theme,
                                           rng.choice(l2s))}
  if len(a2s) < 2 or len(l2s) < 2:
    return None
  a2, af = rng.sample(a2s, 2)
  l2, lf = rng.sample(l2s, 2)
  if l2.path == lf.path or l2.state == lf.state:
    return None
  return {templates.P1: realise.Material(a1, s1.theme, l1),
          templates.P2: realise.Material(a2, s2.theme, l2),
          templates.FOIL: realise.Material(af, s2.theme, lf)}


def _fixed(verb_of_par):
  """Types I-II: the paradigm's verb for every roll slot."""

  def pick(p, _k):
    if p.slot("V").get("kind") != "roll":
      return None
    return verb_of_par[p.slot("NP").get("par")]

  return pick


def _per_sentence(scenes, rng):
  """Type III: a verb per sentence (k = 0..6 context, 7.. answers) from its
  scene; the transitive and intransitive of a paradigm never share one."""
  chosen: dict[int, str] = {}

  def pick(p, k):
    if p.slot("V").get("kind") != "roll":
      return None
    if k not in chosen:
      options = list(scenes[p.slot("NP").get("par")].verbs)
      if k == 3 and chosen.get(0) in options:  # sentence 4 vs sentence 1
        # (in the IT order: the intransitive vs the transitive)
        options.remove(chosen[0])
      chosen[k] = rng.choice(options)
    return chosen[k]

  return pick
