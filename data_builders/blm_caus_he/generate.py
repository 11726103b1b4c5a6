"""Instances of the CausH BLMs, synthetic and natural (002 sec. 4.3).

Both variants are MaxLex (002: MinLex is impossible, not every root fits
every binyan): no two sentences of an instance share a root (synthetic) or a
main-verb lemma (natural), and no two instances of a config share a context.
The remaining binyan cycles over the four columns of Figure 11.

Synthetic: each sentence is one inflected verb form (Hebrew drops subjects
and objects; 002 "only contains the verb"), generated from a curated root by
`morph`, in a tense/person drawn per sentence. Splits are the shared ones
(no context in two splits).

Natural: each sentence is a treebank sentence whose root is a VERB with
`HebBinyan` = one of the four. The sentence pool of each binyan is cut once,
sentence-disjointly, into a train part and a test part (10%, at least
`MIN_PER_BINYAN`), so no test sentence ever appears in training; train+dev
instances draw from the first, test instances from the second. Sizes are
7200/800 "where the source allows" (002 Table 2): a pool too small for
that many distinct contexts yields fewer, with a warning.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import pathlib
import random
from typing import Sequence

from data_builders.blm_caus_he import conllu_reader
from data_builders.blm_caus_he import lexicon as lexicon_lib
from data_builders.blm_caus_he import morph
from data_builders.blm_caus_he import templates
from data_builders.common.instances import make_instance, stable_seed
from data_builders.common.schema import BLMInstance, Sentence

FAMILY = "caus_he"
VARIANTS = ("synthetic", "natural")
LEXICAL_TYPE = "MaxLex"
NUM_TRAIN, NUM_TEST = 7200, 800  # 002 Table 2; train includes dev
TEST_FRACTION = 0.1
MIN_PER_BINYAN = 3  # a binyan fills up to three sentences of an instance
MAX_TRIES = 500


def config_name(variant: str) -> str:
  return f"{variant}_{LEXICAL_TYPE}"


def _target(i: int) -> str:
  return morph.BINYANIM[i % len(morph.BINYANIM)]


def _assemble(name, i, target, context, candidates, seed, part=""):
  labels = templates.answer_labels(target)
  return make_instance(
      id=f"{FAMILY}-{name}-{part}{i:05d}", family=FAMILY, language="he",
      lexical_type=LEXICAL_TYPE, subset=target, context=context,
      candidates=[(labels[b], s) for b, s in candidates],
      correct_label=templates.CORRECT, seed=seed)


# --- Synthetic ---------------------------------------------------------------


def synthetic(num_instances: int = NUM_TRAIN + NUM_TEST, seed: int = 0,
              roots: Sequence[lexicon_lib.Root] | None = None
              ) -> list[BLMInstance]:
  roots = tuple(roots or lexicon_lib.load())
  name = config_name("synthetic")
  rng = random.Random(stable_seed("blm_caus_he", name, seed))
  by_binyan = {b: [r for r in roots if b in r.binyanim]
               for b in morph.BINYANIM}
  seen: set[tuple[str, ...]] = set()
  out = []
  for i in range(num_instances):
    target = _target(i)
    slots = templates.context_binyanim(target) + morph.BINYANIM
    for _ in range(MAX_TRIES):
      chosen = _distinct_roots(slots, by_binyan, rng)
      if chosen is None:
        continue
      sents = []
      for b, r in zip(slots, chosen):
        tense, pgn = rng.choice(morph.INFLECTIONS)
        sents.append(Sentence(text=r.form(b, tense, pgn),
                              pattern=f"V-{b}-{tense}-{pgn}"))
      key = tuple(s.text for s in sents[:7])
      if key not in seen:
        seen.add(key)
        break
    else:
      raise ValueError(f"blm_caus_he/{name}: no new context after "
                       f"{MAX_TRIES} draws at instance {i}; too few roots")
    out.append(_assemble(name, i, target, sents[:7],
                         list(zip(morph.BINYANIM, sents[7:])), seed))
  return out


def _distinct_roots(slots, by_binyan, rng):
  """A root per slot, all different; rarer binyanim are served first."""
  order = sorted(range(len(slots)), key=lambda k: len(by_binyan[slots[k]]))
  used, chosen = set(), [None] * len(slots)
  for k in order:
    options = [r for r in by_binyan[slots[k]] if r.root not in used]
    if not options:
      return None
    chosen[k] = rng.choice(options)
    used.add(chosen[k].root)
  return chosen


# --- Natural -----------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class PoolSentence:
  text: str
  binyan: str
  lemma: str
  where: str  # file:line of the sentence, for reports


def read_pool(paths: Sequence[str | pathlib.Path], max_words: int = 0
              ) -> dict[str, list[PoolSentence]]:
  """binyan -> sentences whose root is a VERB in that binyan (deduplicated
  by text, in file order)."""
  pool: dict[str, list[PoolSentence]] = {b: [] for b in morph.BINYANIM}
  seen: set[str] = set()
  for path in paths:
    for s in conllu_reader.iter_sentences(path):
      root = s.root()
      binyan = (root["feats"] or {}).get("HebBinyan")
      if root["upos"] != "VERB" or binyan not in pool:
        continue
      if max_words and len(s.tokens) > max_words:
        continue
      if s.text in seen:
        continue
      seen.add(s.text)
      pool[binyan].append(PoolSentence(s.text, binyan, root["lemma"],
                                       f"{s.path}:{s.line}"))
  return pool


def split_pool(pool: dict[str, list[PoolSentence]], seed: int, where: str
               ) -> tuple[dict[str, list[PoolSentence]],
                          dict[str, list[PoolSentence]]]:
  """Sentence-disjoint train and test pools, per binyan."""
  train, test = {}, {}
  for b, sents in pool.items():
    if len(sents) < 2 * MIN_PER_BINYAN:
      raise ValueError(
          f"{where}: {len(sents)} sentence(s) whose root is a VERB with "
          f"HebBinyan={b}; the natural CausH BLMs need at least "
          f"{2 * MIN_PER_BINYAN} ({MIN_PER_BINYAN} for train, "
          f"{MIN_PER_BINYAN} for test)")
    order = sorted(sents, key=lambda s: (stable_seed("pool", seed, s.text),
                                         s.text))
    n_test = max(MIN_PER_BINYAN, math.ceil(TEST_FRACTION * len(sents)))
    if len(sents) - n_test < MIN_PER_BINYAN:
      n_test = len(sents) - MIN_PER_BINYAN
    test[b], train[b] = order[:n_test], order[n_test:]
  return train, test


def natural(paths: Sequence[str | pathlib.Path], num_train: int = NUM_TRAIN,
            num_test: int = NUM_TEST, seed: int = 0, max_words: int = 0
            ) -> tuple[list[BLMInstance], list[BLMInstance]]:
  """(train+dev instances, test instances) from CoNLL-U files."""
  paths = [pathlib.Path(p) for p in paths]
  if not paths:
    raise ValueError("natural CausH: no CoNLL-U file given")
  where = ", ".join(str(p) for p in paths)
  train_pool, test_pool = split_pool(read_pool(paths, max_words), seed, where)
  name = config_name("natural")
  return (_natural_part(train_pool, num_train, seed, name, "train-"),
          _natural_part(test_pool, num_test, seed, name, "test-"))


def _natural_part(pool, n, seed, name, part) -> list[BLMInstance]:
  rng = random.Random(stable_seed("blm_caus_he", name, part, seed))
  seen: set[tuple[str, ...]] = set()
  out = []
  for i in range(n):
    target = _target(i)
    slots = templates.context_binyanim(target) + morph.BINYANIM
    for _ in range(MAX_TRIES):
      picked = _distinct_sentences(slots, pool, rng)
      if picked is None:
        continue
      key = tuple(s.text for s in picked[:7])
      if key not in seen:
        seen.add(key)
        break
    else:
      if not out:
        raise ValueError(
            f"blm_caus_he/{name}: the {part}pool gives no instance: its "
            f"sentences do not have 11 different main-verb lemmas for one "
            f"instance (pool sizes per binyan: "
            f"{ {b: len(v) for b, v in pool.items()} })")
      logging.warning("blm_caus_he/%s: the %spool gives only %d distinct "
                      "instances, not %d", name, part, len(out), n)
      return out
    sents = [Sentence(text=s.text, pattern=f"V-{s.binyan}") for s in picked]
    out.append(_assemble(name, i, target, sents[:7],
                         list(zip(morph.BINYANIM, sents[7:])), seed, part))
  return out


def _distinct_sentences(slots, pool, rng):
  """A sentence per slot: all different, no main-verb lemma twice."""
  order = sorted(range(len(slots)), key=lambda k: len(pool[slots[k]]))
  texts, lemmas, chosen = set(), set(), [None] * len(slots)
  for k in order:
    options = pool[slots[k]]
    for _ in range(20):
      s = rng.choice(options)
      if s.text not in texts and s.lemma not in lemmas:
        break
    else:
      options = [s for s in options
                 if s.text not in texts and s.lemma not in lemmas]
      if not options:
        return None
      s = rng.choice(options)
    chosen[k] = s
    texts.add(s.text)
    lemmas.add(s.lemma)
  return chosen
