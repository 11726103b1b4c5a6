"""The diagnose command line: a ladder that cannot run stops with one line
and writes nothing (the ladder is tests/analysis/test_diagnose.py's)."""

import os

from absl import flags
import pytest

from blm_jax.cli import diagnose as diagnose_cli
from tests import ROOT


def _flags(argv):
  fv = flags.FlagValues()
  diagnose_cli.define_flags(fv)
  fv(["prog", *argv])
  return fv


def test_an_unknown_lexical_type_is_one_line_and_writes_nothing(tmp_path):
  config = os.path.join(ROOT, "configs", "ffnn.py")
  out = tmp_path / "out"
  with pytest.raises(SystemExit) as e:
    diagnose_cli.run(_flags([f"--config={config}:dataset=spray_load_seq,cpu",
                             "--lexical_type=IV", f"--out={out}"]))
  assert str(e.value) == ("error: --lexical_type='IV': config.data has "
                          "types ['I', 'II', 'III']")
  assert not out.exists()


def test_no_config_names_the_flag():
  with pytest.raises(SystemExit, match=r"^error: give --config=configs/"):
    diagnose_cli.run(_flags([]))
