"""Study records and the tables generated from them (blm_jax/study/records.py,
blm_jax/cli/records.py): every table in README.md and docs/ equals its record."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from blm_jax.cli import records as cli
from blm_jax.study import markdown_table, records
from tests import ROOT


def _summary():
  return {"I": {"I": {"f1_mean": 0.9481, "f1_std": 0.0104},
                "II": {"f1_mean": 0.37, "f1_std": 0.0}},
          "II": {"I": {"f1_mean": 0.7226, "f1_std": 0.00349},
                 "II": {"f1_mean": 1.0, "f1_std": 0.01}}}


def test_heatmap_table_on_a_hand_made_record():
  record = {"summary": _summary(),
            "grid": {"train_types": ["II", "I"], "test_types": ["I", "II"]}}
  assert records.render(record) == (
      "| train \\ test | I | II |\n"
      "| --- | --- | --- |\n"
      "| II | 0.723 ± 0.003 | 1.000 ± 0.010 |\n"
      "| I | 0.948 ± 0.010 | 0.370 ± 0.000 |\n")


def test_heatmap_of_a_summary_inside_the_record():
  record = {"summary": {}, "controls": {"answer_only": {"summary": _summary()}}}
  table = records.render(record, {"key": "controls.answer_only.summary"})
  assert table.splitlines()[2] == "| I | 0.948 ± 0.010 | 0.370 ± 0.000 |"
  with pytest.raises(records.RecordError, match="no 'controls.x'"):
    records.render(record, {"key": "controls.x"})


def test_context_free_view_shows_the_best_baseline_and_the_gain():
  cf = {t: {u: {"best": 1.0 if u == "I" else 0.5, "best_baseline":
                "odd_one_in" if u == "I" else "word_logit",
                "context_gain": -0.0519 if u == "I" else 0.25}
            for u in ("I", "II")} for t in ("I", "II")}
  record = {"summary": _summary(), "context_free": cf,
            "grid": {"train_types": ["I", "II"], "test_types": ["I", "II"]}}
  table = records.render(record, {"view": "context_free"})
  assert table.splitlines()[2] == (
      "| I | 1.000 odd_one_in (gain -0.052) | 0.500 word_logit (gain "
      "+0.250) |")
  # Made without the set scorers: said under the table.
  assert "*Made with the earlier baseline set" in table
  for row in cf.values():
    for c in row.values():
      c["set_logit"] = c["set_trees"] = 0.3
  assert "earlier baseline set" not in records.render(
      record, {"view": "context_free"})
  with pytest.raises(records.RecordError, match="no 'context_free'"):
    records.render({"summary": _summary()}, {"view": "context_free"})


def test_rows_table_writes_cells_as_given():
  record = {"tables": {"t": {"columns": ["dataset", "F1"],
                             "rows": [["roll", "0.983±0.008"],
                                      ["mixture", "1.000 (ep 3) / 0.99"]]}}}
  assert records.render(record, {"table": "t"}) == (
      "| dataset | F1 |\n| --- | --- |\n| roll | 0.983±0.008 |\n"
      "| mixture | 1.000 (ep 3) / 0.99 |\n")
  with pytest.raises(records.RecordError, match="no table 'u'"):
    records.render(record, {"table": "u"})
  record["tables"]["t"]["rows"].append(["short"])
  with pytest.raises(records.RecordError, match="row 2 has 1 cells"):
    records.render(record, {"table": "t"})


def test_where_keeps_the_rows_whose_column_matches_a_glob(tmp_path):
  record = {"tables": {"claims": {
      "columns": ["dataset", "verdict"],
      "rows": [["cos_en_ctx", "holds"], ["cos_en_seq", "inconclusive"],
               ["spray_load", "holds"], ["od_it_ctx", "does not hold"]]}}}
  assert records.render(record, {"table": "claims",
                                 "where": "dataset:*_ctx"}) == (
      "| dataset | verdict |\n| --- | --- |\n| cos_en_ctx | holds |\n"
      "| od_it_ctx | does not hold |\n")
  # Several globs, any matching; the table's order is kept.
  assert records.render(record, {"table": "claims",
                                 "where": "dataset:spray_load,*_seq"}
                        ).splitlines()[2:] == ["| cos_en_seq | inconclusive |",
                                               "| spray_load | holds |"]
  for spec, message in [("dataset:*_pub", "no row's dataset matches"),
                        ("model:*", "no column 'model'"),
                        ("dataset", "expected COLUMN:GLOB")]:
    with pytest.raises(records.RecordError, match=message):
      records.render(record, {"table": "claims", "where": spec})
  with pytest.raises(records.RecordError, match="rows of a table=NAME"):
    records.render({"summary": _summary()}, {"where": "dataset:*"})
  # In a document, the marker's options carry it, the error names the line.
  (tmp_path / "studies" / "records").mkdir(parents=True)
  (tmp_path / "studies" / "records" / "r.json").write_text(json.dumps(record))
  (tmp_path / "docs").mkdir()
  (tmp_path / "docs" / "d.md").write_text(
      "<!-- table: studies/records/r.json table=claims where=dataset:*_seq -->\n"
      "<!-- end table -->\n\n"
      "<!-- table: studies/records/r.json table=claims where=dataset:x -->\n"
      "<!-- end table -->\n")
  with pytest.raises(SystemExit, match="line 4: studies/records/r.json: "
                     "where=dataset:x: no row"):
    cli.tables(str(tmp_path))
  assert "cos_en_seq" not in (tmp_path / "docs" / "d.md").read_text()


def test_committed_docs_match_their_records():
  assert cli.tables(ROOT, check=True) == []


def test_every_record_names_its_provenance():
  # Subfolders too: a suite's kept grid records (reproduce --keep).
  folder = os.path.join(ROOT, "studies", "records")
  # Beside a kept grid record, its predictions (<model>.predictions.npz).
  paths = sorted(os.path.relpath(os.path.join(d, f), folder)
                 for d, _, fs in os.walk(folder) for f in fs)
  names = [n for n in paths if n.endswith(".json")]
  assert names and all(n.endswith(".predictions.npz")
                       for n in set(paths) - set(names))
  for name in names:
    r = records.load(os.path.join(folder, name))
    for key in ("study", "date", "commit", "command", "source"):
      assert r.get(key), f"studies/records/{name} has no {key}"


def _copy_docs(tmp_path):
  shutil.copy(os.path.join(ROOT, "README.md"), tmp_path / "README.md")
  shutil.copytree(os.path.join(ROOT, "docs"), tmp_path / "docs")
  shutil.copytree(os.path.join(ROOT, "studies"), tmp_path / "studies")
  return tmp_path


@pytest.mark.slow
def test_a_changed_number_fails_the_check_naming_file_and_record(tmp_path):
  root = _copy_docs(tmp_path)
  path = root / "studies" / "records" / "main_job_vae2_cpu.json"
  record = json.loads(path.read_text())
  record["summary"]["II"]["III"]["f1_mean"] += 0.01
  path.write_text(json.dumps(record))
  differ = cli.tables(str(root), check=True)
  assert differ and all("studies/records/main_job_vae2_cpu.json" in d
                        for d in differ)
  assert any(d.startswith("README.md:") for d in differ)
  # Without --check the tables are rewritten, and then they match.
  cli.tables(str(root))
  assert cli.tables(str(root), check=True) == []
  assert "| II | 0.740 ± 0.023 | 0.414 ± 0.039 | 0.284 ± 0.019 |" in (
      root / "README.md").read_text()


def test_a_missing_record_is_an_error_naming_the_file(tmp_path):
  (tmp_path / "README.md").write_text(
      "x\n<!-- table: studies/records/nope.json -->\n<!-- end table -->\n")
  with pytest.raises(SystemExit, match="README.md: line 2: no record "
                     "studies/records/nope.json"):
    cli.tables(str(tmp_path), check=True)


def test_make_drops_histories(tmp_path):
  work = tmp_path / "run"
  work.mkdir()
  history = {"train": {"answer_margin": [1.0, 0.5]}, "dev_loss": [2.0, 1.0]}
  cell = {"seed": 0, "train_type": "I", "history": history,
          "test": {"I": {"f1": 0.5}}}
  results = {"config": {"model": "ffnn"}, "cells": [cell],
             "summary": {"I": {"I": {"f1_mean": 0.5, "f1_std": 0.0}}},
             "grid": {"seeds": [0], "train_types": ["I"],
                      "test_types": ["I"]},
             "controls": {"answer_only": {"cells": [cell], "summary": {}}}}
  (work / "results.json").write_text(json.dumps(results))
  (work / "config.json").write_text(json.dumps({"model": {"name": "ffnn"}}))
  out = tmp_path / "studies" / "records" / "r.json"
  cli.make(str(work), str(out), "python launch.py --config=configs/ffnn.py",
           commit="abc1234")
  r = json.loads(out.read_text())
  assert "history" not in json.dumps(r)
  assert r["cells"][0]["test"] == {"I": {"f1": 0.5}}
  assert r["config"] == {"model": {"name": "ffnn"}}
  assert r["results_config"] == {"model": "ffnn"}
  assert (r["commit"], r["command"], r["study"]) == (
      "abc1234", "python launch.py --config=configs/ffnn.py", "run")
  assert len(r["date"]) == 10
  assert records.render(r) == ("| train \\ test | I |\n| --- | --- |\n"
                               "| I | 0.500 ± 0.000 |\n")


def test_make_on_a_reproduction_folder_keeps_heatmaps_and_verdicts(tmp_path):
  import numpy as np

  from blm_jax.study import claims_report
  from tests.study.test_reproduce import _hits, _run

  rng = np.random.default_rng(0)
  runs = {ds: {m: _run(_hits(rng, rate))[0] for m in ("ffnn", "vae2")}
          for ds, rate in (("cos_en_ctx", 0.5), ("cos_en", 0.9))}
  for r in runs["cos_en_ctx"].values():
    r["context_free"] = {t: {u: {"best": 0.5, "best_baseline": "word_logit",
                                 "context_gain": 0.0} for u in row}
                         for t, row in r["summary"].items()}
  claims_report.report(runs, ["ffnn", "vae2"], str(tmp_path),
                       "reproduce --x")
  out = tmp_path / "r.json"
  cli.make(str(tmp_path), str(out), "python -m blm_jax.cli.reproduce --x",
           commit="abc1234")
  r = json.loads(out.read_text())
  assert r["summaries"]["cos_en_ctx"]["ffnn"]["I"]["III"]["f1_mean"] > 0
  table = records.render(r, {"table": "claims"})
  assert "| cos_en_ctx | vae2's mean F1 over all cells beats" in table
  assert "not run" not in table
  cf = records.render(r, {"view": "context_free",
                          "key": "context_free.cos_en_ctx.vae2"})
  assert "0.500 word_logit (gain +0.000)" in cf
  designs = records.render(r, {"table": "designs"})
  assert "| vae2's mean F1 over all cells beats the FFNN's on CoS | cos_en |" in (
      designs)
  heat = records.render(r, {"key": "summaries.cos_en_ctx.ffnn"})
  assert heat.startswith("| train \\ test | I | II | III |")
  with pytest.raises(records.RecordError, match="no report.json"):
    records.record_from_report(str(tmp_path / "none"), "c", "x")


def test_make_on_a_diagnose_folder_keeps_its_tables(tmp_path):
  found = {"dataset": "od_en_seq",
           "data": {"builder_versions": {"blm_cos_od/od_en_seq_type_I":
                                         "1.3.0"}},
           "tables": {"linear": {"columns": ["layer", "form"],
                                 "rows": [["layer=0", "0.986"]]}}}
  (tmp_path / "diagnose.json").write_text(json.dumps(found))
  out = tmp_path / "r.json"
  cli.make(str(tmp_path), str(out), "python -m blm_jax.cli.diagnose --x",
           commit="abc1234", study="probes")
  r = json.loads(out.read_text())
  assert (r["study"], r["commit"], r["command"]) == (
      "probes", "abc1234", "python -m blm_jax.cli.diagnose --x")
  assert r["data"] == found["data"]
  assert records.render(r, {"table": "linear"}).splitlines()[2] == (
      "| layer=0 | 0.986 |")
  with pytest.raises(records.RecordError, match="no diagnose.json"):
    records.record_from_diagnose(str(tmp_path / "none"), "c", "x")


def test_a_table_row_of_the_wrong_length_is_named():
  # One writer for every markdown table (the report's sections, the docs'
  # records): a row that does not fit the header is refused, not shifted.
  assert markdown_table.lines(("a", "b"), [[1, "x"]]) == [
      "| a | b |", "| --- | --- |", "| 1 | x |"]
  with pytest.raises(ValueError, match=r"^row 1 has 1 cells, the header 2$"):
    markdown_table.lines(("a", "b"), [[1, 2], [3]])
  with pytest.raises(records.RecordError, match=r"^row 0 has 3 cells"):
    records.rows_table(["a", "b"], [[1, 2, 3]])


def _doc_with_versions(tmp_path, versions, marker_opts=""):
  (tmp_path / "studies" / "records").mkdir(parents=True, exist_ok=True)
  record = {"summary": _summary(), "grid": {"train_types": ["I", "II"],
                                            "test_types": ["I", "II"]},
            "data": {"builder_versions": versions}}
  (tmp_path / "studies" / "records" / "r.json").write_text(json.dumps(record))
  body = records.render(record)
  (tmp_path / "README.md").write_text(
      f"x\n<!-- table: studies/records/r.json{marker_opts} -->\n{body}"
      "<!-- end table -->\n")
  return tmp_path / "README.md"


NOW = {"blm_spray_load/ALT-ATL_type_I": "1.2.0",
       "blm_spray_load/ALT-ATL_type_II": "1.2.0"}.get


def test_a_table_from_older_builders_fails_the_check(tmp_path):
  _doc_with_versions(tmp_path, {"blm_spray_load/ALT-ATL_type_I": "1.1.0",
                                "blm_spray_load/ALT-ATL_type_II": "1.2.0"})
  assert cli.tables(str(tmp_path), check=True, current=NOW) == [
      "README.md:2: table from studies/records/r.json was made with other "
      "builders (blm_spray_load/ALT-ATL_type_I 1.1.0, now 1.2.0): rerun it "
      "and `records make` its record, or mark the table stale (`stale=yes` "
      "in its marker)"]
  # The same versions as now: nothing to say.
  _doc_with_versions(tmp_path, {"blm_spray_load/ALT-ATL_type_I": "1.2.0"})
  assert cli.tables(str(tmp_path), check=True, current=NOW) == []


def test_a_table_marked_stale_says_so_under_it(tmp_path):
  readme = _doc_with_versions(
      tmp_path, {"blm_spray_load/ALT-ATL_type_I": "1.1.0"}, " stale=yes")
  differ = cli.tables(str(tmp_path), check=True, current=NOW)
  assert differ == ["README.md:2: table from studies/records/r.json stale=yes "
                    "differs from its record"]
  cli.tables(str(tmp_path), current=NOW)  # writes the stale line
  assert ("*Stale: made with blm_spray_load 1.1.0 (now 1.2.0: "
          "ALT-ATL_type_I); rerun it to update.*\n<!-- end table -->") in (
              readme.read_text())
  assert cli.tables(str(tmp_path), check=True, current=NOW) == []
  # Marked stale, but current: the mark cannot linger.
  _doc_with_versions(tmp_path, {"blm_spray_load/ALT-ATL_type_I": "1.2.0"},
                     " stale=yes")
  assert cli.tables(str(tmp_path), check=True, current=NOW) == [
      "README.md:2: table from studies/records/r.json is marked stale but its "
      "record's builders are current: drop `stale=` from its marker"]


def test_the_stale_line_groups_a_familys_datasets():
  stale = {f"blm_cos_od/cos_en_type_{t}": ("1.2.0", "1.3.0")
           for t in ("I", "II", "III", "IV")}
  stale["blm_spray_load/seq_type_II"] = ("1.3.0", "1.4.0")
  stale["blm_gone/x"] = ("1.0.0", None)
  assert records.stale_line(stale) == (
      "*Stale: made with blm_cos_od 1.2.0 (now 1.3.0: 4 datasets), "
      "blm_spray_load 1.3.0 (now 1.4.0: seq_type_II), blm_gone 1.0.0 (now "
      "gone: x); rerun it to update.*\n")


def test_make_names_a_missing_workdir_or_a_damaged_results_json(tmp_path):
  with pytest.raises(records.RecordError,
                     match=f"^{tmp_path / 'none'}: no such folder"):
    records.record_from_workdir(str(tmp_path / "none"), "cmd", "abc")
  (tmp_path / "w").mkdir()
  (tmp_path / "w" / "results.json").write_text('{"cells": [1, ')
  with pytest.raises(records.RecordError,
                     match=f"^{tmp_path / 'w' / 'results.json'}: not JSON"):
    records.record_from_workdir(str(tmp_path / "w"), "cmd", "abc")
  (tmp_path / "w" / "results.json").write_text("[" * 100_000)
  with pytest.raises(records.RecordError, match="JSON nested 100000 deep"):
    records.record_from_workdir(str(tmp_path / "w"), "cmd", "abc")


@pytest.mark.slow
def test_the_make_command_says_it_in_one_line(tmp_path):
  import subprocess
  import sys
  missing = tmp_path / "none"
  proc = subprocess.run(
      [sys.executable, "-m", "blm_jax.cli.records", "make",
       f"--workdir={missing}", f"--out={tmp_path / 'r.json'}",
       "--command=x"], capture_output=True, text=True, timeout=120,
      cwd=ROOT)
  assert proc.returncode == 1
  assert proc.stderr.strip() == (f"error: {missing}: no such folder "
                                 "(--workdir: a finished run's workdir or a "
                                 "suite's --out)")
