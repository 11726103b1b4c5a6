"""Loading and checking the curated COS+ lexicons (data, not code).

Four tab-separated files per language under `lexicon/<en|it|de>/`, each with
`#` comment lines, then a header row naming its columns, then one entry per
line (so an error can name file, line and field):

    verbs.tsv     the verb and the forms the realiser needs
                  en: verb third past participle
                  it: verb third third_pl participle anticausative (= si)
                  de: verb third third_pl participle aux (sein | haben);
                      a separable prefix is written `auf|wärmen`;
                  all: role_error (no | od | reading, ROLE_ERROR below)
                  and an optional gloss
    patients.tsv  verb, the patient NP, its agreement features
    agents.tsv    the agent NP and its features (shared by every verb)
    places.tsv    locative predicates for the relative-clause sentences

Features: English `sg`/`pl`; Italian `ms`/`fs`/`mp`/`fp` (the NP carries its
definite article: `l'olio`; possessive heads would need non-restrictive
relatives); German `m`/`f`/`n`/`pl` on a bare noun (the realiser adds the
article by case), agents may give an `accusative` noun form (weak nouns:
Praktikant -> den Praktikanten). Every check raises `LexiconError` naming the
file, line and field, and nothing is built from a bad file.
"""

from __future__ import annotations

import dataclasses
import pathlib
import re

LEXICON_DIR = pathlib.Path(__file__).resolve().parent / "lexicon"
LANGUAGES = ("en", "it", "de")
VERBS_PER_LANGUAGE = 25  # 002 sec. 4.2

COLUMNS = {
    ("en", "verbs"): ("verb", "third", "past", "participle", "role_error",
                      "gloss"),
    ("it", "verbs"): ("verb", "third", "third_pl", "participle",
                      "anticausative", "role_error", "gloss"),
    ("de", "verbs"): ("verb", "third", "third_pl", "participle", "aux",
                      "role_error", "gloss"),
    ("en", "patients"): ("verb", "patient", "number"),
    ("it", "patients"): ("verb", "patient", "features"),
    ("de", "patients"): ("verb", "noun", "gender"),
    ("en", "agents"): ("agent", "number"),
    ("it", "agents"): ("agent", "features"),
    ("de", "agents"): ("noun", "gender", "accusative"),
}
OPTIONAL = {"accusative", "gloss"}
# verbs.tsv `role_error`: whether 002 Figure 9's role errors with this verb,
# `Ag Verb` (the agent as the intransitive's subject: T2I Grammar, I2T
# Sequence) and `Pa Verb Ag` (roles reversed), are good sentences. `no`:
# neither is, the verb is used. `od`: the verb also drops its object (002
# sec. 1: "paint retains its agentive subject (The artist painted)"), so
# `Ag Verb` is true of the very scene. `reading`: one of them is good in
# another sense (`gloss`: "il panettiere si è raffreddato", caught a cold;
# "the soup warms the caterer"). 002 sec. 4.2 selected verbs "that show
# the very same structure": only `no` verbs enter the BLMs
# (`Lexicon.cos_verbs`).
ROLE_ERROR = ("no", "od", "reading")
FEATURES = {"en": ("sg", "pl"), "it": ("ms", "fs", "mp", "fp"),
            "de": ("m", "f", "n", "pl")}
# German verb prefixes that never take ge- in the participle.
DE_INSEPARABLE = ("be", "emp", "ent", "er", "ge", "miss", "ver", "zer")


class LexiconError(ValueError):
  """A lexicon file that cannot be used; the message names file, line, field."""


@dataclasses.dataclass(frozen=True)
class NP:
  """A noun phrase. German: `text` is the bare noun, the article comes later."""

  text: str
  number: str  # sg | pl
  gender: str = ""  # it: m | f; de: m | f | n; en: ""
  accusative: str = ""  # de: the noun's accusative form if it differs

  @property
  def case_marked(self) -> bool:
    """German: nominative and accusative articles differ (der/den)."""
    return self.gender == "m" and self.number == "sg"


@dataclasses.dataclass(frozen=True)
class Verb:
  lemma: str  # German separable: without the bar (aufwärmen)
  third: str
  third_pl: str
  participle: str
  past: str = ""  # en
  aux: str = ""  # de: sein | haben (intransitive perfect)
  prefix: str = ""  # de: separable prefix
  patients: tuple[NP, ...] = ()
  role_error: str = "no"  # ROLE_ERROR


@dataclasses.dataclass(frozen=True)
class Lexicon:
  language: str
  verbs: tuple[Verb, ...]
  agents: tuple[NP, ...]
  places: tuple[str, ...]
  folder: str

  @property
  def cos_verbs(self) -> tuple[Verb, ...]:
    """The verbs whose role errors are no good sentences (ROLE_ERROR)."""
    return tuple(v for v in self.verbs if v.role_error == "no")


def load(language: str, folder: str | pathlib.Path | None = None,
         full_size: bool = True) -> Lexicon:
  """Reads and checks one language's lexicon; `full_size` wants 25 verbs."""
  if language not in LANGUAGES:
    raise ValueError(f"unknown language {language!r}; known: {LANGUAGES}")
  folder = pathlib.Path(folder) if folder else LEXICON_DIR / language
  verb_rows = _read(folder / "verbs.tsv", COLUMNS[language, "verbs"])
  verbs: dict[str, Verb] = {}
  for where, row in verb_rows:
    v = _verb(where, row, language)
    if v.lemma in verbs:
      raise LexiconError(f"{where}: field 'verb': {v.lemma!r} listed twice")
    verbs[v.lemma] = v
  patients: dict[str, list[NP]] = {lemma: [] for lemma in verbs}
  for where, row in _read(folder / "patients.tsv",
                          COLUMNS[language, "patients"]):
    lemma = row["verb"].replace("|", "")
    if lemma not in verbs:
      raise LexiconError(f"{where}: field 'verb': {row['verb']!r} is not in "
                         "verbs.tsv")
    field = "noun" if language == "de" else "patient"
    np_ = _np(where, row, language, field)
    if np_.text in {p.text for p in patients[lemma]}:
      raise LexiconError(f"{where}: field {field!r}: {np_.text!r} listed "
                         f"twice for {lemma!r}")
    patients[lemma].append(np_)
  agents = []
  for where, row in _read(folder / "agents.tsv", COLUMNS[language, "agents"]):
    a = _np(where, row, language, "noun" if language == "de" else "agent")
    if a.text in {x.text for x in agents}:
      raise LexiconError(f"{where}: agent {a.text!r} listed twice")
    agents.append(a)
  places = [row["place"] for _, row in _read(folder / "places.tsv",
                                             ("place",))]
  out = []
  for v in verbs.values():
    if len(patients[v.lemma]) < 2:
      raise LexiconError(f"{folder / 'patients.tsv'}: verb {v.lemma!r} has "
                         f"{len(patients[v.lemma])} patient(s), needs >= 2")
    clash = {p.text for p in patients[v.lemma]} & {a.text for a in agents}
    if clash:
      raise LexiconError(f"{folder / 'patients.tsv'}: {sorted(clash)} both "
                         f"patient of {v.lemma!r} and agent")
    out.append(dataclasses.replace(v, patients=tuple(patients[v.lemma])))
  if full_size and len(out) != VERBS_PER_LANGUAGE:
    raise LexiconError(f"{folder / 'verbs.tsv'}: {len(out)} verbs, expected "
                       f"{VERBS_PER_LANGUAGE} (002 sec. 4.2)")
  if not agents or not places:
    raise LexiconError(f"{folder}: agents.tsv and places.tsv need entries")
  return Lexicon(language, tuple(out), tuple(agents), tuple(places),
                 str(folder))


def _read(path: pathlib.Path, columns: tuple[str, ...]):
  """(where, {column: value}) per entry line; checks header and columns."""
  try:
    lines = path.read_text(encoding="utf-8").splitlines()
  except OSError as e:
    raise LexiconError(f"{path}: cannot read lexicon file: {e}") from None
  header, rows = None, []
  for n, line in enumerate(lines, 1):
    if not line.strip() or line.lstrip().startswith("#"):
      continue
    cells = [c.strip() for c in line.split("\t")]
    if header is None:
      if tuple(cells) != columns:
        raise LexiconError(f"{path}:{n}: header {cells} should be "
                           f"{list(columns)} (tab-separated)")
      header = columns
      continue
    where = f"{path}:{n}"
    required = [c for c in columns if c not in OPTIONAL]
    if len(cells) < len(required):
      raise LexiconError(f"{where}: field {required[len(cells)]!r} is "
                         f"missing ({len(cells)} tab-separated field(s); "
                         f"columns: {', '.join(columns)})")
    if len(cells) > len(columns):
      raise LexiconError(f"{where}: {len(cells)} fields, more than the "
                         f"columns {', '.join(columns)}")
    row = dict(zip(columns, cells + [""] * (len(columns) - len(cells))))
    for c in required:
      if not row[c]:
        raise LexiconError(f"{where}: field {c!r} is empty")
    for c, value in row.items():
      if "’" in value or "  " in value:
        raise LexiconError(f"{where}: field {c!r}: {value!r} has a curly "
                           "apostrophe or a double space")
    rows.append((where, row))
  if header is None:
    raise LexiconError(f"{path}: no header row {list(columns)}")
  return rows


def _verb(where: str, row: dict, language: str) -> Verb:
  v = _forms(where, row, language)
  if row["role_error"] not in ROLE_ERROR:
    raise LexiconError(f"{where}: field 'role_error': "
                       f"{row['role_error']!r}, expected one of "
                       f"{list(ROLE_ERROR)}")
  if row["role_error"] == "reading" and not row["gloss"]:
    raise LexiconError(f"{where}: field 'gloss' is empty: say the reading "
                       "in which a role error is a good sentence")
  return dataclasses.replace(v, role_error=row["role_error"])


def _forms(where: str, row: dict, language: str) -> Verb:
  lemma = row["verb"]
  for field in ("third", "participle") + (("third_pl",) if language != "en"
                                          else ("past",)):
    if " " in row[field]:
      raise LexiconError(f"{where}: field {field!r}: {row[field]!r} must be "
                         "one word")
  if language == "en":
    if not row["third"].endswith("s"):
      raise LexiconError(f"{where}: field 'third': {row['third']!r} is not a "
                         "3rd person singular (-s)")
    return Verb(lemma, row["third"], lemma, row["participle"],
                past=row["past"])
  if language == "it":
    if row["anticausative"] != "si":
      raise LexiconError(
          f"{where}: field 'anticausative': {row['anticausative']!r}; 002 sec. "
          "4.2 keeps only verbs whose intransitive takes si (not bollire)")
    if not row["third"].endswith(("a", "e")):
      raise LexiconError(f"{where}: field 'third': {row['third']!r} is not an "
                         "Italian present 3sg (-a/-e)")
    if not row["third_pl"].endswith("no"):
      raise LexiconError(f"{where}: field 'third_pl': {row['third_pl']!r} is "
                         "not an Italian present 3pl (-no)")
    if not row["participle"].endswith("o"):
      raise LexiconError(f"{where}: field 'participle': {row['participle']!r} "
                         "is not a masculine singular participle (-o)")
    if not lemma.endswith(("are", "ere", "ire", "rre")):
      raise LexiconError(f"{where}: field 'verb': {lemma!r} is not an "
                         "infinitive")
    return Verb(lemma, row["third"], row["third_pl"], row["participle"])
  prefix, bar, stem = lemma.rpartition("|")
  lemma = prefix + stem
  part = row["participle"]
  if row["aux"] not in ("sein", "haben"):
    raise LexiconError(f"{where}: field 'aux': {row['aux']!r}, expected "
                       "sein or haben")
  if not row["third"].endswith("t"):
    raise LexiconError(f"{where}: field 'third': {row['third']!r} is not a "
                       "German present 3sg (-t)")
  if row["third_pl"] != stem:
    raise LexiconError(f"{where}: field 'third_pl': {row['third_pl']!r} "
                       f"should equal the infinitive stem {stem!r}")
  if prefix and not part.startswith(prefix + "ge"):
    raise LexiconError(f"{where}: field 'participle': {part!r}: a separable "
                       f"verb's participle starts with {prefix + 'ge'!r}")
  if not prefix:
    no_ge = stem.startswith(DE_INSEPARABLE) or stem.endswith("ieren")
    if no_ge and part.startswith("ge") and not stem.startswith("ge"):
      raise LexiconError(f"{where}: field 'participle': {part!r}: "
                         f"{stem!r} takes no ge- in the participle")
    if not no_ge and not part.startswith("ge"):
      raise LexiconError(f"{where}: field 'participle': {part!r} lacks ge- "
                         f"(for a separable verb write the prefix as "
                         f"'auf|{stem}')")
  return Verb(lemma, row["third"], row["third_pl"], part, aux=row["aux"],
              prefix=prefix)


def _np(where: str, row: dict, language: str, text_field: str) -> NP:
  feat_field = {"en": "number", "it": "features", "de": "gender"}[language]
  text, feats = row[text_field], row[feat_field]
  if feats not in FEATURES[language]:
    raise LexiconError(f"{where}: field {feat_field!r}: {feats!r}, expected "
                       f"one of {list(FEATURES[language])}")
  if language == "en":
    if not text.startswith("the "):
      raise LexiconError(f"{where}: field {text_field!r}: {text!r} needs the "
                         "definite article (restrictive relatives on 'my "
                         "father' or 'a cook' read wrong)")
    return NP(text, feats)
  if language == "it":
    if not re.match(r"(il|lo|la|i|gli|le) |l'", text):
      raise LexiconError(f"{where}: field {text_field!r}: {text!r} needs a "
                         "definite article (a restrictive relative on 'mio "
                         "padre' reads wrong)")
    _check_it_article(where, text_field, text, feats)
    return NP(text, {"s": "sg", "p": "pl"}[feats[1]], gender=feats[0])
  if not text[:1].isupper() or " " in text:
    raise LexiconError(f"{where}: field {text_field!r}: {text!r} should be one "
                       "capitalised German noun, without article")
  acc = row.get("accusative", "")
  if acc and feats != "m":
    raise LexiconError(f"{where}: field 'accusative': only masculine nouns "
                       "have a distinct accusative form")
  return NP(text, "pl" if feats == "pl" else "sg",
            gender="" if feats == "pl" else feats, accusative=acc)


_IT_ARTICLES = {"il": "ms", "lo": "ms", "la": "fs", "i": "mp", "gli": "mp",
                "le": "fp"}


def _check_it_article(where, field, text, feats):
  """The article must agree with the stated gender and number."""
  first = text.split()[0]
  if first.startswith("l'"):
    if feats[1] != "s":
      raise LexiconError(f"{where}: field 'features': {text!r} has the "
                         f"singular article l' but features {feats!r}")
    return
  if _IT_ARTICLES.get(first, feats) != feats:
    raise LexiconError(f"{where}: field 'features': {feats!r} disagrees with "
                       f"the article of {text!r} ({_IT_ARTICLES[first]})")
