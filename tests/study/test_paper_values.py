"""Every paper value is printed on the line it cites."""

import os

import pytest

from blm_jax.study import paper_values
from tests import ROOT

PAPERS = next((p for p in (os.path.join(ROOT, "..", "shared", "papers"),
                           "/work/shared/papers") if os.path.isdir(p)), None)


@pytest.mark.skipif(PAPERS is None, reason="papers not here")
def test_each_value_is_on_its_line():
  lines = {k: open(os.path.join(PAPERS, f), encoding="utf-8").read()
           .splitlines() for k, f in paper_values.PAPER_FILES.items()}
  for v in paper_values.ALL:
    line = lines[v.paper][v.line - 1]
    assert v.text in line, (v, line)
  for q in paper_values.PROBING + paper_values.TRAINING_SIZE_QUOTES:
    assert q.text in lines[q.paper][q.line - 1], q


def test_table4_by_dataset():
  assert paper_values.table4("agreement_en") == {"I": 256, "II": 4780,
                                                 "III": 4700}
  assert paper_values.table4("spray_load") == {"I": 230, "II": 1500,
                                               "III": 1500}
  assert paper_values.table4("roll") == {}


def test_spray_load_drop_is_higher_than_the_settings_about_0_1():
  """001: "about 0.1 ... for all settings", then "For the verb
  alternation the drop is higher": spray/load's entry says so."""
  (v,) = [v for v in paper_values.TRAINING_SIZE if v.key == "spray_load"]
  assert v.text == "the drop is higher" and "higher than" in v.quantity
  (agr,) = [v for v in paper_values.TRAINING_SIZE
            if v.key == "agreement_fr"]
  assert agr.value == 0.04 and agr.text == "(0.04)"
