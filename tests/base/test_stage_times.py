"""Stage times: the clock, the compile/training split, and the plan's
estimate of a grid from measured and committed timings."""

import json

import pytest

from blm_jax.base.stage_clock import StageClock, split_compile, stages_line
from blm_jax.study import grid_timing


def test_the_clock_sums_repeats_in_first_seen_order_and_counts_failures():
  clock = StageClock()
  clock.add("data", 1.0)
  clock.add("training", 2.0)
  clock.add("data", 0.5)
  with pytest.raises(RuntimeError):
    with clock.measure("plots"):
      raise RuntimeError("drawn badly")
  assert list(clock.as_dict()) == ["data", "training", "plots"]
  assert clock.seconds("data") == 1.5 and clock.seconds("plots") >= 0
  assert clock.total() == pytest.approx(3.5 + clock.seconds("plots"))
  with pytest.raises(ValueError, match="stage 'x': negative time"):
    clock.add("x", -1)
  assert stages_line({"data": 1.25, "training": 2.0}) == (
      "stages: data 1.2 s, training 2.0 s (total 3.2 s)")


@pytest.mark.parametrize("epochs, want", [
    ([], (0.0, 0.0)),
    ([5.0], (0.0, 5.0)),  # one epoch: nothing to tell compiling apart
    ([10.0, 1.0, 3.0, 1.0], (9.0, 6.0)),  # median of the rest: 1.0
    ([1.0, 2.0, 2.0], (0.0, 5.0)),  # a first epoch faster than the rest
])
def test_the_first_epochs_excess_is_the_compile_time(epochs, want):
  assert split_compile(epochs) == pytest.approx(want)


def _results(dataset, model, device, ips, stages=None, data_s=10.0):
  r = {"grid": {}, "config": {"dataset": dataset, "model": model},
       "throughput": {"train_instances_per_s": ips, "devices": [device],
                      "data_and_embedding_s": data_s}}
  if stages is not None:
    r["stage_seconds"] = stages
  return r


def test_a_grids_timing_splits_before_and_after_training():
  t = grid_timing.from_results(_results(
      "d_{}", "ffnn", "cuda:0", 1000.0,
      {"embedding": 3.0, "data": 2.0, "compile": 4.0, "training": 50.0,
       "evaluation": 1.0, "plots": 5.0}))
  assert t.platform == "accelerator"
  assert (t.before_s, t.after_s) == (5.0, 10.0)
  # 100 epochs of 2000 instances at 1000/s: 200 s, plus before and after.
  assert t.estimate(100, 2000) == pytest.approx(215.0)
  old = grid_timing.from_results(_results("d_{}", "ffnn", "cpu:0", 10.0))
  assert old.platform == "cpu" and old.after_s is None
  assert old.before_s == 10.0 and old.estimate(1, 10) == 11.0
  assert grid_timing.from_results({"throughput": {}}) is None


def test_the_estimate_prefers_the_dataset_then_the_models_median():
  timings = [
      grid_timing.from_results(_results("a_{}", "ffnn", "cpu:0", 100.0,
                                        {"data": 1.0, "training": 9.0,
                                         "plots": 2.0})),
      grid_timing.from_results(_results("b_{}", "ffnn", "cpu:0", 300.0)),
      grid_timing.from_results(_results("a_{}", "ffnn", "cuda:0", 1e5))]
  exact = grid_timing.estimate(timings, "a_{}", "ffnn", "cpu", 10, 100)
  assert exact.seconds == pytest.approx(1.0 + 10.0 + 2.0)
  assert exact.source == "this dataset" and exact.after_known
  other = grid_timing.estimate(timings, "c_{}", "ffnn", "cpu", 10, 100)
  # Medians over both CPU grids: rate 200/s, before 5.5 s, after 2 s.
  assert other.seconds == pytest.approx(5.5 + 1000 / 200 + 2.0)
  assert other.source == "median of 2 ffnn grids"
  assert grid_timing.estimate(timings, "a_{}", "cnn", "cpu", 1, 1) is None
  assert grid_timing.estimate(timings, "a_{}", "ffnn", "accelerator", 1,
                              1).source == "this dataset"


def test_committed_records_are_read_and_other_files_skipped(tmp_path):
  (tmp_path / "suite" / "a").mkdir(parents=True)
  (tmp_path / "suite" / "a" / "ffnn.json").write_text(json.dumps(
      _results("a_{}", "ffnn", "cpu:0", 100.0)))
  (tmp_path / "table.json").write_text(json.dumps({"rows": []}))
  (tmp_path / "broken.json").write_text("{")
  (tmp_path / "link.json").symlink_to(tmp_path / "suite" / "a" / "ffnn.json")
  (got,) = grid_timing.committed(str(tmp_path))
  assert got.dataset == "a_{}" and got.train_instances_per_s == 100.0
  assert grid_timing.committed(str(tmp_path / "missing")) == []
