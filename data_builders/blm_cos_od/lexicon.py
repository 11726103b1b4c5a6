"""Loading and checking the curated CoS / OD lexicons (data, not code).

One JSON file per language and class, `lexicon/<language>/<class>.json`:

    {"template": "cos", "language": "it",
     "verbs": [{"verb": "rompere",
                "forms": "rompe rompono rompeva rompevano ruppe ruppero "
                         "romperà romperanno rotto",
                "agents": ["il bambino|ms", ...], "themes": [...],
                "p_nps": ["in un attimo", ...], "by_nps": ["da un momento all'altro", ...],
                "anticausative": "si"}],
     "landmarks": [],
     "adverbials": {"in un attimo": {"agentive": false, "time_point": false},
                    ...}}

`template` names the answer-set template the file is written for (a class of
`templates.CLASSES`). `forms` lists the inflected forms the realiser needs:
English `base 3sg past participle`; Italian present, imperfect, simple past
and future (3sg then 3pl each), then the masculine singular participle (the
infinitive is `verb`). NPs carry their agreement features after `|`: English
`sg`/`pl` (default `sg`), Italian gender+number `ms`/`fs`/`mp`/`fp`
(required: participles and articulated prepositions depend on them).

`anticausative` (CoS only, required there) is the verb's intransitive
(anticausative) class, a lexical fact the template cannot derive: Italian
`si` (obligatory: il vaso si rompe), `no-si` (i risultati migliorano),
`optional` (la pasta cuoce / si cuoce) or `none` (no anticausative); English
`bare` (the vase breaks) or `none`. The CoS template contrasts the correct
intransitive with its `si`-flipped twin (SI-PAT), so only verbs of the
template's class (`templates.anticausative_class`) are used; the others stay
in the file as a record of the decision (002 sec. 4.2 excludes bollire for
the same reason) and `Lexicon.excluded` lists them. 30 usable verbs a class.

`adverbials` marks every p-NP and by-NP the file uses: `agentive` (it implies
a volitional agent: by hand, by design, da manuale) and `time_point` (it
locates the event at a definite time or deadline: at midnight, by noon, after
the party). CoS adverbials follow the anticausative, so agentive ones are
refused in a CoS verb that is used; time points never meet a tense that
rejects them (the English present perfect: realise.INCOMPATIBLE_FRAMES).

`landmarks` lists the agent and theme NPs that `by` / `da` after an active
verb reads as a place or a source ("The tailor sews by the curtains", "La
nonna legge dalla lettera"): the candidates that put an argument after
by / da in an active clause (E-WRBY, IE-WRBY, E-INT) must not become natural
sentences, so they take another NP of the same role instead
(`VerbEntry.not_landmark`); every verb keeps one NP of each role that is not
a landmark.

`mass_nouns` (optional, top level) lists the agent and theme NPs that are
mass nouns (the stubble, il burro): each must be singular, since the
realiser agrees the verb with the NP's number ("*The stubble were plowed").

`incompatible` (optional, per verb) declares the verb's selectional
restrictions as pairs of its own slot items that make an implausible event
in one sentence: an agent the verb does not combine with a theme ("the
dentist" whitening "the shirt"), a theme with a p-NP or by-NP ("the freezer"
defrosted "in the fridge", "the soup" eaten "with a fork"). The `_seq`
design draws only compatible material (`VerbEntry.compatible`) and
`validate.role_plausibility` holds its data to them.

Every error names the file, the line and the entry; nothing is built from a
bad file.
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
ANTICAUSATIVE_CLASSES = {"en": ("bare", "none"),
                         "it": ("si", "no-si", "optional", "none")}
ADVERBIAL_MARKS = ("agentive", "time_point")


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
  anticausative: str = ""  # CoS only; see the module docstring.
  landmarks: frozenset[str] = frozenset()  # NP texts; module docstring.
  # Pairs of slot item texts that must not share a sentence (docstring).
  incompatible: frozenset[frozenset[str]] = frozenset()

  def compatible(self, *items: str) -> bool:
    """Whether no declared incompatible pair lies among `items` (NP texts,
    p-NPs, by-NPs)."""
    present = set(items)
    return not any(pair <= present for pair in self.incompatible)

  def not_landmark(self, np: NP, role: str) -> NP:
    """`np` itself, or, when `by`/`da` would read it as a place or source,
    another NP of its role (`role`: "Agent" or "Theme"), picked by its
    position so that a rebuild is identical."""
    if np.text not in self.landmarks:
      return np
    pool = self.agents if role == "Agent" else self.themes
    keep = [x for x in pool if x.text not in self.landmarks]
    return keep[pool.index(np) % len(keep)]


@dataclasses.dataclass(frozen=True)
class Adverbial:
  """A p-NP or by-NP with its marks (see the module docstring)."""

  text: str
  agentive: bool
  time_point: bool


@dataclasses.dataclass(frozen=True)
class Lexicon:
  verb_class: str
  language: str
  verbs: tuple[VerbEntry, ...]  # The ones the template uses.
  path: str
  excluded: tuple[VerbEntry, ...] = ()  # Anticausative class not the template's.
  adverbials: tuple[Adverbial, ...] = ()
  mass_nouns: frozenset[str] = frozenset()  # NP texts; module docstring.

  def adverbial(self, text: str) -> Adverbial:
    return next(a for a in self.adverbials if a.text == text)


def lexicon_path(verb_class: str, language: str) -> pathlib.Path:
  return LEXICON_DIR / language / f"{verb_class}.json"


def load(verb_class: str, language: str, path: str | pathlib.Path | None = None,
         full_size: bool = True) -> Lexicon:
  """Reads and checks one lexicon file; `full_size` requires all 30 verbs."""
  path = pathlib.Path(path) if path else lexicon_path(verb_class, language)
  try:
    source = path.read_text(encoding="utf-8")
    raw = json.loads(source)
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
  verbs = tuple(_entry(path, source, i, e, language, verb_class)
                for i, e in enumerate(entries))
  lemmas = [v.lemma for v in verbs]
  dupes = sorted({x for x in lemmas if lemmas.count(x) > 1})
  if dupes:
    raise LexiconError(f"{path}: verb(s) listed twice: {dupes}")
  adverbials = _adverbials(path, source, raw.get("adverbials"))
  verbs = _landmarks(path, source, raw.get("landmarks"), verbs)
  wanted = templates.anticausative_class(verb_class, language)
  used = tuple(v for v in verbs if v.anticausative == wanted)
  excluded = tuple(v for v in verbs if v.anticausative != wanted)
  if full_size and len(used) != VERBS_PER_CLASS:
    raise LexiconError(
        f"{path}: {len(used)} usable verbs, expected {VERBS_PER_CLASS} (000 "
        f"footnote 8)" + (f"; {len(excluded)} excluded as not of "
                          f"anticausative class {wanted!r}: "
                          f"{[v.lemma for v in excluded]}" if excluded
                          else ""))
  _check_adverbials(path, source, verb_class, verbs, used, adverbials,
                    full_size)
  mass = _mass_nouns(path, source, raw.get("mass_nouns", []), verbs,
                     full_size)
  return Lexicon(verb_class, language, used, str(path), excluded,
                 tuple(adverbials.values()), mass)


def _line(source: str, needle: str, start: str = "") -> int:
  """1-based line of the first `needle` (after `start`, if given) in the
  file's text; 0 when not found (then the message still names the entry)."""
  offset = source.find(start) if start else 0
  at = source.find(needle, max(offset, 0))
  return source.count("\n", 0, at) + 1 if at >= 0 else 0


def _verb_where(path, source, i, lemma) -> str:
  line = _line(source, f'"verb": {json.dumps(lemma, ensure_ascii=False)}')
  return f"{path}:{line}: verb entry #{i} ({lemma!r})"


def _adverbials(path, source, raw) -> dict[str, Adverbial]:
  """The `adverbials` table, every entry with both marks as booleans."""
  if not isinstance(raw, dict) or not raw:
    raise LexiconError(f"{path}: missing or empty 'adverbials' table (every "
                       f"p-NP and by-NP needs marks {list(ADVERBIAL_MARKS)})")
  out = {}
  for text, marks in raw.items():
    line = _line(source, json.dumps(text, ensure_ascii=False) + ":",
                 '"adverbials"')
    where = f"{path}:{line}: adverbial {text!r}"
    if not isinstance(marks, dict):
      raise LexiconError(f"{where}: expected an object of marks "
                         f"{list(ADVERBIAL_MARKS)}")
    for m in ADVERBIAL_MARKS:
      if not isinstance(marks.get(m), bool):
        raise LexiconError(f"{where}: missing mark {m!r} (true or false)")
    unknown = sorted(set(marks) - set(ADVERBIAL_MARKS))
    if unknown:
      raise LexiconError(f"{where}: unknown mark(s) {unknown}")
    out[text] = Adverbial(text, marks["agentive"], marks["time_point"])
  return out


def _landmarks(path, source, raw, verbs):
  """The `landmarks` list, checked: strings, each an agent or theme of some
  verb, and every verb left with a non-landmark NP of each role."""
  where = f"{path}:{_line(source, chr(34) + 'landmarks' + chr(34))}"
  if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
    raise LexiconError(f"{where}: "
                       "'landmarks' must be a list of NP texts (may be "
                       "empty)")
  nps = {n.text for v in verbs for n in (*v.agents, *v.themes)}
  unknown = sorted(set(raw) - nps)
  if unknown:
    raise LexiconError(f"{where}: landmark(s) no verb has as agent or theme: "
                       f"{unknown}")
  marked = frozenset(raw)
  out = []
  for i, v in enumerate(verbs):
    for role, pool in (("agents", v.agents), ("themes", v.themes)):
      if all(n.text in marked for n in pool):
        raise LexiconError(
            f"{_verb_where(path, source, i, v.lemma)}: every one of its "
            f"{role} is a landmark; by/da + argument candidates need one "
            "that is not")
    mine = marked & {n.text for n in (*v.agents, *v.themes)}
    out.append(dataclasses.replace(v, landmarks=frozenset(mine)))
  return tuple(out)


def _mass_nouns(path, source, raw, verbs, full_size) -> frozenset[str]:
  """The `mass_nouns` list, checked: strings, each (in a full lexicon) an
  agent or theme of some verb, and singular wherever it occurs."""
  where = f"{path}:{_line(source, chr(34) + 'mass_nouns' + chr(34))}"
  if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
    raise LexiconError(f"{where}: 'mass_nouns' must be a list of NP texts")
  nps = {n.text: n for v in verbs for n in (*v.agents, *v.themes)}
  unknown = sorted(set(raw) - set(nps))
  if unknown and full_size:
    raise LexiconError(f"{where}: mass noun(s) no verb has as agent or "
                       f"theme: {unknown}")
  for i, v in enumerate(verbs):
    for n in (*v.agents, *v.themes):
      if n.text in raw and n.number != "sg":
        raise LexiconError(
            f"{_verb_where(path, source, i, v.lemma)}: mass noun "
            f"{n.text!r} is marked plural; the verb would agree in the "
            "plural")
  return frozenset(raw)


def _check_adverbials(path, source, verb_class, verbs, used, adverbials,
                      full_size):
  """Every p-NP / by-NP is in the table; the used CoS verbs' are not
  agentive (they follow the anticausative); in a full lexicon no table entry
  is unused."""
  seen = set()
  for i, v in enumerate(verbs):
    for slot_name, items in (("p_nps", v.p_nps), ("by_nps", v.by_nps)):
      for x in items:
        seen.add(x)
        if x not in adverbials:
          raise LexiconError(
              f"{_verb_where(path, source, i, v.lemma)}: {slot_name} item "
              f"{x!r} has no entry in 'adverbials' (marks "
              f"{list(ADVERBIAL_MARKS)})")
        if verb_class == "cos" and v in used and adverbials[x].agentive:
          raise LexiconError(
              f"{_verb_where(path, source, i, v.lemma)}: {slot_name} item "
              f"{x!r} is agentive, but a CoS verb's adverbials end up in its "
              "anticausative, which must not imply an agent")
  unused = sorted(set(adverbials) - seen)
  if unused and full_size:
    line = _line(source, json.dumps(unused[0], ensure_ascii=False) + ":",
                 '"adverbials"')
    raise LexiconError(f"{path}:{line}: adverbial(s) no verb uses: {unused}")


def _entry(path, source, i, e, language, verb_class) -> VerbEntry:
  where = f"{path}: verb entry #{i}"
  if not isinstance(e, dict):
    raise LexiconError(f"{where}: expected an object")
  lemma = e.get("verb")
  if not isinstance(lemma, str) or not lemma.strip():
    raise LexiconError(f"{where}: missing slot 'verb'")
  where = _verb_where(path, source, i, lemma)
  unknown = sorted(set(e) - {"verb", "forms", "anticausative", "incompatible",
                             *SLOT_SIZES})
  if unknown:
    raise LexiconError(f"{where}: unknown field(s) {unknown}")
  anticausative = e.get("anticausative", "")
  if verb_class == "cos":
    known = ANTICAUSATIVE_CLASSES[language]
    if anticausative not in known:
      raise LexiconError(
          f"{where}: " + ("missing 'anticausative' class" if not anticausative
                          else f"unknown anticausative class "
                               f"{anticausative!r}") + f"; one of {list(known)}")
  elif anticausative:
    raise LexiconError(f"{where}: 'anticausative' is for CoS verbs; "
                       f"{verb_class!r} intransitives are not anticausatives")
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
                   tuple(slots["p_nps"]), tuple(slots["by_nps"]),
                   anticausative,
                   incompatible=_incompatible(where, e.get("incompatible", []),
                                              agents, themes, slots))


def _incompatible(where, raw, agents, themes, slots) -> frozenset:
  """The verb's `incompatible` pairs, checked: each two items of two
  different slots of this verb, and no item left without a partner."""
  by_slot = {"agents": {n.text for n in agents},
             "themes": {n.text for n in themes},
             "p_nps": set(slots["p_nps"]), "by_nps": set(slots["by_nps"])}
  slot_of = {x: name for name, xs in by_slot.items() for x in xs}
  out = set()
  if not isinstance(raw, list):
    raise LexiconError(f"{where}: 'incompatible' must be a list of pairs")
  for pair in raw:
    if (not isinstance(pair, list) or len(pair) != 2
        or not all(isinstance(x, str) for x in pair)):
      raise LexiconError(f"{where}: 'incompatible' item {pair!r} is not a "
                         "pair of slot items")
    for x in pair:
      if x not in slot_of:
        raise LexiconError(f"{where}: 'incompatible' item {x!r} is none of "
                           "the verb's agents, themes, p-NPs or by-NPs")
    if slot_of[pair[0]] == slot_of[pair[1]]:
      raise LexiconError(f"{where}: 'incompatible' pair {pair!r} is two "
                         f"{slot_of[pair[0]]}, which never share a sentence")
    out.add(frozenset(pair))
  for name, xs in by_slot.items():
    for x in xs:
      partners = {o for o, slot in slot_of.items()
                  if slot in ("agents", "themes") and slot != name
                  and frozenset((x, o)) not in out}
      if name in ("agents", "themes") and not partners:
        raise LexiconError(f"{where}: {name[:-1]} {x!r} is incompatible with "
                           "every NP of the other role: replace it")
  return frozenset(out)


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
