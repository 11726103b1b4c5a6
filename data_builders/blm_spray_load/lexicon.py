"""Loading and checking the spray/load lexical seed set (lexicon/*.json).

One JSON file per verb (file name = verb). Each entry holds a natural seed
sentence with its arguments marked ("[AGENT The baker] brushed [LOC the
loaves] with [THEME egg wash]."), the seed's sentence type (`frame`), the
verb's inflected forms, five agents, five themes, five locations, the verb's
own locative prepositions, and the material of the distractors keyed by the
answer label that uses it (LEXPREP: wrong prepositions; NOEMB: noun-modifying
PPs for themes and for locations). Nouns are [text, "sg"|"pl"] pairs;
pronouns are plain strings (their case and agreement are grammar).

Every problem is reported as `<file>: entry '<verb>': <field>: <problem>`;
the seed is re-generated from its own arguments and frame and must come out
verbatim, so frame, forms and prepositions are checked, not trusted.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import pathlib
import re
from typing import Any, Mapping

from data_builders.blm_spray_load import english, realise, templates

LEXICON_DIR = pathlib.Path(__file__).resolve().parent / "lexicon"
ARGS_PER_SLOT = 5
SLOTS = {"agents": templates.AGENT, "themes": templates.THEME,
         "locations": templates.LOC}
FORM_FIELDS = ("third_singular", "past", "participle", "gerund")
FIELDS = ("verb", "forms", "seed", "frame", "prepositions", "distractors",
          *SLOTS)
# Distractor material, keyed by the answer label that consumes it.
DISTRACTOR_LABELS = ("LEXPREP", "NOEMB")
MIN_DISTRACTORS = 2
_MARK = re.compile(r"\[(AGENT|THEME|LOC) ([^\[\]]+)\]")
_MARK_ROLE = {"AGENT": templates.AGENT, "THEME": templates.THEME,
              "LOC": templates.LOC}


class LexiconError(ValueError):
  """A lexicon file is malformed; the message names file, entry and field."""


@dataclasses.dataclass(frozen=True)
class VerbEntry:
  verb: str
  forms: english.VerbForms
  frame: realise.Frame
  seed: str                                   # with [ROLE ...] markup
  args: Mapping[str, tuple[english.NP, ...]]  # role -> the 5 NPs
  prepositions: tuple[str, ...]
  wrong_prepositions: tuple[str, ...]
  modifiers: Mapping[str, tuple[str, ...]]    # role -> noun-modifying PPs
  path: str = ""

  @functools.cached_property
  def verb_frame(self) -> realise.VerbFrame:
    return realise.VerbFrame(self.forms, self.frame)

  @property
  def seed_text(self) -> str:
    return strip_markup(self.seed)


@dataclasses.dataclass(frozen=True)
class Lexicon:
  entries: tuple[VerbEntry, ...]

  def __getitem__(self, verb: str) -> VerbEntry:
    for e in self.entries:
      if e.verb == verb:
        return e
    raise KeyError(f"verb {verb!r} not in the lexicon")

  @property
  def verbs(self) -> tuple[str, ...]:
    return tuple(e.verb for e in self.entries)


def strip_markup(marked: str) -> str:
  return _MARK.sub(lambda m: m.group(2), marked)


def parse_markup(marked: str) -> tuple[str, dict[str, str]]:
  """(plain text, ROLE -> marked span) of a seed like "[AGENT I] ..."."""
  spans = {}
  for m in _MARK.finditer(marked):
    if m.group(1) in spans:
      raise ValueError(f"role {m.group(1)} marked twice")
    spans[m.group(1)] = m.group(2)
  return strip_markup(marked), spans


def load_lexicon(folder: str | pathlib.Path | None = None) -> Lexicon:
  """Every `<verb>.json` in `folder` (default `LEXICON_DIR`), checked,
  sorted by verb."""
  folder = pathlib.Path(folder or LEXICON_DIR)
  paths = sorted(folder.glob("*.json"))
  if not paths:
    raise LexiconError(f"{folder}: no lexicon files (*.json)")
  return Lexicon(tuple(load_entry(p) for p in paths))


def load_entry(path: str | pathlib.Path) -> VerbEntry:
  path = pathlib.Path(path)
  try:
    raw = json.loads(path.read_text(encoding="utf-8"))
  except json.JSONDecodeError as e:
    raise LexiconError(f"{path}: line {e.lineno}: invalid JSON: {e.msg}"
                       ) from None
  except UnicodeDecodeError as e:
    raise LexiconError(f"{path}: not UTF-8 ({e.reason})") from None
  name = raw.get("verb", path.stem) if isinstance(raw, dict) else path.stem

  def fail(field: str, problem: str):
    raise LexiconError(f"{path}: entry {name!r}: {field}: {problem}")

  if not isinstance(raw, dict):
    fail("(top level)", "expected a JSON object")
  for f in FIELDS:
    if f not in raw:
      fail(f, "missing")
  for f in raw:
    if f not in FIELDS:
      fail(f, f"unknown field; expected {list(FIELDS)}")
  if raw["verb"] != path.stem:
    fail("verb", f"{raw['verb']!r} does not match the file name")
  forms = dataclasses.replace(_forms(raw["forms"], fail), base=raw["verb"])
  frame = _frame(raw["frame"], fail)
  args = {role: _nps(raw[field], field, fail)
          for field, role in SLOTS.items()}
  seen: dict[str, str] = {}
  for field, role in SLOTS.items():
    for np in args[role]:
      if np.text.lower() in seen and seen[np.text.lower()] != field:
        fail(field, f"{np.text!r} is also in {seen[np.text.lower()]} (roles "
             "must be told apart by their words)")
      seen[np.text.lower()] = field
  _check_no_verb_form_nouns(raw["verb"], forms, args, fail)
  preps = _strings(raw["prepositions"], "prepositions", fail)
  if not preps:
    fail("prepositions", "verb without locative prepositions")
  wrong, modifiers = _distractors(raw["distractors"], preps, fail)
  _check_no_verb_form_nouns(
      raw["verb"], forms, {r: [english.NP(m) for m in ms]
                           for r, ms in modifiers.items()}, fail,
      "distractors.NOEMB")
  if frame.adverb and frame.group in ("not present", "not past"):
    fail("frame", "no adverb with a negated group")
  entry = VerbEntry(
      verb=raw["verb"], forms=forms, frame=frame, seed=raw["seed"], args=args,
      prepositions=preps, wrong_prepositions=wrong, modifiers=modifiers,
      path=str(path))
  _check_seed(entry, fail)
  return entry


def verb_form_words(forms: english.VerbForms) -> set[str]:
  return {forms.base, forms.third_singular, forms.past, forms.participle,
          forms.gerund}


def _check_no_verb_form_nouns(verb: str, forms: english.VerbForms, nps,
                              fail, field: str = "") -> None:
  """No argument or modifier word may be one of the verb's own forms: a noun
  equal to the verb form reads as a stutter ("the baker sprinkles the
  cookies with sprinkles")."""
  own = verb_form_words(forms)
  for role, items in nps.items():
    for np in items:
      clash = own & set(np.text.lower().split())
      if clash:
        fail(field or _field_of(role), f"{np.text!r} contains "
             f"{sorted(clash)}, a form of the verb {verb!r}")


def _forms(raw: Any, fail) -> english.VerbForms:
  if not isinstance(raw, dict):
    fail("forms", f"expected an object with {list(FORM_FIELDS)}")
  for f in FORM_FIELDS:
    if not isinstance(raw.get(f), str) or not raw[f].strip():
      fail(f"forms.{f}", "missing")
  extra = sorted(set(raw) - set(FORM_FIELDS))
  if extra:
    fail("forms", f"unknown field(s) {extra}")
  return english.VerbForms(base="", **raw)


def _frame(raw: Any, fail) -> realise.Frame:
  if not isinstance(raw, dict):
    fail("frame", "expected an object with wrapper, group, adverb")
  extra = sorted(set(raw) - {"wrapper", "group", "adverb"})
  if extra:
    fail("frame", f"unknown field(s) {extra}")
  frame = realise.Frame(**raw)
  if frame.group not in english.VERB_GROUPS:
    fail("frame.group", f"unknown verb group {frame.group!r}; known: "
         f"{list(english.VERB_GROUPS)}")
  if frame.wrapper.count(realise.CLAUSE) != 1:
    fail("frame.wrapper", f"must contain {realise.CLAUSE} exactly once")
  return frame


def _nps(raw: Any, field: str, fail) -> tuple[english.NP, ...]:
  if not isinstance(raw, list):
    fail(field, "expected a list")
  if len(raw) != ARGS_PER_SLOT:
    fail(field, f"expected {ARGS_PER_SLOT} entries, got {len(raw)}")
  out = []
  for i, item in enumerate(raw):
    where = f"{field}[{i}]"
    if isinstance(item, str):
      if item not in english.PRONOUNS:
        fail(where, f"{item!r} is not a pronoun: write nouns as "
             f"[{item!r}, \"sg\"|\"pl\"]")
      np = english.NP(item, english.PRONOUNS[item][2])
    elif (isinstance(item, list) and len(item) == 2
          and all(isinstance(x, str) for x in item)):
      text, number = item
      if text in english.PRONOUNS:
        fail(where, f"write the pronoun {text!r} as a plain string")
      if number not in english.NUMBERS:
        fail(where, f"number {number!r} is not one of {english.NUMBERS}")
      if not text.strip() or text != " ".join(text.split()):
        fail(where, f"{text!r}: empty or badly spaced")
      np = english.NP(text, number)
    else:
      fail(where, f"expected a pronoun or [text, number], got {item!r}")
    err = english.article_error(np.text)
    if err:
      fail(where, err)
    if np.text.lower() in {x.text.lower() for x in out}:
      fail(where, f"{np.text!r} repeated")
    out.append(np)
  return tuple(out)


def _strings(raw: Any, field: str, fail) -> tuple[str, ...]:
  if not isinstance(raw, list) or not all(
      isinstance(x, str) and x.strip() for x in raw):
    fail(field, "expected a list of non-empty strings")
  if len(set(raw)) != len(raw):
    fail(field, "repeated item")
  for x in raw:
    err = english.article_error(x)
    if err:
      fail(field, err)
  return tuple(raw)


def _distractors(raw: Any, preps: tuple[str, ...], fail):
  if not isinstance(raw, dict):
    fail("distractors", f"expected an object keyed by {DISTRACTOR_LABELS}")
  for label in raw:
    if label not in DISTRACTOR_LABELS:
      known = ("known answer labels" if label not in templates.LABELS
               else "labels taking lexical material")
      fail(f"distractors.{label}",
           f"unknown template label {label!r}; {known}: "
           f"{list(DISTRACTOR_LABELS if label in templates.LABELS else templates.LABELS)}")
  for label in DISTRACTOR_LABELS:
    if label not in raw:
      fail(f"distractors.{label}", "missing")
  wrong = _strings(raw["LEXPREP"], "distractors.LEXPREP", fail)
  if len(wrong) < MIN_DISTRACTORS:
    fail("distractors.LEXPREP", f"need at least {MIN_DISTRACTORS}")
  clash = sorted(set(wrong) & (set(preps) | {"with", "by"}))
  if clash:
    fail("distractors.LEXPREP", f"{clash} are right prepositions, not wrong "
         "ones")
  noemb = raw["NOEMB"]
  keys = {"Theme": templates.THEME, "Loc": templates.LOC}
  if not isinstance(noemb, dict) or set(noemb) != set(keys):
    fail("distractors.NOEMB", f"expected an object with keys {list(keys)}")
  modifiers = {}
  for key, role in keys.items():
    field = f"distractors.NOEMB.{key}"
    mods = _strings(noemb[key], field, fail)
    if len(mods) < MIN_DISTRACTORS:
      fail(field, f"need at least {MIN_DISTRACTORS}")
    for m in mods:
      if m.split()[0] in set(preps) | {"with", "by"} | set(wrong):
        fail(field, f"{m!r} starts like an argument PP; a noun modifier "
             "must not be readable as one")
    modifiers[role] = mods
  return wrong, modifiers


def _check_seed(e: VerbEntry, fail) -> None:
  """The seed, regenerated from its marked arguments, must match itself."""
  try:
    text, spans = parse_markup(e.seed)
  except ValueError as err:
    fail("seed", str(err))
  if set(spans) != set(_MARK_ROLE):
    fail("seed", f"mark each of {sorted(_MARK_ROLE)} once, e.g. "
         "[AGENT the baker]")
  args = {}
  for mark, role in _MARK_ROLE.items():
    span = spans[mark]
    match = [np for np in e.args[role] if np.text in (span, _decap(span))
             or english.PRONOUNS.get(np.text, ("",))[0] == span]
    if not match:
      fail("seed", f"[{mark} {span}] is not one of the entry's "
           f"{_field_of(role)}")
    args[role] = match[0]
  theme_first = e.seed.index("[THEME") < e.seed.index("[LOC")
  first = templates.ATL if theme_first else templates.ALT
  prep = e.prepositions[0]
  if theme_first:
    between = e.seed.split("[LOC")[0].split("]")[-1].split()
    prep = " ".join(between)
    if prep not in e.prepositions:
      fail("seed", f"the seed's preposition {prep!r} is not in prepositions "
           f"{list(e.prepositions)}")
  filler = realise.Filler(verb=e.verb_frame, args=args, prep=prep)
  got = realise.realise(first, filler).text
  if got != text:
    fail("seed", f"regenerated from its arguments and frame it reads "
         f"{got!r}, not {text!r}: fix frame/forms/prepositions")


def _decap(s: str) -> str:
  return s[:1].lower() + s[1:]


def _field_of(role: str) -> str:
  return {r: f for f, r in SLOTS.items()}[role]
