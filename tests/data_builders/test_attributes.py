"""Attributes as data: the families' schemas and the sentence table's
`attributes` columns."""

import random

import numpy as np
import pytest

from blm_jax.data.sentence_table import build_sentence_table
from data_builders.blm_agreement import attributes as agreement_attributes
from data_builders.blm_agreement import seq_templates
from data_builders.blm_cos_od import attributes as cos_od_attributes
from data_builders.blm_cos_od import templates as cos_od_templates
from data_builders.blm_spray_load import attributes as spray_load_attributes
from data_builders.blm_spray_load import sequence
from data_builders.common import attributes
from data_builders.common.schema import BLMInstance, Sentence


def _toy_schema():
  return attributes.AttributeSchema(
      family="toy", names=("colour", "size"),
      values={"colour": ("red", "blue"), "size": ("s", "l")},
      parser=attributes.table_parser({"R S": {"colour": "red", "size": "s"},
                                      "B": {"colour": "blue"},
                                      "G": {"colour": "green"}}))


def test_parse_and_encode_with_absent_values():
  schema = _toy_schema()
  assert schema.parse("R S") == {"colour": "red", "size": "s"}
  assert schema.encode("B") == (1, attributes.ABSENT)
  one_hot = attributes.one_hot(np.array([[0, 0], [1, -1]]),
                              schema.num_values)
  np.testing.assert_array_equal(one_hot, [[1, 0, 1, 0], [0, 1, 0, 0]])


def test_unreadable_pattern_is_one_line_naming_it():
  schema = _toy_schema()
  with pytest.raises(ValueError) as e:
    schema.parse("NP-x VP")
  assert str(e.value) == ("pattern 'NP-x VP' cannot be read as toy attributes "
                          "(not a pattern this design generates)")
  with pytest.raises(ValueError, match=r"pattern 'G': colour='green' is not "
                     r"one of \('red', 'blue'\)"):
    schema.parse("G")


def test_schema_needs_values_for_every_name():
  with pytest.raises(ValueError, match=r"no values for \['size'\]"):
    attributes.AttributeSchema("toy", ("colour", "size"),
                               {"colour": ("red",)}, dict)


def test_add_reading_keeps_what_two_readings_share():
  table = {}
  attributes.add_reading(table, "p", {"a": "x", "b": "y"})
  attributes.add_reading(table, "p", {"a": "x", "b": "z"})
  assert table == {"p": {"a": "x"}}


def test_spray_load_seq_reads_every_answer_as_built():
  schema = spray_load_attributes.schema_for("seq_type_II")
  rng = random.Random(0)
  for _ in range(20):
    rule = sequence.draw_rule(rng)
    base = (rng.choice(sequence.ALTERNANTS), rng.choice(sequence.POLARITIES))
    context, answers = sequence.seq_patterns(rule, base)
    cells = rule.cells()
    for p, cell in zip(context, cells):
      assert schema.parse(str(p)) == dict(
          alternant=cell[0], form=cell[1], polarity=cell[2], violation="none")
    assert schema.parse(str(answers["CORRECT"]))["form"] == cells[-1][1]
    rules = spray_load_attributes.VIOLATIONS[1:]
    for label, p in answers.items():
      parsed = schema.parse(str(p))
      broken = [r for r in rules if label == r or label.endswith(f"-{r}")]
      if broken:  # A rule-breaking candidate, on an active base.
        assert parsed.get("violation") in (broken[0], None), label
        assert parsed["form"] == "ACT"
      else:
        assert parsed["violation"] == "none", label
  assert spray_load_attributes.schema_for("ALT-ATL_type_I") is None
  assert spray_load_attributes.schema_for("ctx_type_I") is None


def test_spray_load_ssm_errors_on_either_alternant_lose_the_alternant():
  schema = spray_load_attributes.schema_for("seq_type_I")
  assert schema.parse("NP-Loc Verb-Aff NP-Agent PP-Theme") == {
      "form": "ACT", "polarity": "Aff"}


@pytest.mark.parametrize("name", ["cos_en_seq_type_I", "od_it_seq_type_III"])
def test_cos_od_seq_cells_and_errors(name):
  cls, lang = name.split("_")[:2]
  schema = cos_od_attributes.schema_for(name)
  rule = cos_od_templates.seq_rules()[7]
  answer = cos_od_templates.seq_cells(rule)[-1]
  answers = cos_od_templates.seq_answer_patterns(cls, lang, rule)
  assert schema.parse(str(answers["CORRECT"])) == {
      "form": answer[0], "tail": answer[1], "violation": "none"}
  assert schema.parse(str(answers["E-INT"]))["violation"] == "E"
  assert ("SI" in schema.values["violation"]) == (lang == "it")
  assert cos_od_attributes.schema_for("cos_en_ctx_type_I") is None


def test_agreement_reads_slots():
  schema = agreement_attributes.schema_for("en_seq_type_I")
  assert schema.parse("Prefix NP-sg PP1-pl Coord2-sg RC VP-pl") == {
      "embedding": "compl", "subject": "sg", "n1": "pl", "n2": "sg",
      "verb": "pl", "second_noun": "coord"}
  assert schema.encode("NP-pl PP1-sg VP-pl")[3] == attributes.ABSENT
  plan = seq_templates.draw_plan(random.Random(3))
  for i, p in enumerate(plan.context_patterns("main")):
    emb, s, n1, n2 = plan.terms(i)
    got = schema.parse(str(p))
    assert (got["embedding"], got["subject"], got["n1"], got.get("n2")) == (
        emb, s, n1, n2)
  with pytest.raises(ValueError, match=r"pattern 'NP-sg PP1-sg VP-sg XP' "
                     r"cannot be read as agreement attributes \(unknown "
                     r"slot\(s\) \['XP'\]\)"):
    schema.parse("NP-sg PP1-sg VP-sg XP")


def test_schema_for_dataset_finds_family_modules():
  assert attributes.schema_for_dataset("blm_spray_load/seq_type_I").names == (
      "alternant", "form", "polarity", "violation")
  assert attributes.schema_for_dataset("blm_published/agreement_fr_type_I") \
      is None
  assert attributes.schema_for_dataset("blm_spray_load/ctx_type_I") is None


def _instance(i, patterns):
  sents = [Sentence(f"s{i}-{j}", p) for j, p in enumerate(patterns)]
  return BLMInstance(id=f"x{i}", family="toy", language="en",
                     lexical_type="I", subset="", context=tuple(sents[:1]),
                     answers=tuple(sents[1:]), correct=0,
                     labels=("CORRECT", "W"))


def test_sentence_table_carries_attributes():
  table = build_sentence_table([_instance(0, ["R S", "B", "R S"])],
                               attribute_schema=_toy_schema())
  assert table.attribute_names == ("colour", "size")
  np.testing.assert_array_equal(table.attributes, [[0, 0], [1, -1], [0, 0]])
  assert table.attributes_missing == ""
  assert table.select([0]).attributes.shape == (3, 2)


def test_sentence_table_without_patterns_says_so():
  table = build_sentence_table([_instance(0, ["", "", ""])],
                               attribute_schema=_toy_schema())
  assert table.attributes.shape == (3, 0) and table.attribute_names == ()
  assert "no pattern strings" in table.attributes_missing
  table = build_sentence_table([_instance(0, ["R S", "B", "B"])])
  assert "no attribute schema" in table.attributes_missing


def test_sentence_table_refuses_an_unreadable_pattern():
  with pytest.raises(ValueError, match="pattern 'Q' cannot be read as toy"):
    build_sentence_table([_instance(0, ["R S", "B", "Q"])],
                         attribute_schema=_toy_schema())


def test_input_pipeline_fills_attributes_from_the_dataset_name():
  from blm_jax.data import input_pipeline
  inst = BLMInstance(
      id="a", family="agreement_seq", language="en", lexical_type="I",
      subset="", context=(Sentence("c", "NP-sg PP1-sg VP-sg"),),
      answers=(Sentence("a", "NP-pl PP1-sg PP2-pl VP-pl"),
               Sentence("b", "NP-pl PP1-sg VP-sg")),
      correct=0, labels=("Corr", "WNA"))
  parts = {("I", split): [inst] for split in ("train", "dev", "test")}
  embed = lambda s: np.zeros((len(s), 4), np.float32)
  data = input_pipeline.from_parts(parts, embed,
                                   name="blm_agreement/en_seq_type_{}")
  assert data.table.attribute_names[:2] == ("embedding", "subject")
  assert data.train["I"].attributes.shape == (3, 6)
  own = input_pipeline.from_parts(parts, embed, name="blm_jsonl/mine")
  assert own.table.attributes.shape == (3, 0)
  assert "no attribute schema" in own.table.attributes_missing
