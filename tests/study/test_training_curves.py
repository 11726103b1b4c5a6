"""001 Figures 7-8 in the reproduction report: F1 and chosen errors against
the training size, from a toy paper001-like suite (synthetic data, tiny
FFNN grids of two sizes) and from hand-made results."""

import base64
import copy
import json
import os

import pytest

from blm_jax.cli import config_files
from blm_jax.study import reproduce
from blm_jax.results.experiment import run_experiment
from blm_jax.study import (claims_report, paper_values, records, suites,
                           training_curves as tc)
from tests import synthetic
from tests.study.test_reproduce_suites import _configs

pytestmark = pytest.mark.slow

SIZES = (30, 60)
TYPES = ("I", "III")


def _grids():
  """paper001's shape: one grid per size on types I and III, plus a grid
  of one size only (no curve)."""
  over = lambda n: (("data.num_train", n), ("data.train_types", TYPES),
                    ("data.test_types", TYPES))
  return ([suites.Grid(f"cos_en_n{n}", "ffnn", "dataset=cos_en",
                       "001 Fig. 7-8", over(n)) for n in SIZES]
          + [suites.Grid("od_en_n30", "ffnn", "dataset=od_en", "001 Fig. 7-8",
                         over(30))])


def _run(config, workdir):
  data = synthetic.data(n_train=config.data.num_train, n_dev=20, n_test=40,
                        types=TYPES)
  run_experiment(config, workdir, data=data)


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
  tmp = tmp_path_factory.mktemp("curves")
  options = reproduce.Options(config_files.loader(_configs(tmp)),
                              seeds=(0, 1),
                              seed_follows_grid=False)
  out = str(tmp / "o")
  entries = reproduce.entries_of(_grids(), options, out)
  record = reproduce.run_suite(entries, out, "cmd", False, run_fn=_run,
                               echo=lambda _: None)
  runs = {g.name: {g.model: json.loads(open(os.path.join(
      out, g.name, g.model, "results.json")).read())} for g in _grids()}
  return out, record, runs


def test_the_curve_is_the_runs_summaries(suite):
  out, record, runs = suite
  (curve,) = record["training_curves"]["curves"]
  assert (curve["dataset"], curve["model"]) == ("cos_en", "ffnn")
  assert curve["sizes"] == list(SIZES)
  assert curve["grids"] == [f"cos_en_n{n}" for n in SIZES]
  assert list(curve["cells"]) == ["I->I", "III->III", "I->III", "III->I"]
  md = open(os.path.join(out, "report.md")).read()
  section = md[md.index("### cos_en: F1 against the training size"):]
  for key, cell in curve["cells"].items():
    t, u = key.split("->")
    ours = [runs[f"cos_en_n{n}"]["ffnn"]["summary"][t][u] for n in SIZES]
    assert cell["f1_mean"] == [c["f1_mean"] for c in ours]
    assert cell["f1_std"] == [c["f1_std"] for c in ours]
    assert cell["f1_seeds"] == [
        [c["test"][u]["f1"] for c in runs[f"cos_en_n{n}"]["ffnn"]["cells"]
         if c["train_type"] == t] for n in SIZES]
    row = " | ".join(f"{c['f1_mean']:.3f} ± {c['f1_std']:.3f}" for c in ours)
    assert f"| ffnn | {t}→{u} | {row} |" in section
    # Figure 8: each error's share of the test answers (seeds summed).
    chosen = ours[-1]["chosen_total"]
    total = sum(chosen.values())
    for label, share in cell["error_share"].items():
      assert share[-1] == pytest.approx(chosen[label] / total)
    # The correct answers' label comes from the data's `correct` index,
    # not from the inventory (in the order the labels were seen).
    correct = runs["cos_en_n60"]["ffnn"]["correct_labels"][0]
    assert correct == "CORRECT"
    assert set(cell["error_share"]) == set(chosen) - {correct}
    top = cell["most_frequent_error"][-1]
    assert chosen[top] == max(v for k, v in chosen.items() if k != correct)
  drop = record["training_curves"]["drops"][0]
  assert drop["drop"] == pytest.approx(
      curve["cells"]["III->III"]["f1_mean"][-1]
      - curve["cells"]["I->III"]["f1_mean"][-1])


def test_figures_are_written_and_inlined_one_size_draws_none(suite):
  out, record, _ = suite
  html = open(os.path.join(out, "report.html")).read()
  for name in ("training_size_cos_en.png", "training_errors_cos_en.png"):
    with open(os.path.join(out, name), "rb") as f:
      assert base64.b64encode(f.read()).decode("ascii") in html
  assert not any(f.startswith("training_") and "od_en" in f
                 for f in os.listdir(out))
  assert [c["dataset"] for c in record["training_curves"]["curves"]] == [
      "cos_en"]
  # 3 grids x (heatmap, errors), then the curve's two figures
  assert html.count("data:image/png;base64,") == 8
  md = open(os.path.join(out, "report.md")).read()
  for q in paper_values.TRAINING_SIZE_QUOTES:
    assert f'> "{q.text}" ({q.paper} {q.where}, line {q.line})' in md
  assert "five in 001" in md and "RoBERTa and Electra in 001" in md


def test_the_record_keeps_the_curves(suite):
  out, record, _ = suite
  rec = records.record_from_report(out, "cmd", "abc")
  assert rec["training_curves"] == record["training_curves"]
  rows = rec["tables"]["training_curves"]["rows"]
  assert len(rows) == 4 * len(SIZES)
  assert rows[0][:4] == ["cos_en", "ffnn", "I→I", "30"]


def _three_sizes(runs):
  """`runs` with a copy of the n60 grid recorded as trained on 90."""
  runs = copy.deepcopy(runs)
  runs["cos_en_n90"] = copy.deepcopy(runs["cos_en_n60"])
  runs["cos_en_n90"]["ffnn"]["run"]["config"]["data.num_train"] = 90
  return runs


def test_bad_or_missing_keys_are_named_not_fatal(suite, tmp_path):
  runs = _three_sizes(suite[2])
  del runs["cos_en_n30"]["ffnn"]["run"]
  runs["od_en_n30"]["ffnn"]["run"]["config"]["data.num_train"] = "many"
  skipped = ["cos_en_n30/ffnn: results.json has no run.config",
             "od_en_n30/ffnn: run.config data.num_train='many' is not a "
             "positive integer"]
  rec = claims_report.report(runs, ["ffnn"], str(tmp_path), "cmd")
  assert rec["training_curves"]["skipped"] == skipped
  assert [c["sizes"] for c in rec["training_curves"]["curves"]] == [[60, 90]]
  md = (tmp_path / "report.md").read_text()
  assert "Left out of the curves: " + "; ".join(skipped) in md
  # A cell without its F1 at one size is left out of the curve.
  runs["cos_en_n90"]["ffnn"]["summary"]["I"]["I"].pop("f1_mean")
  (curve,) = tc.curves(runs)["curves"]
  assert "I->I" not in curve["cells"] and "III->III" in curve["cells"]
  # One size left: no curve, no section, nothing drawn.
  del runs["cos_en_n90"]["ffnn"]["summary"]
  found = tc.curves(runs)
  assert found["curves"] == []
  assert "cos_en_n90/ffnn: results.json has no summary" in found["skipped"]
  assert tc.sections(found, str(tmp_path / "none")) == ([], {})
  assert not (tmp_path / "none").exists()
  assert tc.curves({"x": {"ffnn": None}, "y": {}, "z": {"cnn": {
      "run": None}}})["skipped"] == [
          "x/ffnn: results.json has no run.config",
          "z/cnn: results.json has no run.config"]


def test_grids_differing_in_more_than_the_size_are_not_one_curve(suite):
  _, _, runs = suite
  runs = _three_sizes(runs)
  runs["cos_en_n90"]["ffnn"]["run"]["config"]["train.learning_rate"] = 9.0
  (curve,) = tc.curves(runs)["curves"]
  assert curve["sizes"] == [30, 60]
  # The same config and size twice: the second is named, not drawn twice.
  runs["cos_en_again"] = copy.deepcopy(runs["cos_en_n60"])
  found = tc.curves(runs)
  assert found["skipped"] == ["cos_en_again/ffnn: the same config and size "
                              "as cos_en_n60/ffnn"]
  assert found["curves"][0]["sizes"] == [30, 60]
