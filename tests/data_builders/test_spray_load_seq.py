"""The sequence-necessary spray/load configs (`blm_spray_load/seq_type_*`):
the progression of the alternant, the form and the polarity is drawn per
instance, so no one or two context sentences decide the answer while the
whole context does, and the answers alone leave the 16 well-formed
cells."""

import collections
import itertools
import re

import pytest

from blm_jax.data import lint
from blm_jax.data.context_free import answers_only
from data_builders.blm_spray_load import (english, generate, lexicon,
                                          realise, sequence, templates)
from data_builders.common import labels as labels_lib
from tests.data_builders.test_blm_spray_load import (_expected_diff, _index,
                                                     read_back)

CELL_OF = {str(sequence.cell_pattern(*c)): c for c in sequence.CELLS}


@pytest.fixture(scope="module")
def seq():
  return {"I": generate.generate_seq("I")[::5],
          "III": generate.generate_seq("III", type_iii_size=900)}


def test_builder_configs_and_labels():
  from data_builders.blm_spray_load import blm_spray_load_dataset_builder as b
  from configs import common
  by_name = {c.name: c for c in b.Builder.BUILDER_CONFIGS}
  for lt in ("I", "II", "III"):
    c = by_name[f"seq_type_{lt}"]
    assert c.sequence_necessary and c.context_necessary
    assert c.lexical_type == lt
  assert common.DATASETS["spray_load_seq"] == "blm_spray_load/seq_type_{}"
  assert labels_lib.FAMILY_LABELS["spray_load_seq"] == sequence.SEQ_LABELS
  assert len(set(sequence.SEQ_LABELS)) == len(sequence.SEQ_LABELS) == 84
  # Builder 1.2.0's labels (no WPOL) keep their ids.
  assert sequence.SEQ_LABELS[:42] == tuple(
      lab for lab in sequence.SEQ_LABELS if "WPOL" not in lab)
  # The 16 cells are the eight patterns of 000 Figure 5 (its seven context
  # sentences and its target), each affirmative and negated, all distinct.
  paper = {str(p) for p in templates.context_patterns(templates.ALT)}
  assert len(CELL_OF) == 16
  assert {_unpolar(p) for p in CELL_OF} == paper | {str(templates.ATL)}


def _unpolar(pattern: str) -> str:
  return pattern.replace("-Aff", "").replace("-Neg", "")


def _polarity(pattern: str) -> str:
  (pol,) = {p for p in sequence.POLARITIES if f"-{p}" in pattern}
  return pol


def test_negated_verb_groups():
  """Every seed frame has an affirmative and a negated form (a seed that is
  negated, "didn't smudge", "never spread", gets its affirmative), active
  and passive agreeing with the subject."""
  assert english.with_polarity("will", "", True) == ("not will", "")
  assert english.with_polarity("not past", "", False) == ("past", "")
  assert english.with_polarity("not past", "", True) == ("not past", "")
  assert english.with_polarity("present", "never", False) == (
      "present", "always")
  assert english.with_polarity("present", "always", True) == (
      "not present", "always")
  v = {e.verb: e.verb_frame for e in lexicon.load_lexicon().entries}
  expected = {  # (verb, voice, agreement): (affirmative, negated)
      ("hang", "Verb", "pl"): ("will hang", "won't hang"),
      ("hang", "VerbPass", "3sg"): ("will be hung", "won't be hung"),
      ("smudge", "Verb", "1sg"): ("smudged", "didn't smudge"),
      ("spread", "VerbPass", "3sg"): ("is always spread", "is never spread"),
      ("baste", "Verb", "3sg"): ("always bastes", "doesn't always baste"),
      ("sew", "VerbPass", "pl"): ("used to be sewn", "didn't use to be sewn"),
      ("plaster", "VerbPass", "3sg"): ("has been plastered",
                                       "hasn't been plastered"),
      ("load", "VerbPass", "1sg"): ("am being loaded", "am not being loaded"),
      ("splash", "Verb", "pl"): ("are going to splash",
                                 "aren't going to splash"),
      ("string", "VerbPass", "3sg"): ("needs to be strung",
                                      "doesn't need to be strung"),
      ("swab", "Verb", "3sg"): ("carefully swabbed", "didn't carefully swab"),
  }
  for (verb, voice, agr), forms in expected.items():
    assert tuple(v[verb].groups[voice, agr, p]
                 for p in sequence.POLARITIES) == forms
  with pytest.raises(KeyError, match="unknown verb group 'not never'"):
    english.active("not never", english.VerbForms("a", "b", "c", "d", "e"),
                   "pl")


def test_rule_family_exactly():
  """Over the whole rule distribution: the context decides, no single
  position and no pair does (majority answer at most 0.20 / 0.32), and the
  answer is uniform over the 16 cells."""
  assert sequence.determinacy() == pytest.approx(1.0)
  singles = [sequence.position_majority((i,)) for i in range(7)]
  pairs = [sequence.position_majority(p)
           for p in itertools.combinations(range(7), 2)]
  assert max(singles) < 0.20 and max(pairs) < 0.32, (singles, pairs)
  for values, name in zip(
      (sequence.ALTERNANTS, sequence.FORMS, sequence.POLARITIES),
      sequence.ATTRIBUTES):
    seqs = sequence.attribute_rules()[name]
    answers = collections.Counter()
    for seq, p in seqs:
      answers[seq[-1]] += p
    assert set(answers) == set(values)
    assert all(v == pytest.approx(1 / len(values)) for v in answers.values())


@pytest.mark.parametrize("attribute", ["alternant", "form", "polarity"])
def test_each_attribute_needs_more_than_one_position(attribute):
  """Each attribute's own progression: the seven context values determine
  the eighth for every rule, no single position does (for the polarity,
  the constant rule is one of five block choices, so one position is right
  at most 0.70 of the time)."""
  seqs = sequence.attribute_rules()[attribute]
  assert sequence.attribute_determinacy(seqs) == pytest.approx(1.0)
  singles = [sequence.attribute_majority(seqs, (i,)) for i in range(7)]
  assert max(singles) < {"alternant": 0.82, "form": 0.51,
                         "polarity": 0.71}[attribute], singles
  # The polarity's rules really progress: it changes within the context
  # under every rule but the constant ones.
  if attribute == "polarity":
    constant = sum(p for seq, p in seqs if len(set(seq)) == 1)
    assert constant == pytest.approx(1 / len(sequence.POL_BLOCKS))


@pytest.mark.slow
@pytest.mark.parametrize("lt", ["I", "III"])
def test_instances_follow_a_rule_and_labels_name_their_change(seq, lt):
  bases = collections.Counter()
  for x in seq[lt]:
    assert len(x.context) == 7 and len(x.answers) == 24
    assert (x.family, x.subset, x.lexical_type) == (
        "spray_load_seq", "seq", lt)
    cells = tuple(CELL_OF[s.pattern] for s in x.context)
    correct = CELL_OF[x.answers[x.correct].pattern]
    assert sequence.continuations(cells) == {correct}, x.id
    by_label = dict(zip(x.labels, (s.pattern for s in x.answers)))
    assert set(x.labels) <= set(sequence.SEQ_LABELS)
    # The 16 cells, each named by what it changes relative to CORRECT.
    for cell in sequence.CELLS:
      assert by_label[sequence.cell_label(cell, correct)] == str(
          sequence.cell_pattern(*cell))
    # The paper's eight errors on one active base, each breaking its rule
    # and keeping the base's polarity.
    base = [lab for lab in x.labels if lab in by_label and
            lab.endswith("AGENTACT")][0][:-len("AGENTACT")].rstrip("-")
    base = base or templates.CORRECT
    bases.update(part for part in ("WALT", "WPOL") if part in base)
    for t in templates.ANSWER_TEMPLATES[1:]:
      label = sequence.error_label(base, t.label)
      assert _expected_diff(t.label, _unpolar(by_label[base]),
                            _unpolar(by_label[label])), (x.id, label)
      assert _polarity(by_label[label]) == _polarity(by_label[base])
  # The errors' base is drawn apart from the answer: its alternant and its
  # polarity differ from the answer's in about half of the instances.
  for part in ("WALT", "WPOL"):
    assert 0.4 < bases[part] / len(seq[lt]) < 0.6, bases
  report = lint.lint(seq[lt])
  errors = {r for r, n in report.counts.items()
            if n and r != "copy_cue"}
  assert not errors, report.format(lt)
  if lt != "I":
    assert not any(s.text in {c.text for c in x.context}
                   for x in seq[lt] for s in x.answers)


_NEGATION = re.compile(r"n't\b|\bnot\b|\bnever\b")


@pytest.mark.slow
@pytest.mark.parametrize("lt", ["I", "III"])
def test_sentences_read_back_and_polarity_is_only_the_verb(seq, lt):
  """Every chunk realises its slot (verb forms, agreement, prepositions);
  a sentence is negated exactly when its pattern says so; in type I, where
  the answers share their words, a cell and its WPOL counterpart differ in
  the verb group alone."""
  lex = lexicon.load_lexicon()
  index = _index(lex)
  for x in seq[lt][::3]:
    for s in x.context + x.answers:
      read_back(s, lex, index)
      assert bool(_NEGATION.search(s.text)) == (
          _polarity(s.pattern) == realise.NEG), s.text
    if lt != "I":
      continue
    answers = dict(zip(x.labels, x.answers))
    for lab, s in answers.items():
      if "WPOL" in lab or lab not in sequence.SEQ_LABELS[:10]:
        continue  # One side of each cell pair, the cells only.
      twin = answers["WPOL" if lab == templates.CORRECT else
                     "WALT-WPOL" + lab[4:] if lab.startswith("WALT") else
                     "WPOL-" + lab]
      diff = [i for i, (a, b) in enumerate(zip(s.chunks, twin.chunks))
              if a != b]
      assert diff == [2] and len(s.chunks) == len(twin.chunks), (
          s.text, twin.text)


@pytest.mark.slow
@pytest.mark.parametrize("lt", ["I", "III"])
def test_no_single_or_pair_of_positions_decides(seq, lt):
  """Held out: the majority answer pattern per group of one or two
  positions' patterns, learned on half of the instances, is right on the
  other half at most 0.6 of the time; the whole context is always right."""
  xs = seq[lt]
  fit, held = xs[::2], xs[1::2]

  def accuracy(key):
    votes = collections.defaultdict(collections.Counter)
    for x in fit:
      votes[key(x)][x.answers[x.correct].pattern] += 1
    return sum(votes[key(x)].most_common(1)[0][0] ==
               x.answers[x.correct].pattern
               for x in held if votes[key(x)]) / len(held)

  for positions in itertools.chain(
      itertools.combinations(range(7), 1), itertools.combinations(range(7), 2)):
    acc = accuracy(lambda x: tuple(x.context[i].pattern for i in positions))
    assert acc <= 0.6, (positions, acc)
  whole = [tuple(CELL_OF[s.pattern] for s in x.context) for x in xs]
  answers = collections.defaultdict(set)
  for w, x in zip(whole, xs):
    answers[w].add(x.answers[x.correct].pattern)
  assert all(len(v) == 1 for v in answers.values())


@pytest.mark.slow
@pytest.mark.parametrize("lt", ["I", "III"])
def test_answers_alone_leave_the_16_cells(seq, lt):
  """The rule-breaking answers can be told apart without the context, so
  the context-free ceiling is the 16 well-formed cells: 1/16."""
  s = answers_only.score(seq[lt][:600])
  assert s.logit <= 1 / 16 + 0.05 and s.odd_one_in <= 1 / 16 + 0.05, s


@pytest.mark.slow
@pytest.mark.parametrize("lt", ["I", "III"])
def test_design_analyzer_position_bounds(seq, lt):
  """The project's design analyzer (pattern level, cross-fitted): no
  single position over 0.6, no pair either, the context determines one
  answer. (Its context-free part is in studies/records/
  design_analysis_spray_load_seq.json: 2000 instances take minutes.)"""
  from blm_jax.data import design
  (r,) = design.analyze(seq[lt], context_free=False, positions=True)
  assert r.level == "pattern" and r.determined, r.format()
  assert max(r.singles.values()) <= 0.6, r.format()
  assert r.best_pair[1] <= 0.6, r.format()
  # Only the context-free part, not computed here, is left.
  assert r.sequence_violations() == ["context-free scorer not computed"]
