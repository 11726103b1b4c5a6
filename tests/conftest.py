"""The suite never writes to the home folder: data and embedding caches go
to $BLM_DATA_DIR / $BLM_EMBED_CACHE when set, else to a temporary folder of
this session; a test run that creates ~/tensorflow_datasets or
~/.cache/blm_jax fails, naming it.

Many tests compile the same programs (a grid's epoch, a solver's forward):
JAX's persistent compilation cache, in a temporary folder of this session,
compiles each once (tests/training/test_train.py: 282 s -> 113 s, measured
in one run), and XLA compiles them at optimisation level 0. The suite runs
on every core (pytest-xdist, pyproject's addopts); the workers inherit
these variables from the controlling process, so they share its scratch
and cache folders."""

import functools
import os
import re
import shutil
import tempfile

import pytest

_HOME_OUTPUTS = [os.path.expanduser(p) for p in
                 ("~/tensorflow_datasets", "~/.cache/blm_jax")]
_EXISTED = {p: os.path.lexists(p) for p in _HOME_OUTPUTS}
_SCRATCH = None
if not (os.environ.get("BLM_DATA_DIR") and os.environ.get("BLM_EMBED_CACHE")):
  _SCRATCH = tempfile.mkdtemp(prefix="blm_jax_tests_")
  os.environ.setdefault("BLM_DATA_DIR", os.path.join(_SCRATCH, "tfds"))
  os.environ.setdefault("BLM_EMBED_CACHE", os.path.join(_SCRATCH, "cache"))
_JAX_CACHE = None
if not os.environ.get("JAX_COMPILATION_CACHE_DIR"):
  _JAX_CACHE = tempfile.mkdtemp(prefix="blm_jax_tests_xla_")
  os.environ["JAX_COMPILATION_CACHE_DIR"] = _JAX_CACHE
  os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0.2")
# The suite's programs are small and compiled once or twice each: XLA's
# backend at optimisation level 0 compiles them faster than it loses in
# running them (tests/models/test_attribute_bottleneck.py's three slowest:
# 38.9 -> 28.2 s of CPU, measured). Subprocesses inherit it.
if "xla_backend_optimization_level" not in os.environ.get("XLA_FLAGS", ""):
  os.environ["XLA_FLAGS"] = " ".join(filter(None, [
      os.environ.get("XLA_FLAGS", ""), "--xla_backend_optimization_level=0"]))
# TFDS's own default, for code that calls it without a data_dir.
os.environ.setdefault("TFDS_DATA_DIR", os.environ["BLM_DATA_DIR"])


def pytest_sessionfinish(session, exitstatus):
  made = [p for p in _HOME_OUTPUTS if os.path.lexists(p) and not _EXISTED[p]]
  for scratch in (_SCRATCH, _JAX_CACHE):
    if scratch:
      shutil.rmtree(scratch, ignore_errors=True)
  if made:
    print(f"\nerror: the tests wrote to the home folder: {', '.join(made)} "
          "(they must honour BLM_DATA_DIR / BLM_EMBED_CACHE)")
    session.exitstatus = 1


@pytest.fixture
def saved_figures(monkeypatch):
  """Every matplotlib figure saved during the test, for inspection."""
  from matplotlib.figure import Figure
  made, save = [], Figure.savefig

  def saving(fig, *args, **kwargs):
    made.append(fig)
    return save(fig, *args, **kwargs)

  monkeypatch.setattr(Figure, "savefig", saving)
  return made


_MODULE_FIXTURE = re.compile(r"""scope=["'](module|package|session)["']""")


@functools.lru_cache(maxsize=None)
def shares_a_module_fixture(path: str) -> bool:
  """Whether the test file defines a fixture built once per module (or
  package, session): a generated dataset, a trained grid."""
  try:
    with open(path, encoding="utf-8") as f:
      return bool(_MODULE_FIXTURE.search(f.read()))
  except OSError:
    return False


def scheduling_unit(nodeid: str, root: str) -> str:
  """The xdist work unit of a test: its file when the file shares a
  module-scoped fixture, else the test alone."""
  path = nodeid.split("::", 1)[0]
  return path if shares_a_module_fixture(os.path.join(root, path)) else nodeid


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
  """xdist's default `load` hands out single tests, so a module's tests
  went to both workers and each built the module's fixture again (a
  data_builders module's generated configs, a training module's grid):
  here a file with such a fixture is one unit, run by one worker, and
  every other test is a unit of its own. (`--dist loadgroup` would need
  markers that xdist 3.8 cannot apply under pytest 9.) An explicit
  `--dist` other than load keeps xdist's own."""
  if config.getvalue("dist") != "load":
    return None
  from xdist.scheduler import LoadScopeScheduling

  root = str(config.rootpath)

  class ModuleFixtureScheduling(LoadScopeScheduling):

    def _split_scope(self, nodeid):
      return scheduling_unit(nodeid, root)

  return ModuleFixtureScheduling(config, log)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
  """A full-size scan is slow too: `-m "not slow"` replaces pyproject's
  `-m 'not full_scan'`, and must still leave the scans out."""
  for item in items:
    if item.get_closest_marker("full_scan"):
      item.add_marker(pytest.mark.slow)
