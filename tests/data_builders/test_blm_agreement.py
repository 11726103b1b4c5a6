"""The agreement BLM builder: template, answer set, agreement, lint, splits."""

import csv
import pathlib
import shutil

import pytest
import tensorflow_datasets as tfds

from blm_jax.data import lint
from data_builders.blm_agreement import blm_agreement_dataset_builder as bab
from data_builders.blm_agreement import generate
from data_builders.blm_agreement import lexicon
from data_builders.blm_agreement import templates
from data_builders.common import labels, loading as data
from data_builders.common.template import token_diff
from tests import builder_checks

LANGS = tuple(l for l in lexicon.LANGUAGES
              if (lexicon.LEXICON_DIR / l / "frames.tsv").exists())
CLAUSES = templates.CLAUSE_TYPES
PUBLISHED = (pathlib.Path(__file__).resolve().parents[2] / ".." / "shared"
             / "blm-published-samples" / "agreement_fr")


def _sample(lang, ltype, per_clause=24, **kw):
  return generate.generate(lang, CLAUSES, ltype, per_clause, 0, **kw)


@pytest.fixture(scope="module")
def samples():
  return {(lang, t): _sample(lang, t) for lang in LANGS
          for t in ("I", "II", "III")}


def test_config_names():
  assert len(bab.CONFIG_NAMES) == 48
  assert "fr_completive_type_II" in bab.CONFIG_NAMES
  agrf6 = {f"{lang}_agrf6_type_{t}" for lang in bab.AGRF6_LANGUAGES
           for t in ("I", "II", "III")}
  ctx = {f"{lang}_ctx_type_{t}" for lang in lexicon.LANGUAGES
         for t in ("I", "II", "III")} | {
             f"{lang}_agrf6_ctx_type_{t}" for lang in bab.AGRF6_LANGUAGES
             for t in ("I", "II", "III")}
  seq = {f"{lang}_{design}_type_{t}" for lang in lexicon.LANGUAGES
         for design in ("seq", "seq_rules") for t in ("I", "II", "III")}
  assert {c.name for c in bab.Builder.BUILDER_CONFIGS} == (
      set(bab.CONFIG_NAMES) | agrf6 | ctx | seq)


def test_figure_3_template():
  """000 Figure 3, verbatim (its 'PP1-sg PP1-sg' for WN1 read as PP1, PP2)."""
  ctx = [str(p) for p in templates.context_patterns("main", templates.FIGURE_3)]
  assert ctx == ["NP-sg PP1-sg VP-sg", "NP-pl PP1-sg VP-pl",
                 "NP-sg PP1-pl VP-sg", "NP-pl PP1-pl VP-pl",
                 "NP-sg PP1-sg PP2-sg VP-sg", "NP-pl PP1-sg PP2-sg VP-pl",
                 "NP-sg PP1-pl PP2-sg VP-sg"]
  ans = {k: str(v) for k, v in generate._answers("main", templates.FIGURE_3)
         and {lab: p for lab, p, _ in generate._answers(
             "main", templates.FIGURE_3)}.items()}
  assert ans == {
      "Corr": "NP-pl PP1-pl PP2-sg VP-pl",
      "Coord": "NP-pl PP1-pl Coord2-sg VP-pl",
      "WNA": "NP-pl PP1-pl VP-pl",
      "WN1": "NP-pl PP1-sg PP2-sg VP-pl",
      "WN2": "NP-pl PP1-pl PP2-pl VP-pl",
      "AEV": "NP-pl PP1-pl PP2-pl VP-sg",
      "AEN1": "NP-pl PP1-sg PP2-pl VP-sg",
      "AEN2": "NP-pl PP1-pl PP2-sg VP-sg"}


def _agreeing_nouns(p):
  verb = p["VP"]
  return {r for r in ("PP1", "PP2") if p.get(r) == verb}


@pytest.mark.slow
def test_each_wrong_answer_differs_exactly_in_its_label(samples):
  """Checked from the carried pattern strings, for every label."""
  seen = set()
  for insts in samples.values():
    for x in insts:
      corr_str = x.correct_answer.pattern
      corr = templates.parse_pattern(corr_str)
      s = corr["NP"]
      for lab, a in zip(x.labels, x.answers):
        seen.add(lab)
        p = templates.parse_pattern(a.pattern)
        diff = token_diff(corr_str, a.pattern)
        other = templates.other
        if lab == "Corr":
          assert diff == []
        elif lab == "Coord":
          assert diff == [(f"PP2-{corr['PP2']}", f"Coord2-{corr['PP2']}")]
        elif lab == "WNA":
          assert diff == [(f"PP2-{corr['PP2']}", "")]
        elif lab == "WN1":
          assert diff == [(f"PP1-{corr['PP1']}", f"PP1-{other(corr['PP1'])}")]
        elif lab == "WN2":
          assert diff == [(f"PP2-{corr['PP2']}", f"PP2-{other(corr['PP2'])}")]
        else:  # Agreement errors: wrong verb, lured by the named noun only.
          assert p["NP"] == s and p["VP"] == other(s), (lab, a.pattern)
          assert {r for r in p if p[r] != corr.get(r)} <= {"PP1", "PP2", "VP"}
          assert _agreeing_nouns(p) == {
              "AEV": set(), "AEN1": {"PP1"}, "AEN2": {"PP2"}}[lab], a.pattern
  assert seen == set(labels.family_labels("agreement"))


@pytest.mark.slow
def test_subject_verb_agreement_in_context_and_correct_answer(samples):
  """Patterns say NP and VP agree, and the VP chunk is that number's form."""
  for (lang, _), insts in samples.items():
    lex = lexicon.load(lang)
    forms = {"sg": {v.sg for v in lex.verbs.values()},
             "pl": {v.pl for v in lex.verbs.values()}}
    for x in insts:
      for s in x.context + (x.correct_answer,):
        p = templates.parse_pattern(s.pattern)
        assert p["NP"] == p["VP"], s
        vp_chunk = s.chunks[-2]
        assert vp_chunk in forms[p["VP"]], s
        assert vp_chunk not in forms[templates.other(p["VP"])], s
      for s, lab in zip(x.answers, x.labels):  # And the errors really err.
        p = templates.parse_pattern(s.pattern)
        assert (p["NP"] != p["VP"]) == lab.startswith("AE"), (lab, s)


@pytest.mark.slow
def test_context_progressions(samples):
  for insts in samples.values():
    for x in insts:
      ps = [templates.parse_pattern(s.pattern) for s in x.context]
      assert [p["NP"] == ps[0]["NP"] for p in ps] == [
          True, False, True, False, True, False, True]
      assert [p["PP1"] == ps[0]["PP1"] for p in ps] == [
          True, True, False, False, True, True, False]
      assert ["PP2" in p for p in ps] == [False] * 4 + [True] * 3


@pytest.mark.slow
def test_lint_strict_and_copy_cue(samples):
  for (lang, t), insts in samples.items():
    report = lint.lint(insts)
    assert not report.errors, report.format(f"{lang} type {t}")
    if t == "I":
      # The paper's template: WN1 = sentence 6 and WNA = sentence 4.
      assert report.counts["copy_cue"] == len(insts)
      nocue = lint.lint(_sample(lang, "I", keep_copy_cue=False))
      assert nocue.ok(strict=True), nocue.format(f"{lang} type I, no cue")
    else:
      assert report.ok(strict=True), report.format(f"{lang} type {t}")


@pytest.mark.slow
def test_lexical_types(samples):
  for lang in LANGS:
    for x in samples[(lang, "I")]:
      words = {frozenset(s.text.split()) for s in x.context}
      assert len(words) > 1
    for x in samples[(lang, "III")]:
      subjects = {_subject_chunk(s).lower() for s in x.context}
      assert len(subjects) > 1  # Sentences from several instances.


def _subject_chunk(s):
  return s.chunks[1 if s.pattern.startswith("Prefix") else 0]


@pytest.mark.slow
@pytest.mark.skipif(not PUBLISHED.exists(),
                    reason=f"published samples not found at {PUBLISHED}")
def test_french_type_i_matches_published_label_inventory(samples):
  mapping = labels.PUBLISHED_LABELS["agreement"]
  with open(PUBLISHED / "type_I" / "all.tsv", encoding="utf-8") as f:
    rows = list(csv.DictReader(f, delimiter="\t"))
  published = {mapping[r[f"Answer_label_{i}"]] for r in rows
               for i in range(1, 9)}
  ours = samples[("fr", "I")]
  assert {lab for x in ours for lab in x.labels} == published
  for x in ours:
    assert len({s.text for s in x.answers}) == len(x.answers)


class SmallAgreement(bab.Builder):
  """The real builder with small configs, for split and rebuild tests."""

  name = "small_agreement"
  BUILDER_CONFIGS = [
      bab.AgreementConfig.from_name("en_mixed_type_I", per_clause=60),
      bab.AgreementConfig.from_name("fr_mixed_type_III", per_clause=200)]


@pytest.mark.slow
@pytest.mark.parametrize("config", ["en_mixed_type_I", "fr_mixed_type_III"])
def test_splits_leak_free_and_rebuild_byte_identical(tmp_path, config):
  builder_checks.build_twice_identical(SmallAgreement, config, tmp_path)
  sents = {}
  for split in ("train", "dev", "test"):
    insts = data.load_instances(f"small_agreement/{config}", split,
                                str(tmp_path / "a"))
    assert insts
    sents[split] = {s.text for x in insts for s in x.context + x.answers}
  assert not (sents["train"] & sents["dev"] or sents["train"] & sents["test"]
              or sents["dev"] & sents["test"])


def test_unknown_language_or_clause_in_config():
  with pytest.raises(ValueError, match="config 'de_main_type_I': unknown "
                     "language 'de'"):
    bab.AgreementConfig.from_name("de_main_type_I")
  with pytest.raises(ValueError, match="config 'en_passive_type_I': unknown "
                     "clause type 'passive'"):
    bab.AgreementConfig.from_name("en_passive_type_I")
  with pytest.raises(ValueError, match="unknown clause type 'passive'"):
    generate.generate("en", ("passive",), "I", 5, 0)


def _copy_lexicon(tmp_path, lang="en"):
  root = tmp_path / "lex"
  shutil.copytree(lexicon.LEXICON_DIR / lang, root / lang)
  return root


def test_entry_without_plural_names_file_and_entry(tmp_path):
  root = _copy_lexicon(tmp_path)
  path = root / "en" / "nouns.tsv"
  text = path.read_text(encoding="utf-8").replace("child\tchildren\n",
                                                  "child\t\n")
  path.write_text(text, encoding="utf-8")
  with pytest.raises(lexicon.LexiconError,
                     match=r"en/nouns.tsv line \d+, entry 'child': missing its "
                     "plural"):
    lexicon.load("en", root)


def test_seed_whose_chunks_do_not_make_its_sentence(tmp_path):
  root = _copy_lexicon(tmp_path)
  path = root / "en" / "frames.tsv"
  text = path.read_text(encoding="utf-8").replace(
      "The dog behind the fence of the garden barks every night.",
      "The dog behind the fences of the garden barks every night.")
  path.write_text(text, encoding="utf-8")
  with pytest.raises(lexicon.LexiconError,
                     match=r"en/frames.tsv line \d+, seed 'dog': chunks .* do "
                     "not concatenate to its sentence"):
    lexicon.load("en", root)


def test_unknown_word_in_frame(tmp_path):
  root = _copy_lexicon(tmp_path)
  path = root / "en" / "frames.tsv"
  path.write_text(path.read_text(encoding="utf-8").replace(
      "dog;puppy", "dog;kitten"), encoding="utf-8")
  with pytest.raises(lexicon.LexiconError,
                     match=r"seed 'dog': n option 'kitten' is not in .*nouns"):
    lexicon.load("en", root)


def test_frames_sharing_a_subject_and_attractor_are_rejected(tmp_path):
  """Splits group by frame, so two frames must never make the same sentence."""
  root = _copy_lexicon(tmp_path)
  path = root / "en" / "frames.tsv"
  path.write_text(path.read_text(encoding="utf-8").replace(
      "bird;parrot\tin\tcage;tree", "bird;horse\tin\tcage;field"),
      encoding="utf-8")
  with pytest.raises(lexicon.LexiconError,
                     match=r"frames.tsv line \d+, seed 'horse': subject "
                     "'horse', 'in' and N1 'field' are also a choice of seed "
                     "'bird'"):
    lexicon.load("en", root)
