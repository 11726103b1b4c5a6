"""conftest.py's xdist scheduling: a test file that defines a module-scoped
fixture is one work unit, run by one worker (split over two, each worker
built the fixture again); every other test is a unit of its own."""

import sys

from tests import ROOT

conftest = sys.modules["tests.conftest"]


def _unit(nodeid):
  return conftest.scheduling_unit(nodeid, ROOT)


def test_a_file_with_a_module_fixture_is_one_unit():
  for test in ("test_size_shape_labels_and_strict_lint[ALT-ATL_type_I]",
               "test_builder_configs"):
    assert _unit(f"tests/data_builders/test_blm_spray_load.py::{test}") == (
        "tests/data_builders/test_blm_spray_load.py")
  assert conftest.shares_a_module_fixture(
      f"{ROOT}/tests/training/test_multiprocess.py")


def test_any_other_test_is_alone():
  this = "tests/repo/test_xdist_groups.py::test_any_other_test_is_alone"
  assert _unit(this) == this
  assert not conftest.shares_a_module_fixture(f"{ROOT}/tests/no_such_file.py")


def test_the_suite_runs_with_this_scheduler(pytestconfig):
  # Under xdist the controller asks for it; `-n 0` has none to ask.
  class Log:
    loadscopesched = None
  before = pytestconfig.option.dist, pytestconfig.option.tx
  try:
    pytestconfig.option.dist, pytestconfig.option.tx = "load", ["popen"] * 2
    sched = conftest.pytest_xdist_make_scheduler(pytestconfig, Log())
    assert sched._split_scope(
        "tests/data_builders/test_cos_od_seq.py::test_x") == (
            "tests/data_builders/test_cos_od_seq.py")
    pytestconfig.option.dist = "loadfile"
    assert conftest.pytest_xdist_make_scheduler(pytestconfig, Log()) is None
  finally:
    pytestconfig.option.dist, pytestconfig.option.tx = before
