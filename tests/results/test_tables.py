"""A grid's cells as CSV, console lines and LaTeX, from one set of rows."""

import json
import subprocess
import sys

import pytest

from blm_jax.results import tables
from tests import ROOT


def _results(gain=-0.1):
  cell = lambda f: {"f1_mean": f, "f1_std": 0.01}
  free = lambda b: {"best": b, "best_baseline": "word_logit",
                    "context_gain": gain}
  return {"grid": {"seeds": [0, 1, 2], "train_types": ["I", "II"]},
          "summary": {"I": {"I": cell(0.9), "II": cell(0.5)},
                      "II": {"I": cell(0.7), "II": cell(0.6)}},
          "context_free": {"I": {"I": free(1.0), "II": free(0.6)},
                           "II": {"I": free(0.8), "II": free(0.7)}},
          "data": {"test_sizes": {"I": 300, "II": 12}}}


def test_csv_one_row_per_cell_with_the_baseline_and_test_count():
  text = tables.to_csv(tables.cell_rows(_results()))
  lines = text.splitlines()
  assert lines[0] == ("train,test,f1_mean,f1_std,n_seeds,n_test,"
                      "best_context_free,best_context_free_scorer,"
                      "context_gain,gold_reference_f1,gold_solver_f1")
  assert lines[1] == "I,I,0.9000,0.0100,3,300,1.0000,word_logit,-0.1000,,"
  assert lines[2] == "I,II,0.5000,0.0100,3,12,0.6000,word_logit,-0.1000,,"
  assert len(lines) == 5
  # A record made before test sizes were kept: the column is empty.
  r = _results()
  del r["data"]
  assert tables.to_csv(tables.cell_rows(r)).splitlines()[1] == (
      "I,I,0.9000,0.0100,3,,1.0000,word_logit,-0.1000,,")


def test_console_says_the_baseline_and_when_the_context_did_not_help():
  lines = tables.console_lines(tables.cell_rows(_results()))
  assert lines[0].startswith("train I: test I F1 0.900±0.010 (cf 1.000 "
                             "word_logit, gain -0.100)")
  assert "over 3 seed(s)" in lines[-1]
  assert "4 of 4 cell(s) gain nothing from the context" in lines[-1]
  assert "gain nothing" not in tables.console_lines(
      tables.cell_rows(_results(gain=0.2)))[-1]


def test_without_context_free_baselines_the_console_shows_f1_only():
  r = _results()
  del r["context_free"]
  lines = tables.console_lines(tables.cell_rows(r))
  assert lines[0] == "train I: test I F1 0.900±0.010  test II F1 0.500±0.010"
  assert "cf:" not in lines[-1]


def test_latex_escapes_and_brackets_the_baseline():
  r = _results()
  text = tables.to_latex(tables.cell_rows(r), caption="ffnn on a_b & c")
  assert r"\begin{tabular}{lcc}" in text
  assert r"\shortstack{$0.900 \pm 0.010$ \\ \scriptsize [1.000]}" in text
  assert r"ffnn on a\_b \& c" in text
  assert "over 3 seed(s)" in text
  rows = tables.rows_to_latex(["train", "ffnn →I"], [["I", "0.9±0.1"]])
  assert r"ffnn $\rightarrow$I" in rows and r"0.9$\pm$0.1" in rows


@pytest.mark.slow
def test_records_latex_command(tmp_path):
  record = tmp_path / "r.json"
  record.write_text(json.dumps({**_results(), "study": "toy"}))
  out = tmp_path / "t.tex"
  run = lambda *a: subprocess.run(
      [sys.executable, "-m", "blm_jax.cli.records", "latex", *a], cwd=ROOT,
      capture_output=True, text=True, timeout=120)
  proc = run(f"--record={record}", f"--out={out}")
  assert proc.returncode == 0, proc.stderr
  assert out.read_text().startswith(r"\begin{table}")
  proc = run(f"--record={tmp_path / 'missing.json'}")
  assert proc.returncode != 0
  assert proc.stderr.strip() == (f"error: {tmp_path / 'missing.json'}: "
                                 "cannot be read (No such file or directory)")
  (tmp_path / "list.json").write_text("[1, 2]")
  proc = run(f"--record={tmp_path / 'list.json'}")
  assert proc.returncode == 1
  assert proc.stderr.strip() == (f"error: {tmp_path / 'list.json'}: holds a "
                                 "JSON list, not a record (a JSON object)")


def test_gold_ceiling_in_csv_and_console():
  r = _results()
  gold = lambda f: {"f1_mean": f, "f1_std": 0.0}
  r["gold_ceiling"] = {
      "reference": {t: {u: gold(1.0) for u in ("I", "II")}
                    for t in ("I", "II")},
      "solver": {"I": {"I": gold(0.97), "II": gold(0.5)}}}
  rows = tables.cell_rows(r)
  assert tables.to_csv(rows).splitlines()[1].endswith(",1.0000,0.9700")
  assert tables.to_csv(rows).splitlines()[-1].endswith(",1.0000,")
  lines = tables.console_lines(rows)
  assert "[gold 1.000, solver on gold 0.970]" in lines[0]
  assert "gold: the attribute-relations model" in lines[-1]
