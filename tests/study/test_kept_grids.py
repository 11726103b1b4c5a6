"""`reproduce --keep`: committed records of finished grids stand for them
in a later session whose workdirs are gone (tiny configs, synthetic data)."""

import json
import os
import subprocess
import sys

import pytest

from blm_jax.study import reproduce
from blm_jax.study import grid_reuse, suites
from tests.study.test_reproduce_suites import (
    _configs, _opts, _select, _synthetic_run, chunk_grid, rebuild_since)

pytestmark = pytest.mark.slow

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def _suite(opts, keep, report_only=False, run=None):
  grids, options = _select(opts)
  entries = reproduce.entries_of(grids, options, opts.out, keep=keep)
  return reproduce.run_suite(entries, opts.out, "cmd", report_only,
                             run_fn=run or _synthetic_run(),
                             echo=lambda _: None,
                             write_report=not opts.shard, keep=keep)


def test_a_kept_record_names_the_commit_its_process_started_from(
    tmp_path, monkeypatch):
  # The checkout moves on (commits land) while a long suite runs: the
  # record names the commit whose code the process loaded.
  from blm_jax.study import records
  grid_reuse.code_commit.cache_clear()
  monkeypatch.setattr(records, "head_commit", lambda: "aaaaaaa")
  assert grid_reuse.code_commit() == "aaaaaaa"
  monkeypatch.setattr(records, "head_commit", lambda: "bbbbbbb")
  configs, keep = _configs(tmp_path), str(tmp_path / "kept")
  try:
    _suite(_opts(configs, tmp_path / "o", suite="cos_en/ffnn"), keep)
  finally:
    grid_reuse.code_commit.cache_clear()
  record = json.loads((tmp_path / "kept" / "cos_en" / "ffnn.json")
                      .read_text())
  assert record["commit"] == "aaaaaaa"


def _no_training(config, workdir):
  raise AssertionError(f"trained {workdir}: its kept record was not used")


def test_shards_on_machines_that_share_nothing_merge_from_kept_records(
    tmp_path):
  # Each shard runs into its own --out (its own machine or session) and
  # keeps its grid's record; a third, with no workdir at all, reports from
  # the records the same heatmaps and per-seed F1 as the unsharded run.
  configs, keep = _configs(tmp_path), str(tmp_path / "kept")
  whole = _suite(_opts(configs, tmp_path / "whole"), keep="")
  for i, name in enumerate(("cos_en", "od_en")):
    _suite(_opts(configs, tmp_path / f"machine{i}", shard=f"{i}/2"), keep)
    record = json.loads((tmp_path / "kept" / name / "ffnn.json").read_text())
    for key in ("study", "date", "commit", "command", "source"):
      assert record[key], key
    assert record["study"] == f"{name}/ffnn"
    assert not any("history" in c for c in record["cells"])
  merged = _suite(_opts(configs, tmp_path / "fresh"), keep,
                  report_only=True, run=_no_training)
  assert merged["summaries"] == whole["summaries"]
  assert merged["seed_f1"] == whole["seed_f1"]
  assert merged["missing"] == []
  # The predictions were kept too: the same claims, on the same paired,
  # per-instance basis.
  strip = lambda v: {k: x for k, x in v.items() if k != "command"}
  assert [strip(v) for v in merged["claims"]] == [
      strip(v) for v in whole["claims"]]
  assert any(v["verdict"] != "not run" for v in merged["claims"])
  md = (tmp_path / "fresh" / "report.md").read_text()
  assert "no predictions.npz" not in md
  # The figures are drawn again from the records: the HTML page shows as
  # many as the unsharded run's, chance marked (num_answers is recorded).
  for name in ("cos_en", "od_en"):
    for figure in ("heatmap.png", "errors.png"):
      assert (tmp_path / "fresh" / name / "ffnn" / figure).is_file()
  html = lambda out: (tmp_path / out / "report.html").read_text()
  assert html("fresh").count("<img") == html("whole").count("<img") >= 4
  assert record["data"]["num_answers"] > 1
  assert (tmp_path / "kept" / "od_en" / "ffnn.predictions.npz").exists()
  # Not report-only: nothing is trained either, and the plan says why.
  grids, options = _select(_opts(configs, tmp_path / "fresh2"))
  entries = reproduce.entries_of(grids, options, str(tmp_path / "fresh2"),
                                 keep=keep)
  lines = reproduce.plan_lines(entries, reproduce.measured(
      e[3] for e in entries))
  assert lines[0] == ("plan: 2 grids, 2 done, 0 to run: about 0m00s one "
                      "grid after another at the throughput measured here "
                      "(shards run at once, each on its own device, divide "
                      "it)")
  assert "done (its kept record)" in lines[1]
  _suite(_opts(configs, tmp_path / "fresh2"), keep, run=_no_training)


def test_a_record_kept_by_another_config_is_refused_naming_the_key(
    tmp_path):
  configs, keep = _configs(tmp_path), str(tmp_path / "kept")
  _suite(_opts(configs, tmp_path / "a", suite="cos_en/ffnn", seeds=["0"]),
         keep)
  with pytest.raises(suites.SuiteError) as e:
    reproduce.entries_of(*_select(_opts(
        configs, tmp_path / "b", suite="cos_en/ffnn")), str(tmp_path / "b"),
        keep=keep)
  where = os.path.join(keep, "cos_en", "ffnn.json")
  assert str(e.value).startswith(f"{where} holds a finished grid that "
                                 "another config produced")
  assert "config.grid.seeds: [0] -> [0, 1]" in str(e.value)
  assert str(e.value).endswith("Use another --keep, or remove that file to "
                               "retrain it")


def test_a_kept_record_of_data_rebuilt_since_is_refused(tmp_path,
                                                        monkeypatch):
  configs, keep = _configs(tmp_path), str(tmp_path / "kept")
  opts = _opts(configs, tmp_path / "a", suite="cos_en/ffnn")
  _suite(opts, keep)
  rebuild_since(tmp_path / "kept" / "cos_en" / "ffnn.json", monkeypatch)
  with pytest.raises(suites.SuiteError, match=r"data blm_x/type_I: builder "
                     r"1\.1\.0 -> 1\.2\.0"):
    reproduce.entries_of(*_select(_opts(
        configs, tmp_path / "b", suite="cos_en/ffnn")), str(tmp_path / "b"),
        keep=keep)


def test_a_workdir_retrained_replaces_its_stale_record(tmp_path):
  configs, keep = _configs(tmp_path), str(tmp_path / "kept")
  opts = _opts(configs, tmp_path / "a", suite="cos_en/ffnn")
  _suite(opts, keep)
  path = tmp_path / "kept" / "cos_en" / "ffnn.json"
  stale = json.loads(path.read_text())
  stale["summary"]["I"]["I"]["f1_mean"] = -1.0
  path.write_text(json.dumps(stale))
  _suite(opts, keep, report_only=True)  # the workdir's results come first
  assert json.loads(path.read_text())["summary"]["I"]["I"]["f1_mean"] >= 0


def test_kept_predictions_that_are_not_a_predictions_file_are_one_error(
    tmp_path):
  configs, keep = _configs(tmp_path), str(tmp_path / "kept")
  _suite(_opts(configs, tmp_path / "a", suite="cos_en/ffnn"), keep)
  npz = tmp_path / "kept" / "cos_en" / "ffnn.predictions.npz"
  npz.write_bytes(b"PK\x03\x04 not a zip")
  with pytest.raises(suites.SuiteError, match=f"{npz}: not a "
                     "predictions.npz"):
    reproduce.entries_of(*_select(_opts(
        configs, tmp_path / "b", suite="cos_en/ffnn")), str(tmp_path / "b"),
        keep=keep)


_NOT_A_RECORD = [
    ("{not json", "not JSON"),
    ('["a list"]', "not a grid's record (a JSON object)"),
    ('{"summary": {}}', "not a grid's record: no grid, cells, data, config, "
                        "run"),
    ("x" * (4 * 2 ** 20 + 1), "larger than 4194304 bytes"),
    (None, "not a plain file"),  # a link
]


def _bad_kept_file(tmp_path, content):
  """configs, and cos_en/ffnn's kept record in tmp_path/kept holding
  `content` (None: a link to another file)."""
  configs = _configs(tmp_path)
  path = tmp_path / "kept" / "cos_en" / "ffnn.json"
  path.parent.mkdir(parents=True)
  if content is None:
    (tmp_path / "elsewhere.json").write_text("{}")
    path.symlink_to(tmp_path / "elsewhere.json")
  else:
    path.write_text(content)
  return configs, path


@pytest.mark.parametrize("content,message", _NOT_A_RECORD)
def test_a_kept_file_that_is_not_a_grid_record_is_one_error(
    tmp_path, content, message):
  # Each kind of bad file, where the command reads it (reproduce.main
  # turns this SuiteError into its one line: the test below, through the
  # command itself).
  configs, path = _bad_kept_file(tmp_path, content)
  with pytest.raises(suites.SuiteError) as e:
    reproduce.entries_of(*_select(_opts(
        configs, tmp_path / "o", suite="cos_en/ffnn")), str(tmp_path / "o"),
        keep=str(tmp_path / "kept"))
  lines = str(e.value).splitlines()
  assert len(lines) == 1 and lines[0].startswith(f"{path}: "), lines
  assert message in lines[0]
  assert not (tmp_path / "o").exists()


def test_the_command_says_a_kept_file_is_not_a_grid_record_in_one_line(
    tmp_path):
  # One of the cases above through `python -m blm_jax.cli.reproduce`
  # (a subprocess costs about 3 s of CPU; the in-process test covers
  # every case).
  content, message = _NOT_A_RECORD[0]
  configs, path = _bad_kept_file(tmp_path, content)
  r = subprocess.run(
      [sys.executable, "-m", "blm_jax.cli.reproduce", "--suite=cos_en/ffnn",
       "--seeds=0,1", "--noseed_follows_grid", f"--configs_dir={configs}",
       f"--out={tmp_path / 'o'}", f"--keep={tmp_path / 'kept'}"], cwd=ROOT,
      capture_output=True, text=True, timeout=300)
  assert r.returncode == 1
  lines = r.stderr.strip().splitlines()
  assert len(lines) == 1 and lines[0].startswith(f"error: {path}: "), lines
  assert message in lines[0]
  assert not (tmp_path / "o").exists()


def test_a_probed_grids_record_holds_its_probe(tmp_path):
  # The sparsified VAE's and 000's chunk grids are probed: their record
  # keeps probe.json, so a later session reports the probe without the
  # workdir and without probing again.
  from blm_jax.analysis import probing
  from blm_jax.results.experiment import run_experiment

  d, config, grid = chunk_grid()
  keep = str(tmp_path / "kept")
  workdir = str(tmp_path / "o" / grid.name / grid.model)
  first = reproduce.run_suite(
      [(grid, config, workdir, None)], str(tmp_path / "o"), "cmd", False,
      run_fn=lambda c, w: run_experiment(c, w, data=d), echo=lambda _: None,
      probe_fn=lambda w, a: probing.analyze(w, a, data=d), keep=keep)
  kept = json.loads((tmp_path / "kept" / grid.name / "sent_vae.json")
                    .read_text())
  assert kept["probe"] == json.loads(
      (tmp_path / "o" / grid.name / "sent_vae" / "probe" / "probe.json")
      .read_text())
  fresh = tmp_path / "fresh"

  def no_probe(w, a):
    raise AssertionError("probed again: the kept probe was not used")

  second = reproduce.run_suite(
      [(grid, config, str(fresh / grid.name / grid.model),
        grid_reuse.kept_grid(keep, grid, config))], str(fresh), "cmd", False,
      run_fn=_no_training, echo=lambda _: None, probe_fn=no_probe, keep=keep)
  assert second["probing"] == first["probing"] != {}
  assert second["missing"] == []

