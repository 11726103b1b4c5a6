"""BLM-AgrF's 6-candidate answer set (001 Figure 3, 003 Figure 2) as
blm_agreement configs: the answer set, its rules, 001 Table 1 sizes and
split fractions, strict lint apart from the template's copy cue."""

import pathlib

import pytest

from blm_jax.data import lint
from data_builders.blm_agreement import blm_agreement_dataset_builder as bab
from data_builders.blm_agreement import generate
from data_builders.blm_agreement import templates
from data_builders.common import labels, loading as data
from data_builders.common.template import answer_patterns, token_diff

# 003 Figure 2 for the Figure 3 variant (NP sg, N1 sg, N2 sg in sentence 1):
# the correct answer and, per label, what differs from it (the figure draws
# Coord, WNA and AE from the subject's other number; each rule here applies
# to the correct pattern, see templates.ANSWERS_AGRF).
CORRECT = "NP-pl PP1-pl PP2-sg VP-pl"
EXPECTED = {
    "Corr": CORRECT,
    "Coord": "NP-pl PP1-pl Coord2-sg VP-pl",
    "WNA": "NP-pl PP1-pl VP-pl",
    "WN1": "NP-pl PP1-sg PP2-sg VP-pl",
    "WN2": "NP-pl PP1-pl PP2-pl VP-pl",
    "AE": "NP-pl PP1-pl PP2-pl VP-sg",  # The verb agrees with no noun.
}


def test_answer_set_of_figure_3_variant():
  got = answer_patterns(templates.correct_pattern("main", templates.FIGURE_3),
                        templates.ANSWERS_AGRF, templates.RULES)
  assert {k: str(p) for k, p in got.items()} == EXPECTED
  assert tuple(got) == labels.family_labels("agreement6")
  # AE: the verb's number flips, no noun keeps the verb's number.
  assert token_diff(CORRECT, EXPECTED["AE"]) == [("PP2-sg VP-pl",
                                                  "PP2-pl VP-sg")]


def test_configs_sizes_and_fractions():
  names = {c.name: c for c in bab.Builder.BUILDER_CONFIGS}
  for lang in ("fr", "it"):
    for t in ("I", "II", "III"):
      c = names[f"{lang}_agrf6_type_{t}"]
      assert (c.answer_set, c.clause, c.language) == ("agrf6", "mixed", lang)
  i, iii = names["fr_agrf6_type_I"], names["fr_agrf6_type_III"]
  # 001 Table 1: type I 2073/3840, type III 34650/3840 (train/test).
  assert 3 * iii.size_per_clause() == pytest.approx(34650 + 3840, abs=3)
  assert iii.fractions["test"] == pytest.approx(0.12)
  assert sum(iii.fractions.values()) == pytest.approx(1.0)
  assert 3 * i.size_per_clause() == pytest.approx(2073 + 3840, abs=3)
  assert i.fractions["test"] == pytest.approx(3840 / (2073 + 3840), abs=0.01)
  with pytest.raises(ValueError, match="unknown answer set 'agrf7'"):
    bab.AgreementConfig(name="x", language="fr", clause="mixed",
                        lexical_type="I", answer_set="agrf7").validate()


@pytest.mark.parametrize("ltype", ["I", "II", "III"])
def test_six_candidates_are_the_eight_set_relabelled(ltype):
  full = generate.generate("it", templates.CLAUSE_TYPES, ltype, 30, 0)
  six = generate.generate("it", templates.CLAUSE_TYPES, ltype, 30, 0,
                          answer_set="agrf6")
  assert [x.id for x in full] == [x.id for x in six]
  same_position = 0
  for a, b in zip(full, six):
    assert b.family == "agreement6" and len(b.answers) == 6
    assert a.context == b.context
    by8, by6 = dict(zip(a.labels, a.answers)), dict(zip(b.labels, b.answers))
    assert by6 == {k: by8["AEV" if k == "AE" else k] for k in by6}
    assert b.labels[b.correct] == "Corr"
    same_position += a.correct == b.correct
  assert same_position < len(six)  # Shuffled again, not the 8-set's order.
  report = lint.lint(six)
  assert report.ok(strict=False)
  # Type I keeps the paper's template: WN1 and WNA repeat context sentences.
  assert bool(report.warnings) == (ltype == "I")


class SmallAgrf6(bab.Builder):
  name = "small_agreement6"
  BUILDER_CONFIGS = [bab.AgreementConfig(
      name="fr_agrf6_type_I", language="fr", clause="mixed",
      lexical_type="I", answer_set="agrf6", per_clause=200,
      split_fractions=bab.agrf6_fractions("fr", "I"))]


@pytest.mark.slow
def test_built_split_fractions_and_no_leak(tmp_path):
  b = SmallAgrf6(config="fr_agrf6_type_I", data_dir=str(tmp_path),
                 file_format="array_record")
  b.download_and_prepare()
  parts = {s: data.load_instances("small_agreement6/fr_agrf6_type_I", s,
                                  str(tmp_path))
           for s in ("train", "dev", "test")}
  n = sum(map(len, parts.values()))
  assert n == 600
  assert 0.5 < len(parts["test"]) / n < 0.8  # 65% of the groups.
  sents = {k: {s.text for x in v for s in x.context + x.answers}
           for k, v in parts.items()}
  assert not (sents["train"] & sents["test"] or sents["dev"] & sents["test"]
              or sents["train"] & sents["dev"])
  assert all(x.family == "agreement6" for v in parts.values() for x in v)
