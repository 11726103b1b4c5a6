"""Your own BLMs: JSONL instances and release-format folders, one per type or
one folder as one type; a single dataset is never trained as three types."""

import json
import os
import subprocess
import sys

import ml_collections
import pytest

from data_builders.blm_jsonl import own_format
from data_builders.common import loading
from tests import ROOT, release_fixtures, tiny_checkpoints


def _record(i: int) -> dict:
  n = "dog" if i % 2 else "dogs"
  verb = "barks" if i % 2 else "bark"
  return {"id": f"own-{i}",
          "context": [f"The {n} near tree {i} {verb}.", f"The {n} {verb}."],
          "answers": [f"The {n} {verb} again {i}.",
                      f"The {n} {'bark' if i % 2 else 'barks'} again {i}.",
                      f"The {n} near {i} bark barks."],
          "correct": 0, "labels": ["Corr", "WNA", "WN1"]}


def _write_jsonl(path, records):
  path.parent.mkdir(parents=True, exist_ok=True)
  path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_a_jsonl_folder_builds_with_shuffled_candidates(tmp_path):
  _write_jsonl(tmp_path / "own" / "mine.jsonl", [_record(i) for i in range(40)])
  train = loading.load_instances("blm_jsonl/folder", "train",
                                 str(tmp_path / "tfds"), str(tmp_path / "own"))
  test = loading.load_instances("blm_jsonl/folder", "test",
                                str(tmp_path / "tfds"), str(tmp_path / "own"))
  assert len(train) + len(test) == 40 and test
  x = train[0]
  assert x.family == "own"
  assert x.labels[x.correct] == "Corr"
  assert x.answers[x.correct].text.startswith("The dog")  # its own answer
  # The correct answer is not always first.
  assert {y.correct for y in train} != {0}


@pytest.mark.parametrize("line,message", [
    ({"context": ["a"], "answers": ["b", "c"]}, "missing field 'correct' or "
     "'target'"),
    ({"context": ["a"], "answers": ["b", "c"], "correct": 2},
     "field 'correct'=2 is outside 0..1"),
    ({"context": "a", "answers": ["b", "c"], "correct": 0},
     "field 'context' must be a list of strings"),
    ({"context": ["a"], "answers": ["b", "c"], "correct": 0,
      "labels": ["x"]}, "field 'labels' has 1 entries for 2 sentences"),
    ({"context": ["a"], "answers": ["b", "b"], "correct": 0},
     "field 'answers': the correct candidate (1) is repeated as wrong "
     "candidate(s) [2]"),
    ({"context": ["a"], "answers": ["b"], "correct": 0},
     "field 'answers': 1 candidate(s): an instance needs at least 2"),
    ({"context": ["a", " "], "answers": ["b", "c"], "correct": 0},
     "field 'context': sentence 2 is empty"),
    ({"context": ["a"], "answers": ["b", ""], "correct": 0},
     "field 'answers': sentence 2 is empty"),
    ({"context": ["a"], "answers": ["b", "c"], "correct": 0,
      "x": [[[[[[[[[[1]]]]]]]]]]}, "JSON nested 11 deep (at most 8)"),
])
def test_a_bad_line_names_file_line_and_field(tmp_path, line, message):
  path = tmp_path / "bad.jsonl"
  _write_jsonl(path, [_record(0), line])
  with pytest.raises(own_format.OwnFormatError) as info:
    own_format.read(str(path))
  assert str(info.value).startswith(f"{path}:2: ")
  assert message in str(info.value)


def test_a_line_too_long_and_a_repeated_id_are_named(tmp_path):
  path = tmp_path / "long.jsonl"
  path.write_text(json.dumps(_record(0)) + "\n" + "x" * 1_000_001 + "\n")
  with pytest.raises(own_format.OwnFormatError,
                     match=r"long\.jsonl:2: line longer than 1,000,000 bytes"):
    own_format.read(str(path))
  _write_jsonl(path, [_record(0), _record(0)])
  with pytest.raises(own_format.OwnFormatError,
                     match=r"long\.jsonl:2: id 'own-0' already used on line 1"):
    own_format.read(str(path))


def test_deep_nesting_and_bytes_not_utf8_are_named_in_one_line(tmp_path):
  path = tmp_path / "bad.jsonl"
  path.write_text(json.dumps(_record(0)) + "\n" + "[" * 100_000 + "\n")
  with pytest.raises(own_format.OwnFormatError,
                     match=r"bad\.jsonl:2: JSON nested 100000 deep"):
    own_format.read(str(path))  # Not a RecursionError.
  path.write_bytes(json.dumps(_record(0)).encode() + b"\n"
                   + json.dumps(_record(1)).encode()[:-2] + b"\xff\"}\n")
  with pytest.raises(own_format.OwnFormatError,
                     match=r"bad\.jsonl:2: bytes b'\\xff' at byte \d+ of the "
                     "line are not UTF-8"):
    own_format.read(str(path))


def test_release_folders_one_per_type(tmp_path):
  own = tmp_path / "own"
  release_fixtures.write_release(own / "type_I" / "a.tsv",
                                 release_fixtures.release_rows(30))
  release_fixtures.write_release(own / "type_II" / "a.tsv",
                                 release_fixtures.release_rows(30, start=50))
  one = loading.load_instances("blm_published/type_I", "full",
                               str(tmp_path / "tfds"), str(own))
  two = loading.load_instances("blm_published/type_II", "full",
                               str(tmp_path / "tfds"), str(own))
  assert {x.lexical_type for x in one} == {"I"}
  assert {x.lexical_type for x in two} == {"II"}
  assert not {x.answers[x.correct].text for x in one} & {
      x.answers[x.correct].text for x in two}


def test_one_dataset_is_never_trained_as_three_types():
  from blm_jax.training import config_check

  config = ml_collections.ConfigDict({"data": {
      "name": "blm_published/folder", "train_types": ("I", "II", "III"),
      "test_types": ("I", "II", "III")}})
  with pytest.raises(config_check.ConfigError) as info:
    config_check.check_dataset_names(config)
  message = str(info.value)
  assert "is one dataset (no '{}' for the lexical type)" in message
  assert "--config.data.train_types" in message and "own_release" in message
  config.data.train_types = config.data.test_types = ("folder",)
  config_check.check_dataset_names(config)


@pytest.mark.slow
def test_own_jsonl_grid_trains_and_reports_one_type(tmp_path):
  _write_jsonl(tmp_path / "own" / "train.jsonl",
               [_record(i) for i in range(48)])
  _write_jsonl(tmp_path / "own" / "test.jsonl",
               [_record(i) for i in range(100, 112)])
  encoder = tiny_checkpoints.write_bert(str(tmp_path / "tiny_bert"))
  work = tmp_path / "work"
  proc = subprocess.run(
      [sys.executable, "launch.py", "--config=configs/ffnn.py:dataset=own_jsonl",
       f"--workdir={work}", f"--config.data.manual_dir={tmp_path / 'own'}",
       f"--config.data.data_dir={tmp_path / 'tfds'}",
       f"--config.encoder.name={encoder}",
       f"--config.encoder.cache_dir={tmp_path / 'cache'}",
       "--config.grid.seeds=(0,)", "--config.train.epochs=2",
       "--config.train.batch_size=16", "--config.progress=False",
       "--config.results.figure_formats=png"],
      cwd=ROOT, env=dict(os.environ, JAX_PLATFORMS="cpu"),
      capture_output=True, text=True, timeout=600)
  assert proc.returncode == 0, proc.stderr[-3000:]
  results = json.loads((work / "results.json").read_text())
  assert list(results["summary"]) == ["folder"]
  assert list(results["summary"]["folder"]) == ["folder"]
  assert "train folder: test folder F1" in proc.stdout
  assert not (work / "heatmap.svg").exists()
  # Own data has no patterns: the rungs that need attributes say so once.
  skipped = results["gold_ceiling"]["skipped"]
  assert skipped.startswith("gold-attribute ceiling and encoder probes "
                            "skipped: its sentences carry no pattern")
  assert proc.stdout.count(skipped) == 1


@pytest.mark.slow
def test_lint_refuses_a_jsonl_without_newlines_in_one_line(tmp_path):
  folder = tmp_path / "own"
  folder.mkdir()
  for split in ("train", "test"):
    with open(folder / f"{split}.jsonl", "wb") as f:
      f.truncate(8 << 30)  # 8 GiB, sparse: no disk, no newline.
  proc = subprocess.run(
      [sys.executable, "-m", "blm_jax.cli.lint", "blm_jsonl/folder",
       f"--manual_dir={folder}", f"--data_dir={tmp_path / 'tfds'}"],
      cwd=ROOT, capture_output=True, text=True, timeout=300)
  assert proc.returncode == 2
  errors = [l for l in proc.stderr.splitlines() if l.startswith("error: ")]
  assert errors == [f"error: {folder}/train.jsonl:1: line longer than "
                    "1,000,000 bytes (the bound of one line; nothing past it "
                    "was read): not a file of this format, or damaged"]
  assert "Traceback" not in proc.stderr
