"""The release reader rejects damaged cells with file, line and column: a NUL
byte, an empty candidate, and a stray quote (named as an unbalanced quote
and located, not csv's "field larger than field limit")."""

import re

import pytest

from data_builders.blm_published import release_format as rf
from tests.release_fixtures import release_rows, write_release


def _error(path) -> str:
  with pytest.raises(rf.ReleaseFormatError) as info:
    rf.read_release(path)
  return str(info.value)


def _file(tmp_path, rows):
  return write_release(tmp_path / "agreement_en" / "type_II" / "data.tsv",
                       rows)


def test_nul_byte_inside_a_sentence(tmp_path):
  rows = release_rows(4)
  rows[2]["Sent_2"] = "The lamp\x00s near the hill glow ."
  path = _file(tmp_path, rows)
  assert _error(path) == (
      f"{path}, line 4, column 5 ('Sent_2'): NUL byte at character 9 of the "
      "cell (a damaged file: the release has no NUL bytes)")


def test_empty_candidate_cell(tmp_path):
  rows = release_rows(4)
  rows[1]["Answer_3"] = ""
  path = _file(tmp_path, rows)
  message = _error(path)
  assert re.fullmatch(
      re.escape(f"{path}, line 3, column ") + r"\d+ \('Answer_3'\): empty "
      r"candidate sentence", message), message


@pytest.mark.parametrize("rows", [5, 400])  # 400 rows: past csv's field limit
def test_stray_leading_quote_is_an_unbalanced_quote(tmp_path, rows):
  data = release_rows(rows)
  data[1]["Sent_3"] = '"The lamp near the hill glows .'
  path = _file(tmp_path, data)
  message = _error(path)
  assert "field larger than field limit" not in message
  assert message.startswith(f"{path}, line 3, column 8 ('Sent_3'): unbalanced "
                            "quote: the field starts with '\"'"), message
  assert "remove the quote" in message
