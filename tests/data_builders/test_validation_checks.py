"""The per-package linguistic checks' interface (data_builders/common/validation.py)."""

import pytest

from data_builders.common import validation
from data_builders.common.schema import BLMInstance, Sentence


def _instance(texts):
  return BLMInstance(
      id="x-1", family="f", language="en", lexical_type="I", subset="",
      context=tuple(Sentence(t) for t in texts[:-2]),
      answers=tuple(Sentence(t) for t in texts[-2:]), correct=0,
      labels=("Correct", "W"))


def test_findings_names_only_the_checks_that_fail():
  repeat = validation.Check(
      "no_repeat", "no context sentence twice",
      lambda x: [f"context {i}: repeated" for i, s in enumerate(x.context)
                 if [c.text for c in x.context].count(s.text) > 1][:1])
  ok = _instance(["a", "b", "c", "d"])
  bad = _instance(["a", "a", "c", "d"])
  assert validation.findings([repeat], ok) == {}
  assert validation.findings([repeat], bad) == {
      "no_repeat": ["context 0: repeated"]}


def test_check_name_must_be_snake_case():
  with pytest.raises(ValueError, match="snake_case"):
    validation.Check("No Repeat", "", lambda x: [])


def test_packages_without_checks_give_none():
  assert validation.checks_for("blm_jsonl") == ()
  assert validation.checks_for("no_such_package") == ()
  assert validation.checks_for("../etc") == ()
