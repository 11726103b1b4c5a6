"""The Mixture builder: 000 appendix 11.1's table verbatim, the named rules
behind answers B-F, agreement morphology of the clauses and the attractor,
lexical types, strict lint, splits and lexicon errors."""

import pathlib
import re
import shutil

import pytest

from blm_jax import data, labels, lint
from data_builders.blm_mixture import blm_mixture_dataset_builder as bmix
from data_builders.blm_mixture import generate, lexicon, templates

# 000 appendix 11.1, transcribed ("PI" read as "Pl", "CTrpas" as "CTrPas").
APPENDIX_CONTEXT = [
    "SgM-CPas SgM-CnPr", "PlM-CPas PlM-CnPr", "SgF-CTrPas SgF-CnPas",
    "PlF-CTrPas PlF-CnPas", "SgM-IFut attractorPlF SgM-IFut",
    "PlM-IFutAnt attractorSgM PlM-IFut", "SgF-IFut attractorPlM SgF-IFut"]
APPENDIX_ANSWERS = {
    "A": "PlF-IFutAnt attractorSgF PlF-IFut",
    "B": "SgF-IFut SgF-IFut",
    "C": "SgM-CTrPas SgM-CnPas",
    "D": "PlM-IFutAnt PlM-IFut",
    "E": "SgF-CTrPas attractorSgF PlM-CTrPas",
    "F": "PlF-IFutAnt PlF-IFut",
}
ESSERE = {
    "CPas": "fossi fossi fosse fossimo foste fossero",
    "CnPr": "sarei saresti sarebbe saremmo sareste sarebbero",
    "IFut": "sarò sarai sarà saremo sarete saranno",
}
AUX = {"CTrPas": "CPas", "CnPas": "CnPr", "IFutAnt": "IFut"}
PN = ("1sg", "2sg", "3sg", "1pl", "2pl", "3pl")
STATO = {("m", "sg"): "stato", ("f", "sg"): "stata", ("m", "pl"): "stati",
         ("f", "pl"): "state"}


@pytest.fixture(scope="module")
def lex():
  return lexicon.load()


@pytest.fixture(scope="module")
def samples(lex):
  return {t: generate.generate(t, lex, size=300) for t in ("I", "II", "III")}


def _code(pattern: str) -> str:
  """A pattern string in the appendix's notation (written here, not with
  `templates.appendix_code`)."""
  f = {tok.split("-")[0]: tok.split("-")[1:] for tok in pattern.split()}
  feat = lambda g, n: n.capitalize() + g.upper()
  out = [f"{feat(*f['PremA'])}-{f['Prem'][0]}"]
  if "Inc" in f:
    out.append("attractor" + feat(*f["Inc"]))
  out.append(f"{feat(*f['ConsA'])}-{f['Cons'][0]}")
  return " ".join(out)


def _group(tense, pn, g, n):
  finite = ESSERE[AUX.get(tense, tense)].split()[PN.index(pn)]
  return f"{finite} {STATO[g, n]}" if tense in AUX else finite


def read_back(s, lex):
  """The text against its pattern: verbs, participles, adjectives, the
  attractor noun and adjective."""
  f = {tok.split("-")[0]: tok.split("-")[1:] for tok in s.pattern.split()}
  m = re.fullmatch(r"Se ([^,]+) (\w+), (?:([^,]+), )?allora (.+) (\w+)\.",
                   s.text)
  assert m, s.text
  for verb, adj, group, word, pool in (
      ("Prem", "PremA", m[1], m[2], lex.premise),
      ("Cons", "ConsA", m[4], m[5], lex.consequent)):
    (tense, pn), (g, n) = f[verb], f[adj]
    assert group == _group(tense, pn, g, n), s.text
    assert word in {a.form(g, n) for a in pool}, s.text
  if "Inc" in f:
    g, n = f["Inc"]
    inc = m[3]
    assert any(inc.endswith(f" {i.noun.form(n)} {i.adjective.form(g, n)}")
               or inc.endswith(f"'{i.noun.form(n)} {i.adjective.form(g, n)}")
               for i in lex.incidentals[g]), s.text
  else:
    assert m[3] is None, s.text


def test_config_names():
  assert [c.name for c in bmix.Builder.BUILDER_CONFIGS] == [
      "type_I", "type_II", "type_III"]


def test_template_is_the_appendix_table():
  ctx = templates.context_patterns("2" * 7)
  assert [_code(str(p)) for p in ctx] == APPENDIX_CONTEXT
  assert {k: _code(str(p)) for k, p in templates.answers("2").items()} == (
      APPENDIX_ANSWERS)
  assert templates.LABELS == labels.family_labels("mixture")


def test_each_answer_breaks_the_rules_it_names():
  a = templates.answers("1")
  correct = a["A"]
  # F: only the attractor gone; D: F plus masculine in both clauses.
  assert a["F"] == correct.drop("Inc")
  assert a["D"] == a["F"].set("PremA", gen="m").set("ConsA", gen="m")
  # B: F in the singular, with sentence 7's premise tense.
  assert a["B"] == (a["F"].set("Prem", tense="IFut", pn="1sg")
                    .set("PremA", num="sg").set("Cons", pn="1sg")
                    .set("ConsA", num="sg"))
  # C: the counterfactual pair, singular, masculine, no attractor.
  assert a["C"] == (a["B"].set("Prem", tense="CTrPas").set(
      "Cons", tense="CnPas").set("PremA", gen="m").set("ConsA", gen="m"))
  # E: keeps the attractor; clauses disagree; consequent subjunctive.
  assert a["E"] == (correct.set("Prem", tense="CTrPas", pn="1sg")
                    .set("PremA", num="sg").set("Cons", tense="CTrPas")
                    .set("ConsA", gen="m"))


@pytest.mark.parametrize("ltype", ["I", "II", "III"])
def test_instances_follow_the_appendix_and_read_back(samples, lex, ltype):
  xs = samples[ltype]
  assert len(xs) == 300 and len({x.id for x in xs}) == len(xs)
  for x in xs[:100]:
    assert [_code(s.pattern) for s in x.context] == APPENDIX_CONTEXT
    by = dict(zip(x.labels, x.answers))
    assert {k: _code(s.pattern) for k, s in by.items()} == APPENDIX_ANSWERS
    assert x.labels[x.correct] == "A"
    for s in x.context + x.answers:
      read_back(s, lex)
  assert lint.lint(xs).ok(strict=True)
  positions = [x.correct for x in xs]
  assert set(positions) == set(range(6))


def test_lexical_types(samples, lex):
  lemma = {a.form(g, n): a.ms for a in lex.premise + lex.consequent
           for g in ("m", "f") for n in ("sg", "pl")}

  def persons(x):
    return {s.pattern.split()[0].split("-")[2][0] for s in x.context}

  def adjectives(s):
    m = re.fullmatch(r"Se [^,]+ (\w+), (?:[^,]+, )?allora .+ (\w+)\.",
                     s.text)
    return lemma[m[1]], lemma[m[2]]

  for x in samples["I"]:
    assert len(persons(x)) == 1
    assert len({adjectives(s) for s in x.context + x.answers}) == 1
  for x in samples["II"]:
    assert len(persons(x)) == 1
    assert len({adjectives(s) for s in x.answers}) == 1
  assert sum(len({adjectives(s) for s in x.context})
             for x in samples["II"]) / 300 > 5
  assert max(len(persons(x)) for x in samples["III"]) == 3


class SmallMixture(bmix.Builder):
  name = "small_mixture"
  BUILDER_CONFIGS = [bmix.MixtureConfig(name="type_I", lexical_type="I")]

  def generate(self, config):
    return generate.generate("I", lexicon.load(), size=600)


def test_splits_leak_free_and_rebuild_byte_identical(tmp_path):
  digests = []
  for d in ("a", "b"):
    b = SmallMixture(config="type_I", data_dir=str(tmp_path / d),
                     file_format="array_record")
    b.download_and_prepare()
    files = sorted(pathlib.Path(b.data_dir).glob("*array_record*"))
    digests.append([p.read_bytes() for p in files])
  assert digests[0] == digests[1] and digests[0]
  ctx = {}
  for split in ("train", "dev", "test"):
    insts = data.load_instances("small_mixture/type_I", split,
                                str(tmp_path / "a"))
    assert insts
    # Sentences without an incidental (1-4 and the short answers).
    ctx[split] = {s.text for x in insts for s in x.context[:4]}
  assert not (ctx["train"] & ctx["dev"] or ctx["train"] & ctx["test"]
              or ctx["dev"] & ctx["test"])


def _copy(tmp_path):
  shutil.copytree(lexicon.LEXICON_DIR, tmp_path / "lex")
  return tmp_path / "lex"


def _edit(path, old, new):
  text = path.read_text(encoding="utf-8")
  assert old in text
  path.write_text(text.replace(old, new), encoding="utf-8")


def _line(path, start):
  lines = path.read_text(encoding="utf-8").splitlines()
  return next(i for i, l in enumerate(lines, 1) if l.startswith(start))


def test_incidental_with_unknown_adjective_or_gender(tmp_path):
  folder = _copy(tmp_path)
  path = folder / "incidentals.tsv"
  line = _line(path, "nonostante\tproblema")
  _edit(path, "problema\tproblemi\tm\ttecnico", "problema\tproblemi\tm\ttecnica")
  with pytest.raises(lexicon.LexiconError, match=re.escape(
      f"{path}:{line}: entry 'problema': adjective 'tecnica' is not in "
      f"{folder / 'adjectives.tsv'}")):
    lexicon.load(folder)
  folder = _copy(tmp_path / "b")
  path = folder / "incidentals.tsv"
  _edit(path, "crisi\tcrisi\tf", "crisi\tcrisi\tn")
  line = _line(path, "a causa di\tcrisi")
  with pytest.raises(lexicon.LexiconError, match=re.escape(
      f"{path}:{line}: entry 'crisi': gender 'n' is not one of ['m', 'f']")):
    lexicon.load(folder)


def test_attractor_adjective_with_wrong_plural(tmp_path):
  folder = _copy(tmp_path)
  path = folder / "adjectives.tsv"
  line = _line(path, "severo\t")
  _edit(path, "severi\tsevere", "severe\tseveri")
  with pytest.raises(lexicon.LexiconError, match=re.escape(
      f"{path}:{line}: entry 'severo': masculine plural 'severe'")):
    lexicon.load(folder)


def test_bad_header(tmp_path):
  folder = _copy(tmp_path)
  path = folder / "incidentals.tsv"
  _edit(path, "prep\tsg\tpl\tgender\tadjective", "prep\tsg\tpl\tadjective")
  with pytest.raises(lexicon.LexiconError, match=re.escape(
      f"{path}:{_line(path, 'prep')}: header ['prep', 'sg', 'pl', "
      "'adjective'] should be")):
    lexicon.load(folder)
