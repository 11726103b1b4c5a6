"""The dataset short names, collected from the builder packages that build them.

Each builder package `data_builders/<package>/` declares its short names
in `datasets.py` (a tuple `DATASETS` of `DatasetEntry`): a design added to
a family is one entry there, beside its builder config. This module
collects them; configs, suites and the command lines ask it
(`lookup`, `entries`, `tfds_name`, `resolve`) instead of keeping lists.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import importlib.util
import re
from typing import Any

# The designs a family can offer (DESIGN.md): the papers' (or the
# release's), `ctx` (the answers alone cannot decide), `seq` (the rule
# varies per instance), and `own` (the user's files, design unknown). A
# regime of a design is `<design>_<regime>`, e.g. `seq_rules`.
DESIGNS = ("paper", "ctx", "seq", "own")
LEXICAL_TYPES = ("I", "II", "III")
# Families in this order first (the papers' main ones, as the battery and
# --help list them); any other package follows in alphabetical order.
PACKAGE_ORDER = ("blm_spray_load", "blm_cos_od", "blm_agreement",
                 "blm_cos_plus", "blm_spray_load_v0", "blm_sequence_of_tense",
                 "blm_mixture", "blm_published", "blm_jsonl", "blm_roll",
                 "blm_caus_he")
_DESIGN = re.compile(r"(paper|ctx|seq|own)(_[a-z0-9]+)*$")
_SHORT_NAME = re.compile(r"[a-z][a-z0-9_]*$")


@dataclasses.dataclass(frozen=True)
class DatasetEntry:
  """One short name: the TFDS configs it stands for and what they are.

  `template`: the TFDS name with '{}' for the lexical type
  ('blm_spray_load/seq_type_{}'), or one name used for every type.
  `family`: the BLM family, as data_builders/common/labels.py names its
  papers' design ('spray_load', 'cos', 'agreement6'; 'own' for the
  user's files). `paper_designs`: for a `ctx`/`seq` design, the short
  names of the papers' designs it stands beside (the claims report sets
  them side by side). `language`: ISO 639-1, None when unknown.
  """

  short_name: str
  template: str
  family: str
  design: str
  language: str | None
  types: tuple[str, ...] = LEXICAL_TYPES
  paper_designs: tuple[str, ...] = ()
  needs_manual_dir: bool = False

  def __post_init__(self):
    where = f"dataset {self.short_name!r}"
    if not _SHORT_NAME.match(self.short_name):
      raise ValueError(f"{where}: a short name is lowercase letters, digits "
                       "and '_'")
    if not _DESIGN.match(self.design):
      raise ValueError(f"{where}: design {self.design!r} is not one of "
                       f"{', '.join(DESIGNS)} (or '<design>_<regime>')")
    base = self.design.split("_")[0]
    if base in ("ctx", "seq") and not self.short_name.endswith(
        f"_{self.design}"):
      raise ValueError(f"{where}: a {self.design!r} design's short name "
                       f"ends in '_{self.design}'")
    if base in ("ctx", "seq") and not self.paper_designs:
      raise ValueError(f"{where}: a {self.design!r} design names the papers' "
                       "designs it stands beside (paper_designs)")
    if base not in ("ctx", "seq") and self.paper_designs:
      raise ValueError(f"{where}: only ctx and seq designs stand beside a "
                       "paper design")
    if self.template.count("/") != 1 or not self.types:
      raise ValueError(f"{where}: template {self.template!r} is not "
                       "'<builder>/<config>' or it has no types")
    if "{}" not in self.template and len(self.types) != 1:
      raise ValueError(f"{where}: template {self.template!r} has no '{{}}' "
                       f"for its {len(self.types)} types")

  @property
  def package(self) -> str:
    """The builder package (and TFDS builder name) of its configs."""
    return self.template.split("/")[0]

  def tfds_name(self, lexical_type: str) -> str:
    """The TFDS name of one lexical type ('blm_spray_load/seq_type_II')."""
    if lexical_type not in self.types:
      raise ValueError(
          f"dataset {self.short_name!r} has no type {lexical_type!r}; its "
          f"types: {', '.join(self.types)}")
    return (self.template.format(lexical_type) if "{}" in self.template
            else self.template)

  def tfds_names(self) -> tuple[str, ...]:
    return tuple(dict.fromkeys(self.tfds_name(t) for t in self.types))

  def attribute_schema(self, lexical_type: str) -> Any | None:
    """`schema_for(config)` of the package's `attributes` module (how its
    pattern keys split into attributes), None when it has none: the one
    lookup the input pipeline uses too (`attributes.schema_for_dataset`)."""
    from data_builders.common import attributes
    return attributes.schema_for_dataset(self.tfds_name(lexical_type))


_ENTRIES: dict[str, DatasetEntry] | None = None


def _packages() -> list[str]:
  """The builder packages holding a `datasets.py`, in PACKAGE_ORDER."""
  import data_builders

  found = [p for p in data_builders.BUILDER_PACKAGES
           if importlib.util.find_spec(f"{__package__}.{p}.datasets")]
  known = [p for p in PACKAGE_ORDER if p in found]
  return known + sorted(set(found) - set(known))


def collect(packages) -> dict[str, DatasetEntry]:
  """{short name: entry} of the `DATASETS` of `packages`' datasets.py;
  ValueError (one line) on a name declared twice, an entry of another
  package's builder, a paper design that is not registered, or two
  designs of one kind beside one paper design."""
  out: dict[str, DatasetEntry] = {}
  for package in packages:
    module = importlib.import_module(f"{__package__}.{package}.datasets")
    for entry in module.DATASETS:
      where = f"data_builders/{package}/datasets.py: {entry.short_name!r}"
      if entry.short_name in out:
        raise ValueError(f"{where} is declared twice (also by "
                         f"data_builders/{out[entry.short_name].package})")
      if entry.package != package:
        raise ValueError(f"{where}: template {entry.template!r} is not of "
                         f"builder {package!r}")
      out[entry.short_name] = entry
  beside: dict[tuple[str, str], str] = {}
  for entry in out.values():
    where = f"data_builders/{entry.package}/datasets.py: {entry.short_name!r}"
    for paper in entry.paper_designs:
      if paper not in out or out[paper].design != "paper":
        raise ValueError(f"{where} stands beside {paper!r}, which is no "
                         "registered paper design")
      other = beside.setdefault((paper, entry.design), entry.short_name)
      if other != entry.short_name:
        raise ValueError(f"{where} and {other!r} are both {paper!r}'s "
                         f"{entry.design!r} design")
  return out


def _registry() -> dict[str, DatasetEntry]:
  global _ENTRIES
  if _ENTRIES is None:
    _ENTRIES = collect(_packages())
  return _ENTRIES


def entries() -> tuple[DatasetEntry, ...]:
  """Every registered dataset, family by family in PACKAGE_ORDER."""
  return tuple(_registry().values())


def names() -> tuple[str, ...]:
  """Every short name, in the order of `entries()`."""
  return tuple(_registry())


def suggestion(name: str, candidates) -> str:
  """'; did you mean 'x'?' for the closest of `candidates`, or ''."""
  close = difflib.get_close_matches(name, list(candidates), 3)
  return ("; did you mean " + " or ".join(map(repr, close)) + "?"
          if close else "")


def lookup(short_name: str) -> DatasetEntry:
  """The entry of `short_name`; a ValueError (one line, with the closest
  names) when there is none (a plain ValueError: launch.py shows the last
  line of a config's error)."""
  registry = _registry()
  if short_name in registry:
    return registry[short_name]
  raise ValueError(
      f"no dataset short name {short_name!r}"
      + (suggestion(short_name, registry)
         or f" ({len(registry)} known; `--help` lists them)"))


def tfds_name(short_name: str, lexical_type: str) -> str:
  """'spray_load_seq', 'II' -> 'blm_spray_load/seq_type_II'."""
  return lookup(short_name).tfds_name(lexical_type)


def short_name_of(tfds: str) -> str | None:
  """The short name one of whose types is the TFDS name `tfds`, or None."""
  for entry in _registry().values():
    if tfds in entry.tfds_names():
      return entry.short_name
  return None


def resolve(name: str) -> tuple[str, ...]:
  """The TFDS names a command-line dataset stands for: a short name
  ('spray_load': every type), a short name and one type ('spray_load:II'),
  or a TFDS name ('<builder>/<config>', returned as given, for the
  caller to check). ValueError for anything else."""
  if "/" in name:
    return (name,)
  short, _, lexical_type = name.partition(":")
  entry = lookup(short)
  return ((entry.tfds_name(lexical_type),) if lexical_type
          else entry.tfds_names())


def templates() -> dict[str, str]:
  """{short name: template}, for configs."""
  return {e.short_name: e.template for e in entries()}


def pairs(design: str) -> dict[str, str]:
  """{paper design: its `design` design} ('ctx' or 'seq'), every paper
  design that has one."""
  return {paper: e.short_name for e in entries() if e.design == design
          for paper in e.paper_designs}
