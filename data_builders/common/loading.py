"""Loading BLM instances from any registered TFDS builder, without TensorFlow.

`load_instances('blm_spray_load/ALT-ATL_type_I', 'train')` builds the dataset
into `data_dir` on first use (array_record files) and reads it back through
`tfds.data_source`. Builders that read the official release need the folder
of release files as `manual_dir`.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import io
import logging
import os
import sys
from typing import Sequence

from data_builders.common import records, safe_io, schema

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


def version(name: str) -> str | None:
  """The version a build of `name` has now (its builder's VERSION), or None
  when `name` does not name a registered builder."""
  import tensorflow_datasets as tfds

  try:
    return str(builder(name).version)
  except (tfds.core.registered.DatasetNotFoundError, ValueError):
    return None


def _made_by(b, data_dir: str) -> tuple[list[str], set[str]]:
  """The folders and files a build of `b` may make, deepest first, and
  those that are this build's alone (its version and config folders)."""
  version = os.path.abspath(b.data_dir)
  root = os.path.abspath(data_dir)
  chain, p = [], version
  while p.startswith(root + os.sep):
    chain.append(p)
    p = os.path.dirname(p)
  builder_dir = chain[-1] if chain else version
  extra = [os.path.join(builder_dir, ".config", "metadata.json"),
           os.path.join(builder_dir, ".config"),
           os.path.join(root, "downloads", "extracted"),
           os.path.join(root, "downloads")]
  return chain[:-1] + extra + chain[-1:] + [root], set(chain[:-1])


def _remove_new(paths: list[str], existed: set[str], ours: set[str]) -> None:
  """Removes what a failed build made: its own folders (`ours`, under the
  build lock) whole, shared ones only where they are empty."""
  import shutil

  for p in paths:
    if p in existed or not os.path.lexists(p):
      continue
    try:
      if p in ours:
        shutil.rmtree(p)
      elif os.path.isdir(p) and not os.path.islink(p):
        os.rmdir(p)  # Only if empty: another build may be using it.
      else:
        os.remove(p)
    except OSError:
      pass


@contextlib.contextmanager
def _build_lock(name: str, data_dir: str):
  """One build of `name` in `data_dir` at a time: a second process waits
  for the first (and then finds the dataset built)."""
  import fcntl

  os.makedirs(data_dir, exist_ok=True)
  path = os.path.join(data_dir, "." + name.replace("/", "--") + ".build-lock")
  fd = safe_io.open_unlinked(path)  # Never through a link: OSError.
  try:
    try:
      fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
      print(f"waiting for another process building dataset {name} into "
            f"{data_dir}", file=sys.stderr, flush=True)
      fcntl.flock(fd, fcntl.LOCK_EX)
    yield path
  finally:
    os.close(fd)


class ManualDirError(ValueError):
  """A builder that reads release files was given no usable manual_dir."""


def _no_space(e: BaseException) -> bool:
  return (isinstance(e, OSError) and e.errno == errno.ENOSPC) or (
      "No space left on device" in str(e))


def prepare(name: str, data_dir: str | None = None,
            manual_dir: str | None = None):
  """Builds `name` if it is not built yet; returns its builder.

  Two processes building one dataset: the second waits for the first. A
  build that fails leaves nothing behind it made (its folders, TFDS's
  `.config`), and a full disk is an OSError naming the build's folder.
  """
  import tensorflow_datasets as tfds

  data_dir = data_dir or DEFAULT_DATA_DIR
  b = builder(name, data_dir)
  with _without_not_built_warnings():
    prepared = b.is_prepared()
  if prepared and not manual_dir:
    return b
  root_existed = os.path.isdir(data_dir)
  made_top = os.path.abspath(data_dir)  # The highest folder a build makes.
  while not os.path.isdir(os.path.dirname(made_top)):
    made_top = os.path.dirname(made_top)
  with _build_lock(name, data_dir) as lock:
    b = builder(name, data_dir)  # Another process may have built it.
    with _without_not_built_warnings():
      prepared = b.is_prepared()
    if prepared and not manual_dir:
      return b
    # With a manual_dir even a prepared build is passed through
    # download_and_prepare: blm_published checks there that the build was
    # made from these release files (StaleBuildError when not).
    config = tfds.download.DownloadConfig(
        manual_dir=manual_dir) if manual_dir else None
    if not prepared:
      print(f"building dataset {name} into {b.data_dir} (once)",
            file=sys.stderr, flush=True)
    paths, ours = _made_by(b, data_dir)
    existed = {p for p in paths if os.path.lexists(p)}
    if not root_existed:
      existed.discard(os.path.abspath(data_dir))
    # TFDS prints its own lines ('Downloading and preparing dataset Unknown
    # size ...') to stdout: a build says what it does in the line above.
    try:
      with contextlib.redirect_stdout(io.StringIO()), \
          _without_not_built_warnings():
        b.download_and_prepare(download_config=config)
    except BaseException as e:
      if not prepared:
        if not root_existed:
          os.remove(lock)
        _remove_new(paths, existed, ours)
        p = os.path.dirname(os.path.abspath(data_dir))
        while not root_existed and p.startswith(made_top) and (
            os.path.isdir(p) and not os.listdir(p)):
          os.rmdir(p)
          p = os.path.dirname(p)
      if _no_space(e):
        raise OSError(errno.ENOSPC, "No space left on device (building "
                      f"dataset {name}; nothing of it was kept)",
                      b.data_dir) from None
      first = (str(e).strip().splitlines() or [""])[0]
      if isinstance(e, AssertionError) and first.startswith(
          "Manual directory"):  # TFDS's, with the instructions under it.
        raise ManualDirError(
            f"dataset {name}: {first.partition('. Create it')[0]}; it must "
            "hold the released BLM files (config.data.manual_dir, "
            "--manual_dir)") from None
      raise
  return b


class CorruptDatasetError(ValueError):
  """A built dataset's record file cannot be read back."""


def _read_all(b, name: str, split: str, convert=records.parse):
  """Every record of one split (`convert(bytes)` when the dataset has the
  BLM schema, else TFDS's decoding); a damaged file is named, with how to
  rebuild it (the reader's own message names neither).

  A prepared split that cannot be read back or decoded is damage: flipped
  bytes fail the reader's checksums ('Corrupted Riegeli/records file'), a
  truncated file gives records TFDS cannot decode ('type NoneType is not
  supported').
  """
  try:
    if records.is_blm_schema(b.info.features):  # Parsed directly.
      from tensorflow_datasets.core import decode
      source = b.as_data_source(
          split=split, deserialize_method=decode.DeserializeMethod.RAW_BYTES)
      return [convert(r)
              for r in source.__getitems__(list(range(len(source))))]
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
  instances = [r if isinstance(r, schema.BLMInstance)
               else schema.BLMInstance.from_example(r)
               for r in _read_all(b, name, split, records.instance)]
  return sorted(instances, key=lambda x: x.id)


def split_names(name: str, data_dir: str | None = None,
                manual_dir: str | None = None) -> Sequence[str]:
  return sorted(prepare(name, data_dir, manual_dir).info.splits)
