"""The agreement designs' attributes, read off a pattern's slots
(templates.py: `[Prefix] NP PP1 [PP2|Coord2] [RC] VP`, each noun and the
verb with its number): whether the clause is embedded under the matrix
clause (`Prefix`, the `_seq` design's embedding attribute and the
completive clause type), the subject's, N1's and N2's numbers, the verb's
number (apart from the subject's in an agreement error) and what the
second noun is (none, a PP, a coordination: WNA and Coord break those).
N2 is absent where there is no second noun.

One schema serves every `blm_agreement` config: the patterns of the
papers', `_ctx` and `_seq` designs share the slots.
"""

from __future__ import annotations

import functools

from data_builders.blm_agreement import templates

from data_builders.common.attributes import AttributeSchema

EMBEDDINGS = ("main", "compl")
SECOND_NOUNS = ("none", "pp", "coord")
NAMES = ("embedding", "subject", "n1", "n2", "verb", "second_noun")
_ROLES = {templates.PREFIX, templates.NP, templates.PP1, templates.PP2,
          templates.COORD, templates.RC, templates.VP}


def parse(pattern: str) -> dict[str, str]:
  slots = templates.parse_pattern(pattern)
  unknown = sorted(set(slots) - _ROLES)
  if unknown:
    raise ValueError(f"unknown slot(s) {unknown}")
  for role in (templates.NP, templates.PP1, templates.VP):
    if slots.get(role) not in templates.NUMBERS:
      raise ValueError(f"no numbered {role} slot")
  if templates.PP2 in slots and templates.COORD in slots:
    raise ValueError("both a PP2 and a coordination")
  out = {"embedding": EMBEDDINGS[templates.PREFIX in slots],
         "subject": slots[templates.NP], "n1": slots[templates.PP1],
         "verb": slots[templates.VP], "second_noun": "none"}
  for role, kind in ((templates.PP2, "pp"), (templates.COORD, "coord")):
    if role in slots:
      out.update(n2=slots[role], second_noun=kind)
  return out


@functools.lru_cache(maxsize=None)
def agreement_schema() -> AttributeSchema:
  numbers = templates.NUMBERS
  return AttributeSchema(
      family=templates.FAMILY, names=NAMES,
      values={"embedding": EMBEDDINGS, "subject": numbers, "n1": numbers,
              "n2": numbers, "verb": numbers, "second_noun": SECOND_NOUNS},
      parser=parse)


def schema_for(config_name: str) -> AttributeSchema | None:
  """The schema of any `blm_agreement` config."""
  del config_name  # Every design's patterns share the slots.
  return agreement_schema()
