"""The dataset registry (data_builders/registry.py): every short name a
config, the CLI or a suite names, declared in its builder package."""

import pytest


# The 72 short names, their TFDS templates, their lexical types (when not
# I-III) and whether they read the user's files: the 62 configs/common.py
# held before each family declared its own (none may be lost or changed)
# and the `_seq` designs' generalisation regimes.
TODAY = {
    "spray_load": "blm_spray_load/ALT-ATL_type_{}",
    "spray_load_atl_alt": "blm_spray_load/ATL-ALT_type_{}",
    "spray_load_ctx": "blm_spray_load/ctx_type_{}",
    "spray_load_seq": "blm_spray_load/seq_type_{}",
    "spray_load_seq_rules": "blm_spray_load/seq_rules_type_{}",
    "spray_load_seq_extrap": "blm_spray_load/seq_extrap_type_{}",
    "cos_en": "blm_cos_od/cos_en_type_{}",
    "cos_it": "blm_cos_od/cos_it_type_{}",
    "od_en": "blm_cos_od/od_en_type_{}",
    "od_it": "blm_cos_od/od_it_type_{}",
    "cos_en_ctx": "blm_cos_od/cos_en_ctx_type_{}",
    "cos_it_ctx": "blm_cos_od/cos_it_ctx_type_{}",
    "od_en_ctx": "blm_cos_od/od_en_ctx_type_{}",
    "od_it_ctx": "blm_cos_od/od_it_ctx_type_{}",
    "cos_en_seq": "blm_cos_od/cos_en_seq_type_{}",
    "cos_it_seq": "blm_cos_od/cos_it_seq_type_{}",
    "od_en_seq": "blm_cos_od/od_en_seq_type_{}",
    "od_it_seq": "blm_cos_od/od_it_seq_type_{}",
    "cos_en_seq_rules": "blm_cos_od/cos_en_seq_rules_type_{}",
    "cos_it_seq_rules": "blm_cos_od/cos_it_seq_rules_type_{}",
    "od_en_seq_rules": "blm_cos_od/od_en_seq_rules_type_{}",
    "od_it_seq_rules": "blm_cos_od/od_it_seq_rules_type_{}",
    "agreement_en": "blm_agreement/en_mixed_type_{}",
    "agreement_fr": "blm_agreement/fr_mixed_type_{}",
    "agreement_it": "blm_agreement/it_mixed_type_{}",
    "agreement_ro": "blm_agreement/ro_mixed_type_{}",
    "agreement_en_ctx": "blm_agreement/en_ctx_type_{}",
    "agreement_fr_ctx": "blm_agreement/fr_ctx_type_{}",
    "agreement_it_ctx": "blm_agreement/it_ctx_type_{}",
    "agreement_ro_ctx": "blm_agreement/ro_ctx_type_{}",
    "agreement_en_seq": "blm_agreement/en_seq_type_{}",
    "agreement_fr_seq": "blm_agreement/fr_seq_type_{}",
    "agreement_it_seq": "blm_agreement/it_seq_type_{}",
    "agreement_ro_seq": "blm_agreement/ro_seq_type_{}",
    "agreement_en_seq_rules": "blm_agreement/en_seq_rules_type_{}",
    "agreement_fr_seq_rules": "blm_agreement/fr_seq_rules_type_{}",
    "agreement_it_seq_rules": "blm_agreement/it_seq_rules_type_{}",
    "agreement_ro_seq_rules": "blm_agreement/ro_seq_rules_type_{}",
    "cos_plus_en_t2i": "blm_cos_plus/en_T2I_{}",
    "cos_plus_en_i2t": "blm_cos_plus/en_I2T_{}",
    "cos_plus_it_t2i": "blm_cos_plus/it_T2I_{}",
    "cos_plus_it_i2t": "blm_cos_plus/it_I2T_{}",
    "cos_plus_de_case_t2i": "blm_cos_plus/de_case_T2I_{}",
    "cos_plus_de_case_i2t": "blm_cos_plus/de_case_I2T_{}",
    "cos_plus_de_mix_t2i": "blm_cos_plus/de_mix_T2I_{}",
    "cos_plus_de_mix_i2t": "blm_cos_plus/de_mix_I2T_{}",
    "cos_plus_en_ctx": "blm_cos_plus/en_ctx_{}",
    "cos_plus_it_ctx": "blm_cos_plus/it_ctx_{}",
    "cos_plus_de_case_ctx": "blm_cos_plus/de_case_ctx_{}",
    "cos_plus_de_mix_ctx": "blm_cos_plus/de_mix_ctx_{}",
    "spray_load_v0": "blm_spray_load_v0/Template1_type_{}",
    "spray_load_v0_t2": "blm_spray_load_v0/Template2_type_{}",
    "spray_load_v0_ctx": "blm_spray_load_v0/ctx_type_{}",
    "spray_load_v0_t2_ctx": "blm_spray_load_v0/ctx_t2_type_{}",
    "agreement6_fr": "blm_agreement/fr_agrf6_type_{}",
    "agreement6_it": "blm_agreement/it_agrf6_type_{}",
    "agreement6_fr_ctx": "blm_agreement/fr_agrf6_ctx_type_{}",
    "agreement6_it_ctx": "blm_agreement/it_agrf6_ctx_type_{}",
    "sequence_of_tense": "blm_sequence_of_tense/type_{}",
    "sequence_of_tense_ctx": "blm_sequence_of_tense/ctx_type_{}",
    "mixture": "blm_mixture/type_{}",
    "mixture_ctx": "blm_mixture/ctx_type_{}",
    "published_agreement_fr": "blm_published/agreement_fr_type_{}",
    "published_spray_load": "blm_published/spray_load_en_ALT-ATL_type_{}",
    "own_release": "blm_published/folder",
    "own_release_types": "blm_published/type_{}",
    "own_jsonl": "blm_jsonl/folder",
    "own_jsonl_types": "blm_jsonl/type_{}",
    "roll": "blm_roll/type_{}",
    "roll_ctx": "blm_roll/ctx_type_{}",
    "caus_he": "blm_caus_he/synthetic_{}",
    "caus_he_natural": "blm_caus_he/natural_{}",
}
TODAY_TYPES = {
    "caus_he": ('MaxLex',),
    "caus_he_natural": ('MaxLex',),
    "own_release": ('folder',),
    "own_jsonl": ('folder',),
    "cos_plus_en_t2i": ('MinLex', 'MaxLex'),
    "cos_plus_en_i2t": ('MinLex', 'MaxLex'),
    "cos_plus_it_t2i": ('MinLex', 'MaxLex'),
    "cos_plus_it_i2t": ('MinLex', 'MaxLex'),
    "cos_plus_de_case_t2i": ('MinLex', 'MaxLex'),
    "cos_plus_de_case_i2t": ('MinLex', 'MaxLex'),
    "cos_plus_de_mix_t2i": ('MinLex', 'MaxLex'),
    "cos_plus_de_mix_i2t": ('MinLex', 'MaxLex'),
    "cos_plus_en_ctx": ('MinLex', 'MaxLex'),
    "cos_plus_it_ctx": ('MinLex', 'MaxLex'),
    "cos_plus_de_case_ctx": ('MinLex', 'MaxLex'),
    "cos_plus_de_mix_ctx": ('MinLex', 'MaxLex'),
}
TODAY_NEEDS_MANUAL_DIR = {
    "published_agreement_fr", "published_spray_load", "own_release",
    "own_release_types", "own_jsonl", "own_jsonl_types", "caus_he_natural"}


def test_configs_common_offers_todays_names_templates_and_types():
  from configs import common
  assert common.DATASETS == TODAY and len(TODAY) == 72
  assert common.DATASET_TYPES == TODAY_TYPES
  assert set(common.NEEDS_MANUAL_DIR) == TODAY_NEEDS_MANUAL_DIR


@pytest.fixture
def fresh_registry(monkeypatch):
  """The registry collected again on first use, and again after the test."""
  from data_builders import registry
  monkeypatch.setattr(registry, "_ENTRIES", None)
  return registry


def test_the_registry_holds_todays_names_templates_and_types():
  from data_builders import registry
  assert registry.templates() == TODAY
  assert {e.short_name: e.types for e in registry.entries()
          if e.types != ("I", "II", "III")} == TODAY_TYPES
  assert {e.short_name for e in registry.entries()
          if e.needs_manual_dir} == TODAY_NEEDS_MANUAL_DIR
  # Family by family, the papers' main families first.
  assert registry.names()[:4] == ("spray_load", "spray_load_atl_alt",
                                  "spray_load_ctx", "spray_load_seq")


def test_each_entry_is_declared_by_the_package_that_builds_it():
  import importlib

  import tensorflow_datasets as tfds
  from data_builders import registry
  from data_builders.common import labels
  for e in registry.entries():
    declared = importlib.import_module(
        f"data_builders.{e.package}.datasets").DATASETS
    assert e in declared, e.short_name
    configs = {c.name for c in tfds.builder_cls(e.package).BUILDER_CONFIGS}
    for name in e.tfds_names():
      assert name.split("/")[1] in configs, name
    assert e.family == "own" or e.family in labels.FAMILY_LABELS
    assert e.language in ("en", "fr", "it", "ro", "de", "he", None)
  by = {e.short_name: e for e in registry.entries()}
  assert (by["cos_plus_de_mix_ctx"].family, by["cos_plus_de_mix_ctx"].language,
          by["cos_plus_de_mix_ctx"].design) == ("cos_plus", "de", "ctx")
  assert by["spray_load_seq"].paper_designs == ("spray_load",
                                                "spray_load_atl_alt")
  assert by["od_it_seq"].family == "od" and by["own_jsonl"].design == "own"


def test_designs_follow_their_names_and_pair_with_their_paper_design():
  from blm_jax.study import claims
  from data_builders import registry
  for e in registry.entries():
    suffix = e.short_name.rpartition("_")[2]
    assert (e.design in ("ctx", "seq")) == (suffix in ("ctx", "seq")), e
  assert claims.CONTEXT_NECESSARY_OF["cos_plus_it_i2t"] == "cos_plus_it_ctx"
  assert registry.pairs("seq")["agreement_ro"] == "agreement_ro_seq"
  assert len(registry.pairs("ctx")) == 25 and len(registry.pairs("seq")) == 10


def test_lookup_and_tfds_name():
  from data_builders import registry
  assert registry.tfds_name("spray_load_seq", "II") == (
      "blm_spray_load/seq_type_II")
  assert registry.tfds_name("own_jsonl", "folder") == "blm_jsonl/folder"
  assert registry.lookup("caus_he").types == ("MaxLex",)
  assert registry.resolve("cos_plus_en_ctx") == ("blm_cos_plus/en_ctx_MinLex",
                                                 "blm_cos_plus/en_ctx_MaxLex")
  assert registry.resolve("roll:III") == ("blm_roll/type_III",)
  assert registry.resolve("blm_roll/type_I") == ("blm_roll/type_I",)
  assert registry.short_name_of("blm_cos_od/od_en_seq_type_I") == "od_en_seq"
  assert registry.short_name_of("blm_cos_od/nothing") is None


@pytest.mark.parametrize("name, message", [
    ("spray_lod", "no dataset short name 'spray_lod'; did you mean "
     "'spray_load' or "),
    ("agreement_fr_sq", "did you mean 'agreement_fr_seq'"),
    ("zzzz", "no dataset short name 'zzzz' (72 known; `--help` lists them)"),
])
def test_an_unknown_short_name_is_one_line_with_the_closest(name, message):
  from data_builders import registry
  with pytest.raises(ValueError) as e:
    registry.lookup(name)
  assert message in str(e.value) and "\n" not in str(e.value)
  with pytest.raises(ValueError, match="dataset 'roll' has no type 'IV'; "
                     "its types: I, II, III"):
    registry.resolve("roll:IV")


def test_configs_ask_the_registry():
  from configs import common
  c = common.base("ffnn", "cos_plus_it_ctx")
  assert c.data.name == "blm_cos_plus/it_ctx_{}"
  assert tuple(c.data.train_types) == ("MinLex", "MaxLex")
  with pytest.raises(ValueError, match="did you mean 'cos_en'"):
    common.base("ffnn", "cos_enn")
  text = (__import__("pathlib").Path(common.__file__).read_text())
  assert "blm_spray_load/" not in text  # no dataset list of its own


def _entry(short, template, design="paper", **kw):
  from data_builders.registry import DatasetEntry
  return DatasetEntry(short, template, "roll", design, "en", **kw)


@pytest.mark.parametrize("kwargs, message", [
    (dict(short="roll_x", template="blm_roll/x_{}", design="regime"),
     "design 'regime' is not one of paper, ctx, seq, own"),
    (dict(short="roll_rules", template="blm_roll/x_{}", design="seq_rules"),
     "a 'seq_rules' design's short name ends in '_seq_rules'"),
    (dict(short="roll_seq", template="blm_roll/x_{}", design="seq"),
     "names the papers' designs it stands beside"),
    (dict(short="roll_y", template="blm_roll/x_{}", paper_designs=("roll",)),
     "only ctx and seq designs stand beside a paper design"),
    (dict(short="roll_y", template="blm_roll_type_{}"), "is not "
     "'<builder>/<config>'"),
    (dict(short="roll_y", template="blm_roll/folder"), "has no '{}' for its 3 "
     "types"),
    (dict(short="Roll", template="blm_roll/x_{}"), "lowercase letters"),
])
def test_a_bad_entry_says_what_is_wrong(kwargs, message):
  with pytest.raises(ValueError, match=__import__("re").escape(message)):
    _entry(**kwargs)
  # A regime of a design is a design.
  assert _entry("roll_seq_rules", "blm_roll/r_{}", "seq_rules",
                paper_designs=("roll",)).design == "seq_rules"


def _declare(monkeypatch, package, *entries):
  import sys
  import types
  module = types.ModuleType(f"data_builders.{package}.datasets")
  module.DATASETS = entries
  monkeypatch.setitem(sys.modules, module.__name__, module)


def test_collect_refuses_twice_declared_foreign_and_unpaired_names(
    monkeypatch):
  from data_builders import registry
  _declare(monkeypatch, "blm_roll", _entry("roll", "blm_roll/type_{}"))
  _declare(monkeypatch, "blm_two", _entry("roll", "blm_two/type_{}"))
  with pytest.raises(ValueError, match=r"data_builders/blm_two/datasets.py: "
                     r"'roll' is declared twice \(also by "
                     r"data_builders/blm_roll\)"):
    registry.collect(["blm_roll", "blm_two"])
  _declare(monkeypatch, "blm_two", _entry("two", "blm_roll/two_{}"))
  with pytest.raises(ValueError, match="template 'blm_roll/two_{}' is not "
                     "of builder 'blm_two'"):
    registry.collect(["blm_two"])
  _declare(monkeypatch, "blm_roll", _entry(
      "roll_seq", "blm_roll/seq_{}", "seq", paper_designs=("rol",)))
  with pytest.raises(ValueError, match="'roll_seq' stands beside 'rol', "
                     "which is no registered paper design"):
    registry.collect(["blm_roll"])
  _declare(monkeypatch, "blm_roll", _entry("roll", "blm_roll/type_{}"), *(
      _entry(n, f"blm_roll/{n}_{{}}", "seq", paper_designs=("roll",))
      for n in ("roll_seq", "roll_b_seq")))
  with pytest.raises(ValueError, match="'roll_b_seq' and 'roll_seq' are "
                     "both 'roll''s 'seq' design"):
    registry.collect(["blm_roll"])


def test_a_new_seq_design_is_one_entry_in_its_package(monkeypatch,
                                                      fresh_registry):
  """docs/how-to/add-a-design.md: the entry is all the registry, the
  configs and the claims' pairing need."""
  from configs import common
  from data_builders.blm_roll import datasets as roll
  seq = _entry("roll_seq", "blm_roll/seq_type_{}", "seq",
               paper_designs=("roll",))
  monkeypatch.setattr(roll, "DATASETS", roll.DATASETS + (seq,))
  assert fresh_registry.lookup("roll_seq") is seq
  assert fresh_registry.pairs("seq")["roll"] == "roll_seq"
  assert common.base("ffnn", "roll_seq").data.name == "blm_roll/seq_type_{}"
  assert len(fresh_registry.names()) == 73


@pytest.fixture
def fake_packages(tmp_path, monkeypatch):
  """Two builder packages on data_builders' path: blm_fake with an
  attributes module, blm_plain without one."""
  import sys

  import data_builders
  for name in ("blm_fake", "blm_plain"):
    (tmp_path / name).mkdir()
    (tmp_path / name / "__init__.py").write_text("")
  (tmp_path / "blm_fake" / "attributes.py").write_text(
      "def schema_for(config_name):\n"
      "  return ('schema', config_name) if 'seq' in config_name else None\n")
  monkeypatch.setattr(data_builders, "__path__",
                      [*data_builders.__path__, str(tmp_path)])
  yield
  for name in list(sys.modules):
    if name.startswith(("data_builders.blm_fake", "data_builders.blm_plain")):
      del sys.modules[name]


def test_attribute_schema_asks_the_packages_attributes_module(fake_packages):
  from data_builders.registry import DatasetEntry
  seq = DatasetEntry("fake_seq", "blm_fake/seq_type_{}", "fake", "seq", "en",
                     paper_designs=("fake",))
  assert seq.attribute_schema("II") == ("schema", "seq_type_II")
  paper = DatasetEntry("fake", "blm_fake/type_{}", "fake", "paper", "en")
  assert paper.attribute_schema("I") is None  # its schema_for says none
  plain = DatasetEntry("plain", "blm_plain/type_{}", "plain", "paper", "en")
  assert plain.attribute_schema("I") is None  # no attributes module
  with pytest.raises(ValueError, match="has no type 'IV'"):
    seq.attribute_schema("IV")


# Calls that run a Python file named by its path.
_PATH_LOADERS = ("spec_from_file_location", "SourceFileLoader", "run_path",
                 "load_source")
# Only command lines run the config files a user names: reproduce's
# `--configs_dir` (cli/config_files.py, handed to the study as a loader),
# as launch.py runs the one `--config` names.
_ALLOWED_PATH_LOADS = {
    "blm_jax/cli/config_files.py:load",
    # The trainer's command line lists the keys of the config file a user
    # names on it (for a misspelled key), as launch.py did.
    "blm_jax/cli/train.py:_load_config_file"}


def _path_loads(root):
  """'file:function' of every call in blm_jax that loads a file by path."""
  import ast
  found = set()

  def visit(node, where, path):
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
      where = node.name
    if isinstance(node, ast.Call):
      name = getattr(node.func, "attr", getattr(node.func, "id", None))
      if name in _PATH_LOADERS:
        found.add(f"{path.relative_to(root).as_posix()}:{where}")
    for child in ast.iter_child_nodes(node):
      visit(child, where, path)

  for path in sorted((root / "blm_jax").rglob("*.py")):
    visit(ast.parse(path.read_text()), "<module>", path)
  return found


@pytest.mark.slow
def test_library_code_loads_no_file_by_path(tmp_path):
  """The dataset names come from data_builders.registry: no module of
  blm_jax reads configs/common.py (or any module) from its file."""
  import pathlib
  root = pathlib.Path(__file__).resolve().parents[2]
  assert _path_loads(root) == _ALLOWED_PATH_LOADS
  # The layers below the command lines run no file by its path.
  assert all(p.startswith("blm_jax/cli/") for p in _ALLOWED_PATH_LOADS)
  # A planted loader is found.
  planted = tmp_path / "blm_jax" / "cli"
  planted.mkdir(parents=True)
  (planted / "names.py").write_text(
      "import importlib.util\n\n\ndef load_common(path):\n"
      "  return importlib.util.spec_from_file_location('c', path)\n")
  assert _path_loads(tmp_path) == {"blm_jax/cli/names.py:load_common"}
