"""The authors' files as they publish them (`type_i.csv`, tab-separated, in
their folders `BLMagr4dev/type_I/`, `BLM-slE/ALT-ATL/type_I/`, with their
split under `datasets/<split>/sentences/data.tsv`), and the one rule on
candidates that the JSONL and release readers share."""

import json
import os
import shutil

import pytest

from data_builders.blm_jsonl import own_format
from data_builders.blm_published import release_format as rf
from data_builders.common import candidates, loading
from tests import ROOT, release_fixtures

SAMPLES = os.path.join(ROOT, "..", "shared", "blm-published-samples")


def _authors_type_folder(folder, whole, train, test):
  """The authors' layout of one type: the whole file as type_i.csv, the
  split below datasets/."""
  release_fixtures.write_release(folder / "type_i.csv", whole)
  for split, rows in (("train", train), ("test", test)):
    release_fixtures.write_release(
        folder / "datasets" / split / "sentences" / "data.tsv", rows)


def test_a_type_csv_with_the_authors_split_is_read_as_published(tmp_path):
  rows = release_fixtures.release_rows(30)
  folder = tmp_path / "data" / "BLMagr4dev" / "type_II"
  _authors_type_folder(folder, rows, rows[:24], rows[24:])
  files = rf.release_files(folder)
  assert files == {
      "train": str(folder / "datasets" / "train" / "sentences" / "data.tsv"),
      "test": str(folder / "datasets" / "test" / "sentences" / "data.tsv"),
      "all": str(folder / "type_i.csv")}
  assert rf.source_info(folder) == {"language": "fr", "lexical_type": "II",
                                    "subset": ""}
  # The named config falls back to the authors' folder name.
  data, manual = str(tmp_path / "tfds"), str(tmp_path / "data")
  train = loading.load_instances("blm_published/agreement_fr_type_II",
                                 "train", data, manual)
  test = loading.load_instances("blm_published/agreement_fr_type_II",
                                "test", data, manual)
  full = loading.load_instances("blm_published/agreement_fr_type_II",
                                "full", data, manual)
  assert (len(train), len(test), len(full)) == (24, 6, 30)
  assert {x.lexical_type for x in full} == {"II"}


def test_one_csv_alone_is_split_and_folder_names_guide_the_metadata(
    tmp_path):
  folder = tmp_path / "BLM-slE" / "ATL-ALT" / "type_III"
  release_fixtures.write_release(folder / "augmented_sample_type_iii.csv",
                                 release_fixtures.release_rows(20))
  assert list(rf.release_files(folder)) == ["augmented_sample_type_iii"]
  assert rf.source_info(folder) == {"language": "en", "lexical_type": "III",
                                    "subset": "ATL-ALT"}
  assert rf.source_info(tmp_path / "BLMagrXlang4dev" / "type_III_EN") == {
      "language": "en", "lexical_type": "III", "subset": ""}
  # own data, one folder: `blm_published/folder`.
  full = loading.load_instances("blm_published/folder", "full",
                                str(tmp_path / "tfds"), str(folder))
  assert len(full) == 20


def test_layouts_that_cannot_be_read_say_why(tmp_path):
  half = tmp_path / "half"
  release_fixtures.write_release(half / "type_i.csv",
                                 release_fixtures.release_rows(2))
  release_fixtures.write_release(
      half / "datasets" / "train" / "sentences" / "data.tsv",
      release_fixtures.release_rows(2))
  with pytest.raises(rf.ReleaseFormatError, match=(
      r"half: has .*datasets/train/sentences/data.tsv but no "
      r".*datasets/test/sentences/data.tsv")):
    rf.release_files(half)
  both = tmp_path / "both"
  release_fixtures.write_release(both / "a.tsv", release_fixtures.release_rows(2))
  release_fixtures.write_release(both / "a.csv", release_fixtures.release_rows(2))
  with pytest.raises(rf.ReleaseFormatError,
                     match=r"both: holds both a.csv and a.tsv: which one"):
    rf.release_files(both)
  empty = tmp_path / "empty"
  empty.mkdir()
  (empty / "notes.txt").write_text("x")
  with pytest.raises(rf.ReleaseFormatError, match=(
      r"holds no release file \(\*\.tsv or \*\.csv, tab-separated\)")):
    rf.release_files(empty)


@pytest.mark.skipif(not os.path.isdir(SAMPLES),
                    reason=f"the published samples are not at {SAMPLES}")
def test_the_published_samples_in_the_authors_layout(tmp_path):
  """The samples' all/train/test, laid out as the authors publish them
  (copied into tmp only), train as own release data: one folder per type."""
  src = os.path.join(SAMPLES, "agreement_fr")
  for t in ("I", "II", "III"):
    folder = tmp_path / "BLMagr4dev" / f"type_{t}"
    (folder / "datasets" / "train" / "sentences").mkdir(parents=True)
    (folder / "datasets" / "test" / "sentences").mkdir(parents=True)
    shutil.copy(os.path.join(src, f"type_{t}", "all.tsv"),
                folder / f"type_{t.lower()}.csv")
    for split in ("train", "test"):
      shutil.copy(os.path.join(src, f"type_{t}", f"{split}.tsv"),
                  folder / "datasets" / split / "sentences" / "data.tsv")
  manual = str(tmp_path / "BLMagr4dev")
  for t, n_train in (("I", 86), ("III", 90)):
    train = loading.load_instances(f"blm_published/type_{t}", "train",
                                   str(tmp_path / "tfds"), manual)
    assert len(train) == n_train
    assert {x.family for x in train} == {"agreement"}


# -- One rule on candidates, both readers -----------------------------------


def test_candidates_rule():
  assert candidates.problem(["a", "b", "b"], 0) is None
  assert "needs at least 2" in candidates.problem(["a"], 0)
  assert candidates.problem(["a", "b", "a"], 0) == (
      "the correct candidate (1) is repeated as wrong candidate(s) [3]: the "
      "same sentence would be right and wrong")
  assert candidates.count_note("f.jsonl", [7, 7, 5]) == (
      "f.jsonl: the number of candidates varies: 5 in 1 instance, 7 in 2 "
      "instances (chance differs between instances)")
  assert candidates.count_note("f.jsonl", [7, 7]) is None


def test_both_readers_accept_two_wrong_candidates_alike(tmp_path):
  rows = release_fixtures.release_rows(3)
  rows[0]["Answer_4"] = rows[0]["Answer_3"]
  path = release_fixtures.write_release(tmp_path / "r.tsv", rows)
  (inst, *_), = [rf.read_release(path).instances]
  assert len({a.text for a in inst.answers}) == 3
  line = {"context": ["a."], "answers": ["b.", "c.", "c."], "correct": 0}
  jsonl = tmp_path / "own.jsonl"
  jsonl.write_text(json.dumps(line) + "\n")
  (own,) = own_format.read(str(jsonl))
  assert len(own.answers) == 3


def test_both_readers_refuse_a_correct_candidate_repeated(tmp_path):
  rows = release_fixtures.release_rows(3)
  rows[1]["Answer_2"] = rows[1]["Answer_1"]
  path = release_fixtures.write_release(tmp_path / "r.tsv", rows)
  with pytest.raises(rf.ReleaseFormatError) as e:
    rf.read_release(path)
  assert str(e.value).startswith(f"{path}, line 3, column ")
  assert "the correct candidate (1) is repeated as wrong candidate(s) [2]" in (
      str(e.value))
  jsonl = tmp_path / "own.jsonl"
  jsonl.write_text(json.dumps({"context": ["a."], "answers": ["b.", "b."],
                               "correct": 1}) + "\n")
  with pytest.raises(own_format.OwnFormatError, match=(
      r"own.jsonl:1: field 'answers': the correct candidate \(2\) is "
      r"repeated as wrong candidate\(s\) \[1\]")):
    own_format.read(str(jsonl))


def test_a_varying_number_of_candidates_is_said_once(tmp_path):
  own = tmp_path / "own"
  own.mkdir()
  lines = [{"id": f"i{i}", "context": [f"c {i}."],
            "answers": [f"a {i} {k}." for k in range(5 if i % 4 else 7)],
            "correct": 0} for i in range(20)]
  (own / "mine.jsonl").write_text("".join(json.dumps(x) + "\n"
                                          for x in lines))
  b = loading.prepare("blm_jsonl/folder", str(tmp_path / "tfds"), str(own))
  assert b.info.metadata["notes"] == [
      f"{own / 'mine.jsonl'}: the number of candidates varies: 5 in 15 "
      "instances, 7 in 5 instances (chance differs between instances)"]
