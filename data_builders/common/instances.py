"""Assembling generated BLM instances: stable seeds and shuffled candidates.

The correct answer's position must carry no information, so every instance
places its candidates in a seeded random order derived from its own id
(reproducible, independent of generation order).
"""

from __future__ import annotations

import hashlib
import random
from typing import Callable, Sequence

import numpy as np

from data_builders.common.schema import BLMInstance, Sentence


def stable_seed(*parts: object) -> int:
  """A 64-bit seed from any printable parts, identical across runs/machines."""
  h = hashlib.sha256("\x1f".join(map(str, parts)).encode("utf-8"))
  return int.from_bytes(h.digest()[:8], "little")


def rng_for(*parts: object) -> np.random.Generator:
  return np.random.default_rng(stable_seed(*parts))


def balanced_cycle(n: int, k: int, rng: random.Random,
                   offset: int = 0) -> list[int]:
  """n values in range(k), each as often as the others (counts differ by at
  most one; the cycle starts at `offset`), in an order shuffled by `rng`:
  the context-necessary configs' per-instance draw of which form or
  alternant is correct, balanced whatever the lexical material."""
  out = [(offset + j) % k for j in range(n)]
  rng.shuffle(out)
  return out


def make_instance(
    *,
    id: str,
    family: str,
    language: str,
    lexical_type: str,
    subset: str,
    context: Sequence[Sentence],
    candidates: Sequence[tuple[str, Sentence]],
    correct_label: str,
    seed: int | str = 0,
) -> BLMInstance:
  """An instance whose (label, sentence) candidates are shuffled by id+seed.

  Raises if the correct label is missing or not unique, or if two candidates
  share a text (a duplicated candidate makes the puzzle ill-posed).
  """
  labels = [lab for lab, _ in candidates]
  if labels.count(correct_label) != 1:
    raise ValueError(
        f"instance {id!r}: expected exactly one {correct_label!r} candidate, "
        f"got labels {labels}")
  texts = [s.text for _, s in candidates]
  dupes = sorted({t for t in texts if texts.count(t) > 1})
  if dupes:
    raise ValueError(f"instance {id!r}: duplicated candidate(s) {dupes}")
  order = rng_for("answers", seed, id).permutation(len(candidates))
  shuffled = [candidates[i] for i in order]
  return BLMInstance(
      id=id,
      family=family,
      language=language,
      lexical_type=lexical_type,
      subset=subset,
      context=tuple(context),
      answers=tuple(s for _, s in shuffled),
      correct=[lab for lab, _ in shuffled].index(correct_label),
      labels=tuple(lab for lab, _ in shuffled),
  )


def unique_draws(family: str, lexical_type: str, seed: int | str, size: int,
                 draw: Callable[[str, random.Random], BLMInstance],
                 max_retries: int = 100) -> list[BLMInstance]:
  """`size` instances `draw(id, rng)`, ids `<type>/<i:05d>`, redrawn (rng
  seeded by family, seed, id and retry) until the context is new and no
  candidate repeats a context sentence (the copy cue)."""
  out, seen = [], set()
  for i in range(size):
    id_ = f"{lexical_type}/{i:05d}"
    for retry in range(max_retries):
      inst = draw(id_, random.Random(stable_seed(family, seed, id_, retry)))
      key = tuple(s.text for s in inst.context)
      if key not in seen and not set(key) & {s.text for s in inst.answers}:
        seen.add(key)
        out.append(inst)
        break
    else:
      raise RuntimeError(f"{family} {id_}: no new context without a copied "
                         f"candidate in {max_retries} draws")
  return out
