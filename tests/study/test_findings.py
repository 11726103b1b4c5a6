"""docs/findings.md: sentences rendered from records, checked like tables."""

from __future__ import annotations

import json
import os

import pytest

from blm_jax.cli import records as cli
from blm_jax.study import findings, records
from tests import ROOT

CLAIMS = ["source", "dataset", "claim", "verdict", "after Holm"]


def _cell(f1):
  return {"f1_mean": f1, "f1_std": 0.0}


def _run_record(f1=0.5):
  return {"results_config": {"model": "ffnn", "encoder": "minilm",
                             "dataset": "blm_x/seq_type_{}"},
          "summary": {"I": {"I": _cell(f1), "II": _cell(0.2)},
                      "II": {"I": _cell(0.3), "II": _cell(0.4)}},
          "context_free": {t: {t: {"best": 0.25, "best_baseline": "word_logit",
                                   "context_gain": f - 0.25}}
                           for t, f in (("I", f1), ("II", 0.4))}}


def test_a_run_says_its_diagonal_and_its_context_free_score():
  text = findings.render(_run_record(), "findings_run")
  assert text == (
      "- ffnn on minilm, blm_x/seq_type_{I,II}: diagonal F1 I→I 0.500, "
      "II→II 0.400.\n"
      "- Strongest context-free score on those cells: I→I 0.250 word_logit, "
      "II→II 0.250 word_logit; context gain +0.250, +0.150.\n")


def test_claims_are_counted_by_verdict_and_design_and_failures_named():
  record = {"tables": {"claims": {"columns": CLAIMS, "rows": [
      ["000", "a", "A beats B", "holds", "holds (p 0.01)"],
      ["000", "a_ctx", "A beats B", "holds", "inconclusive (p 0.2)"],
      ["000", "a_seq", "C is low", "does not hold",
       "does not hold (p 0.01)"]]}}}
  text = findings.render(record, "findings_claims")
  assert text.splitlines() == [
      "- 3 claims judged: 2 hold, 1 do not hold; after Holm over the "
      "record: 1 hold, 1 do not hold, 1 are inconclusive.",
      "- On the papers' designs (1 claims): 1 hold.",
      "- On the context-necessary designs (1 claims): 1 are inconclusive.",
      "- On the sequence-necessary designs (1 claims): 1 do not hold.",
      "- Does not hold after Holm: C is low (a_seq)."]


def test_solvers_name_each_datasets_best_and_the_contrasts():
  columns = ["dataset", "model", "diagonal F1", "context gain"]
  record = {"tables": {
      "solvers": {"columns": columns, "rows": [
          ["a", "ffnn", "0.700", "-0.100"], ["a", "vae2", "0.800", "0.050"],
          ["b_ctx", "cnn", "0.600", "0.300"]]},
      "solver_contrasts": {"columns": ["verdict (Holm)"], "rows": [
          ["inside the noise"], ["vae2 ahead"], ["inside the noise"]]}}}
  assert findings.render(record, "findings_solvers").splitlines() == [
      "- 3 grids over 2 datasets; the best diagonal F1 of each (its context "
      "gain): a vae2 0.800 (0.050); b_ctx cnn 0.600 (0.300).",
      "- 3 contrasts of the best solver against another, after Holm: 2 "
      "inside the noise, 1 vae2 ahead."]


def test_probes_name_the_best_layer_and_its_weakest_attribute():
  columns = ["layer", "form", "tail", "compounding", "probe-then-solve",
             "gold"]
  record = {"dataset": "d", "encoder": "e", "tables": {"mlp": {
      "columns": columns, "rows": [
          ["layer=0", "0.9", "0.8", "0.1", "0.5", "1.000"],
          ["layer=1", "0.7", "0.95", "0.1", "0.6", "1.000"],
          ["layer=2", "0.6", "0.6", "0.0", "0.2", "1.000"]]}}}
  assert findings.render(record, "findings_probes") == (
      "- d, e (MLP probes on held-out frames): probe-then-solve peaks at "
      "layer=1 with 0.6 (gold attributes 1.000); there the weakest "
      "attribute is form (0.7), at the last layer probe-then-solve is 0.2.\n")


def test_lost_names_the_attribute_whose_probe_costs_most_at_the_last_layer():
  columns = ["layer", "form", "tail", "compounding", "probe-then-solve",
             "only form", "only tail", "gold"]
  record = {"dataset": "blm_cos_od/od_en_seq_type_I", "encoder": "e",
            "tables": {"linear": {"columns": columns, "rows": [
                ["layer=0", "0.999", "0.97", "0.2", "0.912", "1.000",
                 "0.956", "1.000"],
                ["layer=1", "1.000", "0.99", "0.2", "0.956", "1.000",
                 "1.000", "1.000"],
                ["layer=2", "0.692", "0.892", "0.0", "0.487", "0.611",
                 "0.823", "1.000"]]}}}
  assert findings.render(record, "findings_lost") == (
      "- blm_cos_od/od_en_seq_type_I, e (linear probes on held-out frames): loses form "
      "most (alone 0.611 at layer=2); form is read 0.999 at layer=0, best "
      "1.000 at layer=1, 0.692 at layer=2; probe-then-solve 0.956 at "
      "layer=1, 0.487 at layer=2 (gold attributes 1.000).\n")


def test_a_finding_the_record_cannot_give_is_one_clear_error():
  with pytest.raises(records.RecordError,
                     match=r"view=findings_claims: no table 'claims' \(has "
                     r"\['solvers'\]\)"):
    records.render({"tables": {"solvers": {"columns": [], "rows": []}}},
                   {"view": "findings_claims"})
  with pytest.raises(records.RecordError,
                     match="view=findings_nope: not a finding"):
    records.render(_run_record(), {"view": "findings_nope"})


def test_a_changed_record_fails_the_check_of_its_finding(tmp_path):
  (tmp_path / "docs").mkdir()
  (tmp_path / "r.json").write_text(json.dumps(_run_record(0.5)))
  (tmp_path / "docs" / "findings.md").write_text(
      "# Found\n\n<!-- table: r.json view=findings_run -->\n"
      "<!-- end table -->\n")
  cli.tables(str(tmp_path))
  assert "I→I 0.500" in (tmp_path / "docs" / "findings.md").read_text()
  assert cli.tables(str(tmp_path), check=True) == []
  (tmp_path / "r.json").write_text(json.dumps(_run_record(0.6)))
  assert cli.tables(str(tmp_path), check=True) == [
      "docs/findings.md:3: table from r.json view=findings_run differs "
      "from its record"]


def test_findings_md_is_read_from_records_only():
  with open(os.path.join(ROOT, "docs", "findings.md"), encoding="utf-8") as f:
    text = f.read()
  _, found = records.render_document(text, ROOT)
  views = {dict(o.split("=", 1) for o in t["options"].split())["view"]
           for t in found}  # a marker may also say stale=...
  assert views == set(findings.VIEWS)
  # Outside the markers only prose: no bullet typed by hand.
  outside = records.MARKER.sub("", text)
  assert not [line for line in outside.splitlines()
              if line.startswith("- ")]
