"""Loading and checking the curated CoS / OD lexicons (data, not code).

One JSON file per language and class, `lexicon/<language>/<class>.json`:

    {"template": "cos", "language": "it",
     "verbs": [{"verb": "rompere",
                "forms": "rompe rompono rompeva rompevano ruppe ruppero "
                         "romperà romperanno rotto",
                "agents": ["il bambino|ms", ...], "themes": [...],
                "p_nps": ["in un attimo", ...], "by_nps": ["da un momento all'altro", ...]}]}

`template` names the answer-set template the file is written for (a class of
`templates.CLASSES`). `forms` lists the inflected forms the realiser needs:
English `base 3sg past participle`; Italian present, imperfect, simple past
and future (3sg then 3pl each), then the masculine singular participle (the
infinitive is `verb`). NPs carry their agreement features after `|`: English
`sg`/`pl` (default `sg`), Italian gender+number `ms`/`fs`/`mp`/`fp`
(required: participles and articulated prepositions depend on them). Every
error names the file and the entry; nothing is built from a bad file.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib

from data_builders.blm_cos_od import templates

LEXICON_DIR = pathlib.Path(__file__).resolve().parent / "lexicon"

# Per verb: how many items each slot holds (all distinct within the slot).
SLOT_SIZES = {"agents": 4, "themes": 4, "p_nps": 3, "by_nps": 3}
VERBS_PER_CLASS = 30
NUM_FORMS = {"en": 4, "it": 9}
BY_WORDS = {"en": ("by",), "it": ("da", "dal", "dallo", "dalla", "dai",
                                  "dagli", "dalle", "dall'")}
NP_FEATS = {"en": ("sg", "pl"), "it": ("ms", "fs", "mp", "fp")}


class LexiconError(ValueError):
  """A lexicon file that cannot be used; the message names file and entry."""


@dataclasses.dataclass(frozen=True)
class NP:
  """A noun phrase with its agreement features (gender is Italian only)."""

  text: str
  number: str  # "sg" | "pl"
  gender: str = ""  # "m" | "f" | ""


@dataclasses.dataclass(frozen=True)
class VerbEntry:
  lemma: str
  forms: tuple[str, ...]
  agents: tuple[NP, ...]
  themes: tuple[NP, ...]
  p_nps: tuple[str, ...]
  by_nps: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class Lexicon:
  verb_class: str
  language: str
  verbs: tuple[VerbEntry, ...]
  path: str


def lexicon_path(verb_class: str, language: str) -> pathlib.Path:
  return LEXICON_DIR / language / f"{verb_class}.json"


def load(verb_class: str, language: str, path: str | pathlib.Path | None = None,
         full_size: bool = True) -> Lexicon:
  """Reads and checks one lexicon file; `full_size` requires all 30 verbs."""
  path = pathlib.Path(path) if path else lexicon_path(verb_class, language)
  try:
    raw = json.loads(path.read_text(encoding="utf-8"))
  except (OSError, json.JSONDecodeError) as e:
    raise LexiconError(f"{path}: cannot read lexicon: {e}") from None
  if not isinstance(raw, dict):
    raise LexiconError(f"{path}: expected a JSON object at top level")
  template = raw.get("template")
  if template not in templates.CLASSES:
    raise LexiconError(
        f"{path}: unknown template label {template!r}; known: "
        f"{list(templates.CLASSES)}")
  if template != verb_class:
    raise LexiconError(f"{path}: written for template {template!r}, read as "
                       f"{verb_class!r}")
  if raw.get("language") != language:
    raise LexiconError(f"{path}: language {raw.get('language')!r}, expected "
                       f"{language!r}")
  entries = raw.get("verbs")
  if not isinstance(entries, list) or not entries:
    raise LexiconError(f"{path}: missing or empty 'verbs' list")
  verbs = tuple(_entry(path, i, e, language) for i, e in enumerate(entries))
  lemmas = [v.lemma for v in verbs]
  dupes = sorted({x for x in lemmas if lemmas.count(x) > 1})
  if dupes:
    raise LexiconError(f"{path}: verb(s) listed twice: {dupes}")
  if full_size and len(verbs) != VERBS_PER_CLASS:
    raise LexiconError(f"{path}: {len(verbs)} verbs, expected "
                       f"{VERBS_PER_CLASS} (000 footnote 8)")
  return Lexicon(verb_class, language, verbs, str(path))


def _entry(path, i, e, language) -> VerbEntry:
  where = f"{path}: verb entry #{i}"
  if not isinstance(e, dict):
    raise LexiconError(f"{where}: expected an object")
  lemma = e.get("verb")
  if not isinstance(lemma, str) or not lemma.strip():
    raise LexiconError(f"{where}: missing slot 'verb'")
  where = f"{path}: verb entry #{i} ({lemma!r})"
  unknown = sorted(set(e) - {"verb", "forms", *SLOT_SIZES})
  if unknown:
    raise LexiconError(f"{where}: unknown field(s) {unknown}")
  for name in ("forms", *SLOT_SIZES):
    if name not in e:
      raise LexiconError(f"{where}: missing slot {name!r}")
  forms = e["forms"].split() if isinstance(e["forms"], str) else []
  if len(forms) != NUM_FORMS[language]:
    raise LexiconError(f"{where}: 'forms' needs {NUM_FORMS[language]} "
                       f"forms, got {e['forms']!r}")
  slots = {}
  for name, size in SLOT_SIZES.items():
    items = e[name]
    if (not isinstance(items, list)
        or not all(isinstance(x, str) and x.strip() for x in items)):
      raise LexiconError(f"{where}: slot {name!r} must be a list of strings")
    if len(items) != size:
      raise LexiconError(f"{where}: slot {name!r} has {len(items)} items, "
                         f"expected {size}")
    dupes = sorted({x for x in items if items.count(x) > 1})
    if dupes:
      raise LexiconError(f"{where}: slot {name!r} repeats {dupes}")
    slots[name] = items
  agents = tuple(_np(where, "agents", x, language) for x in slots["agents"])
  themes = tuple(_np(where, "themes", x, language) for x in slots["themes"])
  shared = sorted({a.text for a in agents} & {t.text for t in themes})
  if shared:
    raise LexiconError(f"{where}: {shared} both agent and theme")
  for x in slots["by_nps"]:
    if not _starts_with_by(x, language):
      raise LexiconError(f"{where}: by-NP {x!r} does not start with "
                         f"{BY_WORDS[language][0]!r}")
  for x in slots["p_nps"]:
    if _starts_with_by(x, language):
      raise LexiconError(f"{where}: p-NP {x!r} starts with the by-NP "
                         "preposition")
  return VerbEntry(lemma, tuple(forms), agents, themes,
                   tuple(slots["p_nps"]), tuple(slots["by_nps"]))


def _starts_with_by(text: str, language: str) -> bool:
  first = text.split()[0]
  return any(first == w or (w.endswith("'") and first.startswith(w))
             for w in BY_WORDS[language])


def _np(where, slot_name, item, language) -> NP:
  text, _, feats = item.partition("|")
  text, feats = text.strip(), feats.strip()
  if not feats and language == "en":
    feats = "sg"
  if feats not in NP_FEATS[language]:
    raise LexiconError(
        f"{where}: {slot_name} item {item!r} needs agreement features, one of "
        f"{list(NP_FEATS[language])} after '|'")
  if "’" in text:
    raise LexiconError(f"{where}: {slot_name} item {item!r}: use the ASCII "
                       "apostrophe")
  if language == "it":
    return NP(text, number={"s": "sg", "p": "pl"}[feats[1]], gender=feats[0])
  return NP(text, number=feats)
