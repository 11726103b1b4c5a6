"""The Italian sequence-of-tense builder: the context's progression (rule
iv) decides sentence 8, every candidate is grammatical and canonical (rules
i-iii), each wrong answer breaks the one clause of (iv) it names, the answers
alone do not solve it, morphology read back from the text, lexical types,
strict lint, splits, rebuilds and lexicon errors."""

import collections
import re

import pytest

from blm_jax.data import lint
from blm_jax.data.context_free import answers_only
from data_builders.common import labels
from data_builders.blm_sequence_of_tense import (
    blm_sequence_of_tense_dataset_builder as bsot)
from data_builders.blm_sequence_of_tense import (generate, italian, lexicon,
                                                 templates)
from data_builders.common.template import token_diff
from tests.builder_checks import (assert_disjoint, build_twice_identical,
                                  copy_lexicon, edit, line_of, split_items)

# Written out independently of italian.py: essere by tense, 1sg..3pl.
ESSERE = {
    "CPas": "fossi fossi fosse fossimo foste fossero",
    "CnPr": "sarei saresti sarebbe saremmo sareste sarebbero",
    "IFut": "sarò sarai sarà saremo sarete saranno",
}
AUX = {"CTrPas": "CPas", "CnPas": "CnPr", "IFutAnt": "IFut"}
PN = ("1sg", "2sg", "3sg", "1pl", "2pl", "3pl")
# The cycle of rule (iv), as (reality, anteriority).
CYCLE = [("IFut", "IFut"), ("IFutAnt", "IFut"), ("CPas", "CnPr"),
         ("CTrPas", "CnPas")]
REALITY = {p: i // 2 for i, p in enumerate(CYCLE)}
ANTERIOR = {p: i % 2 for i, p in enumerate(CYCLE)}


@pytest.fixture(scope="module")
def lex():
  return lexicon.load()


@pytest.fixture(scope="module")
def samples(lex):
  return {t: generate.generate(t, lex, size=400) for t in ("I", "II", "III")}


def _feats(pattern: str) -> dict[str, list[str]]:
  return {tok.split("-")[0]: tok.split("-")[1:] for tok in pattern.split()}


def cell(pattern: str):
  """(pair, person, number, gender) of a grammatical hypothetical; asserts
  rules (i)-(iii): a canonical pair, one subject in both clauses."""
  f = _feats(pattern)
  pair = (f["Prem"][0], f["Cons"][0])
  assert pair in CYCLE, pattern                                   # (i), (ii)
  assert f["Prem"][1] == f["Cons"][1], pattern                    # (iii)
  assert f["PremA"] == f["ConsA"], pattern
  assert f["Prem"][1][1:] == f["PremA"][1], pattern
  return pair, f["Prem"][1][0], f["PremA"][1], f["PremA"][0]


def _verb_group(tense, pn, gender, number):
  finite = ESSERE[AUX.get(tense, tense)].split()[PN.index(pn)]
  if tense in AUX:
    part = {"m": {"sg": "stato", "pl": "stati"},
            "f": {"sg": "stata", "pl": "state"}}[gender][number]
    return f"{finite} {part}"
  return finite


def _adjective_forms(lex):
  return {a.form(g, n): (a, g, n) for a in lex.premise + lex.consequent
          for g in ("m", "f") for n in ("sg", "pl")}


def read_back(s, lex):
  """Parses 'Se V A, allora V A.' and checks it against the pattern."""
  f = _feats(s.pattern)
  m = re.fullmatch(r"Se (.+) (\w+), allora (.+) (\w+)\.", s.text)
  assert m, s.text
  forms = _adjective_forms(lex)
  for (verb, adj), (vg, a) in zip((("Prem", "PremA"), ("Cons", "ConsA")),
                                  ((m[1], m[2]), (m[3], m[4]))):
    tense, pn = f[verb]
    gender, number = f[adj]
    assert vg == _verb_group(tense, pn, gender, number), (s.text, verb)
    assert forms[a][1:] == (gender, number), (s.text, a)
  assert forms[m[2]][0] in lex.premise and forms[m[4]][0] in lex.consequent
  assert s.chunks == (f"Se {m[1]} {m[2]},", f"allora {m[3]} {m[4]}", ".")


def test_config_names_and_labels():
  assert [c.name for c in bsot.Builder.BUILDER_CONFIGS
          if not c.context_necessary] == ["type_I", "type_II", "type_III"]
  assert templates.LABELS == labels.family_labels("sequence_of_tense")


@pytest.mark.slow
@pytest.mark.parametrize("ltype", ["I", "II", "III"])
def test_sizes_labels_lint_and_positions(samples, ltype):
  xs = samples[ltype]
  assert len(xs) == 400
  assert len({x.id for x in xs}) == len(xs)
  for x in xs:
    assert len(x.context) == 7 and len(x.answers) == 6
    assert sorted(x.labels) == sorted(labels.family_labels(
        "sequence_of_tense"))
    assert x.labels[x.correct] == "CORRECT"
  report = lint.lint(xs, answers_only=True)
  assert report.ok(strict=True), report.format()
  positions = [x.correct for x in xs]
  assert set(positions) == set(range(6))
  assert max(positions.count(i) for i in range(6)) < 0.25 * len(xs)


def predict_from_context(x):
  """Sentence 8's cell, from the context by rule (iv) alone."""
  cells = [cell(s.pattern) for s in x.context]
  pairs = [c[0] for c in cells]
  for i in range(6):
    assert pairs[i] == pairs[i // 2 * 2]                     # two each
  for i in range(2, 7, 2):                                   # the cycle
    assert CYCLE.index(pairs[i]) == (CYCLE.index(pairs[i - 2]) + 1) % 4
  numbers = [c[2] for c in cells]
  assert all(a != b for a, b in zip(numbers, numbers[1:]))   # alternation
  assert len({c[1] for c in cells}) == len({c[3] for c in cells}) == 1
  _, person, number, gender = cells[6]
  return pairs[6], person, "pl" if number == "sg" else "sg", gender


@pytest.mark.slow
@pytest.mark.parametrize("ltype", ["I", "II", "III"])
def test_context_decides_and_each_label_breaks_its_rule(samples, lex, ltype):
  answer_cells = collections.Counter()
  for x in samples[ltype]:
    by = {lab: s for lab, s in zip(x.labels, x.answers)}
    want = predict_from_context(x)
    got = {lab: cell(s.pattern) for lab, s in by.items()}   # all grammatical
    assert got["CORRECT"] == want
    answer_cells[want] += 1
    pair, person, number, gender = want
    assert got["WNUM"] == (pair, person, x.context[6].pattern.split()[1]
                           .split("-")[2], gender)
    for label, bit in (("WANT", 1), ("WREAL", 2)):
      assert got[label] == (CYCLE[CYCLE.index(pair) ^ bit], person, number,
                            gender), label
    assert got["WPER"][0] == pair and got["WPER"][2:] == (number, gender)
    assert got["WPER"][1] != person
    assert got["WGEN"] == (pair, person, number,
                           "f" if gender == "m" else "m")
    # Pattern differences: exactly the slots the label names.
    correct = by["CORRECT"].pattern
    changed = {lab: {a.split("-")[0] for a, _ in token_diff(
        correct, by[lab].pattern) for a in a.split()}
        for lab in by if lab != "CORRECT"}
    assert changed["WGEN"] == {"PremA", "ConsA"}
    assert changed["WPER"] == {"Prem", "Cons"}
    assert changed["WNUM"] == {"Prem", "PremA", "Cons", "ConsA"}
    assert changed["WREAL"] == {"Prem", "Cons"}
    assert changed["WANT"] <= {"Prem", "Cons"} and "Prem" in changed["WANT"]
    for s in x.context + x.answers:
      read_back(s, lex)
  # Sentence 8 is any of the 4 pairs x 2 numbers x 3 persons x 2 genders.
  assert len(answer_cells) == 48
  assert max(answer_cells.values()) < 4 * len(samples[ltype]) / 48


@pytest.mark.slow
@pytest.mark.parametrize("ltype", ["I", "II", "III"])
def test_the_answers_alone_do_not_solve_it(samples, ltype):
  cue = answers_only.score(samples[ltype])
  assert not cue.cue, str(cue)
  assert abs(cue.logit - 1 / 6) < 0.08, str(cue)


def test_a_fixed_progression_is_solved_from_the_answers(lex, monkeypatch):
  """Version 1.0.0's flaw (one fixed sentence 8), which the check catches."""
  fixed = templates.Progression(0, "sg", "2", "f", "1")
  monkeypatch.setattr(generate, "draw_progression", lambda rng: fixed)
  cue = answers_only.score(generate.generate("II", lex, size=200))
  assert cue.cue and cue.logit > 0.9, str(cue)


@pytest.mark.slow
def test_lexical_types(samples, lex):
  forms = _adjective_forms(lex)

  def words(s):
    """The lemmas of the sentence's premise and consequent adjectives."""
    m = re.fullmatch(r"Se .+ (\w+), allora .+ (\w+)\.", s.text)
    return forms[m[1]][0].ms, forms[m[2]][0].ms

  for x in samples["I"]:
    ctx, ans = {words(s) for s in x.context}, {words(s) for s in x.answers}
    assert len(ctx) == len(ans) == 1
    (cp, cc), (ap, ac) = ctx.pop(), ans.pop()
    assert cp == ap and cc != ac
  varied = [len({words(s) for s in x.context}) for x in samples["II"]]
  assert sum(varied) / len(varied) > 5
  for x in samples["II"]:
    assert len({words(s) for s in x.answers}) == 1
    assert not {words(s) for s in x.answers} & {words(s) for s in x.context}
  per_candidate = [len({words(s) for s in x.answers}) for x in samples["III"]]
  assert sum(per_candidate) / len(per_candidate) > 5


def test_italian_morphology_spot_checks():
  assert italian.copula("CTrPas", "2pl", "f", "pl") == "foste state"
  assert italian.copula("CnPas", "3sg", "m", "sg") == "sarebbe stato"
  assert italian.copula("IFut", "1sg", "m", "sg") == "sarò"
  with pytest.raises(KeyError, match="unknown tense 'CPres'"):
    italian.copula("CPres", "1sg", "m", "sg")


class SmallSoT(bsot.Builder):
  name = "small_sequence_of_tense"

  def generate(self, config):
    return generate.generate(config.lexical_type, lexicon.load(), size=600)


@pytest.mark.slow
def test_splits_leak_free_and_rebuild_byte_identical(tmp_path):
  data_dir = build_twice_identical(SmallSoT, "type_I", tmp_path)
  assert_disjoint(split_items(
      "small_sequence_of_tense/type_I", data_dir,
      lambda x: {s.text for s in x.context + x.answers}))


def test_bad_adjective_forms_name_file_line_and_entry(tmp_path):
  path = copy_lexicon(lexicon.LEXICON_DIR, tmp_path) / "adjectives.tsv"
  line = line_of(path, "bravo\t")
  edit(path, "bravo\tbrava\tbravi\tbrave", "bravo\tbrava\tbravi\tbravo")
  with pytest.raises(lexicon.LexiconError, match=re.escape(
      f"{path}:{line}: entry 'bravo': feminine plural 'bravo' is not one of "
      "['brave']")):
    lexicon.load(path.parent)


def test_two_form_adjective_and_unknown_role_are_rejected(tmp_path):
  path = copy_lexicon(lexicon.LEXICON_DIR, tmp_path) / "adjectives.tsv"
  line = line_of(path, "ricco\t")
  edit(path, "ricco\tricca\tricchi\tricche\tconsequent",
                "felice\tfelice\tfelici\tfelici\tconsequent")
  with pytest.raises(lexicon.LexiconError, match=re.escape(
      f"{path}:{line}: entry 'felice': masculine singular 'felice' does not "
      "end in -o")):
    lexicon.load(path.parent)
  path = copy_lexicon(lexicon.LEXICON_DIR, tmp_path / "b") / "adjectives.tsv"
  line = line_of(path, "buono\t")
  edit(path, "buone\tpremise", "buone\tpremessa")
  with pytest.raises(lexicon.LexiconError, match=re.escape(
      f"{path}:{line}: entry 'buono': role 'premessa' is not one of "
      "['premise', 'consequent']")):
    lexicon.load(path.parent)


def test_missing_cell_and_repeated_entry(tmp_path):
  path = copy_lexicon(lexicon.LEXICON_DIR, tmp_path) / "adjectives.tsv"
  line = line_of(path, "onesto\t")
  edit(path, "onesto\tonesta\tonesti\toneste\tpremise",
                "onesto\tonesta\tonesti\tpremise")
  with pytest.raises(lexicon.LexiconError, match=re.escape(
      f"{path}:{line}: entry 'onesto': expected 5 non-empty")):
    lexicon.load(path.parent)
  path = copy_lexicon(lexicon.LEXICON_DIR, tmp_path / "b") / "adjectives.tsv"
  first = line_of(path, "buono\t")
  with path.open("a", encoding="utf-8") as f:
    f.write("buono\tbuona\tbuoni\tbuone\tconsequent\n")
  last = len(path.read_text(encoding="utf-8").splitlines())
  with pytest.raises(lexicon.LexiconError, match=re.escape(
      f"{path}:{last}: entry 'buono': repeated (first on line {first})")):
    lexicon.load(path.parent)
