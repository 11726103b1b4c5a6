"""Deterministic train/dev/test splits with no leakage across splits.

Instances are grouped (by default, by their context), groups are ordered by a
seeded hash of their key and cut by the split fractions, so the same seed
always yields the same splits and no group (hence no instance and no context)
lands in two splits. The generalisation regimes (DESIGN.md, as PGM) split
the same instances otherwise: `rule_key` groups by rule, `held_out` puts
the instances with a value never seen in training in test.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence, TypeVar

from data_builders.common.instances import stable_seed
from data_builders.common.schema import BLMInstance

T = TypeVar("T")

# 90:10 train:test, with a 20% dev slice of the 90.
DEFAULT_FRACTIONS = {"train": 0.72, "dev": 0.18, "test": 0.10}


def context_key(inst: BLMInstance) -> str:
  return "\n".join(s.text for s in inst.context)


def rule_key(inst: BLMInstance) -> str:
  """The instance's rule as its context shows it: the context pattern
  sequence. Grouping by it keeps every rule in one split (the held-out-rules
  regime)."""
  return "\n".join(s.pattern for s in inst.context)


def assign_splits(
    items: Sequence[T],
    seed: int | str,
    group_of: Callable[[T], str] = context_key,
    fractions: Mapping[str, float] = DEFAULT_FRACTIONS,
) -> dict[str, list[T]]:
  """Splits `items` by group; each split gets its fraction of the groups."""
  if abs(sum(fractions.values()) - 1.0) > 1e-9:
    raise ValueError(f"split fractions {dict(fractions)} do not sum to 1")
  groups: dict[str, list[T]] = {}
  for it in items:
    groups.setdefault(group_of(it), []).append(it)
  keys = sorted(groups, key=lambda k: (stable_seed("split", seed, k), k))
  out: dict[str, list[T]] = {}
  start, acc = 0, 0.0
  names = list(fractions)
  for i, name in enumerate(names):
    acc += fractions[name]
    stop = len(keys) if i == len(names) - 1 else round(acc * len(keys))
    out[name] = [it for k in keys[start:stop] for it in groups[k]]
    start = stop
  return out


def held_out(items: Sequence[T], seed: int | str, in_test: Callable[[T], bool],
             group_of: Callable[[T], str] = context_key,
             fractions: Mapping[str, float] = DEFAULT_FRACTIONS,
             ) -> dict[str, list[T]]:
  """The extrapolation regime: every item `in_test` in test, the others
  split train:dev by `group_of` in the proportion of `fractions`' train and
  dev. Raises (one line) when either side is empty."""
  test = [it for it in items if in_test(it)]
  rest = [it for it in items if not in_test(it)]
  if not test or not rest:
    raise ValueError(f"the extrapolation split holds {len(test)} test and "
                     f"{len(rest)} training item(s): both must be non-empty")
  kept = {k: v for k, v in fractions.items() if k != "test"}
  total = sum(kept.values())
  out = assign_splits(rest, seed, group_of,
                      {k: v / total for k, v in kept.items()})
  out["test"] = test
  return out
