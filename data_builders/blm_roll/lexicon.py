"""Loading and checking the curated Roll lexicon (TSV data, not code).

Two files in `lexicon/`:

  verbs.tsv   verb, past, subclass, paths: the 18 Roll verbs of 000
              footnotes 10 (`motion`) and 11 (`axis`), exactly those, and
              the kinds of path PP (PATH_KINDS) each takes intransitively;
  scenes.tsv  theme, number (sg|pl), locations ('path PP=stative PP', `;`
              between locations), agents (`;` between NPs, `|pl` marks a
              plural NP) and the verbs for which every combination of the
              scene's agents, theme and paths is a natural sentence.

A scene is the unit of plausibility: sentences only ever combine material of
one scene (000 sec. 4.3 crafts minimal transitive/intransitive pairs the same
way), so any verb of the scene may realise any of its quadruple's sentences.
That claim is checked where it is checkable: every path of a scene must be
of a kind each of its verbs takes (*The box dropped across the floor, *The
globe revolved onto the stand), or loading fails naming both entries.
Lines starting with `#` are comments. Every problem is reported as
`<file>:<line>: field '<name>': <problem>`; nothing is built from a bad file.
"""

from __future__ import annotations

import dataclasses
import pathlib

LEXICON_DIR = pathlib.Path(__file__).resolve().parent / "lexicon"

# 000 footnotes 10 and 11.
MOTION_VERBS = ("bounce", "drift", "drop", "float", "glide", "move", "roll",
                "slide", "swing")
AXIS_VERBS = ("coil", "revolve", "rotate", "spin", "turn", "twirl", "twist",
              "whirl", "wind")
VERB_FIELDS = ("verb", "past", "subclass", "paths")
# The kind of a path PP, read from its preposition: a goal the theme ends in
# or at, a path along or over a surface, vertical motion, a place where the
# motion happens, or the direction of a turn. Verbs list the kinds they take.
PATH_KINDS = {
    "into": "goal", "onto": "goal", "to": "goal", "toward": "goal",
    "against": "goal", "under": "goal", "behind": "goal",
    "across": "horizontal", "along": "horizontal", "past": "horizontal",
    "over": "horizontal", "through": "horizontal",
    "down": "vertical", "off": "vertical",
    "around": "place", "in": "place", "on": "place", "above": "place",
    "inside": "place", "outside": "place", "at": "place",
    "to the left": "direction", "to the right": "direction",
}
KINDS = ("goal", "horizontal", "vertical", "place", "direction")
SCENE_FIELDS = ("theme", "number", "locations", "agents", "verbs")
NUMBERS = ("sg", "pl")
MIN_AGENTS = 2
# Type I needs two scenes per verb; type III two verbs per scene.
MIN_SCENES_PER_VERB = 2
MIN_VERBS_PER_SCENE = 2


class LexiconError(ValueError):
  """A lexicon file that cannot be used; names file, line and field."""


@dataclasses.dataclass(frozen=True)
class Verb:
  lemma: str
  past: str
  subclass: str  # "motion" | "axis"
  paths: tuple[str, ...] = KINDS  # the PATH_KINDS it takes
  line: int = 0  # in verbs.tsv


@dataclasses.dataclass(frozen=True)
class NP:
  text: str
  number: str = "sg"


@dataclasses.dataclass(frozen=True)
class Location:
  path: str   # after the verb: "into the cup"
  state: str  # after "was": "in the cup"


@dataclasses.dataclass(frozen=True)
class Scene:
  line: int
  theme: NP
  locations: tuple[Location, ...]
  agents: tuple[NP, ...]
  verbs: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class Lexicon:
  verbs: dict[str, Verb]
  scenes: tuple[Scene, ...]

  def scenes_of(self, verb: str) -> tuple[Scene, ...]:
    return tuple(s for s in self.scenes if verb in s.verbs)


def load(lexicon_dir: str | pathlib.Path | None = None,
         full_size: bool = True) -> Lexicon:
  """Reads and checks both files; `full_size` also checks coverage."""
  d = pathlib.Path(lexicon_dir) if lexicon_dir else LEXICON_DIR
  verbs = _load_verbs(d / "verbs.tsv", full_size)
  path = d / "scenes.tsv"
  scenes = tuple(_scene(path, n, row, verbs)
                 for n, row in _rows(path, SCENE_FIELDS))
  lex = Lexicon(verbs, scenes)
  bad = path_problems(lex, d)
  if bad:
    raise LexiconError(bad[0])
  if not scenes:
    raise LexiconError(f"{path}: no scenes")
  seen: dict[str, int] = {}
  for s in scenes:
    if s.theme.text in seen:
      raise LexiconError(f"{path}:{s.line}: field 'theme': {s.theme.text!r} "
                         f"already has a scene on line {seen[s.theme.text]}")
    seen[s.theme.text] = s.line
  if full_size:
    for v in verbs:
      n = sum(v in s.verbs for s in scenes)
      if n < MIN_SCENES_PER_VERB:
        raise LexiconError(
            f"{path}: field 'verbs': verb {v!r} is in {n} scene(s); type I "
            f"needs at least {MIN_SCENES_PER_VERB}")
  return lex


def _rows(path: pathlib.Path, fields: tuple[str, ...]):
  """(line number, {field: value}) for each data line after the header."""
  try:
    lines = path.read_text(encoding="utf-8").splitlines()
  except OSError as e:
    raise LexiconError(f"{path}: cannot read lexicon: {e}") from None
  header_seen = False
  for n, line in enumerate(lines, 1):
    if not line.strip() or line.startswith("#"):
      continue
    cells = line.split("\t")
    if not header_seen:
      if tuple(c.strip() for c in cells) != fields:
        raise LexiconError(f"{path}:{n}: header {cells} should be the "
                           f"tab-separated fields {list(fields)}")
      header_seen = True
      continue
    if len(cells) != len(fields):
      raise LexiconError(f"{path}:{n}: {len(cells)} tab-separated fields, "
                         f"expected {len(fields)} ({list(fields)})")
    row = dict(zip(fields, (c.strip() for c in cells)))
    for f, v in row.items():
      if not v:
        raise LexiconError(f"{path}:{n}: field {f!r}: empty")
    yield n, row
  if not header_seen:
    raise LexiconError(f"{path}: no header line {list(fields)}")


def _load_verbs(path: pathlib.Path, full_size: bool) -> dict[str, Verb]:
  verbs: dict[str, Verb] = {}
  for n, row in _rows(path, VERB_FIELDS):
    lemma = row["verb"]
    expected = ("motion" if lemma in MOTION_VERBS else
                "axis" if lemma in AXIS_VERBS else None)
    if expected is None:
      raise LexiconError(f"{path}:{n}: field 'verb': {lemma!r} is not a Roll "
                         "verb of 000 footnotes 10-11")
    if lemma in verbs:
      raise LexiconError(f"{path}:{n}: field 'verb': {lemma!r} listed twice")
    if row["subclass"] != expected:
      raise LexiconError(f"{path}:{n}: field 'subclass': {lemma!r} is "
                         f"{expected!r}, not {row['subclass']!r}")
    if not row["past"].isalpha():
      raise LexiconError(f"{path}:{n}: field 'past': {row['past']!r} is not "
                         "one word")
    kinds = tuple(k.strip() for k in row["paths"].split(";"))
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
      raise LexiconError(f"{path}:{n}: field 'paths': {unknown} not among "
                         f"{list(KINDS)}")
    verbs[lemma] = Verb(lemma, row["past"], row["subclass"], kinds, n)
  if full_size:
    missing = sorted(set(MOTION_VERBS + AXIS_VERBS) - set(verbs))
    if missing:
      raise LexiconError(f"{path}: field 'verb': missing {missing} "
                         "(000 footnotes 10-11)")
  return verbs


def path_kind(path_pp: str) -> str | None:
  """PATH_KINDS of a path PP ('into the cup' -> goal), None if unknown."""
  words = path_pp.split()
  return PATH_KINDS.get(" ".join(words[:3])) or PATH_KINDS.get(
      words[0] if words else "")


def path_problems(lex: Lexicon,
                  lexicon_dir: str | pathlib.Path | None = None) -> list[str]:
  """Each scene verb that cannot take one of the scene's paths.

  Generation checks it too, so a lexicon built in code cannot produce
  "The box dropped across the floor" either."""
  d = pathlib.Path(lexicon_dir) if lexicon_dir else LEXICON_DIR
  out = []
  for s in lex.scenes:
    for loc in s.locations:
      kind = path_kind(loc.path)
      if kind is None:
        out.append(f"{d / 'scenes.tsv'}:{s.line}: field 'locations': path "
                   f"{loc.path!r} has no known preposition; known: "
                   f"{sorted(PATH_KINDS)}")
        continue
      for v in s.verbs:
        verb = lex.verbs[v]
        if kind not in verb.paths:
          out.append(
              f"{d / 'scenes.tsv'}:{s.line}: field 'verbs': {v!r} does not "
              f"take the {kind} path {loc.path!r} of {s.theme.text!r} "
              f"({d / 'verbs.tsv'}:{verb.line}: field 'paths': "
              f"{';'.join(verb.paths)})")
  return out


def _np(path, n, field, item: str) -> NP:
  text, bar, feat = item.partition("|")
  text, feat = text.strip(), feat.strip()
  if bar and feat != "pl":
    raise LexiconError(f"{path}:{n}: field {field!r}: {item!r}: only '|pl' "
                       "may follow an NP")
  if not text or text != text.lower() or not text.startswith(("the ", "my ")):
    raise LexiconError(f"{path}:{n}: field {field!r}: {item!r} should be a "
                       "lower-case NP starting with 'the' or 'my'")
  return NP(text, "pl" if bar else "sg")


def _scene(path, n, row, verbs) -> Scene:
  if row["number"] not in NUMBERS:
    raise LexiconError(f"{path}:{n}: field 'number': {row['number']!r}, "
                       f"expected one of {list(NUMBERS)}")
  theme = NP(_np(path, n, "theme", row["theme"]).text, row["number"])
  locations = []
  for item in row["locations"].split(";"):
    p, eq, s = item.partition("=")
    if not eq or not p.strip() or not s.strip():
      raise LexiconError(f"{path}:{n}: field 'locations': {item!r} should be "
                         "'path PP=stative PP'")
    locations.append(Location(p.strip(), s.strip()))
  agents = tuple(_np(path, n, "agents", a) for a in row["agents"].split(";"))
  for field, items in (("locations", [l.path for l in locations]),
                       ("agents", [a.text for a in agents])):
    dupes = sorted({x for x in items if items.count(x) > 1})
    if dupes:
      raise LexiconError(f"{path}:{n}: field {field!r}: {dupes} repeated")
  if len(agents) < MIN_AGENTS:
    raise LexiconError(f"{path}:{n}: field 'agents': {len(agents)} agent(s), "
                       f"expected at least {MIN_AGENTS}")
  if theme.text in {a.text for a in agents}:
    raise LexiconError(f"{path}:{n}: field 'agents': the theme "
                       f"{theme.text!r} is also an agent")
  scene_verbs = tuple(v.strip() for v in row["verbs"].split(";"))
  for v in scene_verbs:
    if v not in verbs:
      raise LexiconError(f"{path}:{n}: field 'verbs': unknown verb {v!r}; "
                         f"known: {sorted(verbs)}")
  if len(set(scene_verbs)) != len(scene_verbs):
    raise LexiconError(f"{path}:{n}: field 'verbs': a verb is repeated in "
                       f"{list(scene_verbs)}")
  if len(scene_verbs) < MIN_VERBS_PER_SCENE:
    raise LexiconError(f"{path}:{n}: field 'verbs': {len(scene_verbs)} "
                       f"verb(s); type III needs at least "
                       f"{MIN_VERBS_PER_SCENE}")
  return Scene(n, theme, tuple(locations), agents, scene_verbs)
