"""TFDS builder for your own BLM instances in JSON lines (`blm_jsonl`).

The files are not downloaded: point `manual_dir` at them (format:
`own_format`). The `folder` config reads manual_dir itself; `type_I`,
`type_II`, `type_III` read manual_dir/type_<t>/ (one folder per lexical
type, so a grid trains on one type and tests on another). A folder holds
train.jsonl and test.jsonl (and optionally dev.jsonl), or one single .jsonl
file, split 90:10 by a seeded draw that keeps instances sharing a context
in one split.

As for the release reader, the build records the identity (size, sha256)
of the files it read, and preparing it again from other files refuses with
`StaleBuildError` instead of silently reusing the old build. A bad line
fails with one `OwnFormatError` naming the file, line and field, before
anything is written.
"""

from __future__ import annotations

import dataclasses
import os

from absl import logging
import tensorflow_datasets as tfds

from data_builders.blm_jsonl import own_format
from data_builders.blm_published import blm_published_dataset_builder as published
from data_builders.common import candidates, file_format, schema, splits

SPLIT_FILES = ("train", "dev", "test")
SINGLE_FILE_FRACTIONS = published.SINGLE_FILE_FRACTIONS


@dataclasses.dataclass(eq=False)
class JsonlConfig(tfds.core.BuilderConfig):
  """One folder of .jsonl files below manual_dir ('' = manual_dir)."""

  folder: str = ""
  lexical_type: str = ""
  seed: int = 0


def jsonl_files(folder: str) -> dict[str, str]:
  """{split or '': path}: the split files, or the folder's single file."""
  named = {s: os.path.join(folder, f"{s}.jsonl") for s in SPLIT_FILES}
  named = {s: p for s, p in named.items() if os.path.isfile(p)}
  if named:
    if not {"train", "test"} <= set(named):
      raise own_format.OwnFormatError(
          f"{folder}: has {', '.join(sorted(os.path.basename(p) for p in named.values()))}"
          "; a folder holds train.jsonl and test.jsonl (dev.jsonl optional), "
          "or one single .jsonl file")
    return named
  single = sorted(n for n in os.listdir(folder) if n.endswith(".jsonl"))
  if len(single) != 1:
    raise own_format.OwnFormatError(
        f"{folder}: {len(single)} .jsonl files ({', '.join(single[:5])}); a "
        "folder holds train.jsonl and test.jsonl, or one single .jsonl file")
  return {"": os.path.join(folder, single[0])}


class Builder(file_format.ArrayRecordWithoutTF):
  """Your own BLM instances, in the shared BLM schema."""

  VERSION = tfds.core.Version("1.0.0")
  RELEASE_NOTES = {"1.0.0": "Own-data reader: JSON lines, one instance each."}
  BUILDER_CONFIGS = [JsonlConfig(name="folder", description="manual_dir "
                                 "itself: one folder of .jsonl files.")] + [
      JsonlConfig(name=f"type_{t}", folder=f"type_{t}", lexical_type=t,
                  description=f"manual_dir/type_{t}: lexical type {t}.")
      for t in ("I", "II", "III")]
  MANUAL_DOWNLOAD_INSTRUCTIONS = """
  Pass the folder of your .jsonl files as manual_dir (launch.py:
  --config.data.manual_dir=...). Format: data_builders/blm_jsonl/own_format.py
  and docs/tutorials/own-data.md.
  """

  def download_and_prepare(self, *, download_dir=None, download_config=None,
                           **kwargs):
    """TFDS's, after checking an existing build against manual_dir's files."""
    manual_dir = download_config and download_config.manual_dir
    mode = download_config and download_config.download_mode
    if (manual_dir and self.is_prepared()
        and mode != tfds.download.GenerateMode.FORCE_REDOWNLOAD):
      folder = os.path.join(os.fspath(manual_dir), self.builder_config.folder)
      if os.path.isdir(folder):
        built = dict(self.info.metadata.get("files") or {})
        new = published.files_identity(jsonl_files(folder).values())
        differences = published.identity_differences(built, new)
        if differences:
          raise published.StaleBuildError(
              f"{self.data_dir} was built from other files than {folder}:\n  "
              + "\n  ".join(differences) + "\n" + published.STALE_BUILD_ADVICE)
    return super().download_and_prepare(
        download_dir=download_dir, download_config=download_config, **kwargs)

  def _info(self) -> tfds.core.DatasetInfo:
    return tfds.core.DatasetInfo(
        builder=self, features=schema.features(), supervised_keys=None,
        metadata=tfds.core.MetadataDict())

  def _split_generators(self, dl_manager):
    config = self.builder_config
    folder = os.path.join(os.fspath(dl_manager.manual_dir), config.folder)
    if not os.path.isdir(folder):
      raise own_format.OwnFormatError(
          f"{folder}: missing; config {config.name!r} reads .jsonl files "
          f"from manual_dir/{config.folder}")
    found = jsonl_files(folder)
    parts, notes = {}, []
    for split, path in found.items():
      insts = own_format.read(path, seed=config.seed)
      note = candidates.count_note(path, (len(x.answers) for x in insts))
      if note:  # Once per file.
        logging.warning("blm_jsonl: %s", note)
        notes.append(note)
      if config.lexical_type:
        insts = [dataclasses.replace(x, lexical_type=x.lexical_type
                                     or config.lexical_type) for x in insts]
      parts[split] = insts
    if "" in parts:
      parts = splits.assign_splits(parts.pop(""), config.seed,
                                   fractions=SINGLE_FILE_FRACTIONS)
    self.info.metadata["files"] = published.files_identity(found.values())
    self.info.metadata["notes"] = notes
    return {name: self._generate_examples(items)
            for name, items in parts.items() if items}

  def _generate_examples(self, instances):
    for inst in instances:
      yield inst.id, inst.to_example()
