"""The Italian sequence-of-tense builder: template rules (i)-(iv), one named
rule per wrong answer, copula and adjective morphology read back from the
text, lexical types, strict lint, splits, rebuilds and lexicon errors."""

import pathlib
import re
import shutil

import pytest

from blm_jax import data, labels, lint
from data_builders.blm_sequence_of_tense import (
    blm_sequence_of_tense_dataset_builder as bsot)
from data_builders.blm_sequence_of_tense import generate, italian, lexicon
from data_builders.common.template import token_diff

# Written out independently of italian.py: essere by tense, 1sg..3pl.
ESSERE = {
    "CPas": "fossi fossi fosse fossimo foste fossero",
    "CnPr": "sarei saresti sarebbe saremmo sareste sarebbero",
    "IFut": "sarò sarai sarà saremo sarete saranno",
}
AUX = {"CTrPas": "CPas", "CnPas": "CnPr", "IFutAnt": "IFut"}
PN = ("1sg", "2sg", "3sg", "1pl", "2pl", "3pl")
PAIRS = [("IFut", "IFut"), ("IFut", "IFut"), ("IFutAnt", "IFut"),
         ("IFutAnt", "IFut"), ("CPas", "CnPr"), ("CPas", "CnPr"),
         ("CTrPas", "CnPas"), ("CTrPas", "CnPas")]
# label -> (slot, feature, value in the answer) relative to CORRECT.
EXPECTED = {"WCT": ("Cons", "CnPr"), "WCM": ("Cons", "CTrPas"),
            "WPT": ("Prem", "CPas"), "WPM": ("Prem", "CnPas")}


@pytest.fixture(scope="module")
def lex():
  return lexicon.load()


@pytest.fixture(scope="module")
def samples(lex):
  return {t: generate.generate(t, lex, size=400) for t in ("I", "II", "III")}


def _feats(pattern: str) -> dict[str, list[str]]:
  return {tok.split("-")[0]: tok.split("-")[1:] for tok in pattern.split()}


def _verb_group(tense, pn, gender, number):
  aux = AUX.get(tense, tense)
  finite = ESSERE[aux].split()[PN.index(pn)]
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


def test_config_names():
  assert [c.name for c in bsot.Builder.BUILDER_CONFIGS] == [
      "type_I", "type_II", "type_III"]


@pytest.mark.parametrize("ltype", ["I", "II", "III"])
def test_sizes_labels_lint_and_positions(samples, ltype):
  xs = samples[ltype]
  assert len(xs) == (864 if ltype == "I" else 400)
  assert len({x.id for x in xs}) == len(xs)
  for x in xs:
    assert len(x.context) == 7 and len(x.answers) == 6
    assert sorted(x.labels) == sorted(labels.family_labels(
        "sequence_of_tense"))
    assert x.labels[x.correct] == "CORRECT"
  assert lint.lint(xs).ok(strict=True)
  positions = [x.correct for x in xs]
  assert set(positions) == set(range(6))
  assert max(positions.count(i) for i in range(6)) < 0.25 * len(xs)


@pytest.mark.parametrize("ltype", ["I", "II", "III"])
def test_context_rules_and_each_label_breaks_its_rule(samples, lex, ltype):
  for x in samples[ltype][:150]:
    for i, s in enumerate(x.context + (x.correct_answer,)):
      f = _feats(s.pattern)
      assert (f["Prem"][0], f["Cons"][0]) == PAIRS[i]           # (ii), (iv)
      assert f["PremA"][1] == f["ConsA"][1] == ("sg", "pl")[i % 2]  # (iv)
      assert f["Prem"][1] == f["Cons"][1]                        # (iii)
      assert f["Prem"][1][1:] == f["PremA"][1]
      assert f["PremA"] == f["ConsA"]
      read_back(s, lex)
    by = dict(zip(x.labels, x.answers))
    correct = by["CORRECT"].pattern
    for label, (slot_name, tense) in EXPECTED.items():
      old = _feats(correct)[slot_name]
      new = f"{slot_name}-{tense}-{old[1]}"
      assert token_diff(correct, by[label].pattern) == [
          ("-".join([slot_name] + old), new)], label
      read_back(by[label], lex)
    # AGR: only the consequent verb's number, its person kept.
    (a, b), = token_diff(correct, by["AGR"].pattern)
    assert a.rsplit("-", 1)[0] == b.rsplit("-", 1)[0] == (
        "Cons-CnPas") and a[-3] == b[-3] and a[-2:] == "pl" and b[-2:] == "sg"
    read_back(by["AGR"], lex)


def test_lexical_types(samples, lex):
  forms = _adjective_forms(lex)

  def words(s):
    """The lemmas of the sentence's premise and consequent adjectives."""
    m = re.fullmatch(r"Se .+ (\w+), allora .+ (\w+)\.", s.text)
    return forms[m[1]][0].ms, forms[m[2]][0].ms

  for x in samples["I"]:
    assert len({words(s) for s in x.context + x.answers}) == 1
    assert len({_feats(s.pattern)["Prem"][1][0] for s in x.context}) == 1
  varied = [len({words(s) for s in x.context}) for x in samples["II"]]
  assert sum(varied) / len(varied) > 5
  for x in samples["II"]:
    assert len({_feats(s.pattern)["Prem"][1][0] for s in x.context}) == 1
    assert len({words(s) for s in x.answers}) == 1
  persons = [len({_feats(s.pattern)["Prem"][1][0] for s in x.context})
             for x in samples["III"]]
  assert max(persons) == 3 and sum(persons) / len(persons) > 2


def test_italian_morphology_spot_checks():
  assert italian.copula("CTrPas", "2pl", "f", "pl") == "foste state"
  assert italian.copula("CnPas", "3sg", "m", "sg") == "sarebbe stato"
  assert italian.copula("IFut", "1sg", "m", "sg") == "sarò"
  with pytest.raises(KeyError, match="unknown tense 'CPres'"):
    italian.copula("CPres", "1sg", "m", "sg")


class SmallSoT(bsot.Builder):
  name = "small_sequence_of_tense"


def test_splits_leak_free_and_rebuild_byte_identical(tmp_path):
  digests = []
  for d in ("a", "b"):
    b = SmallSoT(config="type_I", data_dir=str(tmp_path / d),
                 file_format="array_record")
    b.download_and_prepare()
    files = sorted(pathlib.Path(b.data_dir).glob("*array_record*"))
    digests.append([p.read_bytes() for p in files])
  assert digests[0] == digests[1] and digests[0]
  sents = {}
  for split in ("train", "dev", "test"):
    insts = data.load_instances("small_sequence_of_tense/type_I", split,
                                str(tmp_path / "a"))
    assert insts
    sents[split] = {s.text for x in insts for s in x.context + x.answers}
  assert not (sents["train"] & sents["dev"] or sents["train"] & sents["test"]
              or sents["dev"] & sents["test"])


def _lexicon_copy(tmp_path):
  shutil.copytree(lexicon.LEXICON_DIR, tmp_path / "lex")
  return tmp_path / "lex" / "adjectives.tsv"


def _replace_line(path, old, new):
  text = path.read_text(encoding="utf-8")
  assert old in text
  path.write_text(text.replace(old, new), encoding="utf-8")


def _line_of(path, start):
  for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
    if line.startswith(start):
      return i
  raise AssertionError(start)


def test_bad_adjective_forms_name_file_line_and_entry(tmp_path):
  path = _lexicon_copy(tmp_path)
  line = _line_of(path, "bravo\t")
  _replace_line(path, "bravo\tbrava\tbravi\tbrave", "bravo\tbrava\tbravi\tbravo")
  with pytest.raises(lexicon.LexiconError, match=re.escape(
      f"{path}:{line}: entry 'bravo': feminine plural 'bravo' is not one of "
      "['brave']")):
    lexicon.load(path.parent)


def test_two_form_adjective_and_unknown_role_are_rejected(tmp_path):
  path = _lexicon_copy(tmp_path)
  line = _line_of(path, "ricco\t")
  _replace_line(path, "ricco\tricca\tricchi\tricche\tconsequent",
                "felice\tfelice\tfelici\tfelici\tconsequent")
  with pytest.raises(lexicon.LexiconError, match=re.escape(
      f"{path}:{line}: entry 'felice': masculine singular 'felice' does not "
      "end in -o")):
    lexicon.load(path.parent)
  path = _lexicon_copy(tmp_path / "b")
  line = _line_of(path, "buono\t")
  _replace_line(path, "buone\tpremise", "buone\tpremessa")
  with pytest.raises(lexicon.LexiconError, match=re.escape(
      f"{path}:{line}: entry 'buono': role 'premessa' is not one of "
      "['premise', 'consequent']")):
    lexicon.load(path.parent)


def test_missing_cell_and_repeated_entry(tmp_path):
  path = _lexicon_copy(tmp_path)
  line = _line_of(path, "onesto\t")
  _replace_line(path, "onesto\tonesta\tonesti\toneste\tpremise",
                "onesto\tonesta\tonesti\tpremise")
  with pytest.raises(lexicon.LexiconError, match=re.escape(
      f"{path}:{line}: entry 'onesto': expected 5 non-empty")):
    lexicon.load(path.parent)
  path = _lexicon_copy(tmp_path / "b")
  first = _line_of(path, "buono\t")
  with path.open("a", encoding="utf-8") as f:
    f.write("buono\tbuona\tbuoni\tbuone\tconsequent\n")
  last = len(path.read_text(encoding="utf-8").splitlines())
  with pytest.raises(lexicon.LexiconError, match=re.escape(
      f"{path}:{last}: entry 'buono': repeated (first on line {first})")):
    lexicon.load(path.parent)
