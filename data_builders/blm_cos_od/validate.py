"""Linguistic checks of generated CoS / OD data (`common.validation`).

What a reader of the `_seq` data found, each as a rule over one instance:

- `mass_noun_plural`: a mass noun of the lexicon (`mass_nouns`) as the
  subject of a plural verb ("The stubble were plowed").
- `e_int_own_nouns`: in type I (one agent, theme and adverbials per
  instance) every noun phrase of a candidate occurs in the context or in
  another candidate: E-INT puts by/da before the instance's own argument,
  not another noun of its role ("The shepherds milked by the goat" in a set
  about the cow).
- `role_plausibility`: no sentence holds a pair of its verb's slot items
  that the lexicon declares incompatible (`incompatible`: the dentist
  whitening shirts, the freezer defrosted in the fridge).
- `stative_passive`: no Italian passive with present or imperfect *essere*,
  which reads as a state ("Le piastrelle sono incrinate"); *venire* or the
  passato prossimo keeps the event.
- `repeated_context`: `common.repeats` (type I repeats a sentence exactly
  when its progression repeats a pattern; types II and III never).

Every `_seq` config scans to zero on each (tests/data_builders/test_cos_od_validate.py);
the papers' designs and `_ctx` draw without the restrictions and are
reported as they are.
"""

from __future__ import annotations

import functools

from data_builders.blm_cos_od import lexicon as lexicon_lib
from data_builders.common import repeats
from data_builders.common.schema import BLMInstance, Sentence
from data_builders.common.validation import Check

_DA = {"dal": "il", "dallo": "lo", "dalla": "la", "dai": "i", "dagli": "gli",
       "dalle": "le"}
_EN_PLURAL_AUX = ("are", "were", "have")
_IT_PLURAL_AUX = ("sono", "erano", "furono", "saranno", "vengono",
                  "venivano", "vennero", "verranno", "hanno", "possono",
                  "devono")
_IT_STATIVE_ESSERE = ("è", "sono", "era", "erano")
_IT_STATO = ("stato", "stata", "stati", "state")


@functools.lru_cache(maxsize=None)
def _lexicon(family: str, language: str) -> lexicon_lib.Lexicon:
  """The lexicon of an instance's family (cos, cos_ctx, od_seq...)."""
  return lexicon_lib.load(family.split("_")[0], language)


def _where(x: BLMInstance, k: int) -> str:
  n = len(x.context)
  return (f"context {k + 1}" if k < n
          else f"answer {k - n + 1} ({x.labels[k - n]})")


def _sentences(x: BLMInstance) -> list[Sentence]:
  return list(x.context) + list(x.answers)


def _chunks(s: Sentence) -> list[str]:
  """The non-empty chunks but the final stop."""
  return [c for c in s.chunks if c and c != "."]


def _without_by(chunk: str, language: str) -> str:
  """`chunk` with a leading by / da (fused with its article) taken off."""
  first, _, rest = chunk.partition(" ")
  if language == "en":
    return rest if first == "by" and rest else chunk
  if first in _DA and rest:
    return f"{_DA[first]} {rest}"
  if chunk.startswith("dall'"):
    return "l'" + chunk[5:]
  return rest if first == "da" and rest else chunk


def _noun_chunks(s: Sentence, language: str) -> list[str]:
  """Subject and every chunk after the verb group, by/da taken off, the
  subject in lower case as the lexicon writes it."""
  chunks = _chunks(s)
  if len(chunks) < 2:
    return []
  subject = chunks[0][:1].lower() + chunks[0][1:]
  return [subject] + [_without_by(c, language) for c in chunks[2:]]


def _items(s: Sentence, language: str) -> set[str]:
  """What of a lexicon's slots a sentence shows: its chunks as written and
  with by / da taken off."""
  chunks = _chunks(s)
  if not chunks:
    return set()
  out = set(chunks[2:]) | set(_noun_chunks(s, language))
  return out


@functools.lru_cache(maxsize=None)
def _verbs_by_word(family: str, language: str
                   ) -> dict[str, tuple[lexicon_lib.VerbEntry, ...]]:
  """Every word of a verb group -> the lexicon verbs it is a form of."""
  out: dict[str, list] = {}
  for v in _lexicon(family, language).verbs:
    words = set(v.forms)
    if language == "it":
      stem = v.forms[8][:-1]
      words |= {stem + e for e in "oaie"}
      words |= {v.lemma, v.lemma[:-1] + "si"}
    for w in words:
      out.setdefault(w, []).append(v)
  return {w: tuple(vs) for w, vs in out.items()}


@functools.lru_cache(maxsize=None)
def _plural_forms(family: str, language: str) -> frozenset[str]:
  """The verb forms that show a plural subject: English bare presents
  (unlike the past) and the plural auxiliaries, Italian 3pl finite forms
  and auxiliaries."""
  verbs = _lexicon(family, language).verbs
  if language == "en":
    return frozenset({v.forms[0] for v in verbs if v.forms[0] != v.forms[2]}
                     | set(_EN_PLURAL_AUX))
  return frozenset({f for v in verbs for f in v.forms[1:8:2]}
                   | set(_IT_PLURAL_AUX))


def _plural_verb(verb_group: str, x: BLMInstance) -> bool:
  words = verb_group.split()
  if x.language == "en" and len(words) == 1:
    return words[0] in _plural_forms(x.family, x.language)
  if words[0] == "si" and len(words) > 1:
    words = words[1:]
  if x.language == "en":
    return words[0] in _EN_PLURAL_AUX
  return words[0] in _plural_forms(x.family, x.language)


def mass_noun_plural(x: BLMInstance) -> list[str]:
  """A lexicon mass noun as the subject of a plural verb."""
  lex = _lexicon(x.family, x.language)
  out = []
  for k, s in enumerate(_sentences(x)):
    chunks = _chunks(s)
    if len(chunks) < 2:
      continue
    subject = chunks[0][:1].lower() + chunks[0][1:]
    if subject in lex.mass_nouns and _plural_verb(chunks[1], x):
      out.append(f"{_where(x, k)}: mass noun {subject!r} with a plural "
                 f"verb ({s.text!r})")
  return out


def e_int_own_nouns(x: BLMInstance) -> list[str]:
  """Type I: every noun phrase of a candidate occurs elsewhere in the
  instance (the context or another candidate)."""
  if x.lexical_type != "I":
    return []
  context = {c for s in x.context for c in _noun_chunks(s, x.language)}
  answers = [set(_noun_chunks(s, x.language)) for s in x.answers]
  out = []
  for i, mine in enumerate(answers):
    others = context.union(*(a for j, a in enumerate(answers) if j != i))
    for np in sorted(mine - others):
      out.append(f"answer {i + 1} ({x.labels[i]}): {np!r} occurs in no "
                 f"other sentence of this type I instance "
                 f"({x.answers[i].text!r})")
  return out


def role_plausibility(x: BLMInstance) -> list[str]:
  """No sentence holds a pair of items its verb declares incompatible."""
  by_word = _verbs_by_word(x.family, x.language)
  out = []
  for k, s in enumerate(_sentences(x)):
    chunks = _chunks(s)
    if len(chunks) < 2:
      continue
    verbs = {v.lemma: v for w in chunks[1].split()
             for v in by_word.get(w, ())}
    shown = _items(s, x.language)
    for v in verbs.values():
      for pair in sorted(v.incompatible, key=sorted):
        if pair <= shown:
          a, b = sorted(pair)
          out.append(f"{_where(x, k)}: {v.lemma} with {a!r} and {b!r}, "
                     f"which its lexicon entry declares incompatible "
                     f"({s.text!r})")
  return out


def stative_passive(x: BLMInstance) -> list[str]:
  """Italian: no passive with present or imperfect essere."""
  if x.language != "it":
    return []
  out = []
  for k, s in enumerate(_sentences(x)):
    chunks = _chunks(s)
    if len(chunks) < 2 or "V-pass" not in s.pattern.split():
      continue
    words = chunks[1].split()
    if words[0] in _IT_STATIVE_ESSERE and words[1] not in _IT_STATO:
      out.append(f"{_where(x, k)}: {chunks[1]!r} (essere + participle in "
                 f"the present or imperfect) reads as a state; venire or "
                 f"the passato prossimo keeps the event ({s.text!r})")
  return out


CHECKS = (
    Check("mass_noun_plural",
          "no mass noun of the lexicon is the subject of a plural verb",
          mass_noun_plural),
    Check("e_int_own_nouns",
          "type I: every noun phrase of a candidate occurs elsewhere in the "
          "instance (E-INT's by/da + argument keeps the instance's noun)",
          e_int_own_nouns),
    Check("role_plausibility",
          "no sentence pairs slot items its verb's lexicon entry declares "
          "incompatible (selectional restrictions)", role_plausibility),
    Check("stative_passive",
          "Italian: no passive with present or imperfect essere (a state "
          "reading); venire or the passato prossimo", stative_passive),
    Check("repeated_context",
          "type I repeats a context sentence exactly where its pattern "
          "repeats (000: the same lexical elements in every sentence); "
          "types II and III never", repeats.repeated_context),
)


def scan_configs(regimes=("", "rules")):
  """(config name, {check: instances breaking it}) for every `_seq`
  config at full size, generated here (seconds each)."""
  from data_builders.blm_cos_od import generate, seq, templates

  for regime in regimes:
    for c in templates.CLASSES:
      for lang in templates.LANGUAGES:
        for t in generate.LEXICAL_TYPES:
          xs = seq.generate_seq(c, lang, t, wide=regime == "rules")
          yield seq.config_name(c, lang, t, regime), count(xs)


def count(instances) -> dict[str, int]:
  """{check: how many of `instances` break it}, every check listed."""
  from data_builders.common.validation import findings

  out = {c.name: 0 for c in CHECKS}
  for x in instances:
    for name in findings(CHECKS, x):
      out[name] += 1
  return out


if __name__ == "__main__":
  # python -m data_builders.blm_cos_od.validate: the table of the README.
  names = [c.name for c in CHECKS]
  print("config | " + " | ".join(names))
  for config, counts in scan_configs():
    print(f"{config} | " + " | ".join(str(counts[n]) for n in names),
          flush=True)
