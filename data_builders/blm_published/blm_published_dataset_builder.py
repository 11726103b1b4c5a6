"""TFDS builder for the officially released BLM files (`blm_published`).

The files are not downloaded: point `manual_dir` at them. Named configs
follow the release layout `manual_dir/<dataset>/[<subset>/]<type>/`; the
`folder` config reads whatever single folder of release files `manual_dir`
is (any family with the release's column layout), guessing language, lexical
type and subset from its folder names.

Splits: the authors' `train`/`test` when the folder has train.tsv and
test.tsv, else a seeded, leak-free 90:10 split of its single file; plus
`full`: all.tsv, or the single file (TFDS reserves the name `all`, which would
mean train + test; a few published instances are in neither). Candidates are reordered per instance (the files put
the correct answer first); see `release_format` for this and the other
deliberate differences from the files as published.

Malformed files fail with one `ReleaseFormatError` naming file, line and
column, before anything is written. The build records the identity of the
release files it read (name, size, sha256, in `info.metadata`); preparing it
again with a `manual_dir` whose files differ raises `StaleBuildError` naming
the files that differ, instead of silently reusing the old build. `skip_bad_rows=True` (a builder kwarg:
`tfds.builder('blm_published/folder', skip_bad_rows=True)`) skips bad rows
instead; the skipped rows are logged and listed in `info.metadata`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os

from absl import logging
import tensorflow_datasets as tfds

from data_builders.blm_published import release_format
from data_builders.common import candidates, file_format, schema, splits

# Seeded 90:10 when a folder has no published train/test files.
SINGLE_FILE_FRACTIONS = {"train": 0.9, "test": 0.1}
# all.tsv (or the single file); `all` is reserved by TFDS for train + test.
FULL_SPLIT = "full"


@dataclasses.dataclass(eq=False)
class PublishedConfig(tfds.core.BuilderConfig):
  """One folder of release files.

  Attributes:
    folder: path below manual_dir ('' = manual_dir itself).
    authors_folder: the same data's folder in the authors' layout, read
      when `folder` is absent.
    family, language, lexical_type, subset: written on every instance; None
      infers (family from the labels, the rest from the folder names).
    seed: seeds the candidate order and the 90:10 split.
  """

  folder: str = ""
  authors_folder: str = ""
  family: str | None = None
  language: str | None = None
  lexical_type: str | None = None
  subset: str | None = None
  seed: int = 0


def _named_configs() -> list[PublishedConfig]:
  out = []
  for t in ("I", "II", "III"):
    out.append(PublishedConfig(
        name=f"agreement_fr_type_{t}", folder=f"agreement_fr/type_{t}",
        authors_folder=f"BLMagr4dev/type_{t}",
        family="agreement", language="fr", lexical_type=t, subset="",
        description=f"BLM-AgrF, French subject-verb agreement, type {t}."))
  for sub in ("ALT-ATL", "ATL-ALT"):
    for t in ("I", "II", "III"):
      out.append(PublishedConfig(
          name=f"spray_load_en_{sub}_type_{t}",
          folder=f"spray_load_en/{sub}/type_{t}",
          authors_folder=f"BLM-slE/{sub}/type_{t}", family="spray_load",
          language="en", lexical_type=t, subset=sub,
          description=f"BLM-s/lE, English spray/load, {sub}, type {t}."))
  out.append(PublishedConfig(
      name="folder", folder="",
      description="Whatever single folder of release files manual_dir is."))
  for t in ("I", "II", "III"):  # Your own release-format data, by type.
    out.append(PublishedConfig(
        name=f"type_{t}", folder=f"type_{t}", lexical_type=t,
        description=f"manual_dir/type_{t}: one folder of release files per "
        "lexical type (family, language and subset inferred)."))
  return out


# What to do when a data dir holds a build of other files (launch.py's flag
# first; the builder is also used from Python).
STALE_BUILD_ADVICE = (
    "Give this data its own data dir: --config.data.data_dir=<new folder> "
    "(launch.py) or --data_dir=<new folder> (lint, export), or $BLM_DATA_DIR; "
    "or rebuild this one from Python with DownloadConfig(manual_dir=..., "
    "download_mode=tfds.download.GenerateMode.FORCE_REDOWNLOAD).")


class StaleBuildError(ValueError):
  """A build in data_dir was made from other release files than manual_dir's."""


def files_identity(paths, root: str | None = None) -> dict[str, dict]:
  """{file name: {size, sha256}} of `paths`: what a build was made from;
  with `root`, names are paths below it (the authors' split files are all
  `data.tsv`)."""
  out = {}
  for path in sorted(paths):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
      for block in iter(lambda: f.read(1 << 20), b""):
        digest.update(block)
    name = (os.path.relpath(path, root) if root else os.path.basename(path))
    out[name] = {"size": os.path.getsize(path),
                                   "sha256": digest.hexdigest()}
  return out


def release_identity(folder: str) -> dict[str, dict]:
  """{file name: {size, sha256}} of the release files `folder` is read from."""
  return files_identity(release_format.release_files(folder).values(),
                        root=folder)


def identity_differences(old: dict, new: dict) -> list[str]:
  """One line per file that was added, removed or changed."""
  lines = []
  for name in sorted(set(old) | set(new)):
    if name not in new:
      lines.append(f"{name}: in the build, not in manual_dir")
    elif name not in old:
      lines.append(f"{name}: in manual_dir, not in the build")
    elif old[name] != new[name]:
      lines.append(f"{name}: built from {old[name]['size']} bytes sha256 "
                   f"{old[name]['sha256'][:12]}..., manual_dir has "
                   f"{new[name]['size']} bytes sha256 "
                   f"{new[name]['sha256'][:12]}...")
  return lines


class Builder(file_format.ArrayRecordWithoutTF):
  """The officially released BLM files, in the shared BLM schema."""

  VERSION = tfds.core.Version("1.0.0")
  RELEASE_NOTES = {"1.0.0": "Initial release reader."}
  BUILDER_CONFIGS = _named_configs()
  MANUAL_DOWNLOAD_INSTRUCTIONS = """
  Get the released BLM files from their authors (e.g. the public repository
  CLCL-Geneva/BLM-SNFDisentangling) and pass their folder as manual_dir:

    manual_dir/agreement_fr/type_{I,II,III}/{all,train,test}.tsv
    manual_dir/spray_load_en/{ALT-ATL,ATL-ALT}/type_{I,II,III}/{all,train,test}.tsv

  or the authors' folders as published (manual_dir = their `data/`):

    manual_dir/BLMagr4dev/type_{I,II,III}/type_i.csv (+ datasets/{train,test}/sentences/data.tsv)
    manual_dir/BLM-slE/{ALT-ATL,ATL-ALT}/type_{I,II,III}/<one .csv>

  The `folder` config reads manual_dir itself: one folder holding either
  train.tsv and test.tsv (and optionally all.tsv), the authors' split
  (datasets/{train,test}/sentences/data.tsv beside the type's whole file),
  or one single file. Every file is tab-separated, `.tsv` or `.csv`.
  The `type_I`, `type_II`, `type_III` configs read manual_dir/type_<t>/ (your
  own release-format data, one folder per lexical type).
  """

  def __init__(self, *, skip_bad_rows: bool = False, **kwargs):
    self.skip_bad_rows = skip_bad_rows
    super().__init__(**kwargs)

  def download_and_prepare(self, *, download_dir=None, download_config=None,
                           **kwargs):
    """TFDS's, after checking an existing build against manual_dir's files."""
    manual_dir = download_config and download_config.manual_dir
    mode = download_config and download_config.download_mode
    if (manual_dir and self.is_prepared()
        and mode != tfds.download.GenerateMode.FORCE_REDOWNLOAD):
      self.check_release(os.fspath(manual_dir))
    return super().download_and_prepare(
        download_dir=download_dir, download_config=download_config, **kwargs)

  def source_folder(self, manual_dir: str) -> str:
    """The config's folder below manual_dir: ours, else the authors'."""
    config = self.builder_config
    folder = os.path.join(manual_dir, config.folder)
    if not os.path.isdir(folder) and config.authors_folder:
      authors = os.path.join(manual_dir, config.authors_folder)
      if os.path.isdir(authors):
        return authors
    return folder

  def check_release(self, manual_dir: str) -> None:
    """Raises StaleBuildError when the build is not of manual_dir's files."""
    folder = self.source_folder(manual_dir)
    if not os.path.isdir(folder):
      return  # Nothing to compare: the build is what there is.
    built = dict(self.info.metadata.get("release_files") or {})
    new = release_identity(folder)
    differences = (identity_differences(built, new) if built else
                   ["the build records no release files (built before "
                    "release identities were recorded)"])
    if differences:
      raise StaleBuildError(
          f"{self.data_dir} was built from other release files than "
          f"{folder}:\n  " + "\n  ".join(differences) + "\n"
          + STALE_BUILD_ADVICE)

  def _info(self) -> tfds.core.DatasetInfo:
    return self.dataset_info_from_configs(
        features=schema.features(),
        supervised_keys=None,
        homepage="https://github.com/CLCL-Geneva/BLM-SNFDisentangling",
        metadata=tfds.core.MetadataDict(),
    )

  def _split_generators(self, dl_manager):
    config = self.builder_config
    folder = self.source_folder(os.fspath(dl_manager.manual_dir))
    if not os.path.isdir(folder):
      also = (f" (or manual_dir/{config.authors_folder}, the authors' "
              "layout)" if config.authors_folder else "")
      raise release_format.ReleaseFormatError(
          folder, None, None,
          f"missing: config {config.name!r} reads release files from "
          f"manual_dir/{config.folder}{also}.\n"
          f"{self.MANUAL_DOWNLOAD_INSTRUCTIONS}")
    info = release_format.source_info(folder)
    files = release_format.read_folder(
        folder,
        family=config.family,
        language=config.language,
        lexical_type=config.lexical_type,
        subset=config.subset,
        id_prefix=self._id_prefix(info),
        seed=config.seed,
        skip_bad_rows=self.skip_bad_rows,
    )
    self._report(files)
    self.info.metadata["release_files"] = release_identity(folder)
    if "train" in files:
      parts = {FULL_SPLIT if s == "all" else s: list(f.instances)
               for s, f in files.items()}
    else:
      (only,) = files.values()
      parts = splits.assign_splits(only.instances, config.seed,
                                   fractions=SINGLE_FILE_FRACTIONS)
      parts[FULL_SPLIT] = list(only.instances)
    return {name: self._generate_examples(items)
            for name, items in parts.items() if items}

  def _id_prefix(self, info: dict[str, str]) -> str:
    if self.builder_config.name != "folder":
      return self.builder_config.name + "/"
    parts = [info["subset"], info["lexical_type"] and
             f"type_{info['lexical_type']}"]
    return "/".join(p for p in parts if p) + "/" if any(parts) else ""

  def _report(self, files: dict[str, release_format.ReleaseFile]):
    """Logs and records skipped rows and ignored columns."""
    skipped = [str(e) for f in files.values() for e in f.skipped]
    notes = [n for f in files.values() for n in f.notes]
    for line in notes:
      logging.info("blm_published: %s", line)
    for f in files.values():  # Once per file.
      note = candidates.count_note(f.path, (len(x.answers)
                                            for x in f.instances))
      if note:
        logging.warning("blm_published: %s", note)
        notes.append(note)
    if skipped:
      logging.warning("blm_published/%s: skipped %d bad row(s):\n%s",
                      self.builder_config.name, len(skipped),
                      "\n".join(skipped))
    self.info.metadata["family"] = next(iter(files.values())).family
    self.info.metadata["skipped_rows"] = skipped
    self.info.metadata["notes"] = notes

  def _generate_examples(self, instances):
    for inst in instances:
      yield inst.id, inst.to_example()
