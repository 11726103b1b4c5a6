"""`reproduce --jobs=N`: the schedule and its estimate, the children run
at once, a failing one named while the others finish, an interruption
that stops them, and the flags it refuses."""

import json
import os
import subprocess
import sys
import threading
import time
import types
import _thread

import pytest

from blm_jax.cli import config_files, reproduce_jobs
from blm_jax.study import grid_jobs, grid_timing, reproduce
from tests import ROOT
from tests.study.test_reproduce_suites import _configs, _opts, _select


def test_the_schedule_runs_the_longest_first_and_estimates_its_wall_time():
  seconds = {"a": 5.0, "b": 10.0, "c": None, "d": 7.0, "e": 10.0}
  # Unknown first (it may be the longest), then longest first, ties in
  # the given order.
  assert grid_jobs.order(list(seconds), seconds) == ["c", "b", "e", "d", "a"]
  # Longest first over 2 slots: 10 | 8, 8+7, 10+5, then 3 on a slot at 15.
  assert grid_jobs.makespan([3, 10, 8, 5, 7], 2) == 18
  assert grid_jobs.makespan([3, 10, 8, 5, 7], 1) == 33
  assert grid_jobs.makespan([3, 10, 8, 5, 7], 8) == 10
  assert grid_jobs.makespan([], 2) == 0


def test_children_share_an_accelerator_and_leave_a_cpu_alone():
  env = grid_jobs.child_env({"PATH": "/bin"}, 2, accelerator=True)
  assert env == {"PATH": "/bin", "XLA_PYTHON_CLIENT_PREALLOCATE": "false",
                 "XLA_PYTHON_CLIENT_MEM_FRACTION": "0.45"}
  mine = {"XLA_PYTHON_CLIENT_MEM_FRACTION": "0.2"}
  assert grid_jobs.child_env(mine, 4, True)[
      "XLA_PYTHON_CLIENT_MEM_FRACTION"] == "0.2"
  assert grid_jobs.child_env({"PATH": "/bin"}, 2, False) == {"PATH": "/bin"}
  assert grid_jobs.child_env({}, 1, True) == {}
  # The parent of several jobs does not preallocate either; the user's
  # environment, as it was, is what the children start from.
  environ = {}
  assert reproduce_jobs.parent_env(2, environ) == {}
  assert environ == {"XLA_PYTHON_CLIENT_PREALLOCATE": "false"}
  environ = {}
  assert reproduce_jobs.parent_env(1, environ) == {} and environ == {}


def test_a_child_is_the_same_command_for_one_grid():
  argv = ["--suite=paper000", "--jobs", "4", "--grids=a/b,c/d", "--grids",
          "e/f", "--jobs=3", "--out=o", "--nojobsx"]
  assert reproduce_jobs.child_argv(argv, "cos_en/ffnn") == [
      sys.executable, "-m", "blm_jax.cli.reproduce", "--suite=paper000",
      "--out=o", "--nojobsx", "--grids=cos_en/ffnn", "--jobs=1"]


def _sleeper(tmp_path, name, seconds, rc=0, said=""):
  """A job that notes its start and end times, sleeps, says `said` and
  exits with `rc`."""
  mark = tmp_path / f"{name}.times"
  code = (f"import time,sys; open({str(mark)!r},'a').write(f'{{time.time()}}"
          f"\\n'); time.sleep({seconds}); open({str(mark)!r},'a').write("
          f"f'{{time.time()}}\\n'); print({said!r}); sys.exit({rc})")
  return grid_jobs.Job(name, (sys.executable, "-c", code),
                       str(tmp_path / name / "reproduce.log"))


def _span(tmp_path, name):
  return [float(x) for x in (tmp_path / f"{name}.times").read_text().split()]


def test_jobs_run_at_once_and_a_failing_one_is_named(tmp_path):
  lines = []
  jobs = [_sleeper(tmp_path, "a", 1.0), _sleeper(tmp_path, "b", 1.0),
          _sleeper(tmp_path, "c", 0.1, rc=3, said="error: no such encoder")]
  status = grid_jobs.run(jobs, 2, dict(os.environ), echo=lines.append,
                         poll_s=0.05)
  assert status == {"a": 0, "b": 0, "c": 3}
  (a0, a1), (b0, b1) = _span(tmp_path, "a"), _span(tmp_path, "b")
  assert a0 < b1 and b0 < a1  # their times overlap
  # c waits for a slot: started once a or b finished.
  assert _span(tmp_path, "c")[0] >= min(a1, b1) - 0.05
  failed = [l for l in lines if l.startswith("failed ")]
  assert failed == [
      f"failed c after 0m00s (exit 3): error: no such encoder; its log: "
      f"{tmp_path / 'c' / 'reproduce.log'}"], lines
  assert sum(l.startswith("started ") for l in lines) == 3
  assert sum(l.startswith("finished ") for l in lines) == 2
  log = (tmp_path / "a" / "reproduce.log").read_text().splitlines()
  assert log[0].startswith("== ") and log[0].endswith(jobs[0].argv[-1])


def test_a_job_of_a_running_group_waits_while_another_can_start(tmp_path):
  jobs = [dataclass_replace(_sleeper(tmp_path, "a", 0.3), group="cos_en"),
          dataclass_replace(_sleeper(tmp_path, "b", 0.3), group="cos_en"),
          dataclass_replace(_sleeper(tmp_path, "c", 0.3), group="od_en")]
  lines = []
  grid_jobs.run(jobs, 2, dict(os.environ), echo=lines.append, poll_s=0.05)
  started = [l.split()[1] for l in lines if l.startswith("started ")]
  assert started == ["a", "c", "b"]


def dataclass_replace(job, **kw):
  import dataclasses
  return dataclasses.replace(job, **kw)


@pytest.fixture
def python_sigint():
  """Python's own Ctrl-C handler for the test: a suite started in the
  background ignores SIGINT, and `interrupt_main` then does nothing."""
  import signal
  before = signal.signal(signal.SIGINT, signal.default_int_handler)
  yield
  signal.signal(signal.SIGINT, before)


def test_an_interruption_stops_every_child(tmp_path, python_sigint):
  jobs = [_sleeper(tmp_path, n, 60.0) for n in ("a", "b", "c")]
  threading.Timer(1.5, _thread.interrupt_main).start()
  t0 = time.monotonic()
  with pytest.raises(KeyboardInterrupt) as raised:
    grid_jobs.run(jobs, 2, dict(os.environ), echo=lambda _: None,
                  poll_s=0.05, grace_s=5)
  assert time.monotonic() - t0 < 10
  assert raised.value.stopped == 2
  # Each child was stopped before its end time was written; c never ran.
  assert [len(_span(tmp_path, n)) for n in ("a", "b")] == [1, 1]
  assert not (tmp_path / "c.times").exists()
  # The command's line and exit status: 130 (Ctrl-C), 143 (SIGTERM).
  assert reproduce_jobs.interrupted(KeyboardInterrupt()) == 130
  assert reproduce_jobs.interrupted(reproduce_jobs.Terminated(), 2) == 143


def _flags(**kw):
  base = dict(jobs=2, report_only=False, suite="paper000")
  base.update(kw)
  return types.SimpleNamespace(**base)


@pytest.mark.parametrize("flags,line", [
    (dict(jobs=0), "--jobs=0: expected 1 or more grids at a time"),
    (dict(report_only=True), "--jobs runs grids at once; --report_only "
     "runs none: drop --jobs"),
    (dict(suite="diagnose"), "--suite=diagnose runs its ladders one design "
     "after another: drop --jobs"),
    (dict(jobs=1, report_only=True), None),
    (dict(), None),
])
def test_jobs_that_do_not_combine_are_refused_in_one_line(flags, line):
  assert reproduce_jobs.refusal(_flags(**flags)) == line


def test_the_plan_estimates_the_suite_n_at_a_time(tmp_path):
  opts = _opts(_configs(tmp_path), tmp_path / "o",
               suite="cos_en/ffnn,od_en/ffnn,agreement_en/ffnn")
  grids, options = _select(opts)
  entries = reproduce.entries_of(grids, options, opts.out)
  # One FFNN grid of another dataset measured: 2 epochs x 2 seeds x 3
  # types x 60 train instances... at 100 instances/s, plus 10 s before
  # and 20 s after training, for each of the three.
  per = 2 * reproduce._train_instances(entries[0][1]) / 100 + 30
  timing = grid_timing.GridTiming("other", "ffnn", "cpu", 100.0, 10.0, 20.0)
  lines = reproduce.plan_lines(entries, [timing], "cpu", 0, jobs=2)
  hms = reproduce._hms
  assert (f"about {hms(3 * per)} one grid after another at the throughput "
          f"measured here; about {hms(2 * per)} 2 at a time (longest "
          "first, each at its measured pace)") in lines[0], lines[0]
  assert "at a time" not in reproduce.plan_lines(entries, [timing])[0]
  assert reproduce.plan_lines(entries, [], jobs=3)[0].endswith(
      "time unknown (nothing measured on cpu yet); 3 at a time")


@pytest.mark.slow
def test_two_grids_at_once_report_what_one_after_another_do(tmp_path):
  """Three tiny grids (the released format, a tiny BERT), --jobs=2: the
  two good ones run at once and report the cells of a serial run; the
  one whose encoder is missing is named, with its log, and the command
  exits non-zero with it listed as missing in the report."""
  from blm_jax.results.experiment import run_experiment
  from tests import tiny_suite

  configs = tiny_suite.write(str(tmp_path), failing=("agreement_en",))
  suite = "cos_en/ffnn,od_en/ffnn,agreement_en/ffnn"
  out = tmp_path / "jobs"
  proc = subprocess.run(
      [sys.executable, "-m", "blm_jax.cli.reproduce", f"--suite={suite}",
       "--jobs=2", "--seeds=0", "--noseed_follows_grid", "--timings=",
       f"--configs_dir={configs}", f"--out={out}"], cwd=ROOT,
      capture_output=True, text=True, env=dict(os.environ,
                                               JAX_PLATFORMS="cpu"),
      timeout=600)
  assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
  lines = proc.stdout.splitlines()
  said = [l.split()[:2] for l in lines
          if l.startswith(("started ", "finished ", "failed "))]
  first_end = next(i for i, s in enumerate(said) if s[0] != "started")
  assert said[:first_end] == [["started", "cos_en/ffnn"],
                              ["started", "od_en/ffnn"]], lines
  log = out / "agreement_en" / "ffnn" / "reproduce.log"
  failed = [l for l in lines if l.startswith("failed agreement_en/ffnn ")]
  assert len(failed) == 1 and failed[0].endswith(f"; its log: {log}")
  # Its error, the config check's last line, without a traceback.
  assert "config.encoder.name=" in failed[0] and "does not exist" in failed[0]
  assert "Traceback" not in log.read_text()
  assert proc.stderr.strip().splitlines()[-1] == (
      "error: 1 grids failed (agreement_en/ffnn): each one's log says why; "
      "rerun the same command to run them again (finished grids are "
      "reused)")
  report = json.loads((out / "report.json").read_text())
  assert report["missing"] == ["agreement_en/ffnn"]
  # The same two grids one after another, in this process.
  opts = _opts(str(configs), tmp_path / "serial",
               suite="cos_en/ffnn,od_en/ffnn", seeds=["0"])
  grids, options = reproduce.select(opts,
                                    config_files.loader(str(configs)))
  serial = reproduce.run_suite(
      reproduce.entries_of(grids, options, opts.out), opts.out, "cmd",
      False, run_fn=run_experiment, echo=lambda _: None)
  assert set(report["summaries"]) == set(serial["summaries"]) == {
      "cos_en", "od_en"}
  same = lambda x: json.loads(json.dumps(x, default=float))
  assert report["summaries"] == same(serial["summaries"])
  assert report["seed_f1"] == same(serial["seed_f1"])


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"),
                    reason="the parent-death signal is Linux's")
def test_children_end_when_the_parent_is_killed(tmp_path):
  """SIGKILL leaves the parent no time to stop its children: each gets
  SIGTERM from the kernel instead of running on, orphaned."""
  pids = tmp_path / "pids"
  child = (f"import os,time; open({str(pids)!r},'a').write(f'{{os.getpid()}}"
           "\\n'); time.sleep(60)")
  parent = (
      "import os,sys; from blm_jax.study import grid_jobs\n"
      f"jobs = [grid_jobs.Job(n, (sys.executable, '-c', {child!r}), "
      f"{str(tmp_path)!r} + f'/{{n}}.log') for n in 'ab']\n"
      "grid_jobs.run(jobs, 2, dict(os.environ), echo=lambda _: None)\n")
  proc = subprocess.Popen([sys.executable, "-c", parent], cwd=ROOT)
  deadline = time.monotonic() + 60
  while time.monotonic() < deadline and (
      not pids.exists() or len(pids.read_text().split()) < 2):
    time.sleep(0.05)
  children = [int(x) for x in pids.read_text().split()]
  assert len(children) == 2
  proc.kill()
  proc.wait()

  def alive(pid):
    try:
      os.kill(pid, 0)
    except ProcessLookupError:
      return False
    # A zombie (ended, not yet reaped by init) counts as ended.
    with open(f"/proc/{pid}/stat") as f:
      return f.read().split(") ")[-1][0] != "Z"

  deadline = time.monotonic() + 10
  while time.monotonic() < deadline and any(alive(p) for p in children):
    time.sleep(0.05)
  left = [p for p in children if alive(p)]
  for p in left:
    os.kill(p, 9)
  assert not left, "children outlived their killed parent"
