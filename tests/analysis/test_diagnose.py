"""The one-design diagnosis ladder's errors on bad input (the probes
themselves are tests/analysis/test_attribute_probes.py's; the ladder end
to end is tests/study/test_diagnose_suite.py's)."""

import pytest

from blm_jax.analysis import diagnose


def test_layers_flag():
  assert diagnose.parse_layers("all", 6) == tuple(range(7))
  assert diagnose.parse_layers("0,-1", 6) == (0, 6)
  with pytest.raises(diagnose.LadderError, match=r"^--layers='9': layer\(s\) "
                     r"\[9\] out of range; the encoder has hidden states "
                     r"0\.\.6"):
    diagnose.parse_layers("9", 6)
  with pytest.raises(diagnose.LadderError, match=r"^--layers='': name 'all'"):
    diagnose.parse_layers("", 6)


def test_unknown_lexical_type_is_one_line(tmp_path):
  from configs import ffnn

  config = ffnn.get_config("dataset=spray_load_seq,cpu")
  with pytest.raises(diagnose.LadderError, match=r"^--lexical_type='IV': "
                     r"config.data has types \['I', 'II', 'III'\]"):
    diagnose.diagnose(config, "IV", "all", str(tmp_path))
