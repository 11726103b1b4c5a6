"""Background threads: a result or the error, and an exit that waits for
work still inside XLA instead of aborting the process."""

import os
import subprocess
import sys
import textwrap

import pytest

from blm_jax.base import background
from tests import ROOT

# A process that exits (one error line) while a Background is inside XLA.
_EXIT_DURING_WORK = textwrap.dedent("""
    import atexit, sys, time
    import jax.numpy as jnp
    from blm_jax.base import background
    if sys.argv[1] == "no-settle":
      atexit.unregister(background.settle)
    def work():
      x = jnp.ones((600, 600))
      for _ in range(40):
        x = jnp.tanh(x @ x / 600.0)
      x.block_until_ready()
    background.Background(work, what="the test's products")
    time.sleep(0.3)
    sys.exit("error: stopped here")
    """)


def _exit_during_work(mode: str) -> subprocess.CompletedProcess:
  return subprocess.run(
      [sys.executable, "-c", _EXIT_DURING_WORK, mode], cwd=ROOT,
      env=dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=ROOT),
      capture_output=True, text=True, timeout=300)


def test_result_and_error_come_back():
  assert background.Background(lambda: 7).result() == 7

  def fail():
    raise ValueError("from the thread")

  with pytest.raises(ValueError, match="from the thread"):
    background.Background(fail).result()
  assert background.live() == []


def test_exit_waits_for_work_inside_xla():
  proc = _exit_during_work("settle")
  assert proc.returncode == 1, proc.stderr[-2000:]
  assert proc.stderr.strip() == "error: stopped here"


def test_without_the_wait_the_same_exit_aborts():
  """What the wait is for: the check above can fail."""
  proc = _exit_during_work("no-settle")
  assert proc.returncode not in (0, 1)
  assert "FATAL" in proc.stderr or proc.returncode < 0


def test_a_long_wait_is_said_once():
  import threading
  gate = threading.Event()
  b = background.Background(gate.wait, what="the gate")
  said = []
  threading.Timer(0.3, gate.set).start()
  background.settle(say=said.append, say_after_seconds=0.05)
  assert b.done()
  assert said == ["waiting for the gate to finish before exiting (Ctrl-C "
                  "stops it now)"]
