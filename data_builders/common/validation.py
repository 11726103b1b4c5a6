"""Linguistic checks a family declares for its generated data.

`lint` holds every file to the structural rules (one correct answer, no
duplicate candidate...). What makes a *generated* instance good language
is family knowledge: a plural that is not a plural, a theme the verb does
not select, the same quantifier twice in one sentence. Each builder
package may declare such checks in `data_builders/<package>/validate.py`
as a tuple `CHECKS` of `Check`; `checks_for` finds them by package name,
`lint` runs them on that package's configs, and full-size scans in the
tests hold them to zero.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
from typing import Callable, Iterable

from data_builders.common.schema import BLMInstance

# A check's findings in one instance: one short message each (naming the
# sentence: "context 3: ..." or "answer 5: ..."), none when it passes.
CheckFn = Callable[[BLMInstance], Iterable[str]]


@dataclasses.dataclass(frozen=True)
class Check:
  """One linguistic rule for generated data.

  `name`: snake_case, unique within its package (lint prints it).
  `description`: what a passing instance satisfies, in a linguist's words.
  `run`: the findings in one instance.
  """

  name: str
  description: str
  run: CheckFn

  def __post_init__(self):
    if not self.name.isidentifier() or self.name != self.name.lower():
      raise ValueError(f"check name {self.name!r}: snake_case expected")


def checks_for(package: str) -> tuple[Check, ...]:
  """The checks builder package `package` (e.g. 'blm_cos_od') declares;
  () for a package without `validate.py` (own data, the release)."""
  module_name = f"data_builders.{package}.validate"
  if not package.isidentifier() or importlib.util.find_spec(
      f"data_builders.{package}") is None:
    return ()
  if importlib.util.find_spec(module_name) is None:
    return ()
  checks = tuple(importlib.import_module(module_name).CHECKS)
  names = [c.name for c in checks]
  if len(set(names)) != len(names):
    raise ValueError(f"{module_name}.CHECKS: a check name occurs twice "
                     f"({sorted(names)})")
  return checks


def findings(checks: Iterable[Check],
             instance: BLMInstance) -> dict[str, list[str]]:
  """{check name: its messages} for the checks `instance` breaks."""
  out = {}
  for check in checks:
    messages = list(check.run(instance))
    if messages:
      out[check.name] = messages
  return out
