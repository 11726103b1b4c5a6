"""blm_published and the linter on the real published samples.

Reads ../shared/blm-published-samples/ (relative to the repository root);
skipped, with the reason, when that folder is absent.
"""

import pathlib

import pytest
import tensorflow_datasets as tfds

from blm_jax.cli import lint as lint_cli
from blm_jax.data import lint
import data_builders  # noqa: F401  Registers blm_published.
from data_builders.blm_published import release_format
from data_builders.common import labels, schema

SAMPLES = (pathlib.Path(__file__).resolve().parents[2] / ".." / "shared" /
           "blm-published-samples").resolve()

pytestmark = pytest.mark.skipif(
    not SAMPLES.is_dir(),
    reason=f"published BLM samples not found at {SAMPLES} "
    "(../shared/blm-published-samples relative to the repository root)")

AGREEMENT = [f"agreement_fr_type_{t}" for t in ("I", "II", "III")]
SPRAY_LOAD = [f"spray_load_en_{s}_type_{t}" for s in ("ALT-ATL", "ATL-ALT")
              for t in ("I", "II", "III")]
ANSWERS = {"agreement": 8, "spray_load": 9}


def _rows(path: pathlib.Path) -> int:
  lines = path.read_text(encoding="utf-8").splitlines()
  return sum(1 for line in lines[1:] if line.strip())


@pytest.fixture(scope="module")
def built(tmp_path_factory):
  """Every named config built once, read back through tfds.data_source."""
  data_dir = tmp_path_factory.mktemp("tfds")
  out = {}
  for config in AGREEMENT + SPRAY_LOAD:
    name = f"blm_published/{config}"
    tfds.builder(name, data_dir=str(data_dir),
                 file_format="array_record").download_and_prepare(
                     download_config=tfds.download.DownloadConfig(
                         manual_dir=str(SAMPLES)))
    sources = tfds.data_source(name, data_dir=str(data_dir))
    out[config] = {
        split: [schema.BLMInstance.from_example(r)
                for r in src.__getitems__(list(range(len(src))))]
        for split, src in sources.items()}
  return out


def _folder(config: str) -> pathlib.Path:
  b = tfds.builder_cls("blm_published")
  (cfg,) = [c for c in b.BUILDER_CONFIGS if c.name == config]
  return SAMPLES / cfg.folder


@pytest.mark.slow
@pytest.mark.parametrize("config", AGREEMENT + SPRAY_LOAD)
def test_every_subset_builds_with_the_published_counts(built, config):
  splits = built[config]
  folder = _folder(config)
  assert len(splits["full"]) == 100 == _rows(folder / "all.tsv")
  assert len(splits["train"]) == _rows(folder / "train.tsv")
  assert len(splits["test"]) == _rows(folder / "test.tsv")
  ids = {k: {x.id for x in v} for k, v in splits.items()}
  assert len(ids["full"]) == 100
  assert ids["train"] | ids["test"] <= ids["full"]
  assert not ids["train"] & ids["test"]


@pytest.mark.slow
@pytest.mark.parametrize("config", AGREEMENT + SPRAY_LOAD)
def test_answers_labels_and_one_correct(built, config):
  family = "agreement" if config in AGREEMENT else "spray_load"
  instances = built[config]["full"]
  inventory = labels.family_labels(family)
  raw_names = set(labels.PUBLISHED_LABELS[family])
  for x in instances:
    assert x.family == family
    assert len(x.context) == 7
    assert len(x.answers) == ANSWERS[family]
    assert x.labels.count(labels.correct_label(family)) == 1
    assert x.labels[x.correct] == labels.correct_label(family)
    assert set(x.labels) == set(inventory)  # One candidate per error type.
    assert set(x.raw_labels) <= raw_names
    for raw, name in zip(x.raw_labels, x.labels):
      assert labels.PUBLISHED_LABELS[family][raw] == name
  # The published files put the correct answer first; here it moves.
  assert len({x.correct for x in instances}) == ANSWERS[family]


@pytest.mark.slow
def test_linter_reports_the_published_defects(built):
  for config in AGREEMENT:
    report = lint.lint(built[config]["full"])
    assert report.counts["duplicate_candidate"] == 100, config
    if config.endswith("_I"):
      assert report.counts["copy_cue"] == 100, config
      for finding in report.examples["copy_cue"]:
        assert "(WN1) repeats context sentence 6" in finding.message
    other = {k: n for k, n in report.counts.items()
             if k not in ("duplicate_candidate", "copy_cue") and n}
    assert not other, (config, other)
    for finding in report.examples["duplicate_candidate"]:
      assert "(AEN1)" in finding.message and "(AEN2)" in finding.message
  for config in SPRAY_LOAD:
    report = lint.lint(built[config]["full"])
    assert report.ok(strict=True), report.format(config)


def test_linter_cli_on_the_sample_folder(capsys):
  code = lint_cli.main([str(SAMPLES / "agreement_fr" / "type_I" / "all.tsv")])
  out = capsys.readouterr().out
  assert code == 1
  assert "ERROR   duplicate_candidate: 100/100" in out
  assert "WARNING copy_cue: 100/100" in out
  assert lint_cli.main([str(SAMPLES / "spray_load_en"), "--strict"]) == 0
  out = capsys.readouterr().out
  n = sum(_rows(p) for p in (SAMPLES / "spray_load_en").rglob("*.tsv"))
  assert f"total: {n} instances; errors 0; warnings 0 -> OK (--strict)" in out


def test_reader_agrees_with_the_raw_files():
  """Unshuffled, the reader returns the files' own first answer as correct."""
  release = release_format.read_release(
      SAMPLES / "spray_load_en" / "ALT-ATL" / "type_I" / "all.tsv",
      shuffle=False)
  assert release.family == "spray_load"
  assert {x.correct for x in release.instances} == {0}
  assert {x.raw_labels[0] for x in release.instances} == {"Correct"}
