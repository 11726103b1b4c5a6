"""The Mixture builder: 000 appendix 11.1's table verbatim, its rotations
(each instance's table is the appendix's with number, gender, mood and
anteriority swapped and the attractor moved, derived here by rewriting the
appendix's codes), the named rules behind answers B-F, the answers-only
scores, agreement morphology of the clauses and the attractor, lexical
types, strict lint, splits and lexicon errors."""

import collections
import re

import pytest

from blm_jax.data import lint
from blm_jax.data.context_free import answers_only
from data_builders.blm_mixture import blm_mixture_dataset_builder as bmix
from data_builders.blm_mixture import generate
from data_builders.blm_mixture import lexicon
from data_builders.blm_mixture import templates
from data_builders.common import labels
from tests.builder_checks import (assert_disjoint, build_twice_identical,
                                  copy_lexicon, edit, line_of, split_items)

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
CYCLE = [("IFut", "IFut"), ("IFutAnt", "IFut"), ("CPas", "CnPr"),
         ("CTrPas", "CnPas")]
SWAP = {"Sg": "Pl", "Pl": "Sg", "M": "F", "F": "M"}


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
  # (The context-necessary configs: tests/data_builders/test_mixture_ctx.py.)
  assert [c.name for c in bmix.Builder.BUILDER_CONFIGS
          if not c.context_necessary] == ["type_I", "type_II", "type_III"]


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


def _rotate(code: str, swap_number, swap_gender, tense_xor, move) -> str:
  """An appendix code ("SgM-IFut attractorPlF SgM-IFut") rotated: number
  and/or gender swapped everywhere, canonical pairs moved in the cycle by
  XOR (2: the other mood, 1: the other anteriority); `move`: None, "drop"
  the attractor, or "add" one of the other number (and the gender given
  by the position: "other" or "same")."""
  toks = code.split()
  feats = lambda t: t.replace("attractor", "")[:3]

  def sw(f):
    n, g = f[:2], f[2]
    return (SWAP[n] if swap_number else n) + (SWAP[g] if swap_gender else g)

  prem, cons = toks[0].split("-"), toks[-1].split("-")
  pair = (prem[1], cons[1])
  if pair in CYCLE:
    pair = CYCLE[CYCLE.index(pair) ^ tense_xor]
  out = [f"{sw(prem[0])}-{pair[0]}"]
  if len(toks) == 3 and move != "drop":
    out.append("attractor" + sw(feats(toks[1])))
  if move in ("other", "same"):
    n, g = sw(prem[0])[:2], sw(prem[0])[2]
    out.append("attractor" + SWAP[n] + (SWAP[g] if move == "other" else g))
  out.append(f"{sw(cons[0])}-{pair[1]}")
  return " ".join(out)


def expected_table(x):
  """The instance's table, from its first sentence's features and where
  its attractors are, by rewriting the appendix's."""
  first = _code(x.context[0].pattern).split()
  swap_number = first[0].startswith("Pl")
  swap_gender = first[0][2] == "F"
  pair = (first[0].split("-")[1], first[-1].split("-")[1])
  tense_xor = CYCLE.index(pair) ^ CYCLE.index(("CPas", "CnPr"))
  first_half = len(first) == 3
  ctx = []
  for i, code in enumerate(APPENDIX_CONTEXT):
    move = None
    if first_half:
      move = "drop" if i >= 4 else ("other" if i % 2 == 0 else "same")
    ctx.append(_rotate(code, swap_number, swap_gender, tense_xor, move))
  ans = {}
  for label, code in APPENDIX_ANSWERS.items():
    move = None
    if first_half:  # A and E (which keeps A's) lose it, B-D, F gain it
      move = "drop" if label in ("A", "E") else "same"
    ans[label] = _rotate(code, swap_number, swap_gender, tense_xor, move)
  return ctx, ans


@pytest.mark.slow
@pytest.mark.parametrize("ltype", ["I", "II", "III"])
def test_instances_are_rotations_of_the_appendix_and_read_back(
    samples, lex, ltype):
  xs = samples[ltype]
  assert len(xs) == 300 and len({x.id for x in xs}) == len(xs)
  rotations = collections.Counter()
  for x in xs:
    ctx, ans = expected_table(x)
    assert [_code(s.pattern) for s in x.context] == ctx
    by = dict(zip(x.labels, x.answers))
    assert {k: _code(s.pattern) for k, s in by.items()} == ans
    assert x.labels[x.correct] == "A"
    rotations[tuple(ctx)] += 1
    for s in x.context + x.answers:
      read_back(s, lex)
  assert len(rotations) == 32 and tuple(APPENDIX_CONTEXT) in rotations
  report = lint.lint(xs, answers_only=True)
  assert report.ok(strict=True), report.format()
  positions = [x.correct for x in xs]
  assert set(positions) == set(range(6))


def _grammatical_with_incidental(x, incidental: bool = True) -> float:
  """The answers-only rule the appendix's answer set leaves: E is the only
  subjunctive consequent, and A alone shares its attractor status (the
  expected accuracy of picking a grammatical candidate with, or without,
  an incidental clause)."""
  keep = [i for i, s in enumerate(x.answers)
          if ("Inc" in s.pattern) == incidental
          and "Cons-CTrPas" not in s.pattern]
  return (x.correct in keep) / len(keep) if keep else 1 / len(x.answers)


@pytest.mark.slow
def test_answers_only_scores(samples, lex, monkeypatch):
  for ltype in ("I", "II", "III"):
    cue = answers_only.score(samples[ltype])
    assert not cue.cue, str(cue)
    rule = sum(map(_grammatical_with_incidental, samples[ltype])) / 300
    assert 0.4 < rule < 0.6, rule
    # One bit of the context (does sentence 7 carry an attractor?) decides.
    assert all(_grammatical_with_incidental(x, "Inc" in x.context[6].pattern)
               == 1 for x in samples[ltype])
  # The appendix's table alone (version 1.0.0) is solved from the answers.
  monkeypatch.setattr(generate, "draw_rotation",
                      lambda rng: templates.APPENDIX)
  fixed = generate.generate("II", lex, size=200)
  assert answers_only.score(fixed).logit > 0.9
  assert sum(map(_grammatical_with_incidental, fixed)) == 200


@pytest.mark.slow
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

  def generate(self, config):
    return generate.generate(config.lexical_type, lexicon.load(), size=600)


@pytest.mark.slow
def test_splits_leak_free_and_rebuild_byte_identical(tmp_path):
  data_dir = build_twice_identical(SmallMixture, "type_I", tmp_path)
  # Type I is split by adjective pair, which every sentence holds.
  assert_disjoint(split_items(
      "small_mixture/type_I", data_dir,
      lambda x: {s.text for s in x.context + x.answers}))


def test_incidental_with_unknown_adjective_or_gender(tmp_path):
  folder = copy_lexicon(lexicon.LEXICON_DIR, tmp_path)
  path = folder / "incidentals.tsv"
  line = line_of(path, "nonostante\tproblema")
  edit(path, "problema\tproblemi\tm\ttecnico", "problema\tproblemi\tm\ttecnica")
  with pytest.raises(lexicon.LexiconError, match=re.escape(
      f"{path}:{line}: entry 'problema': adjective 'tecnica' is not in "
      f"{folder / 'adjectives.tsv'}")):
    lexicon.load(folder)
  folder = copy_lexicon(lexicon.LEXICON_DIR, tmp_path / "b")
  path = folder / "incidentals.tsv"
  edit(path, "crisi\tcrisi\tf", "crisi\tcrisi\tn")
  line = line_of(path, "a causa di\tcrisi")
  with pytest.raises(lexicon.LexiconError, match=re.escape(
      f"{path}:{line}: entry 'crisi': gender 'n' is not one of ['m', 'f']")):
    lexicon.load(folder)


def test_attractor_adjective_with_wrong_plural(tmp_path):
  folder = copy_lexicon(lexicon.LEXICON_DIR, tmp_path)
  path = folder / "adjectives.tsv"
  line = line_of(path, "severo\t")
  edit(path, "severi\tsevere", "severe\tseveri")
  with pytest.raises(lexicon.LexiconError, match=re.escape(
      f"{path}:{line}: entry 'severo': masculine plural 'severe'")):
    lexicon.load(folder)


def test_bad_header(tmp_path):
  folder = copy_lexicon(lexicon.LEXICON_DIR, tmp_path)
  path = folder / "incidentals.tsv"
  edit(path, "prep\tsg\tpl\tgender\tadjective", "prep\tsg\tpl\tadjective")
  with pytest.raises(lexicon.LexiconError, match=re.escape(
      f"{path}:{line_of(path, 'prep')}: header ['prep', 'sg', 'pl', "
      "'adjective'] should be")):
    lexicon.load(folder)
