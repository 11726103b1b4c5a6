"""The spray/load v0 builder (003 sec. 4.2): the Figure 7 and 11 patterns,
one named rule per wrong answer, words read back from the blm_spray_load
lexicon, lexical types, strict lint, splits and lexicon errors."""

import json
import pathlib
import shutil

import pytest

from blm_jax.data import lint
from data_builders.blm_spray_load import lexicon
from data_builders.common import labels, loading as data
from data_builders.blm_spray_load_v0 import (
    blm_spray_load_v0_dataset_builder as bv0)
from data_builders.blm_spray_load_v0 import generate, templates
from data_builders.common.template import token_diff

# 003 Figures 7 and 11, transcribed (suffixes: -Pwrong a wrong preposition,
# -Padv "because of", -Ploc the verb's locative preposition on the theme).
FIGURE_CONTEXT = {
    "Template1": ["NP-Agent Verb NP-Theme PP-Loc", "NP-Theme VerbPass PP-Loc",
                  "NP-Agent Verb NP-Loc PP-Theme", "NP-Loc VerbPass PP-Theme",
                  "NP-Agent Verb NP-Theme", "NP-Agent Verb PP-Theme",
                  "NP-Agent Verb NP-Loc"],
    "Template2": ["NP-Agent Verb NP-Theme", "NP-Agent Verb PP-Theme",
                  "NP-Agent Verb NP-Loc", "NP-Agent Verb PP-Loc",
                  "NP-Agent Verb NP-Theme PP-Loc", "NP-Theme VerbPass PP-Loc",
                  "NP-Agent Verb NP-Loc PP-Theme"],
}
FIGURE_ANSWERS = {
    "Template1": {
        "CORRECT": "NP-Agent Verb PP-Loc",
        "WPrep": "NP-Agent Verb PP-Loc-Pwrong",
        "WPP": "NP-Agent Verb NP-Theme PP-Emb PP-Loc",
        "Adv": "NP-Agent Verb NP-Loc PP-Theme-Padv",
        "WT": "NP-Agent Verb NP-Loc PP-Theme-Pwrong",
        "WS": "NP-Loc Verb PP-Loc",
    },
    "Template2": {
        "CORRECT": "NP-Loc VerbPass PP-Theme",
        "SLA": "NP-Loc Verb NP-Agent PP-Theme",
        "WP": "NP-Loc VerbPass PP-Theme-Ploc",
        "Repeat": "NP-Loc VerbPass PP-Loc",
        "NoAgent": "NP-Theme Verb PP-Loc",
        "STA": "NP-Theme Verb NP-Agent PP-Loc",
    },
}
# label -> the token diff from CORRECT its one rule makes.
RULE_DIFFS = {
    "WPrep": [("PP-Loc", "PP-Loc-Pwrong")],
    "WPP": [("", "NP-Theme PP-Emb")],
    "Adv": [("PP-Loc", "NP-Loc PP-Theme-Padv")],
    "WT": [("PP-Loc", "NP-Loc PP-Theme-Pwrong")],
    "WS": [("NP-Agent", "NP-Loc")],
    "SLA": [("VerbPass", "Verb NP-Agent")],
    "WP": [("PP-Theme", "PP-Theme-Ploc")],
    "Repeat": [("PP-Theme", "PP-Loc")],
    "NoAgent": [("NP-Loc VerbPass PP-Theme", "NP-Theme Verb PP-Loc")],
    "STA": [("NP-Loc VerbPass PP-Theme", "NP-Theme Verb NP-Agent PP-Loc")],
}
SIZES = {"I": 3750, "III": 1500}  # Type III: the first 1500 of 15,000.


@pytest.fixture(scope="module")
def lex():
  return lexicon.load_lexicon()


@pytest.fixture(scope="module")
def samples(lex):
  return {(t, x): generate.generate(t, x, lex, size=SIZES[x])
          for t in templates.TEMPLATES for x in ("I", "III")}


def test_config_names_and_labels():
  assert [c.name for c in bv0.Builder.BUILDER_CONFIGS] == [
      f"Template{t}_type_{x}" for t in (1, 2) for x in ("I", "II", "III")] + [
          f"{ctx}_type_{x}" for ctx in ("ctx", "ctx_t2")
          for x in ("I", "II", "III")]
  inventory = labels.family_labels("spray_load_v0")
  for t in templates.TEMPLATES:
    assert set(FIGURE_ANSWERS[t]) <= set(inventory)


@pytest.mark.parametrize("template", list(templates.TEMPLATES))
def test_patterns_are_the_figures_and_each_label_one_rule(template):
  ctx, answers = templates.template_patterns(template)
  assert [str(p) for p in ctx] == FIGURE_CONTEXT[template]
  got = {k: str(p) for k, p in answers.items()}
  assert got == FIGURE_ANSWERS[template]
  for label, pat in got.items():
    if label != "CORRECT":
      assert token_diff(got["CORRECT"], pat) == RULE_DIFFS[label], label


@pytest.mark.slow
@pytest.mark.parametrize("template", list(templates.TEMPLATES))
@pytest.mark.parametrize("ltype", ["I", "III"])
def test_instances_sizes_lint_and_patterns(samples, template, ltype):
  xs = samples[template, ltype]
  assert len(xs) == SIZES[ltype] and len({x.id for x in xs}) == len(xs)
  for x in xs[:300]:
    assert [s.pattern for s in x.context] == FIGURE_CONTEXT[template]
    assert dict(zip(x.labels, (s.pattern for s in x.answers))) == (
        FIGURE_ANSWERS[template])
    assert x.labels[x.correct] == "CORRECT" and x.subset == template
  assert lint.lint(xs).ok(strict=True)
  positions = [x.correct for x in xs]
  assert max(positions.count(i) for i in range(6)) < 0.25 * len(xs)


@pytest.mark.slow
def test_words_come_from_the_verb_entry(samples, lex):
  """Type I: every sentence is one verb's words; each wrong answer uses the
  material its rule names."""
  for x in samples["Template1", "I"][::97]:
    verb = x.id.split("-")[2]
    e = lex[verb]
    by = dict(zip(x.labels, (s.text for s in x.answers)))
    texts = [s.text for s in x.context]
    loc_pp = [p for p in e.prepositions if f" {p} " in texts[0]]
    assert loc_pp, texts[0]
    assert any(f" {w} " in by["WPrep"] for w in e.wrong_prepositions)
    assert not any(f" {p} " in by["WPrep"] for p in e.prepositions)
    assert any(m in by["WPP"] for m in e.modifiers["Theme"])
    assert " because of " in by["Adv"]
    assert any(f" {w} " in by["WT"] for w in e.wrong_prepositions)
    # WS: the location is the subject and the PP object.
    assert [np.text for np in e.args["Loc"]
            if by["WS"].lower().count(np.text.lower()) == 2]
  for x in samples["Template2", "I"][::97]:
    by = dict(zip(x.labels, (s.text for s in x.answers)))
    assert " with " in by["CORRECT"] and " with " not in by["WP"]
    assert " with " not in by["Repeat"]


@pytest.mark.slow
def test_type_iii_varies_verbs(samples, lex):
  verbs = set(lex.verbs)
  per_instance = []
  for x in samples["Template1", "III"][:200]:
    words = {w.strip(".,").lower() for s in x.context for w in s.text.split()}
    forms = {v for e in lex.entries for v in (e.verb, e.forms.past,
                                              e.forms.third_singular,
                                              e.forms.participle)
             if v in words}
    per_instance.append(len(forms))
  assert sum(per_instance) / len(per_instance) > 3
  assert len(verbs) == 30


class SmallV0(bv0.Builder):
  name = "small_spray_load_v0"


@pytest.mark.slow
def test_splits_leak_free_and_rebuild_byte_identical(tmp_path):
  digests = []
  for d in ("a", "b"):
    b = SmallV0(config="Template2_type_I", data_dir=str(tmp_path / d),
                file_format="array_record")
    b.download_and_prepare()
    files = sorted(pathlib.Path(b.data_dir).glob("*array_record*"))
    digests.append([p.read_bytes() for p in files])
  assert digests[0] == digests[1] and digests[0]
  ctx = {}
  for split in ("train", "dev", "test"):
    insts = data.load_instances("small_spray_load_v0/Template2_type_I", split,
                                str(tmp_path / "a"))
    ctx[split] = {tuple(s.text for s in x.context) for x in insts}
  assert ctx["train"] and ctx["dev"] and ctx["test"]
  assert not (ctx["train"] & ctx["dev"] or ctx["train"] & ctx["test"])


def test_bad_lexicon_entry_names_file_and_entry(tmp_path):
  folder = tmp_path / "lex"
  shutil.copytree(lexicon.LEXICON_DIR, folder)
  path = folder / "spray.json"
  raw = json.loads(path.read_text())
  raw["themes"][1] = ["water", "many"]
  path.write_text(json.dumps(raw))
  with pytest.raises(lexicon.LexiconError, match=(
      f"{path}: entry 'spray': themes\\[1\\]: number 'many' is not one of")):
    generate.generate("Template1", "I", lexicon.load_lexicon(folder))
