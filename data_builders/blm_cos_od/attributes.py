"""The CoS / OD `_seq` designs' attributes (templates.py, last section):
the form (TRANS, PASSBY, PASS, INT) and the tail (the p-NP or the by-NP)
of each cell, plus `violation`, the rule a rule-breaking candidate breaks
('none' for the eight well-formed cells; such a candidate reads as its
base, the intransitive with the by-NP).

The table is the generator's own enumeration for the config's verb class
and language. The paper's and `_ctx` configs have no schema here.
"""

from __future__ import annotations

import functools
import re

from data_builders.blm_cos_od import templates
from data_builders.common.attributes import (AttributeSchema, add_reading,
                                             table_parser)

NONE = "none"
_SEQ_CONFIG = re.compile(r"^(cos|od)_(en|it)_seq(?:_rules)?_type_")


@functools.lru_cache(maxsize=None)
def seq_schema(verb_class: str, language: str) -> AttributeSchema:
  table: dict = {}
  for form in templates.FORMS:
    for tail in templates.TAILS:
      add_reading(table, str(templates.form_pattern(
          form, verb_class, language, templates.tail_slot(tail))),
          {"form": form, "tail": tail, "violation": NONE})
  # Any rule gives the rule-breaking candidates (all on the same base).
  answers = templates.seq_answer_patterns(verb_class, language,
                                          templates.seq_rules()[0])
  violations = []
  for label, p in answers.items():
    if label.endswith("-INT") and not label.startswith("R-"):
      rule = label[:-len("-INT")]
      violations.append(rule)
      add_reading(table, str(p), {"form": "INT", "tail": "BY",
                                  "violation": rule})
  return AttributeSchema(
      family=templates.SEQ_FAMILY[verb_class],
      names=("form", "tail", "violation"),
      values={"form": templates.FORMS, "tail": templates.TAILS,
              "violation": (NONE,) + tuple(violations)},
      parser=table_parser(table))


def schema_for(config_name: str) -> AttributeSchema | None:
  """The schema of a `blm_cos_od` `_seq` config, its held-out-rules regime
  included (`<cos|od>_<en|it>_seq[_rules]_type_<T>`), else None."""
  m = _SEQ_CONFIG.match(config_name)
  return seq_schema(m.group(1), m.group(2)) if m else None
