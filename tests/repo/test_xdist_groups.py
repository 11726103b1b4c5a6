"""conftest.py sends the tests of a module that share a module-scoped
fixture to one xdist worker (an `xdist_group` named after the file, run by
pyproject's `--dist loadgroup`): split over two workers, each built it."""

import os
import tomllib

import pytest

from tests import ROOT

_BUILT = []


@pytest.fixture(scope="module")
def built_once():
  _BUILT.append(1)
  return len(_BUILT)


def _group(request):
  marker = request.node.get_closest_marker("xdist_group")
  return marker and marker.args[0]


def test_a_test_of_a_module_fixture_is_grouped_by_its_file(request,
                                                            built_once):
  assert _group(request) == "tests/repo/test_xdist_groups.py"


def test_its_neighbour_shares_the_group_and_the_one_build(request,
                                                          built_once):
  assert _group(request) == "tests/repo/test_xdist_groups.py"
  assert built_once == 1


def test_a_test_without_one_is_left_free(request, tmp_path):
  # tmp_path rests on pytest's own session-scoped tmp_path_factory: a
  # plugin's fixture is not built by the module, and groups nothing.
  assert _group(request) is None


def test_the_suite_runs_under_loadgroup():
  # xdist's default `load` ignores the groups.
  with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
    addopts = tomllib.load(f)["tool"]["pytest"]["ini_options"]["addopts"]
  assert "--dist loadgroup" in addopts, addopts
