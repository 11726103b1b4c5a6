"""The spray/load `_seq` design's attributes (sequence.py): alternant, form
and polarity of each cell, plus `violation`, the paper's rule a
rule-breaking candidate breaks ('none' for the 16 well-formed cells; such
a candidate reads as its base cell, whose form is always the active).

The table is the generator's own enumeration (every cell, every
rule-breaking candidate on every base), so a pattern reads as it was
built; where two bases give one string, what they do not share is absent.
The paper's and `_ctx` configs have no schema here.
"""

from __future__ import annotations

import functools

from data_builders.blm_spray_load import generate, sequence, templates
from data_builders.common.attributes import (AttributeSchema, add_reading,
                                             table_parser)
from data_builders.common.template import answer_patterns

NONE = "none"
VIOLATIONS = (NONE,) + tuple(t.label for t in templates.ANSWER_TEMPLATES[1:])


@functools.lru_cache(maxsize=None)
def seq_schema() -> AttributeSchema:
  table: dict = {}
  for cell in sequence.CELLS:
    add_reading(table, str(sequence.cell_pattern(*cell)),
               dict(zip(sequence.ATTRIBUTES, cell), violation=NONE))
  for alternant in sequence.ALTERNANTS:
    for polarity in sequence.POLARITIES:
      base = (alternant, "ACT", polarity)
      wrong = answer_patterns(sequence.cell_pattern(*base),
                              templates.ANSWER_TEMPLATES, templates.RULES)
      for label, p in wrong.items():
        if label != templates.CORRECT:
          add_reading(table, str(sequence.with_polarity(p, polarity)),
                     dict(zip(sequence.ATTRIBUTES, base), violation=label))
  return AttributeSchema(
      family=sequence.SEQ_FAMILY,
      names=sequence.ATTRIBUTES + ("violation",),
      values={"alternant": sequence.ALTERNANTS, "form": sequence.FORMS,
              "polarity": sequence.POLARITIES, "violation": VIOLATIONS},
      parser=table_parser(table))


def schema_for(config_name: str) -> AttributeSchema | None:
  """The schema of a `blm_spray_load` `_seq` config and its regimes
  (`seq[_rules|_extrap]_type_<T>`), else None."""
  if any(config_name.startswith(f"{generate.SEQ}{regime}_type_")
         for regime in ("", "_rules", "_extrap")):
    return seq_schema()
  return None
