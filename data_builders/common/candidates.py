"""The one rule on candidates that every reader of given data applies (your
own JSON lines, the release files), so a BLM is accepted or refused the same
way whichever format carries it (docs/tutorials/own-data.md states it):

- at least two candidates, exactly one of them correct;
- two wrong candidates may be the same sentence (the authors' French
  agreement files repeat one in every instance); `lint` reports it;
- the correct candidate may not also stand as a wrong one: the same
  sentence would be both right and wrong, so no answer is;
- the number of candidates may vary between instances; a file where it
  varies says so once (`count_note`), since chance is then not one 1/k.
"""

from __future__ import annotations

import collections
from typing import Iterable, Sequence

MIN_CANDIDATES = 2


def problem(texts: Sequence[str], correct: int) -> str | None:
  """Why these candidates cannot make an instance, or None."""
  if len(texts) < MIN_CANDIDATES:
    return (f"{len(texts)} candidate(s): an instance needs at least "
            f"{MIN_CANDIDATES}")
  again = [i + 1 for i, t in enumerate(texts)
           if i != correct and t == texts[correct]]
  if again:
    return (f"the correct candidate ({correct + 1}) is repeated as wrong "
            f"candidate(s) {again}: the same sentence would be right and "
            "wrong")
  return None


def count_note(where: str, counts: Iterable[int]) -> str | None:
  """One line when the number of candidates varies over a file's
  instances ('<where>: the number of candidates varies: 5 in 3 instances,
  7 in 40'), else None."""
  seen = collections.Counter(counts)
  if len(seen) < 2:
    return None
  parts = ", ".join(f"{k} in {n} instance{'s' * (n != 1)}"
                    for k, n in sorted(seen.items()))
  return (f"{where}: the number of candidates varies: {parts} (chance "
          "differs between instances)")
