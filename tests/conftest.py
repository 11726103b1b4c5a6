"""The suite never writes to the home folder: data and embedding caches go
to $BLM_DATA_DIR / $BLM_EMBED_CACHE when set, else to a temporary folder of
this session; a test run that creates ~/tensorflow_datasets or
~/.cache/blm_jax fails, naming it."""

import os
import shutil
import tempfile

_HOME_OUTPUTS = [os.path.expanduser(p) for p in
                 ("~/tensorflow_datasets", "~/.cache/blm_jax")]
_EXISTED = {p: os.path.lexists(p) for p in _HOME_OUTPUTS}
_SCRATCH = None
if not (os.environ.get("BLM_DATA_DIR") and os.environ.get("BLM_EMBED_CACHE")):
  _SCRATCH = tempfile.mkdtemp(prefix="blm_jax_tests_")
  os.environ.setdefault("BLM_DATA_DIR", os.path.join(_SCRATCH, "tfds"))
  os.environ.setdefault("BLM_EMBED_CACHE", os.path.join(_SCRATCH, "cache"))
# TFDS's own default, for code that calls it without a data_dir.
os.environ.setdefault("TFDS_DATA_DIR", os.environ["BLM_DATA_DIR"])


def pytest_sessionfinish(session, exitstatus):
  made = [p for p in _HOME_OUTPUTS if os.path.lexists(p) and not _EXISTED[p]]
  if _SCRATCH:
    shutil.rmtree(_SCRATCH, ignore_errors=True)
  if made:
    print(f"\nerror: the tests wrote to the home folder: {', '.join(made)} "
          "(they must honour BLM_DATA_DIR / BLM_EMBED_CACHE)")
    session.exitstatus = 1
