"""Attributes as data: how a family's pattern strings split into the
features its rules vary.

Every generated sentence carries the pattern it was realised from
(`schema.Sentence.pattern`). A family that declares an `AttributeSchema`
(its `attributes.py`, `schema_for(config_name)`) lets the tool read each
sentence's attributes (spray/load: alternant, form, polarity) from the
data: what a gold-feature ceiling trains on, and what encoder probes
predict. Data without patterns (own data, the published release) has none,
and says why (`encode_patterns`' reason, the sentence table's
`attributes_missing`).

A value that a pattern does not have (agreement's N2 in one-attractor
sentences) is absent from `parse`'s dict and -1 in `encode`;
`thinly_visible` names the deciding attributes that too few context
sentences show.
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Callable, Mapping, Sequence

import numpy as np

ABSENT = -1  # `encode`'s value of an attribute a pattern does not have.


class PatternAttributeError(ValueError):
  """A pattern the schema cannot parse (one line, naming the pattern)."""


@dataclasses.dataclass(frozen=True)
class AttributeSchema:
  """A family design's attributes and how to read them off a pattern.

  names: the attributes, in column order.
  values: per name, its values in one-hot order.
  parser: pattern string -> {name: value} (a name left out: absent), or
    raises KeyError/ValueError when the pattern is not one of the design's.
  family: what the schema describes, for error messages.
  """

  family: str
  names: tuple[str, ...]
  values: Mapping[str, tuple[str, ...]]
  parser: Callable[[str], Mapping[str, str]]

  def __post_init__(self):
    missing = [n for n in self.names if n not in self.values]
    if missing:
      raise ValueError(f"attribute schema {self.family}: no values for "
                       f"{missing}")

  def parse(self, pattern: str) -> dict[str, str]:
    """{attribute: value} of `pattern`; one line naming it if it cannot."""
    try:
      out = dict(self.parser(pattern))
    except (KeyError, ValueError) as e:
      raise PatternAttributeError(
          f"pattern {pattern!r} cannot be read as {self.family} attributes"
          f" ({e.args[0] if e.args else e})") from None
    for name, value in out.items():
      if name not in self.values:
        raise PatternAttributeError(
            f"pattern {pattern!r}: attribute {name!r} is not one of "
            f"{self.family}'s {self.names}")
      if value not in self.values[name]:
        raise PatternAttributeError(
            f"pattern {pattern!r}: {name}={value!r} is not one of "
            f"{self.values[name]}")
    return out

  def encode(self, pattern: str) -> tuple[int, ...]:
    """Each attribute's value index (ABSENT where the pattern has none)."""
    parsed = self.parse(pattern)
    return tuple(self.values[n].index(parsed[n]) if n in parsed else ABSENT
                 for n in self.names)

  @property
  def num_values(self) -> tuple[int, ...]:
    return tuple(len(self.values[n]) for n in self.names)


def one_hot(codes: np.ndarray, num_values: Sequence[int]) -> np.ndarray:
  """[S, A] codes (ABSENT allowed) -> [S, sum(num_values)] float32 one-hots
  (an absent attribute's block is all zero)."""
  codes = np.asarray(codes)
  blocks = []
  for j, k in enumerate(num_values):
    block = np.zeros((len(codes), k), np.float32)
    have = np.flatnonzero(codes[:, j] >= 0)
    block[have, codes[have, j]] = 1.0
    blocks.append(block)
  return (np.concatenate(blocks, axis=1) if blocks
          else np.zeros((len(codes), 0), np.float32))


def table_parser(table: Mapping[str, Mapping[str, str]]
                 ) -> Callable[[str], Mapping[str, str]]:
  """A parser that looks a pattern up in the generator's own enumeration
  (pattern -> attributes), raising KeyError for any other pattern."""

  def parse(pattern: str) -> Mapping[str, str]:
    if pattern not in table:
      raise KeyError("not a pattern this design generates")
    return table[pattern]

  return parse


def add_reading(table: dict, pattern: str, attrs: Mapping[str, str]) -> None:
  """Adds one reading of `pattern` to a table: where the generator builds
  one pattern string in two ways (spray/load's SSM errors on either
  alternant), only the attributes both readings share are kept; the others
  are absent, since the data cannot tell them."""
  old = table.get(pattern)
  table[pattern] = (dict(attrs) if old is None else
                    {k: v for k, v in old.items() if attrs.get(k) == v})


def schema_for_dataset(name: str) -> AttributeSchema | None:
  """The schema of a TFDS name 'builder/config' (None: the builder has no
  `attributes.py`, or its config no schema)."""
  builder, _, config = name.partition("/")
  if not builder.isidentifier():
    return None
  try:
    module = importlib.import_module(f"data_builders.{builder}.attributes")
  except ModuleNotFoundError as e:
    if e.name and e.name.startswith(f"data_builders.{builder}"):
      return None
    raise
  return module.schema_for(config)


def encode_patterns(schema: AttributeSchema | None, patterns: Sequence[str]
                    ) -> tuple[np.ndarray, str]:
  """(int32 [len(patterns), A] codes, '' or why there are none).

  No schema, or any empty pattern (own data, the release): a [n, 0] array
  and the reason; a pattern the schema cannot read raises its one line.
  """
  empty = np.zeros((len(patterns), 0), np.int32)
  if not patterns or any(not p for p in patterns):
    return empty, ("its sentences carry no pattern strings (own data or the "
                   "published release)")
  if schema is None:
    return empty, "its family declares no attribute schema for this design"
  codes = {p: schema.encode(p) for p in dict.fromkeys(patterns)}
  rows = [codes[p] for p in patterns]
  return np.asarray(rows, np.int32).reshape(len(patterns),
                                            len(schema.names)), ""


# A rule read off fewer terms than this leaves a reader who does not know
# the family's rules several continuations (x y y: y again, or x?).
MIN_VISIBLE_TERMS = 4


def thinly_visible(schema: AttributeSchema, context: Sequence[str],
                   answers: Sequence[str],
                   min_terms: int = MIN_VISIBLE_TERMS) -> dict[str, int]:
  """{attribute: context sentences showing it} of the attributes that
  decide between the candidates (some candidate's value, or its absence,
  differs from another's) and that fewer than `min_terms` of the context
  patterns show. Raises `PatternAttributeError` on an unreadable pattern."""
  answer_values = [schema.parse(p) for p in answers]
  shown = [schema.parse(p) for p in context]
  out = {}
  for name in schema.names:
    if len({a.get(name) for a in answer_values}) < 2:
      continue
    n = sum(name in s for s in shown)
    if n < min_terms:
      out[name] = n
  return out
