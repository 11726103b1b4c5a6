"""English noun phrases: `the` + the noun's own singular or plural form.

Number lives only in the noun's inflection (irregular plurals such as
child/children are lexicon data) and in the verb (is/are, has/have: verb
phrases are lexicon data too).
"""

from __future__ import annotations

AND = "and"


def np(noun, num: str) -> str:
  return f"the {noun.form(num)}"


def pp(prep: str, noun, num: str) -> str:
  return f"{prep} {np(noun, num)}"


def coord(p1: str, noun, num: str, subject, subject_num: str) -> str:
  del p1, subject, subject_num  # English coordination does not depend on them.
  return f"{AND} {np(noun, num)}"
