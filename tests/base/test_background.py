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
# The work signals once it computes (compiled, inside XLA's calls from
# then on), so the exit meets it there however loaded the machine is.
_EXIT_DURING_WORK = textwrap.dedent("""
    import atexit, sys, threading
    import jax, jax.numpy as jnp
    from blm_jax.base import background
    if sys.argv[1] == "no-settle":
      atexit.unregister(background.settle)
    step = jax.jit(lambda x: jnp.tanh(x @ x / 700.0) @ x / 700.0)
    computing = threading.Event()
    def work():
      x = step(jnp.ones((700, 700))).block_until_ready()
      computing.set()
      for _ in range(60):
        x = step(x).block_until_ready()
    background.Background(work, what="the test's products")
    computing.wait()
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
  lines = proc.stderr.strip().splitlines()
  assert lines[0] == "error: stopped here"
  # Said only when the wait passes two seconds (a loaded machine).
  assert lines[1:] in ([], ["waiting for the test's products to finish "
                            "before exiting (Ctrl-C stops it now)"])


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
