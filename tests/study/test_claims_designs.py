"""The claims on both designs: a paper design's claims are also checked on
its context- and sequence-necessary designs, the report sets the verdicts
side by side and shows each cell's context-free baseline and context
gain."""

import json

import numpy as np

from blm_jax.study import claims, claims_report, judge
from tests.study.test_reproduce import COS_GAIN, _hits, _run


def _with_context_free(results, best):
  """results + a context_free section whose best baseline is `best`."""
  cf = {t: {u: {"best": best, "best_baseline": "word_logit",
                "context_gain": c["f1_mean"] - best}
            for u, c in row.items()} for t, row in results["summary"].items()}
  return {**results, "context_free": cf}


def _designs(rng):
  """cos_en: vae2 clearly above the FFNN; cos_en_ctx: the two tie."""
  paper = {m: _run(_hits(rng, rate)) for m, rate in
           (("vae2", 0.95), ("ffnn", 0.75))}
  ctx = {m: _run(_hits(rng, 0.4)) for m in ("vae2", "ffnn")}
  runs = {"cos_en": {m: _with_context_free(r, 1.0)
                     for m, (r, _) in paper.items()},
          "cos_en_ctx": {m: _with_context_free(r, 0.5)
                         for m, (r, _) in ctx.items()}}
  preds = {"cos_en": {m: p for m, (_, p) in paper.items()},
           "cos_en_ctx": {m: p for m, (_, p) in ctx.items()}}
  return runs, preds


def test_a_paper_claim_is_checked_on_its_context_necessary_design():
  runs, preds = _designs(np.random.default_rng(0))
  got = {(v["dataset"], v["claim"]): v["verdict"]
         for v in judge.evaluate_claims(runs, preds)}
  assert got["cos_en", COS_GAIN] == "holds"
  assert got["cos_en_ctx", COS_GAIN] == "inconclusive"
  # A ctx design that was not run adds no rows.
  assert not any(ds == "cos_it_ctx" for ds, _ in got)


def test_the_report_sets_the_designs_side_by_side(tmp_path):
  runs, preds = _designs(np.random.default_rng(1))
  record = claims_report.report(runs, ["ffnn", "vae2"], str(tmp_path), "cmd",
                         preds)
  md = (tmp_path / "report.md").read_text()
  assert "## Both designs" in md
  assert (f"| {COS_GAIN} | cos_en | **holds** | cos_en_ctx | "
          "**inconclusive** |") in md
  # Every cell's best baseline and context gain, for each design.
  assert "1.000 (word_logit), gain -0.2" in md  # ffnn on cos_en
  assert "0.500 (word_logit), gain -0.1" in md  # cos_en_ctx at 0.4
  saved = json.loads((tmp_path / "report.json").read_text())
  assert saved["context_free"]["cos_en_ctx"]["vae2"]["I"]["III"][
      "best"] == 0.5


def test_spray_load_groups_share_one_context_necessary_design():
  assert (claims.CONTEXT_NECESSARY_OF["spray_load"]
          == claims.CONTEXT_NECESSARY_OF["spray_load_atl_alt"]
          == "spray_load_ctx")
  rng = np.random.default_rng(2)
  runs = {"spray_load_ctx": {m: _run(_hits(rng, 0.5))[0]
                             for m in ("ffnn", "vae2")}}
  run = [v for v in judge.evaluate_claims(runs)
         if v["verdict"] != "not run" and v["dataset"].endswith("_ctx")]
  # Each spray/load claim once, not once per paper group.
  assert len(run) == len({v["claim"] for v in run}) == 5
  assert {v["dataset"] for v in run} == {"spray_load_ctx"}


def test_every_context_necessary_design_has_its_paper_design():
  """A `_ctx` short name declared without the paper designs it stands
  beside (its `paper_designs`) would never be set beside them in the
  report."""
  from configs import common
  pairs = claims.CONTEXT_NECESSARY_OF
  assert set(pairs) | set(pairs.values()) <= set(common.DATASETS), (
      set(pairs) | set(pairs.values())) - set(common.DATASETS)
  unpaired = {n for n in common.DATASETS if n.endswith("_ctx")} - set(
      pairs.values())
  assert not unpaired, f"no paper design names {sorted(unpaired)}"
  assert not any(p.endswith("_ctx") for p in pairs)


def test_a_paper_claim_is_checked_on_its_sequence_necessary_design(
    tmp_path):
  runs, preds = _designs(np.random.default_rng(0))  # as the _ctx test
  runs["cos_en_seq"] = runs.pop("cos_en_ctx")
  preds["cos_en_seq"] = preds.pop("cos_en_ctx")
  verdicts = judge.evaluate_claims(runs, preds)
  got = {(v["dataset"], v["claim"]): v["verdict"] for v in verdicts}
  assert got["cos_en_seq", COS_GAIN] == "inconclusive"
  assert [COS_GAIN, "cos_en", "holds", "cos_en_seq", "inconclusive"] in (
      judge.design_pairs(verdicts))
  claims_report.report(runs, ["ffnn", "vae2"], str(tmp_path), "cmd", preds)
  md = (tmp_path / "report.md").read_text()
  assert (f"| {COS_GAIN} | cos_en | **holds** | cos_en_seq | "
          "**inconclusive** |") in md


def test_every_sequence_necessary_design_has_its_paper_design():
  from configs import common
  pairs = claims.SEQUENCE_NECESSARY_OF
  assert set(pairs) | set(pairs.values()) <= set(common.DATASETS)
  unpaired = {n for n in common.DATASETS if n.endswith("_seq")} - set(
      pairs.values())
  assert not unpaired, f"no paper design names {sorted(unpaired)}"
  assert claims.other_designs("spray_load_atl_alt") == [
      "spray_load_ctx", "spray_load_seq"]
