"""Instances of the sequence-necessary CoS / OD BLMs (templates.py, last
section; README "Sequence-necessary configs").

Per instance a progression of form and tail is drawn from
`templates.seq_rules()` so that every rule is used equally often (counts
differ by at most one) and every verb's instances have every answer cell
equally often (`rule_order`: else a verb's block of consecutive rules would
favour some cells, a cue for a reader of the answers alone), shuffled
within each verb's block; the words are
drawn as in `generate` (types I, II, III) by `ctx.realise_designed`,
independently of the rule, within the lexicon's selectional restrictions
(`plausible`), and no candidate repeats a context sentence.
"""

from __future__ import annotations

import random

from data_builders.blm_cos_od import ctx, generate, lexicon as lexicon_lib
from data_builders.blm_cos_od import realise, templates
from data_builders.common.instances import stable_seed
from data_builders.common.schema import BLMInstance


def config_name(verb_class: str, language: str, lexical_type: str,
                regime: str = "") -> str:
  """`<cos|od>_<en|it>_seq[_<regime>]_type_<T>`."""
  design = f"seq_{regime}" if regime else "seq"
  return f"{verb_class}_{language}_{design}_type_{lexical_type}"


def generate_seq(verb_class: str, language: str, lexical_type: str,
                 num_instances: int = generate.INSTANCES_PER_CONFIG,
                 seed: int = 0,
                 lex: lexicon_lib.Lexicon | None = None,
                 wide: bool = False) -> list[BLMInstance]:
  """`num_instances` instances; `wide`: the rules of
  `templates.seq_rules(wide=True)` (the held-out-rules regime's)."""
  name = config_name(verb_class, language, lexical_type)
  lex, rng = generate.start(verb_class, language, lexical_type, name, seed,
                            lex)
  rules = rule_order(wide)
  per_verb = generate._spread(num_instances, len(lex.verbs))
  drawn = ctx._balanced_phases(per_verb, len(rules), rng)
  compiled = {}

  def patterns(r):
    if r not in compiled:
      rule = rules[r]
      compiled[r] = (
          [realise.compiled(p) for p in
           templates.seq_context_patterns(verb_class, language, rule)],
          {lab: realise.compiled(p) for lab, p in
           templates.seq_answer_patterns(verb_class, language,
                                         rule).items()})
    return compiled[r]

  return ctx.realise_designed(name, templates.SEQ_FAMILY[verb_class],
                              language, lexical_type,
                              [patterns(r) for r in drawn], lex, rng, seed,
                              plausible=True)


def rule_order(wide: bool = False) -> tuple[tuple[int, ...], ...]:
  """`templates.seq_rules()` interleaved by answer cell (each cell's rules
  in a fixed shuffled order): any run of consecutive rules, as a verb's
  block draws, holds every answer cell as often as the others (+-1) and
  rules of varied periods and directions."""
  by_cell: dict = {}
  for r in templates.seq_rules(wide):
    by_cell.setdefault(templates.seq_cells(r)[-1], []).append(r)
  shuffler = random.Random(stable_seed("blm_cos_od", "seq_rule_order"))
  for rs in by_cell.values():
    shuffler.shuffle(rs)
  cells = sorted(by_cell)
  if len({len(rs) for rs in by_cell.values()}) != 1:
    raise ValueError("the rule family gives the answer cells unequal numbers "
                     "of rules")
  return tuple(by_cell[c][i] for i in range(len(by_cell[cells[0]]))
               for c in cells)


def cell_of(pattern: str, verb_class: str,
            language: str) -> tuple[str, str] | None:
  """The (form, tail) a pattern string shows, or None (a rule breaker)."""
  for f in templates.FORMS:
    for t in templates.TAILS:
      if pattern == str(templates.form_pattern(f, verb_class, language,
                                               templates.tail_slot(t))):
        return f, t
  return None


def answer_cell(inst: BLMInstance) -> tuple[str, str]:
  """The (form, tail) of the correct answer, read from its pattern."""
  cls = {v: k for k, v in templates.SEQ_FAMILY.items()}[inst.family]
  cell = cell_of(inst.correct_answer.pattern, cls, inst.language)
  if cell is None:
    raise ValueError(f"{inst.id}: correct pattern "
                     f"{inst.correct_answer.pattern!r} is no cell")
  return cell
