"""The blm_published builder on small release files written by the tests."""

import pytest
import tensorflow_datasets as tfds

import data_builders  # noqa: F401  Registers blm_published.
from data_builders.blm_published import release_format
from data_builders.common import loading as data, schema
from tests.release_fixtures import release_rows, write_release


def _build(name, data_dir, manual_dir, **kwargs):
  b = tfds.builder(name, data_dir=str(data_dir), file_format="array_record",
                   **kwargs)
  b.download_and_prepare(download_config=tfds.download.DownloadConfig(
      manual_dir=str(manual_dir)))
  return b


def _read(name, data_dir):
  """Every split through tfds.data_source, as BLMInstances."""
  sources = tfds.data_source(name, data_dir=str(data_dir))
  out = {}
  for split, source in sources.items():
    records = source.__getitems__(list(range(len(source))))
    out[split] = [schema.BLMInstance.from_example(r) for r in records]
  return out


@pytest.mark.slow
def test_folder_with_a_single_file_is_split_90_10(tmp_path):
  folder = tmp_path / "release" / "agreement_it" / "type_III"
  write_release(folder / "blm.tsv", release_rows(60))
  b = _build("blm_published/folder", tmp_path / "data", folder)
  assert {k: v.num_examples for k, v in b.info.splits.items()} == {
      "train": 54, "test": 6, "full": 60}
  splits = _read("blm_published/folder", tmp_path / "data")
  ids = {k: {x.id for x in v} for k, v in splits.items()}
  assert not ids["train"] & ids["test"]
  assert ids["train"] | ids["test"] == ids["full"]
  x = splits["full"][0]
  assert (x.family, x.language, x.lexical_type) == ("agreement", "it", "III")
  assert x.id.startswith("type_III/")
  assert {y.correct for y in splits["full"]} == {0, 1, 2, 3}
  assert all(y.labels[y.correct] == "Corr" for y in splits["full"])

  # Deterministic: a second build elsewhere gives the same split.
  _build("blm_published/folder", tmp_path / "data2", folder)
  again = _read("blm_published/folder", tmp_path / "data2")
  assert {x.id for x in again["test"]} == ids["test"]


@pytest.mark.slow
def test_published_train_test_files_are_the_splits(tmp_path):
  rows = release_rows(12)
  folder = tmp_path / "release" / "agreement_fr" / "type_I"
  write_release(folder / "all.tsv", rows)
  write_release(folder / "train.tsv", rows[:9])
  write_release(folder / "test.tsv", rows[9:11])  # Row 11 is in neither.
  b = _build("blm_published/agreement_fr_type_I", tmp_path / "data",
             tmp_path / "release")
  assert {k: v.num_examples for k, v in b.info.splits.items()} == {
      "train": 9, "test": 2, "full": 12}
  splits = _read("blm_published/agreement_fr_type_I", tmp_path / "data")
  assert sorted(x.id for x in splits["test"]) == [
      "agreement_fr_type_I/00009", "agreement_fr_type_I/00010"]
  x = splits["train"][0]
  assert (x.family, x.language, x.lexical_type, x.subset) == (
      "agreement", "fr", "I", "")
  # Read through the project's loader too (sorted by id).
  loaded = data.load_instances("blm_published/agreement_fr_type_I", "full",
                               str(tmp_path / "data"))
  assert [y.id for y in loaded] == sorted(y.id for y in splits["full"])


@pytest.mark.slow
def test_bad_file_fails_with_a_located_error_and_writes_nothing(tmp_path):
  rows = release_rows(10)
  rows[6]["Answer_value_2"] = "yes"
  folder = tmp_path / "release"
  path = write_release(folder / "blm.tsv", rows)
  with pytest.raises(release_format.ReleaseFormatError,
                     match=r"blm.tsv, line 8, column 17 \('Answer_value_2'\): "
                     r"answer value 'yes' is neither True nor False"):
    _build("blm_published/folder", tmp_path / "data", folder)
  b = tfds.builder("blm_published/folder", data_dir=str(tmp_path / "data"))
  assert not b.is_prepared()
  assert not list((tmp_path / "data").rglob("dataset_info.json"))
  assert not list((tmp_path / "data").rglob("*array_record*"))

  # Once the file is fixed, the build works in the same data_dir.
  write_release(path, release_rows(10))
  b = _build("blm_published/folder", tmp_path / "data", folder)
  assert b.is_prepared() and b.info.splits["full"].num_examples == 10


@pytest.mark.slow
def test_skip_bad_rows_builds_the_rest_and_records_the_skipped(tmp_path):
  rows = release_rows(10)
  rows[2]["Answer_value_1"] = "False"
  rows[5]["Answer_chunks_4"] = "['unclosed"
  folder = tmp_path / "release"
  write_release(folder / "blm.tsv", rows)
  b = _build("blm_published/folder", tmp_path / "data", folder,
             skip_bad_rows=True)
  assert b.info.splits["full"].num_examples == 8
  skipped = tfds.builder("blm_published/folder",
                         data_dir=str(tmp_path / "data")).info.metadata[
                             "skipped_rows"]
  assert len(skipped) == 2
  assert "line 4, column 12 ('Answer_value_1')" in skipped[0]
  assert "line 7, column 30 ('Answer_chunks_4')" in skipped[1]


@pytest.mark.slow
def test_missing_release_folder_names_the_expected_path(tmp_path):
  (tmp_path / "release").mkdir()
  (tmp_path / "release" / "unrelated.txt").write_text("x")
  with pytest.raises(release_format.ReleaseFormatError,
                     match=r"spray_load_en/ATL-ALT/type_II: missing: config "
                     r"'spray_load_en_ATL-ALT_type_II' reads release files "
                     r"from manual_dir/spray_load_en/ATL-ALT/type_II"):
    _build("blm_published/spray_load_en_ATL-ALT_type_II", tmp_path / "data",
           tmp_path / "release")


def test_config_names():
  names = [c.name for c in tfds.builder_cls("blm_published").BUILDER_CONFIGS]
  assert names == [
      "agreement_fr_type_I", "agreement_fr_type_II", "agreement_fr_type_III",
      "spray_load_en_ALT-ATL_type_I", "spray_load_en_ALT-ATL_type_II",
      "spray_load_en_ALT-ATL_type_III", "spray_load_en_ATL-ALT_type_I",
      "spray_load_en_ATL-ALT_type_II", "spray_load_en_ATL-ALT_type_III",
      "folder", "type_I", "type_II", "type_III"]
