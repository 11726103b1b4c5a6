"""The reproduction report: claims checked on heatmaps, report files."""

import json

from blm_jax.results import claims as reproduce


def _results(grid, seeds=(0, 1, 2)):
  """results.json-like dict from {train: {test: f1}}."""
  return {"summary": {t: {u: {"f1_mean": v, "f1_std": 0.01}
                          for u, v in row.items()} for t, row in grid.items()},
          "grid": {"seeds": list(seeds)},
          "data": {"train_sizes": {t: 1600 for t in grid}}}


FFNN_SL = {"I": {"I": .99, "II": .6, "III": .3},
           "II": {"I": .9, "II": .9, "III": .5},
           "III": {"I": .8, "II": .7, "III": .4}}
VAE_SL = {"I": {"I": .97, "II": .6, "III": .35},
          "II": {"I": .9, "II": .88, "III": .5},
          "III": {"I": .85, "II": .7, "III": .45}}


def _verdicts(runs):
  return {(v["dataset"], v["claim"]): v for v in
          reproduce.evaluate_claims(runs)}


def test_claims_hold_or_not_with_the_numbers():
  runs = {"spray_load": {"ffnn": _results(FFNN_SL),
                         "vae2": _results(VAE_SL)}}
  v = _verdicts(runs)
  hardest = v["spray_load", "I→III is the hardest FFNN cell on spray/load"]
  assert hardest["verdict"] == "holds"
  assert "ffnn I→III = 0.300" in hardest["evidence"]
  above = v["spray_load", "every FFNN cell on spray/load has F1 > 0.40"]
  assert above["verdict"] == "does not hold"
  assert "lowest cell F1 = 0.300" in above["evidence"]
  row = v["spray_load", "vae2 improves the train-III row over FFNN on "
          "spray/load (weaker)"]
  assert row["verdict"] == "holds" and "vae2 0.667, ffnn 0.633" in \
      row["evidence"]
  diag = v["spray_load", "vae2's diagonal is within 0.05 of the FFNN's or "
           "better"]
  assert diag["verdict"] == "holds" and "II→II -0.020" in diag["evidence"]
  # Claims about datasets that were not run say so.
  agr = v["agreement_en", "vae2 improves the train-III row over FFNN on "
          "agreement"]
  assert agr["verdict"] == "not run"

  worse = dict(VAE_SL, I={"I": .90, "II": .6, "III": .35})
  runs["spray_load"]["vae2"] = _results(worse)
  diag = _verdicts(runs)["spray_load", "vae2's diagonal is within 0.05 of "
                         "the FFNN's or better"]
  assert diag["verdict"] == "does not hold"


def test_report_files(tmp_path):
  runs = {"spray_load": {"ffnn": _results(FFNN_SL),
                         "vae2": _results(VAE_SL)}}
  reproduce.report(runs, ["ffnn", "vae2"], str(tmp_path), "cmd --x")
  md = (tmp_path / "report.md").read_text()
  assert "| train | ffnn →I | ffnn →II | ffnn →III | vae2 →I |" in md
  assert "| III | 0.800±0.010 | 0.700±0.010 | 0.400±0.010 | 0.850±0.010" in md
  assert "Command: `cmd --x`" in md
  record = json.loads((tmp_path / "report.json").read_text())
  assert record["summaries"]["spray_load"]["vae2"]["I"]["I"]["f1_mean"] == .97
  assert any(c["verdict"] == "holds" for c in record["claims"])

