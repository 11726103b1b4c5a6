"""Loading BLM instances from any registered TFDS builder, without TensorFlow.

`load_instances('blm_spray_load/ALT-ATL_type_I', 'train')` builds the dataset
into `data_dir` on first use (array_record files) and reads it back through
`tfds.data_source`. Builders that read the official release need the folder
of release files as `manual_dir`.
"""

from __future__ import annotations

import contextlib
import glob
import io
import logging
import os
import sys
from typing import Sequence

from data_builders.common import schema

DEFAULT_DATA_DIR = os.environ.get(
    "BLM_DATA_DIR", os.path.expanduser("~/tensorflow_datasets"))


class _NotBuiltYet(logging.Filter):
  """Drops TFDS's warning that a dataset's folder has no dataset_info.json:
  on a first build (or after a killed one) that only means it is not built
  yet, which `prepare` says in its own line."""

  def filter(self, record):
    return not (str(record.msg).startswith("Variant folder ")
                and "dataset_info.json" in record.getMessage())


@contextlib.contextmanager
def _without_not_built_warnings():
  absl_logger, drop = logging.getLogger("absl"), _NotBuiltYet()
  absl_logger.addFilter(drop)
  try:
    yield
  finally:
    absl_logger.removeFilter(drop)


def builder(name: str, data_dir: str | None = None):
  """The TFDS builder for `name`. Every builder of the project is registered:
  importing this module imported `data_builders`, which registers them."""
  import tensorflow_datasets as tfds

  with _without_not_built_warnings():
    return tfds.builder(name, data_dir=data_dir or DEFAULT_DATA_DIR,
                        file_format="array_record")


def prepare(name: str, data_dir: str | None = None,
            manual_dir: str | None = None):
  """Builds `name` if it is not built yet; returns its builder."""
  import tensorflow_datasets as tfds

  b = builder(name, data_dir)
  with _without_not_built_warnings():
    prepared = b.is_prepared()
  if not prepared or manual_dir:
    # With a manual_dir even a prepared build is passed through
    # download_and_prepare: blm_published checks there that the build was
    # made from these release files (StaleBuildError when not).
    config = tfds.download.DownloadConfig(
        manual_dir=manual_dir) if manual_dir else None
    if not prepared:
      print(f"building dataset {name} into {b.data_dir} (once)",
            file=sys.stderr, flush=True)
    # TFDS prints its own lines ('Downloading and preparing dataset Unknown
    # size ...') to stdout: a build says what it does in the line above.
    with contextlib.redirect_stdout(io.StringIO()), \
        _without_not_built_warnings():
      b.download_and_prepare(download_config=config)
  return b


class CorruptDatasetError(ValueError):
  """A built dataset's record file cannot be read back."""


def _read_all(b, name: str, split: str):
  """Every record of one split; a damaged file is named, with how to
  rebuild it (the reader's own message names neither).

  A prepared split that cannot be read back or decoded is damage: flipped
  bytes fail the reader's checksums ('Corrupted Riegeli/records file'), a
  truncated file gives records TFDS cannot decode ('type NoneType is not
  supported').
  """
  try:
    source = b.as_data_source(split=split)
    return source.__getitems__(list(range(len(source))))
  except Exception as e:
    paths = sorted(glob.glob(os.path.join(
        b.data_dir, f"*-{split}.array_record*"))) or [b.data_dir]
    reason = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
    raise CorruptDatasetError(
        f"dataset {name!r}, split {split!r}: damaged record file "
        f"{', '.join(paths)} ({reason}); rebuild it: remove {b.data_dir} "
        "and rerun") from None


def load_instances(name: str, split: str, data_dir: str | None = None,
                   manual_dir: str | None = None) -> list[schema.BLMInstance]:
  """All instances of one split, sorted by id (records are shuffled on disk)."""
  b = prepare(name, data_dir, manual_dir)
  if split not in b.info.splits:
    raise ValueError(
        f"dataset {name!r} has no split {split!r}; it has "
        f"{sorted(b.info.splits)}")
  records = _read_all(b, name, split)
  instances = [schema.BLMInstance.from_example(r) for r in records]
  return sorted(instances, key=lambda x: x.id)


def split_names(name: str, data_dir: str | None = None,
                manual_dir: str | None = None) -> Sequence[str]:
  return sorted(prepare(name, data_dir, manual_dir).info.splits)
