"""The helpers of studies/attribute_bottleneck_dev.py (slot accuracy,
the runs table, overrides) and studies/paired_contrast.py (its one
line for a workdir without results, its cell-by-cell table, a later
solver joining an earlier contrast)."""

import json
import os
import sys

import numpy as np
import pytest

from tests import ROOT

sys.path.insert(0, os.path.join(ROOT, "studies"))
import attribute_bottleneck_dev as dev  # noqa: E402
import paired_contrast  # noqa: E402

from blm_jax.training.solver import SplitIndex  # noqa: E402
from configs import attribute_bottleneck as ab_config  # noqa: E402


def test_slot_accuracy_reads_slot_j_against_attribute_j():
  # 2 instances, 3 context positions, 2 slots of 3 values; attribute 1 is
  # absent (-1) at one position and left out.
  targets = np.array([[[0, 2], [1, -1], [2, 0]],
                      [[0, 1], [0, 1], [1, 1]]], np.int32)
  values = np.zeros((2, 3, 2, 3), np.float32)
  guess = targets.copy()
  guess[0, 0, 0] = 1  # one miss of attribute 0 (of 6)
  guess[1, 2, 1] = 2  # one miss of attribute 1 (of 5 present)
  for idx in np.ndindex(2, 3, 2):
    values[idx + (max(guess[idx], 0),)] = 1.0
  split = SplitIndex(context=np.zeros((2, 3), np.int32),
                     context_mask=np.ones((2, 3), bool),
                     answers=np.zeros((2, 1), np.int32),
                     answer_mask=np.ones((2, 1), bool),
                     correct=np.zeros(2, np.int32),
                     labels=np.zeros((2, 1), np.int32), size=np.int32(2),
                     context_attributes=targets)
  got = dev._slot_accuracy(values.reshape(2, -1), split, 2, 2, 3, ("a", "b"))
  assert got == pytest.approx({"a": 5 / 6, "b": 4 / 5})


def test_the_runs_table_follows_the_schemas_order():
  run = {"input": "encoder", "overrides": ["model.detach_slots=True"],
         "train_instances": 1200, "epochs": 40, "dev_accuracy_best": 0.27,
         "best_epoch": 37, "dev_accuracy_last": 0.243,
         "slot_accuracy_last": {"n1": 0.5, "embedding": 1.0}}
  table = dev.runs_table({"detach": run}, ("embedding", "n1"))
  assert table["columns"][-1] == (
      "slot accuracy at the last epoch (embedding / n1)")
  assert table["rows"] == [["detach", "encoder", "model.detach_slots=True",
                            "1200", "40", "0.270 (37)", "0.243",
                            "1.00 / 0.50"]]


def test_overrides_are_typed_and_bad_ones_are_one_line():
  c = ab_config.get_config(None)
  dev._override(c, "model.detach_slots=true")
  dev._override(c, "model.encoder_hidden=128,64")
  dev._override(c, "train.learning_rate=3e-3")
  assert c.model.detach_slots is True
  assert c.model.encoder_hidden == (128, 64)
  assert c.train.learning_rate == 3e-3
  with pytest.raises(SystemExit, match="'model.slotz=4': expected section"):
    dev._override(c, "model.slotz=4")
  with pytest.raises(SystemExit, match="model.detach_slots is a boolean"):
    dev._override(c, "model.detach_slots=maybe")


def test_paired_contrast_names_an_unfinished_workdir(tmp_path):
  with pytest.raises(SystemExit, match="no results.json"):
    paired_contrast.contrast([str(tmp_path)])


def _finished(folder, model, f1, seeds=None, hits=None, lr=1e-3, ids="",
              versions=None):
  """A workdir whose results.json gives `model` F1 `f1` (per seed, of
  `seeds`: 0, 1, ... by default) in every cell of types I and II, with its
  config.json; with `hits` ({seed: [N] bool}), a predictions.npz whose
  cells choose the correct answer there."""
  types = ("I", "II")
  seeds = list(range(len(f1))) if seeds is None else seeds
  os.makedirs(folder)
  results = {"config": {"model": model, "dataset": "d"},
             "summary": {t: {u: {"f1_mean": float(np.mean(f1))}
                             for u in types} for t in types},
             "data": {"test_sizes": {"I": 4, "II": 4},
                      "builder_versions": versions or {"d/t_I": "1.2.0"}},
             "cells": [{"seed": s, "train_type": t,
                        "test": {u: {"f1": v} for u in types}}
                       for s, v in zip(seeds, f1) for t in types]}
  with open(os.path.join(folder, "results.json"), "w") as f:
    json.dump(results, f)
  config = {"model": {"name": model}, "train": {"learning_rate": lr},
            "grid": {"mode": "auto", "seeds": seeds}, "progress": True}
  with open(os.path.join(folder, "config.json"), "w") as f:
    json.dump(config, f)
  if hits is not None:
    cells = [(s, t) for s in seeds for t in types]
    arrays = {"cell_seed": np.array([s for s, _ in cells]),
              "cell_train": np.array([t for _, t in cells]),
              "cell_variant": np.array([""] * len(cells)),
              "test_types": np.array(types)}
    for u in types:
      arrays[f"correct_{u}"] = np.zeros(4, np.int32)
      arrays[f"pred_{u}"] = np.array([np.where(hits[s], 0, 1)
                                      for s, _ in cells], np.int32)
      arrays[f"ids_{u}"] = np.array([f"{ids}{u}{i}" for i in range(4)])
    np.savez(os.path.join(folder, "predictions.npz"), **arrays)
  return str(folder)


def test_paired_contrast_cells_of_one_model(tmp_path):
  a = _finished(tmp_path / "a", "a", [0.50, 0.52, 0.51])
  b = _finished(tmp_path / "b", "b", [0.20, 0.21, 0.19])
  rows, _, cells = paired_contrast.contrast([a, b], "a")
  assert rows[0][1:3] == ["a", "b"]
  assert [c[1] for c in cells] == ["I -> I", "I -> II", "II -> I",
                                   "II -> II"]
  assert all(c[2:4] == ["a", "b"] and c[4] == "+0.310" for c in cells)
  assert paired_contrast.contrast([a, b])[2] == []
  with pytest.raises(SystemExit, match=r"--cells_of=c: not the model of any "
                     r"--workdir or --kept \(a, b\)"):
    paired_contrast.contrast([a, b], "c")


def test_a_second_look_is_read_at_half_the_level(tmp_path):
  # Seed differences +0.10, +0.06, +0.05: p 0.0445, between 2.5% and 5%.
  a = _finished(tmp_path / "a", "a", [0.60, 0.56, 0.55])
  b = _finished(tmp_path / "b", "b", [0.50, 0.50, 0.50])
  first, _, cells = paired_contrast.contrast([a, b], "a")
  second, _, cells2 = paired_contrast.contrast([a, b], "a", looks=2)
  assert first[0][5] == second[0][5] == "0.0445"
  assert first[0][6:] == ["a ahead", "a ahead"]
  assert second[0][6:] == ["inside the noise", "inside the noise"]
  assert [c[:7] for c in cells] == [c[:7] for c in cells2]
  with pytest.raises(SystemExit, match=r"^--looks=0: 1 for a first look"):
    paired_contrast.contrast([a, b], looks=0)


def test_a_solver_run_later_joins_an_earlier_contrasts_holm_family(tmp_path):
  # a - b: p 0.0445, ahead alone; with a - c (p about 0.23) in the family,
  # Holm doubles it and the earlier row is inside the noise.
  a = _finished(tmp_path / "a", "a", [0.60, 0.56, 0.55])
  b = _finished(tmp_path / "b", "b", [0.50, 0.50, 0.50])
  c = _finished(tmp_path / "c", "c", [0.45, 0.55, 0.50])
  earlier_rows = paired_contrast.contrast([a, b])[0]
  assert earlier_rows[0][6:] == ["a ahead", "a ahead"]
  path = tmp_path / "earlier.json"
  path.write_text(json.dumps({"verdict_level": 0.05, "tables": {"contrast": {
      "columns": list(paired_contrast.solver_contrasts.COLUMNS),
      "rows": earlier_rows}}}))
  new_rows = paired_contrast.contrast([a, c])[0]
  rows = paired_contrast.join(str(path), new_rows, 0.05)
  assert [r[2] for r in rows] == ["b", "c"]
  assert rows[0][:7] == earlier_rows[0][:7]  # its numbers kept
  assert rows[0][7] == "inside the noise"
  assert rows[1][6:] == ["inside the noise", "inside the noise"]
  with pytest.raises(SystemExit, match=r"^--joins=.*earlier.json: d: b is in "
                     "the earlier table already$"):
    paired_contrast.join(str(path), [list(earlier_rows[0])], 0.05)
  top = _finished(tmp_path / "top", "top", [0.90, 0.91, 0.92])
  with pytest.raises(SystemExit, match=r"d: the best is top here and a in "
                     "the earlier table; a new best changes every row"):
    paired_contrast.join(str(path), paired_contrast.contrast([top, a])[0],
                         0.05)
  with pytest.raises(SystemExit, match=r"its verdicts are at the 0.05 level, "
                     "these at 0.025 \\(--looks\\)$"):
    paired_contrast.join(str(path), new_rows, 0.025)
  (tmp_path / "other.json").write_text(json.dumps({"tables": {}}))
  with pytest.raises(SystemExit, match=r"other.json: not a contrast record"):
    paired_contrast.join(str(tmp_path / "other.json"), new_rows, 0.05)


def test_two_settings_of_one_model_are_compared_under_labels(tmp_path):
  low = _finished(tmp_path / "low", "a", [0.50, 0.52, 0.51])
  high = _finished(tmp_path / "high", "a", [0.20, 0.21, 0.19], lr=3e-3)
  with pytest.raises(SystemExit, match="configs that differ beyond "
                     "grid.seeds"):
    paired_contrast.contrast([low, high])
  rows, seen, cells = paired_contrast.contrast(
      [], "a_L0", labelled=[f"a_L0={low}", f"a_L6={high}"])
  assert rows[0][1:4] == ["a_L0", "a_L6", "+0.310"]
  assert seen[low] == {"model": "a_L0", "dataset": "d"}
  assert len(cells) == 4 and all(c[2:4] == ["a_L0", "a_L6"] for c in cells)
  with pytest.raises(SystemExit, match=r"^--labelled=a_L0: <label>=<workdir>$"):
    paired_contrast.contrast([], labelled=["a_L0", f"a_L6={high}"])


def test_one_models_seeds_in_two_workdirs_are_one_grid(tmp_path):
  # a's seeds 0-2 in one workdir and 3-4 in another give the contrast of
  # one five-seed workdir, instance-level hits included.
  f1a, f1b = [0.5, 0.75, 0.5, 0.75, 0.5], [0.25, 0.5, 0.25, 0.25, 0.5]
  def hits_of(f1):  # The first f1 * 4 of 4 instances right.
    return {s: np.arange(4) < round(v * 4) for s, v in enumerate(f1)}

  hits, hits_b = hits_of(f1a), hits_of(f1b)
  whole = _finished(tmp_path / "whole", "a", f1a, hits=hits)
  head = _finished(tmp_path / "head", "a", f1a[:3], [0, 1, 2], hits=hits)
  tail = _finished(tmp_path / "tail", "a", f1a[3:], [3, 4], hits=hits)
  b = _finished(tmp_path / "b", "b", f1b, hits=hits_b)
  one = paired_contrast.contrast([whole, b], "a")
  split = paired_contrast.contrast([head, tail, b], "a")
  assert split[0] == one[0] and split[2] == one[2]
  assert one[0][0][3] == "+0.250"
  assert split[1][tail] == {"model": "a", "dataset": "d"}
  moved = _finished(tmp_path / "moved", "a", f1a[3:], [3, 4], hits=hits,
                    ids="x")
  with pytest.raises(SystemExit, match=r"head and --workdir=.*moved: their "
                     r"predictions are on different test instances"):
    paired_contrast.contrast([head, moved, b])
  # Three seeds of each: another interval, so the merge is what made it.
  b3 = _finished(tmp_path / "b3", "b", f1b[:3], hits=hits_of(f1b[:3]))
  assert paired_contrast.contrast([head, b3], "a")[0] != one[0]


def test_workdirs_that_are_not_one_grids_seeds_do_not_merge(tmp_path):
  head = _finished(tmp_path / "head", "a", [0.5, 0.6, 0.5])
  again = _finished(tmp_path / "again", "a", [0.5, 0.6], [2, 3])
  other = _finished(tmp_path / "other", "a", [0.5, 0.6], [3, 4], lr=3e-3)
  b = _finished(tmp_path / "b", "b", [0.2, 0.3, 0.2])
  with pytest.raises(SystemExit, match=r"--workdir=.*head and --workdir="
                     r".*again: both have seed\(s\) \[2\]"):
    paired_contrast.contrast([head, again, b])
  with pytest.raises(SystemExit, match=r"--workdir=.*other: one model on "
                     r"one dataset with configs that differ beyond "
                     r"grid.seeds"):
    paired_contrast.contrast([head, other, b])
  with pytest.raises(SystemExit, match=r"d: the grids' seeds differ \(a: "
                     r"\[0, 1, 2\]; b: \[0, 1\]\)"):
    paired_contrast.contrast([head, _finished(tmp_path / "b2", "b",
                                              [0.2, 0.3])])
  with open(os.path.join(other, "config.json"), "w") as f:
    f.write("[]")
  with pytest.raises(SystemExit, match=r"--workdir=.*other: .*config.json: "
                     r"holds a JSON list, not a grid's config.json"):
    paired_contrast.contrast([head, other, b])
  with pytest.raises(SystemExit, match="grids of two or more models"):
    paired_contrast.contrast([head, _finished(tmp_path / "tail", "a",
                                              [0.4], [7])])


def _keep(folder, keep, name="grid"):
  """`folder`'s finished grid written as a suite keeps it:
  <keep>/<name>/<model>.json with its predictions.npz beside."""
  from blm_jax.study import grid_records
  path = os.path.join(folder, "results.json")
  with open(path) as f:
    results = json.load(f)
  with open(os.path.join(folder, "config.json")) as f:
    config = json.load(f)
  results.update(grid={"seeds": config["grid"]["seeds"]},
                 run={"config": config})
  with open(path, "w") as f:
    json.dump(results, f)
  model = results["config"]["model"]
  return grid_records.write(str(keep), name, model, str(folder), "cmd", "c0")


def test_a_kept_five_seed_grid_pairs_with_a_three_seed_run(tmp_path):
  # A suite's five-seed grid, read from its kept record and cut to seeds
  # 0-2, contrasts as the same grid's three seeds in a workdir do.
  f1a, f1b = [0.5, 0.75, 0.5], [0.25, 0.5, 0.25, 0.5, 0.75]
  hits_of = lambda f1: {s: np.arange(4) < round(v * 4)
                        for s, v in enumerate(f1)}
  a = _finished(tmp_path / "a", "a", f1a, hits=hits_of(f1a))
  b5 = _finished(tmp_path / "b5", "b", f1b, hits=hits_of(f1b))
  b3 = _finished(tmp_path / "b3", "b", f1b[:3], hits=hits_of(f1b[:3]))
  kept = _keep(b5, tmp_path / "keep")
  assert kept == str(tmp_path / "keep" / "grid" / "b.json")
  want = paired_contrast.contrast([a, b3], "a")
  got = paired_contrast.contrast([a], "a", kept=[kept], seeds=[0, 1, 2])
  assert got[0] == want[0] and got[2] == want[2]
  assert got[1][f"--kept={kept}"] == {"model": "b", "dataset": "d"}
  with pytest.raises(SystemExit, match=r"d: the grids' seeds differ .*"
                     r"\(or --seeds=<those they share>\)"):
    paired_contrast.contrast([a], kept=[kept])
  with pytest.raises(SystemExit, match=r"--seeds: .*a has seeds \[0, 1, 2\],"
                     r" not \[4\]"):
    paired_contrast.contrast([a], kept=[kept], seeds=[0, 4])
  with pytest.raises(SystemExit, match=r"b3 and --kept=.*b.json: one model "
                     r"on one dataset twice; a kept grid is not merged"):
    paired_contrast.contrast([a, b3], kept=[kept], seeds=[0, 1, 2])


def test_a_kept_path_that_is_not_a_kept_record_gets_one_line(tmp_path):
  with pytest.raises(SystemExit, match=r"--kept=.*nothing.json: no kept "
                     r"grid record there"):
    paired_contrast.contrast([], kept=[str(tmp_path / "g" / "nothing.json")])
  bad = tmp_path / "keep" / "g" / "b.json"
  bad.parent.mkdir(parents=True)
  bad.write_text('{"summary": {}}')
  with pytest.raises(SystemExit, match=r"--kept=.*b.json: .*b.json: not a "
                     r"grid's record: no grid, cells, data, config, run"):
    paired_contrast.contrast([], kept=[str(bad)])


def test_grids_on_other_builder_versions_are_not_paired(tmp_path):
  # Test ids survive a builder's new version while the sentences change:
  # the contrast refuses rather than pair them.
  a = _finished(tmp_path / "a", "a", [0.5, 0.6, 0.5])
  b = _finished(tmp_path / "b", "b", [0.2, 0.3, 0.2],
                versions={"d/t_I": "1.3.0"})
  with pytest.raises(SystemExit, match=r"d: the grids read different "
                     r"builder versions \(a: 1.2.0; b: 1.3.0\)"):
    paired_contrast.contrast([a, b])
  tail = _finished(tmp_path / "tail", "a", [0.4, 0.5], [3, 4],
                   versions={"d/t_I": "1.3.0"})
  with pytest.raises(SystemExit, match=r"--workdir=.*a and --workdir=.*tail"
                     r": different train types, test sets or builder "
                     r"versions"):
    paired_contrast.contrast([a, tail, b])
