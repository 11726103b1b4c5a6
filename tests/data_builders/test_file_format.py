"""Without TensorFlow the project's builders write array_record by default,
so plain `tfds.builder(...).download_and_prepare()` works as the README shows."""

import importlib.util

import pytest
import tensorflow_datasets as tfds

import data_builders  # noqa: F401  Registers the builders.
from data_builders.common import file_format, loading as data, schema
from tests.release_fixtures import release_rows, write_release

NO_TF = importlib.util.find_spec("tensorflow") is None


@pytest.mark.skipif(not NO_TF, reason="TensorFlow is installed: TFDS's "
                    "default (tfrecord) is kept")
@pytest.mark.parametrize("name", [
    "blm_spray_load/ALT-ATL_type_I", "blm_cos_od/cos_en_type_I",
    "blm_agreement/fr_mixed_type_I", "blm_chunks/agreement_en",
    "blm_published/folder"])
def test_default_file_format_is_array_record(tmp_path, name):
  b = tfds.builder(name, data_dir=str(tmp_path))
  assert b.info.file_format == tfds.core.FileFormat.ARRAY_RECORD
  assert file_format.default_file_format() == "array_record"


def test_an_explicit_file_format_wins(tmp_path):
  b = tfds.builder("blm_published/folder", data_dir=str(tmp_path),
                   file_format="tfrecord")
  assert b.info.file_format == tfds.core.FileFormat.TFRECORD


@pytest.mark.slow
def test_plain_tfds_calls_build_and_read_without_tensorflow(tmp_path):
  release = tmp_path / "release"
  write_release(release / "blm.tsv", release_rows(20))
  b = tfds.builder("blm_published/folder", data_dir=str(tmp_path / "d"))
  b.download_and_prepare(download_config=tfds.download.DownloadConfig(
      manual_dir=str(release)))
  source = tfds.data_source("blm_published/folder",
                            data_dir=str(tmp_path / "d"), split="full")
  x = schema.BLMInstance.from_example(source[0])
  assert x.family == "agreement" and len(source) == 20
  # The documented helper reads the same build.
  same = data.load_instances("blm_published/folder", "full",
                             str(tmp_path / "d"), str(release))
  assert sorted(y.id for y in same) == sorted(
      schema.BLMInstance.from_example(r).id
      for r in source.__getitems__(list(range(20))))
