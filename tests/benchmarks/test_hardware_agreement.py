"""benchmarks/hardware_agreement.py: the same grid on two machines."""
import importlib
import json
import os
import sys

import numpy as np
import pytest

from tests import ROOT

sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
hardware_agreement = importlib.import_module("hardware_agreement")


def _npz(path, seeds, preds, correct):
  """A predictions.npz of one train type 'I' and test type 'I'."""
  np.savez(path, cell_seed=np.array(seeds), cell_train=np.array(
      ["I"] * len(seeds)), cell_variant=np.array([""] * len(seeds)),
      test_types=np.array(["I"]), pred_I=np.array(preds, np.int32),
      correct_I=np.array(correct, np.int32),
      ids_I=np.array([str(i) for i in range(len(correct))]))
  return str(path)


def test_same_and_different_machines(tmp_path, capsys):
  rng = np.random.default_rng(0)
  correct = rng.integers(0, 5, 400)
  a = rng.integers(0, 5, (3, 400))
  a[:, :200] = correct[:200]  # accuracy about 0.6
  b = a.copy()
  b[:, 300:] = (b[:, 300:] + 1) % 5  # the last quarter chosen otherwise
  pa = _npz(tmp_path / "a.npz", [0, 1, 2], a, correct)
  pb = _npz(tmp_path / "b.npz", [0, 1, 2], b, correct)
  out = tmp_path / "r.json"
  hardware_agreement.main([f"--a={pa}", f"--b={pb}", f"--out={out}"])
  r = json.loads(out.read_text())
  assert r["same_choice_a_vs_b"] == pytest.approx(0.75)
  expected = np.mean([(b[s] == correct).mean() - (a[s] == correct).mean()
                      for s in range(3)])
  assert r["mean_difference_b_minus_a"] == pytest.approx(expected)
  assert r["same_choice_two_seeds_of_a"] < 0.75
  same = hardware_agreement.compare(*(hardware_agreement.choices([pa]),) * 2)
  assert same["same_choice_a_vs_b"] == 1 and same["interval_95"] == [0, 0]
  assert "same choice 0.750" in capsys.readouterr().out


def test_one_seed_has_no_interval_and_no_seed_baseline(tmp_path, capsys):
  correct = np.arange(10) % 3
  pa = _npz(tmp_path / "a.npz", [0], correct[None, :], correct)
  pb = _npz(tmp_path / "b.npz", [0], np.zeros((1, 10)), correct)
  hardware_agreement.main([f"--a={pa}", f"--b={pb}"])
  out = capsys.readouterr().out
  assert "[-inf, +inf] over 1 seeds" in out and "vs n/a (two seeds" in out


def test_runs_without_a_common_cell(tmp_path):
  correct = np.zeros(10, int)
  pa = _npz(tmp_path / "a.npz", [0], np.zeros((1, 10)), correct)
  pb = _npz(tmp_path / "b.npz", [7], np.zeros((1, 10)), correct)
  with pytest.raises(SystemExit, match="share no"):
    hardware_agreement.main([f"--a={pa}", f"--b={pb}"])


def test_a_file_that_is_not_predictions(tmp_path):
  bad = tmp_path / "bad.npz"
  bad.write_text("not a zip")
  with pytest.raises(SystemExit, match=r"bad.npz: not a predictions.npz"):
    hardware_agreement.main([f"--a={bad}", f"--b={bad}"])
  other = tmp_path / "other.npz"
  np.savez(other, x=np.zeros(3))
  with pytest.raises(SystemExit, match=r"other.npz: not a predictions.npz"):
    hardware_agreement.main([f"--a={other}", f"--b={other}"])
