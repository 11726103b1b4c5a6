"""The COS+ builder (002 sec. 4.2): Figure 9's patterns and answer rules, the
morphology of each language on known forms, the linguistic validators, the
MinLex/MaxLex contract, 1600/400 splits without leaks, byte-identical
rebuilds, lint, and bad lexicon entries named by file, line and field."""

import glob
import pathlib
import shutil
import tomllib

import pytest
import tensorflow_datasets as tfds

from blm_jax.data import lint
from configs import common
from data_builders.blm_cos_plus import blm_cos_plus_dataset_builder as cos_plus
from data_builders.common import labels, loading as data
from data_builders.blm_cos_plus import (generate, lexicon, realise, templates,
                                        validate)
from data_builders.common import splits
from data_builders.common.template import pattern, slot, token_diff

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIGS = [(v, d, lex) for v in generate.VARIANTS
           for d in templates.DIRECTIONS for lex in generate.LEXICALITIES]
SMALL = 150  # instances per config in the generation tests

# 002 Figure 9 in its own notation.
PAPER = {
    "T2I": (["Ag Verb Pa", "Ag rel Verb Pa", "Pa rel Ag Verb", "Pa rel Verb"],
            {"Grammar": "Ag Verb", "Correct": "Pa Verb",
             "Sequence": "Pa Verb Ag"}),
    "I2T": (["Pa Verb", "Pa rel Verb", "Pa rel Ag Verb", "Ag rel Verb Pa"],
            {"Sequence": "Ag Verb", "Correct": "Ag Verb Pa",
             "Grammar": "Pa Verb Ag"}),
}


def _paper(pat: str) -> str:
  out = []
  for tok in pat.split():
    head, _, val = tok.partition("-")
    word = {"NP": val, "OBJ": val, "V": "Verb", "REL": "rel",
            "PRED": ""}[head]
    if word:
      out.append(word)
  return " ".join(out)


@pytest.fixture(scope="module")
def generated():
  return {cfg: generate.generate(*cfg, num_instances=SMALL) for cfg in CONFIGS}


def test_sixteen_configs_registered_with_short_names():
  names = [c.name for c in cos_plus.Builder.BUILDER_CONFIGS]
  assert names[:16] == [generate.config_name(*cfg) for cfg in CONFIGS]
  assert names[16:] == [generate.ctx_config_name(v, lex)
                        for v in generate.VARIANTS
                        for lex in generate.LEXICALITIES]  # test_cos_plus_ctx
  assert names[0] == "en_T2I_MinLex"
  for key, template in common.DATASETS.items():
    if key.startswith("cos_plus_"):
      c = common.base("ffnn", key)
      assert c.data.train_types == ("MinLex", "MaxLex")
      for t in c.data.train_types:
        assert template.format(t).split("/")[1] in names


@pytest.mark.slow
@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: "_".join(c))
def test_shape_labels_patterns_rules_and_strict_lint(generated, cfg):
  variant, direction, lexicality = cfg
  xs = generated[cfg]
  assert len({x.id for x in xs}) == SMALL
  ctx_paper, ans_paper = PAPER[direction]
  for x in xs:
    assert (x.family, x.lexical_type) == ("cos_plus", lexicality)
    assert x.language == generate.language_of(variant)
    assert len(x.context) == 4 and sorted(x.labels) == sorted(
        labels.family_labels("cos_plus")[:3])
    assert x.labels[x.correct] == "Correct"
    assert [_paper(s.pattern) for s in x.context] == ctx_paper
    pats = {lab: s.pattern for lab, s in zip(x.labels, x.answers)}
    assert {lab: _paper(p) for lab, p in pats.items()} == ans_paper
    # Grammar changes only the arguments' roles; Sequence keeps the subject
    # and changes only the valency (the verb and the object slot).
    grammar = token_diff(pats["Correct"], pats["Grammar"])
    assert all(a.split("-")[0] == b.split("-")[0] for a, b in grammar)
    assert {t.split("-")[0] for a, b in grammar for t in (a + " " + b).split()
            } <= {"NP", "OBJ"}
    seq = token_diff(pats["Correct"], pats["Sequence"])
    assert pats["Sequence"].split()[0] == pats["Correct"].split()[0]
    assert {t.split("-")[0] for a, b in seq for t in (a + " " + b).split()
            } == {"V", "OBJ"}
  report = lint.lint(xs)
  assert report.ok(strict=True), report.format("_".join(cfg))
  positions = [x.correct for x in xs]
  assert set(positions) == {0, 1, 2}
  assert max(positions.count(i) for i in range(3)) < 0.5 * len(xs)


def _lemma_index(language):
  index = {}
  for v in lexicon.load(language).verbs:
    forms = {v.third, v.third_pl, v.participle, v.prefix + v.third}
    if language == "it":
      forms |= {v.participle[:-1] + e for e in "oaie"}
    for f in forms:
      assert index.setdefault(f, v.lemma) == v.lemma, (f, v.lemma)
  return index


@pytest.mark.slow
@pytest.mark.parametrize("language", lexicon.LANGUAGES)
def test_minlex_shares_everything_maxlex_varies_it(generated, language):
  index = _lemma_index(language)

  articles = {"the", "il", "lo", "la", "i", "gli", "le"}

  def verb(s):
    words = s.text[:-1].replace(",", "").split()
    # A word after an article is a noun (the toast), not the verb (toast).
    lemmas = {index[w] for prev, w in zip([""] + words, words)
              if w in index and prev.lower() not in articles}
    assert len(lemmas) == 1, s.text
    return lemmas.pop()

  variants = [v for v in generate.VARIANTS if v.startswith(language)]
  seen = set()
  for v in variants:
    for d in templates.DIRECTIONS:
      for x in generated[v, d, "MinLex"]:
        sents = x.context + x.answers
        assert len({verb(s) for s in sents}) == 1
        assert len({s.chunks[0].rstrip(",") for s in sents}) == 2  # Ag, Pa
        seen.add(verb(x.context[0]))
      for x in generated[v, d, "MaxLex"]:
        assert len({verb(s) for s in x.context}) == 4
        assert len({verb(s) for s in x.answers}) == 3
  assert len(seen) == len(lexicon.load(language).cos_verbs)  # 12-13


def _mat(language, verb, agent, patient, place="hier"):
  lex = lexicon.load(language)
  v = next(x for x in lex.verbs if x.lemma == verb)
  pats = {p.text: p for p in v.patients}
  ags = {a.text: a for a in lex.agents}
  return realise.Material(v, ags[agent], pats[patient], place)


def _say(pat, m, tense, language):
  return realise.realise(realise.parse(pat), m, tense, language).text


SAGR, OR, SPAR = templates.SAGR, templates.OR, templates.SPAR
TR, INTR = templates.TRANSITIVE, templates.INTRANSITIVE
REVERSED = pattern(slot("NP", arg="Pa"), slot("V", val="tr"),
                   slot("OBJ", arg="Ag"))


def test_morphology_on_known_forms():
  it = _mat("it", "sciogliere", "la cuoca", "la cioccolata", "in cucina")
  assert _say(INTR, it, "perf", "it") == "La cioccolata si è sciolta."
  assert _say(INTR, it, "pres", "it") == "La cioccolata si scioglie."
  assert _say(TR, it, "perf", "it") == (
      "La cuoca ha sciolto la cioccolata.")
  assert _say(OR, it, "perf", "it") == (
      "La cioccolata che la cuoca ha sciolto è in cucina.")
  eggs = _mat("it", "rassodare", "i cuochi", "le uova", "qui")
  assert _say(SPAR, eggs, "perf", "it") == (
      "Le uova che si sono rassodate sono qui.")
  assert _say(INTR, eggs, "pres", "it") == "Le uova si rassodano."
  assert _say(REVERSED, eggs, "pres", "it") == (
      "Le uova rassodano i cuochi.")

  de = _mat("de", "schmelzen", "Praktikant", "Käse")
  assert _say(TR, de, "pres", "de") == "Der Praktikant schmilzt den Käse."
  assert _say(INTR, de, "perf", "de") == "Der Käse ist geschmolzen."
  assert _say(TR, de, "perf", "de") == (
      "Der Praktikant hat den Käse geschmolzen.")
  assert _say(SAGR, de, "perf", "de") == (
      "Der Praktikant, der den Käse geschmolzen hat, ist hier.")
  assert _say(OR, de, "pres", "de") == (
      "Der Käse, den der Praktikant schmilzt, ist hier.")
  assert _say(SPAR, de, "perf", "de") == (
      "Der Käse, der geschmolzen ist, ist hier.")
  # 002's reverse-role transitive: the patient is the nominative subject.
  assert _say(REVERSED, de, "pres", "de") == (
      "Der Käse schmilzt den Praktikanten.")
  soup = _mat("de", "kochen", "Köchin", "Suppe")
  assert _say(INTR, soup, "perf", "de") == "Die Suppe hat gekocht."
  assert _say(OR, soup, "pres", "de") == (
      "Die Suppe, die die Köchin kocht, ist hier.")
  onions = _mat("de", "karamellisieren", "Kind", "Zwiebeln")
  assert _say(SPAR, onions, "perf", "de") == (
      "Die Zwiebeln, die karamellisiert sind, sind hier.")
  assert _say(SAGR, onions, "pres", "de") == (
      "Das Kind, das die Zwiebeln karamellisiert, ist hier.")

  en = _mat("en", "melt", "the cooks", "the butter", "in the kitchen")
  assert _say(TR, en, "perf", "en") == "The cooks have melted the butter."
  assert _say(SAGR, en, "pres", "en") == (
      "The cooks who melt the butter are in the kitchen.")
  assert _say(OR, en, "perf", "en") == (
      "The butter that the cooks have melted is in the kitchen.")
  assert _say(INTR, en, "pres", "en") == "The butter melts."


def _separable_verb():
  return lexicon.Verb("auftauen", "taut", "tauen", "aufgetaut", aux="sein",
                      prefix="auf")


def test_german_separable_verbs_split_in_main_clauses_only():
  fish = lexicon.NP("Fisch", "sg", "m")
  koch = lexicon.NP("Koch", "sg", "m")
  m = realise.Material(_separable_verb(), koch, fish, "hier")
  assert _say(TR, m, "pres", "de") == "Der Koch taut den Fisch auf."
  assert _say(INTR, m, "pres", "de") == "Der Fisch taut auf."
  assert _say(OR, m, "pres", "de") == (
      "Der Fisch, den der Koch auftaut, ist hier.")
  assert _say(SPAR, m, "perf", "de") == (
      "Der Fisch, der aufgetaut ist, ist hier.")
  for pat in (TR, INTR, OR, SPAR, SAGR):
    for tense in realise.TENSES:
      text = _say(pat, m, tense, "de")
      assert not validate.problems(text, realise.parse(pat), m, tense, "de")


@pytest.mark.parametrize("language,pat,tense,text,complaint", [
    ("it", INTR, "pres", "La cioccolata scioglie.", "si"),
    ("it", INTR, "perf", "La cioccolata si è sciolto.", "does not agree"),
    ("it", TR, "perf", "La cuoca ha sciolta la cioccolata.", "must not agree"),
    ("it", TR, "pres", "La cuoca si scioglie la cioccolata.",
     "si in a transitive"),
    ("en", SAGR, "pres", "The cooks that melt the butter are in the kitchen.",
     "relative pronoun"),
    ("en", TR, "pres", "The cooks melts the butter.", "does not agree"),
])
def test_validators_catch_broken_sentences(language, pat, tense, text,
                                           complaint):
  m = {"it": _mat("it", "sciogliere", "la cuoca", "la cioccolata"),
       "en": _mat("en", "melt", "the cooks", "the butter", "in the kitchen"),
       }[language]
  good = _say(pat, m, tense, language)
  assert not validate.problems(good, realise.parse(pat), m, tense, language)
  bad = validate.problems(text, realise.parse(pat), m, tense, language)
  assert any(complaint in b for b in bad), bad


@pytest.mark.parametrize("pat,tense,text,complaint", [
    (OR, "pres", "Der Käse, der der Koch schmilzt, ist hier.",
     "relative pronoun 'der', expected 'den'"),
    (OR, "perf", "Der Käse, den der Koch hat geschmolzen, ist hier.",
     "not verb-final"),
    (INTR, "perf", "Der Käse hat geschmolzen.", "verb-second"),
    (TR, "pres", "Der Koch schmilzt der Käse.", "not accusative"),
    # Weak noun: den Praktikanten, not den Praktikant.
    (REVERSED, "pres", "Der Käse schmilzt den Praktikant.",
     "object 'Praktikant' is not accusative"),
])
def test_german_validators(pat, tense, text, complaint):
  m = _mat("de", "schmelzen", "Praktikant", "Käse")
  if "Koch" in text:
    m = _mat("de", "schmelzen", "Koch", "Käse")
  bad = validate.problems(text, realise.parse(pat), m, tense, "de")
  assert any(complaint in b for b in bad), bad
  good = _say(pat, m, tense, "de")
  assert not validate.problems(good, realise.parse(pat), m, tense, "de")


@pytest.mark.slow
def test_de_case_marks_case_on_every_np_and_de_mix_does_not(generated):
  for d in templates.DIRECTIONS:
    for lex in generate.LEXICALITIES:
      case = generated["de_case", d, lex]
      arts = {w for x in case for s in x.context + x.answers
              for w in s.text.replace(",", "").split()
              if w.lower() in ("der", "den", "die", "das")}
      assert arts == {"Der", "der", "den"}, arts
      mix = generated["de_mix", d, lex]
      words = {w.lower() for x in mix for s in x.context for w in
               s.text.split()}
      assert {"die", "das", "der", "den"} <= words


@pytest.mark.slow
@pytest.mark.parametrize("lexicality", generate.LEXICALITIES)
def test_de_mix_i2t_grammar_answer_never_reads_as_the_correct_meaning(
    lexicality):
  """Full-size scan. `Pa Verb Ag` is a well-formed object-first sentence
  with the correct meaning ("Die Bratwurst hat die Konditorin gebraten")
  when both articles are ambiguous between nominative and accusative
  (die/das, not der/den) and both nouns have the same number (so the finite
  verb agrees with either); no Grammar answer may be one."""
  de = lexicon.load("de")
  genders: dict[str, set[str]] = {}
  for np_ in [*de.agents, *(p for v in de.verbs for p in v.patients)]:
    genders.setdefault(np_.text, set()).add(np_.gender or "pl")

  def number(article, noun):  # die Brötchen (pl) / das Brötchen (sg)
    return "sg" if article == "das" or "f" in genders[noun] else "pl"

  bad = []
  for x in generate.generate("de_mix", "I2T", lexicality):
    s = x.answers[x.labels.index("Grammar")]
    (art1, noun1), (art2, noun2) = (c.lower().split()[:1] + c.split()[1:]
                                    for c in (s.chunks[0], s.chunks[2]))
    if ({art1, art2} <= {"die", "das"}
        and number(art1, noun1) == number(art2, noun2)):
      bad.append(f"{x.id}: {s.text}")
  assert not bad, f"{len(bad)} of 2000, e.g. {bad[:3]}"


def test_full_config_splits_1600_400_without_leaks():
  xs = generate.generate("en", "T2I", "MinLex")
  assert len(xs) == 2000
  parts = splits.assign_splits(xs, 0, fractions=cos_plus.SPLIT_FRACTIONS)
  assert {k: len(v) for k, v in parts.items()} == {
      "train": 1280, "dev": 320, "test": 400}
  # MinLex: each (verb, agent, patient) once, so no triple in two splits.
  triples = [x.context[0].text for x in xs]
  assert len(set(triples)) == 2000
  seen = {}
  for name, items in parts.items():
    for x in items:
      key = "\n".join(s.text for s in x.context)
      assert seen.setdefault(key, name) == name


def _build(data_dir, config=None, name=None):
  if config is not None:
    b = cos_plus.Builder(config=config, data_dir=str(data_dir),
                         file_format="array_record")
  else:
    b = tfds.builder(f"blm_cos_plus/{name}", data_dir=str(data_dir),
                     file_format="array_record")
  b.download_and_prepare()
  return b


@pytest.mark.slow
def test_build_round_trip_and_byte_identical_rebuild(tmp_path):
  config = cos_plus.CosPlusConfig(name="de_mix_I2T_MaxLex_small",
                                  variant="de_mix", direction="I2T",
                                  lexicality="MaxLex", num_instances=250)
  builders = [_build(tmp_path / d, config=config) for d in "ab"]
  files = [sorted(pathlib.Path(b.data_dir).glob("*array_record*"))
           for b in builders]
  assert len(files[0]) == 3
  assert [p.read_bytes() for p in files[0]] == [
      p.read_bytes() for p in files[1]]
  name = "blm_cos_plus/de_mix_I2T_MaxLex_small"
  got = {s: data.load_instances(name, s, str(tmp_path / "a"))
         for s in ("train", "dev", "test")}
  assert {k: len(v) for k, v in got.items()} == {
      "train": 160, "dev": 40, "test": 50}
  want = {x.id: x for x in generate.generate("de_mix", "I2T", "MaxLex", 250)}
  for x in got["test"]:
    assert x == want[x.id]


BAD_ENTRIES = [
    ("it", "patients.tsv", "sciogliere\til burro\tms",
     "sciogliere\til burro\tfs", "field 'features'"),
    ("it", "verbs.tsv", "fondere\tfonde\tfondono\tfuso\tsi\tno",
     "fondere\tfonde\tfondono\tfuso\t-\tno", "field 'anticausative'"),
    ("it", "verbs.tsv", "fondere\tfonde\tfondono\tfuso\tsi\tno",
     "fondere\tfonde\tfondono\tfuso\tsi\tmaybe", "field 'role_error'"),
    ("en", "verbs.tsv", "melt\tmelts\tmelted\tmelted\tno",
     "melt\tmelts\tmelted\tmelted\treading", "field 'gloss'"),
    ("de", "verbs.tsv", "kochen\tkocht\tkochen\tgekocht\thaben\tod\t"
     "der Koch hat gekocht (ohne Objekt)", "kochen\tkocht\tkochen\tkocht"
     "\thaben\tod", "field 'participle'"),
    ("de", "patients.tsv", "kochen\tReis\tm", "kochen\tReis\tx",
     "field 'gender'"),
    ("en", "agents.tsv", "the chef\tsg", "my chef\tsg", "field 'agent'"),
    ("en", "patients.tsv", "melt\tthe butter\tsg", "mlt\tthe butter\tsg",
     "field 'verb'"),
]


@pytest.mark.parametrize("language,fname,old,new,field", BAD_ENTRIES,
                         ids=[f"{b[0]}-{b[4]}" for b in BAD_ENTRIES])
def test_bad_lexicon_entry_names_file_line_field(tmp_path, language, fname,
                                                 old, new, field):
  folder = tmp_path / language
  shutil.copytree(lexicon.LEXICON_DIR / language, folder)
  path = folder / fname
  lines = path.read_text("utf-8").splitlines()
  line = lines.index(old) + 1
  lines[line - 1] = new
  path.write_text("\n".join(lines) + "\n", "utf-8")
  with pytest.raises(lexicon.LexiconError) as e:
    lexicon.load(language, folder)
  assert f"{path}:{line}: {field}" in str(e.value)


@pytest.mark.slow
def test_bad_lexicon_fails_the_build_and_leaves_nothing(tmp_path,
                                                         monkeypatch):
  lex_dir = tmp_path / "lexicon"
  shutil.copytree(lexicon.LEXICON_DIR, lex_dir)
  bad = lex_dir / "de" / "agents.tsv"
  bad.write_text(bad.read_text("utf-8").replace("Koch\tm\n", "Koch\n"),
                 "utf-8")
  monkeypatch.setattr(lexicon, "LEXICON_DIR", lex_dir)
  data_dir = tmp_path / "data"
  with pytest.raises(lexicon.LexiconError, match=rf"{bad}:5: field "
                     "'gender' is missing"):
    _build(data_dir, name="de_case_T2I_MinLex")
  assert not list(data_dir.rglob("*array_record*"))
  assert not tfds.builder("blm_cos_plus/de_case_T2I_MinLex",
                          data_dir=str(data_dir),
                          file_format="array_record").is_prepared()


def test_lexicon_sizes_and_package_data_globs_cover_the_files():
  counts = {}
  for language in lexicon.LANGUAGES:
    lex = lexicon.load(language)
    counts[language] = (len(lex.verbs), len(lex.agents))
    assert all(len(v.patients) >= 6 for v in lex.verbs)
  assert counts == {"en": (25, 24), "it": (25, 24), "de": (25, 34)}
  case = generate.lexicon_for("de_case")
  assert all(len(v.patients) >= 4 for v in case.verbs)
  assert len(case.agents) == 24
  pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
  globs = pyproject["tool"]["setuptools"]["package-data"]["data_builders"]
  pkg = ROOT / "data_builders"
  covered = {pathlib.Path(p) for g in globs
             for p in glob.glob(str(pkg / g), recursive=True)}
  ours = [p for p in (pkg / "blm_cos_plus").rglob("*")
          if p.is_file() and p.suffix != ".py" and "__pycache__" not in p.parts]
  assert ours and all(p in covered for p in ours), [
      p for p in ours if p not in covered]


@pytest.mark.slow
def test_minlex_maxlex_feed_the_training_pipeline(generated):
  """The two lexicalities are the grid's types; labels use the inventory."""
  import numpy as np
  from blm_jax.data import input_pipeline

  parts = {}
  for lex in generate.LEXICALITIES:
    xs = generated["it", "I2T", lex]
    parts[lex, "train"], parts[lex, "dev"] = xs[:100], xs[100:120]
    parts[lex, "test"] = xs[120:]
  rng = np.random.default_rng(0)
  d = input_pipeline.from_parts(
      parts, lambda sents: rng.normal(size=(len(sents), 8)), name="cos_plus")
  assert set(d.train) == {"MinLex", "MaxLex"}
  assert (d.num_context, d.num_answers) == (4, 3)
  assert d.label_names == labels.family_labels("cos_plus")
