"""The project's builders write array_record when TensorFlow is absent.

TFDS defaults to tfrecord files, whose writer needs TensorFlow: without
this, `tfds.builder('blm_spray_load/ALT-ATL_type_I').download_and_prepare()`
fails with "No module named 'tensorflow'" unless every caller remembers
`file_format="array_record"`. array_record files are read back with
`tfds.data_source` (or `data_builders.common.loading.load_instances`), which needs no
TensorFlow. An explicit `file_format=` still wins.
"""

from __future__ import annotations

import importlib.util

import tensorflow_datasets as tfds


def default_file_format() -> str | None:
  """'array_record' without TensorFlow; None (TFDS's default) with it."""
  return None if importlib.util.find_spec("tensorflow") else "array_record"


class ArrayRecordWithoutTF(tfds.core.GeneratorBasedBuilder, skip_registration=True):
  """Mixin base: `file_format` defaults to `default_file_format()`."""

  def __init__(self, *, file_format=None, **kwargs):
    super().__init__(file_format=file_format or default_file_format(),
                     **kwargs)
