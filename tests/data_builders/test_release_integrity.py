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


# -- A build remembers which release files it was made from ------------------


@pytest.mark.slow
def test_a_second_release_in_the_same_data_dir_is_not_silently_ignored(
    tmp_path):
  import tensorflow_datasets as tfds

  from data_builders.common import loading as data
  from data_builders.blm_published import blm_published_dataset_builder as bp

  first, second = tmp_path / "first", tmp_path / "second"
  write_release(first / "blm.tsv", release_rows(90))
  write_release(second / "blm.tsv", release_rows(30, start=100))
  data_dir = str(tmp_path / "data")
  name = "blm_published/folder"
  assert len(data.load_instances(name, "test", data_dir, str(first))) == 9
  # The same files again (even copied elsewhere): the build is reused.
  copy = tmp_path / "copy"
  copy.mkdir()
  (copy / "blm.tsv").write_bytes((first / "blm.tsv").read_bytes())
  assert len(data.load_instances(name, "test", data_dir, str(copy))) == 9

  with pytest.raises(bp.StaleBuildError) as info:
    data.load_instances(name, "test", data_dir, str(second))
  message = str(info.value)
  assert f"was built from other release files than {second}" in message
  assert re.search(r"blm\.tsv: built from \d+ bytes sha256 [0-9a-f]{12}\.\.\., "
                   r"manual_dir has \d+ bytes sha256", message), message
  assert "FORCE_REDOWNLOAD" in message
  assert "--config.data.data_dir=<new folder>" in message

  # The way out the message names rebuilds from the second release.
  b = data.builder(name, data_dir)
  b.download_and_prepare(download_config=tfds.download.DownloadConfig(
      manual_dir=str(second),
      download_mode=tfds.download.GenerateMode.FORCE_REDOWNLOAD))
  test = data.load_instances(name, "test", data_dir, str(second))
  assert len(test) == 3
  assert data.builder(name, data_dir).info.metadata["release_files"][
      "blm.tsv"]["size"] == (second / "blm.tsv").stat().st_size
