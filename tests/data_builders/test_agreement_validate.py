"""The agreement validators (`data_builders/blm_agreement/validate.py`): each
check catches a hand-made bad instance and passes its fixed twin; the
`_seq` generator keeps quantifier clashes out and realises the Romanian
corrections; the design analyzer counts thinly visible deciding attributes.
The `full_scan` test generates every agreement `_seq` config at full size
(1-6 min a config on the shared CPU; README "Validation" has the counts)
and holds every check to zero."""

import pytest

from blm_jax.data import design
from data_builders.blm_agreement import attributes as agr_attributes
from data_builders.blm_agreement import blm_agreement_dataset_builder as bab
from data_builders.blm_agreement import generate_seq, lexicon, quantifiers
from data_builders.blm_agreement import validate
from data_builders.common import validation
from data_builders.common.schema import BLMInstance, Sentence
from tests.builder_checks import copy_lexicon, edit, line_of

ONE = "NP-sg PP1-sg VP-sg"
TWO = "NP-sg PP1-sg PP2-{} VP-sg"


def _instance(context, answers=("A.", "B."), *, language="en",
              lexical_type="II", family="agreement_seq",
              answer_patterns=(TWO.format("sg"), TWO.format("pl"))):
  ctx = tuple(c if isinstance(c, Sentence) else Sentence(c, ONE)
              for c in context)
  return BLMInstance(
      id="x", family=family, language=language, lexical_type=lexical_type,
      subset="main", context=ctx,
      answers=tuple(Sentence(a, p) for a, p in zip(answers, answer_patterns)),
      correct=0, labels=("Corr", "WN2"))


def _found(instance):
  return validation.findings(validate.CHECKS, instance)


def _distinct(n, two_from=3):
  """n distinct context sentences, two attractors from index `two_from`."""
  return [Sentence(f"Sentence {i}.", ONE if i < two_from else TWO.format(
      "sg")) for i in range(n)]


def test_checks_are_declared_once_and_found_by_package():
  names = [c.name for c in validation.checks_for("blm_agreement")]
  assert names == ["repeated_context_sentence", "repeated_quantifier",
                   "romanian_object_marking", "thin_deciding_attribute"]


def test_a_clean_instance_has_no_findings():
  assert _found(_instance(_distinct(7))) == {}


@pytest.mark.parametrize("lexical_type", ["II", "III"])
def test_types_ii_and_iii_may_not_repeat_a_context_sentence(lexical_type):
  ctx = _distinct(7)
  ctx[5] = ctx[4]
  got = _found(_instance(ctx, lexical_type=lexical_type))
  assert got == {"repeated_context_sentence": [
      f"context 5 and 6: 'Sentence 4.' twice, in a type {lexical_type} "
      "context that varies the words"]}


def test_type_i_repeats_only_where_the_patterns_do():
  """Type I: one wording per pattern (000: the same vocabulary in every
  sentence), so text and pattern repeat together or not at all."""
  def context(pairs):
    return [Sentence(text, pattern) for text, pattern in pairs]

  patterns = [f"NP-{a} PP1-{b} VP-{a}" for a in ("sg", "pl")
              for b in ("sg", "pl")] + [
                  f"NP-sg PP1-sg PP2-{c} VP-sg" for c in ("sg", "pl")] + [
                      "NP-pl PP1-sg PP2-sg VP-pl"]
  distinct = [(f"Sentence {i}.", p) for i, p in enumerate(patterns)]
  same = list(distinct)
  same[2] = same[1]
  # The paper's design (the `_seq` rule on deciding attributes aside).
  paper = dict(lexical_type="I", family="agreement")
  assert _found(_instance(context(same), **paper)) == {}
  other = list(distinct)
  other[5] = (other[1][0], patterns[5])
  reworded = list(distinct)
  reworded[5] = ("Sentence 5.", patterns[1])
  assert _found(_instance(context(other), **paper)) == {
      "repeated_context_sentence": [
          "context 2 and 6: the same words in two patterns ('Sentence 1.')"]}
  assert _found(_instance(context(reworded), **paper)) == {
      "repeated_context_sentence": [
          "context 2 and 6: one pattern in two wordings ('Sentence 5.')"]}


@pytest.mark.parametrize("language,text,phrase", [
    ("fr", "Tout le monde sait que la lettre du maire a surpris tout le "
     "monde.", "tout le monde"),
    ("ro", "Toată lumea știe că mesajul despre care vorbește toată lumea a "
     "sosit.", "toată lumea"),
    ("it", "Tutti sanno che la lettera ha sorpreso tutti.", "tutti"),
    ("en", "Everyone knows that the letter has surprised everyone.",
     "everyone")])
def test_a_quantifier_twice_in_one_sentence(language, text, phrase):
  ctx = _distinct(7)
  ctx[2] = Sentence(text, ONE)
  got = _found(_instance(ctx, language=language))
  assert got == {"repeated_quantifier": [
      f"context 3: {phrase!r} twice: {text!r}"]}
  once = _distinct(7)
  once[2] = Sentence(text.split(" que ")[-1].split(" că ")[-1]
                     .split(" che ")[-1].split(" that ")[-1], ONE)
  assert _found(_instance(once, language=language)) == {}


def test_quantifiers_in_answers_are_found_too():
  got = _found(_instance(_distinct(7), answers=(
      "A.", "Tout le monde sait que le message a surpris tout le monde."),
      language="fr"))
  assert got["repeated_quantifier"] == [
      "answer WN2: 'tout le monde' twice: 'Tout le monde sait que le message "
      "a surpris tout le monde.'"]


# Words that are quantifiers (or start one) in each language: any lexicon
# text holding one must be matched by `quantifiers.QUANTIFIERS`.
QUANTIFIER_WORDS = {
    "en": ("everyone", "everybody", "nobody", "no one", "all of"),
    "fr": ("tout le monde", "personne", "tous", "chacun"),
    "it": ("tutti", "nessuno", "ognuno", "ciascuno"),
    "ro": ("toată lumea", "nimeni", "toți", "fiecare"),
}


@pytest.mark.parametrize("language", lexicon.LANGUAGES)
def test_every_quantifier_of_the_lexicons_is_listed(language):
  lex = lexicon.load(language, corrected=True)
  texts = (list(lex.prefixes) + list(lex.relatives)
           + [v.sg for v in lex.verbs.values()])
  for t in texts:
    for w in QUANTIFIER_WORDS[language]:
      if w in t.lower().split(" ") or f" {w} " in f" {t.lower()} ":
        assert quantifiers.counts(language, t), (language, t)


def test_unknown_language_for_quantifiers_is_one_line():
  with pytest.raises(ValueError, match="no quantifier list for language "
                     "'de'; known: \\['en', 'fr', 'it', 'ro'\\]"):
    quantifiers.counts("de", "Jeder weiß es.")


@pytest.mark.parametrize("text,message", [
    ("Scrisoarea primarului a surprins pe toată lumea.",
     "context 2: 'pe' object without a doubling clitic on its verb: "
     "'Scrisoarea primarului a surprins pe toată lumea.'"),
    ("Analiza efectului a interesat medicii.",
     "context 2: definite human direct object 'medicii' without 'pe' and "
     "clitic: 'Analiza efectului a interesat medicii.'"),
    ("Ion crede că scrisoarea a îngrijorat avocații.",
     "context 2: definite human direct object 'avocații' without 'pe' and "
     "clitic: 'Ion crede că scrisoarea a îngrijorat avocații.'")])
def test_romanian_object_marking_finds(text, message):
  ctx = _distinct(7)
  ctx[1] = Sentence(text, ONE)
  assert _found(_instance(ctx, language="ro")) == {
      "romanian_object_marking": [message]}


@pytest.mark.parametrize("text", [
    "Scrisoarea primarului i-a îngrijorat pe locuitori.",
    "Scrisoarea primarului i-a surprins pe toți.",
    "Analiza efectului i-au interesat pe medici.",
    "Mesajul a surprins-o pe mătușă.",
    "Cheia dulapului este pe raft.",
    "Cheile dulapului sunt pe masă.",
    "Băiatul a plecat."])
def test_romanian_object_marking_passes(text):
  ctx = _distinct(7)
  ctx[1] = Sentence(text, ONE)
  assert _found(_instance(ctx, language="ro")) == {}


def test_a_deciding_attribute_on_three_sentences_is_thin():
  three = _distinct(7, two_from=4)
  assert _found(_instance(three)) == {"thin_deciding_attribute": [
      "attribute 'n2' decides between the candidates but 3 context "
      "sentence(s) show it (at least 4)"]}
  # The paper's design (one family, N2 constant) is not held to it.
  assert _found(_instance(three, family="agreement")) == {}


def test_the_seq_plans_show_n2_on_four_sentences():
  for j in range(200):
    plan = generate_seq.plan_for(0, "visibility", j)
    ctx = [str(p) for p in plan.context_patterns("main")]
    assert sum("PP2" in p for p in ctx) == 4


def test_the_design_analyzer_counts_thin_instances():
  schema = agr_attributes.agreement_schema()
  xs = [_instance(_distinct(7, two_from=4))] * 3 + [_instance(_distinct(7))]
  (report,) = design.analyze(xs, context_free=False, positions=False,
                             schema=schema)
  assert (report.n_thin_attributes, report.thin_attributes) == (3, {"n2": 3})
  assert ("3 instance(s) with a deciding attribute shown by fewer than 4 "
          "context sentences (n2: 3)") in report.sequence_violations()
  assert "visibility: 3 instance(s)" in report.format()
  (plain,) = design.analyze(xs, context_free=False, positions=False)
  assert plain.n_thin_attributes is None


def test_seq_pools_keep_quantifier_clashes_out():
  lex = lexicon.load("fr", corrected=True)
  everyone = lex.prefixes.index("Tout le monde sait que")
  letter = [s for s in generate_seq.seeds(lex, "main")
            if s.frame.id == "letter"]
  assert letter and everyone not in {s.matrix for s in letter}
  assert generate_seq.repeats_a_quantifier(
      lex, dataclasses_replace(letter[0], matrix=everyone), everyone)


def dataclasses_replace(seed, **kw):
  import dataclasses
  return dataclasses.replace(seed, **kw)


def test_romanian_corrections_apply_to_the_seq_configs_only():
  paper = lexicon.load("ro").verbs["a interesat medicii"]
  seq = lexicon.load("ro", corrected=True).verbs["a interesat medicii"]
  assert (paper.sg, seq.sg, seq.pl) == (
      "a interesat medicii", "i-a interesat pe medici",
      "i-au interesat pe medici")


def test_a_correction_of_an_unknown_verb_is_one_line(tmp_path):
  root = copy_lexicon(lexicon.LEXICON_DIR, tmp_path)
  path = root / "ro" / "corrections.tsv"
  edit(path, "a interesat medicii\t", "a interesat doctorii\t")
  line = line_of(path, "a interesat doctorii")
  with pytest.raises(lexicon.LexiconError, match=(
      f"corrections.tsv line {line}, entry 'a interesat doctorii': not a "
      "verb phrase of .*verbs.tsv")):
    lexicon.load("ro", root, corrected=True)
  assert lexicon.load("ro", root).verbs["a interesat medicii"]


def test_small_seq_sets_have_no_findings():
  for lang, t in (("fr", "II"), ("ro", "III")):
    xs = generate_seq.generate_seq(lang, generate_seq.CLAUSES, t, 15, 0)
    assert [validation.findings(validate.CHECKS, x) for x in xs
            if validation.findings(validate.CHECKS, x)][:3] == [], (lang, t)


def test_seq_configs_carry_their_own_version():
  by_name = {c.name: c for c in bab.Builder.BUILDER_CONFIGS}
  assert str(by_name["ro_seq_type_III"].version) == bab.SEQ_VERSION
  assert str(by_name["en_seq_rules_type_I"].version) == bab.SEQ_VERSION
  assert by_name["ro_mixed_type_III"].version is None
  assert bab.SEQ_VERSION in bab.Builder.RELEASE_NOTES


@pytest.mark.full_scan
@pytest.mark.parametrize("t", bab.LEXICAL_TYPES)
@pytest.mark.parametrize("lang", lexicon.LANGUAGES)
def test_full_size_seq_configs_have_no_findings(lang, t):
  cfg = bab.seq_config(lang, t)
  xs = generate_seq.generate_seq(lang, generate_seq.CLAUSES, t,
                                 cfg.size_per_clause(), cfg.seed,
                                 fractions=cfg.fractions)
  bad = {}
  for x in xs:
    for name, messages in validation.findings(validate.CHECKS, x).items():
      bad.setdefault(name, []).append((x.id, messages[0]))
  assert {k: (len(v), v[0]) for k, v in bad.items()} == {}
