"""Several processes, one grid: JAX's multi-process runtime on 127.0.0.1.

Each test starts worker processes (this file run as a script: `python -m
tests.training.test_multiprocess worker ...`) that join through
`distributed.initialize` with gloo CPU collectives, the way `launch.py
--distributed` does on a cluster, and train a small synthetic grid.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

from tests import ROOT, xla_flags_with_devices

EPOCHS = 3
HEARTBEAT_S = 8  # A dead peer is noticed within this, at the latest.


def _free_port() -> int:
  with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    return s.getsockname()[1]


def _start(workdir, n, devices=1, **opts):
  """n worker processes of one run; returns the Popen objects."""
  env = dict(os.environ, JAX_PLATFORMS="cpu",
             XLA_FLAGS=xla_flags_with_devices(devices))
  port = _free_port()
  procs = []
  for pid in range(n):
    args = [sys.executable, "-m", "tests.training.test_multiprocess", "worker",
            f"--port={port}", f"--num_processes={n}", f"--process_id={pid}",
            f"--workdir={workdir}"] + [f"--{k}={v}" for k, v in opts.items()]
    procs.append(subprocess.Popen(args, cwd=ROOT, env=env,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True))
  return procs


def _finish(procs, timeout=300):
  out = []
  for p in procs:
    stdout, stderr = p.communicate(timeout=timeout)
    out.append((p.returncode, stdout, stderr))
  return out


def _run(workdir, n, devices=1, **opts):
  out = _finish(_start(workdir, n, devices, **opts))
  for rc, stdout, stderr in out:
    assert rc == 0, stderr[-3000:]
  return out


def _cells(workdir):
  results = json.loads((workdir / "results.json").read_text())
  return [(c["seed"], c["train_type"], c["best_dev_loss"],
           c["history"]["dev_loss"], c["history"]["train"]["loss"],
           {u: t["f1"] for u, t in c["test"].items()})
          for c in results["cells"]]


def _assert_same(a, b):
  assert [c[:2] for c in a] == [c[:2] for c in b]
  for x, y in zip(a, b):
    np.testing.assert_allclose(x[2], y[2], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(x[3], y[3], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(x[4], y[4], rtol=1e-4, atol=1e-5)
    assert x[5] == pytest.approx(y[5], abs=1e-6)


@pytest.fixture(scope="module")
def one_process(tmp_path_factory):
  """The reference: the same grid trained by one process, one device."""
  workdir = tmp_path_factory.mktemp("one") / "run"
  _run(workdir, 1)
  return _cells(workdir)


@pytest.mark.slow
def test_two_processes_equal_one_and_resume_after_both_are_killed(
    tmp_path, one_process):
  workdir = tmp_path / "run"
  # Both processes kill themselves (SIGKILL) once epoch 2's checkpoint is
  # written: nothing of theirs runs after that, as after a node failure.
  out = _finish(_start(workdir, 2, kill_after_checkpoint=2))
  # A process still inside a collective when its peer dies is aborted by
  # JAX (SIGABRT) before it reaches its own kill: seen on a loaded CI
  # machine; either way it is dead, as after a node failure.
  codes = [rc for rc, _, _ in out]
  assert -signal.SIGKILL in codes, out
  assert set(codes) <= {-signal.SIGKILL, -signal.SIGABRT}, out
  assert not (workdir / "results.json").exists()
  assert (workdir / "checkpoints" / "1").is_dir()

  out = _run(workdir, 2)
  for rc, stdout, stderr in out:
    assert "resumed from epoch 2" in stdout, (stdout, stderr[-2000:])
  assert "process 1 wrote nothing" in out[1][1]
  _assert_same(_cells(workdir), one_process)
  # One writer: process 0's files only (and its workdir lock), and log.txt
  # holds each epoch once.
  assert sorted(p.name for p in workdir.iterdir()) == [
      ".lock", "checkpoints", "config.json", "errors.png", "errors.svg",
      "heatmap.png", "heatmap.svg", "log.txt", "predictions.npz",
      "results.csv", "results.json", "tensorboard"]
  log = (workdir / "log.txt").read_text()
  assert log.count("epoch 2 loss") == 1, log
  assert log.count("epoch 0 loss") == 1, log  # from the killed run


@pytest.mark.slow
def test_two_processes_of_two_devices_each_equal_one(tmp_path, one_process):
  workdir = tmp_path / "run"
  out = _run(workdir, 2, devices=2)
  assert "4 devices" in out[0][1]
  _assert_same(_cells(workdir), one_process)


@pytest.mark.slow
def test_killed_process_stops_the_other_with_a_message(tmp_path):
  workdir = tmp_path / "run"
  procs = _start(workdir, 2, die_at_epoch=1, epochs=200)
  start = time.monotonic()
  out = _finish(procs, timeout=120)
  waited = time.monotonic() - start
  assert out[1][0] == 3  # The one that died (os._exit(3)).
  rc, stdout, stderr = out[0]
  assert rc != 0
  # Either our line (a collective failed at once) or JAX's own (the
  # coordination service saw no heartbeat for HEARTBEAT_S seconds).
  assert ("another process of this run stopped" in stderr
          or "another task died" in stderr), stderr[-3000:]
  assert waited < 90, waited
  assert not (workdir / "results.json").exists()


@pytest.mark.slow
def test_error_on_one_process_stops_all(tmp_path):
  # An error (not a death) on process 0: it must not wait for the others
  # at exit while they wait for it.
  start = time.monotonic()
  out = _finish(_start(tmp_path / "run", 2, fail_at_epoch=1, epochs=200),
                timeout=120)
  assert time.monotonic() - start < 90
  rc, _, stderr = out[0]
  assert rc == 1
  assert "error: ValueError: a planned failure on process 0 only" in stderr
  assert "(process 0 of 2 stopped;" in stderr
  assert out[1][0] != 0
  assert ("another process of this run stopped" in out[1][2]
          or "another task died" in out[1][2]), out[1][2][-3000:]


@pytest.mark.slow
def test_peer_dead_while_waiting_at_a_barrier_is_reported(tmp_path):
  # No collective to fail: the heartbeats tell (embedding waits so).
  start = time.monotonic()
  out = _finish(_start(tmp_path / "run", 2, barrier_only=1), timeout=120)
  waited = time.monotonic() - start
  assert out[1][0] == 3
  rc, _, stderr = out[0]
  assert rc != 0
  assert ("another process of this run stopped" in stderr
          or "barrier 'test' failed" in stderr
          or "another task died" in stderr), stderr[-3000:]
  assert waited < 60 + HEARTBEAT_S, waited


@pytest.mark.slow
def test_launch_splits_the_embedding_over_two_processes(tmp_path):
  """launch.py end to end, 2 processes: process 0 builds the dataset, each
  process embeds its share of the sentences into the shared cache (no
  sentence twice), process 0 alone writes the results."""
  from tests import release_fixtures, tiny_checkpoints

  release = tmp_path / "release"
  release_fixtures.write_release(release / "all.tsv",
                                 release_fixtures.release_rows(40))
  encoder = tiny_checkpoints.write_bert(str(tmp_path / "tiny_bert"))
  work, cache = tmp_path / "work", tmp_path / "cache"
  env = dict(os.environ, JAX_PLATFORMS="cpu")
  port = _free_port()
  procs = [subprocess.Popen(
      [sys.executable, "launch.py", "--config=configs/ffnn.py",
       f"--workdir={work}", "--config.data.name=blm_published/folder",
       f"--config.data.manual_dir={release}",
       f"--config.data.data_dir={tmp_path / 'tfds'}",
       "--config.data.train_types=('I',)", "--config.data.test_types=('I',)",
       f"--config.encoder.name={encoder}", f"--config.encoder.cache_dir={cache}",
       "--config.encoder.batch_size=8", "--config.grid.seeds=(0,1)",
       "--config.train.epochs=1", "--config.train.batch_size=16",
       "--config.progress=False", "--config.results.context_free=False",
       f"--coordinator_address=127.0.0.1:{port}", "--num_processes=2",
       f"--process_id={i}", "--distributed_init_timeout=120"],
      cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
      text=True) for i in range(2)]
  out = _finish(procs)
  for rc, stdout, stderr in out:
    assert rc == 0, stderr[-3000:]
  assert "train I: test I F1" in out[0][1]
  assert f"process 1: trained; process 0 writes {work}/results.json" in (
      out[1][1])
  results = json.loads((work / "results.json").read_text())
  assert [c["seed"] for c in results["cells"]] == [0, 1]
  assert len(results["throughput"]["devices"]) == 2
  rows = []
  for folder in cache.iterdir():
    for shard in folder.glob("shard-*.npz"):
      with np.load(shard) as z:
        rows += [bytes(h) for h in z["hashes"]]
  assert len(rows) == results["data"]["distinct_sentences"]
  # Each sentence embedded once: by the process whose share it is (a
  # process that read the cache before the other had written would have
  # embedded the other's share again).
  assert len(set(rows)) == len(rows)


@pytest.mark.slow
def test_unreachable_coordinator_is_reported_in_one_line(tmp_path):
  env = dict(os.environ, JAX_PLATFORMS="cpu")
  start = time.monotonic()
  proc = subprocess.run(
      [sys.executable, "launch.py", "--config=configs/ffnn.py",
       f"--workdir={tmp_path / 'run'}", "--distributed",
       f"--coordinator_address=127.0.0.1:{_free_port()}",
       "--num_processes=2", "--process_id=1",
       "--distributed_init_timeout=2"],
      cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
  assert time.monotonic() - start < 60
  assert proc.returncode == 1
  assert "error: cannot reach the coordinator at 127.0.0.1:" in proc.stderr
  assert "within 2 s" in proc.stderr
  assert "Traceback" not in proc.stderr


def test_settings_from_flags_or_environment(monkeypatch):
  from blm_jax.training import distributed

  monkeypatch.setenv("JAX_COORDINATOR_ADDRESS", "10.0.0.1:8476")
  monkeypatch.setenv("JAX_NUM_PROCESSES", "4")
  monkeypatch.setenv("JAX_PROCESS_ID", "3")
  s = distributed.Settings.resolve()
  assert (s.coordinator_address, s.num_processes, s.process_id) == (
      "10.0.0.1:8476", 4, 3)
  s = distributed.Settings.resolve("h:1", 2, 0)  # Flags win.
  assert (s.coordinator_address, s.num_processes, s.process_id) == (
      "h:1", 2, 0)
  s.check()
  for var in ("JAX_COORDINATOR_ADDRESS", "JAX_NUM_PROCESSES",
              "JAX_PROCESS_ID"):
    monkeypatch.delenv(var)
  distributed.Settings.resolve().check()  # Auto-detection.
  with pytest.raises(distributed.DistributedError, match="all three"):
    distributed.Settings.resolve("h:1").check()
  with pytest.raises(distributed.DistributedError, match=r"not in 0\.\.1"):
    distributed.Settings.resolve("h:1", 2, 2).check()
  with pytest.raises(distributed.DistributedError, match="host:port"):
    distributed.Settings.resolve("h", 2, 1).check()
  monkeypatch.setenv("JAX_PROCESS_ID", "one")
  with pytest.raises(distributed.DistributedError, match="JAX_PROCESS_ID"):
    distributed.Settings.resolve()


def test_process_shares_cover_every_sentence_once():
  from blm_jax.embedding import fill

  sentences = [f"s{i} " + "x" * (i % 7) for i in range(23)] + ["s1 x"]
  shares = [fill.process_share(sentences, i, 3) for i in range(3)]
  flat = [s for share in shares for s in share]
  assert sorted(flat) == sorted(set(sentences))
  assert max(map(len, shares)) - min(map(len, shares)) <= 1
  with pytest.raises(ValueError, match=r"process index 3 is not in 0\.\.2"):
    fill.process_share(sentences, 3, 3)


# -- the worker ----------------------------------------------------------------


def _worker(argv):
  opts = dict(a[2:].split("=", 1) for a in argv)
  n, pid = int(opts["num_processes"]), int(opts["process_id"])
  from blm_jax.training import distributed

  if n > 1:
    distributed.initialize(distributed.Settings(
        f"127.0.0.1:{opts['port']}", n, pid, init_timeout_s=60,
        heartbeat_timeout_s=HEARTBEAT_S))
  import jax
  if opts.get("barrier_only"):
    if pid == 1:
      os._exit(3)
    try:
      distributed.barrier("test")
    except distributed.DistributedError as e:
      distributed.exit_now(distributed.lost_peer_message(e))
    return
  from blm_jax.results import experiment
  from blm_jax.training.progress import Progress
  from tests import synthetic

  kill_after = int(opts.get("kill_after_checkpoint", -1))
  die_at = int(opts.get("die_at_epoch", -1))
  fail_at = int(opts.get("fail_at_epoch", -1))

  class Events(Progress):
    def on_resume(self, epoch):
      print(f"resumed from epoch {epoch + 1}", flush=True)

    def on_epoch_end(self, epoch, measurements):
      if epoch == die_at and pid == n - 1:
        os._exit(3)
      if epoch == fail_at and pid == 0:
        raise ValueError("a planned failure on process 0 only")

    def on_checkpoint(self, epoch):
      if epoch + 1 == kill_after:
        os.kill(os.getpid(), signal.SIGKILL)

  print(f"{jax.device_count()} devices", flush=True)
  cfg = synthetic.config("ffnn", epochs=int(opts.get("epochs", EPOCHS)),
                         seeds=(0, 1, 2), types=("I", "II"))
  data = synthetic.data(n_train=40, n_dev=20, n_test=20)
  try:
    results = experiment.run_experiment(cfg, opts["workdir"], data=data,
                                        progress=Events())
  except Exception as e:
    distributed.exit_on_error(e, None)  # As launch.py does.
    raise
  if results is None:
    print(f"process {pid} wrote nothing", flush=True)


if __name__ == "__main__":
  if sys.argv[1:2] == ["worker"]:
    _worker(sys.argv[2:])
