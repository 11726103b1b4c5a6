"""benchmarks/grid_wall_times.py: a grid's wall time from its log."""
import importlib
import json
import os
import sys

import pytest

from tests import ROOT

sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
grid_wall_times = importlib.import_module("grid_wall_times")

# A run stopped after epoch 1 and resumed 50 minutes later (taking over
# the dead process's lock first); data took 30 s, then 20 s.
LOG = """\
2026-11-27 10:00:30,000 data: 100 distinct sentences (dedup ratio 7.10), D=384, 7 context x 9 answers (30.0s)
2026-11-27 10:00:31,000 epoch 0 loss 1.0 100.0 instances/s
2026-11-27 10:05:30,000 epoch 1 loss 0.5 100.0 instances/s
2026-11-27 10:56:00,000 took over the lock of a process that no longer runs (1 vm)
2026-11-27 10:56:00,000 data: 100 distinct sentences (dedup ratio 7.10), D=384, 7 context x 9 answers (20.0s)
2026-11-27 10:56:01,000 resumed from epoch 1
  seed=0,train=I dev_acc 0.9
2026-11-27 11:05:40,000 train I: test I F1 0.9
"""


def _grid(root, key, log=LOG, finished=True):
  d = root / key
  d.mkdir(parents=True)
  (d / "log.txt").write_text(log)
  if finished:
    (d / "results.json").write_text("{}")


def test_runs_are_summed_without_the_wait_between_them(tmp_path):
  _grid(tmp_path, "cos_en/ffnn")
  spans = grid_wall_times.runs(str(tmp_path / "cos_en/ffnn/log.txt"))
  assert [(a.strftime("%H:%M:%S"), b.strftime("%H:%M:%S"))
          for a, b in spans] == [("10:00:00", "10:05:30"),
                                 ("10:55:40", "11:05:40")]
  e = grid_wall_times.grid_entry(str(tmp_path / "cos_en/ffnn"))
  assert e == {"minutes": 15.5, "runs": 2, "start": "2026-11-27 10:00:00",
               "end": "2026-11-27 11:05:40"}


def test_record_keeps_grids_timed_earlier_and_sums_per_suite(tmp_path,
                                                             capsys):
  _grid(tmp_path, "cos_en/ffnn")
  _grid(tmp_path, "od_en/ffnn", finished=False)  # still running: not timed
  out = tmp_path / "times.json"
  argv = [f"--workdirs={tmp_path}", "--suite=cos_en/ffnn,od_en/ffnn",
          f"--out={out}"]
  grid_wall_times.main(argv)
  r = json.loads(out.read_text())
  assert set(r["grids"]) == {"cos_en/ffnn"}
  assert r["totals"]["od_en/ffnn"] == {"grids": 1, "timed": 0,
                                       "minutes": 0}
  # A later session's checkout has only od_en's (now finished) workdir.
  (tmp_path / "od_en/ffnn/results.json").write_text("{}")
  other = tmp_path / "later"
  (other / "od_en").mkdir(parents=True)
  os.rename(tmp_path / "od_en/ffnn", other / "od_en/ffnn")
  grid_wall_times.main([f"--workdirs={other}", argv[1], argv[2]])
  r = json.loads(out.read_text())
  assert r["grids"]["cos_en/ffnn"]["minutes"] == 15.5
  assert r["grids"]["od_en/ffnn"]["minutes"] == 15.5
  assert r["grids"]["od_en/ffnn"]["workdirs"] == str(other)
  assert r["totals"]["all"] == {"grids": 2, "timed": 2, "minutes": 31.0}
  assert "all: 2 of 2 grids timed, 0.52 h" in capsys.readouterr().out


def test_several_workdirs_the_first_finished_grid_counts(tmp_path):
  """A grid that ran on a device is timed by a rerun here in a second
  workdir; a grid finished in both is read from the first named."""
  main, rerun = tmp_path / "main", tmp_path / "rerun"
  _grid(main, "cos_en/ffnn")
  _grid(main, "od_en/ffnn", finished=False)
  one_run = "\n".join(LOG.splitlines()[:3]).replace("10:05:30", "10:25:30")
  _grid(rerun, "od_en/ffnn", log=one_run)
  _grid(rerun, "cos_en/ffnn", log=one_run)
  out = tmp_path / "times.json"
  grid_wall_times.main([f"--workdirs={main},{rerun}",
                        "--suite=cos_en/ffnn,od_en/ffnn", f"--out={out}"])
  g = json.loads(out.read_text())["grids"]
  assert (g["cos_en/ffnn"]["minutes"], g["cos_en/ffnn"]["workdirs"]) == (
      15.5, str(main))
  assert (g["od_en/ffnn"]["minutes"], g["od_en/ffnn"]["workdirs"]) == (
      25.5, str(rerun))


@pytest.mark.parametrize("log, message", [
    ("", "no 'data:' line"),
    ("2026-11-27 10:00:31,000 epoch 0 loss 1.0\n", "no 'data:' line"),
])
def test_a_log_that_is_not_a_grids_names_the_file(tmp_path, log, message):
  _grid(tmp_path, "cos_en/ffnn", log=log)
  with pytest.raises(SystemExit, match=f"cos_en/ffnn/log.txt: {message}"):
    grid_wall_times.main([f"--workdirs={tmp_path}", "--suite=cos_en/ffnn",
                          f"--out={tmp_path / 't.json'}"])


def test_bad_suite_and_a_foreign_record_are_one_error_line(tmp_path):
  out = tmp_path / "t.json"
  with pytest.raises(SystemExit, match="error: --suite: unknown suite"):
    grid_wall_times.main([f"--workdirs={tmp_path}", "--suite=nope",
                          f"--out={out}"])
  out.write_text('["not", "a", "record"]')
  with pytest.raises(SystemExit, match="t.json: not a grid wall time"):
    grid_wall_times.main([f"--workdirs={tmp_path}", "--suite=cos_en/ffnn",
                          f"--out={out}"])
  assert out.read_text() == '["not", "a", "record"]'


def test_stage_times_of_a_grid_are_kept_and_summed_per_suite(tmp_path):
  _grid(tmp_path, "cos_en/ffnn")
  _grid(tmp_path, "od_en/ffnn")
  stages = {"embedding": 60.0, "training": 120.0, "plots": 6.0}
  (tmp_path / "cos_en/ffnn/results.json").write_text(
      json.dumps({"stage_seconds": stages}))
  e = grid_wall_times.grid_entry(str(tmp_path / "cos_en/ffnn"))
  assert e["stage_seconds"] == stages
  assert "stage_seconds" not in grid_wall_times.grid_entry(
      str(tmp_path / "od_en/ffnn"))
  out = tmp_path / "times.json"
  grid_wall_times.main([f"--workdirs={tmp_path}",
                        "--suite=cos_en/ffnn,od_en/ffnn", f"--out={out}"])
  total = json.loads(out.read_text())["totals"]["all"]
  assert total["stage_minutes"] == {"embedding": 1.0, "training": 2.0,
                                    "plots": 0.1}
  assert total["staged_grids"] == 1
  (tmp_path / "od_en/ffnn/results.json").write_text("{trunc")
  with pytest.raises(SystemExit, match="od_en/ffnn/results.json"):
    grid_wall_times.grid_entry(str(tmp_path / "od_en/ffnn"))
