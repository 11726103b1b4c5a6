"""Each test's CPU seconds, for sorting the suite into `slow` and the rest:
`python -m pytest -q -m "not slow" -p tests.cpu_times` appends one line
per test (CPU seconds of the process and the subprocesses it waited for,
wall seconds, the 1-minute load, the test's id; tab-separated) to
$BLM_CPU_TIMES, else to cpu_times.tsv in the current folder. CPU time
holds when the machine is shared, where --durations' wall time grows with
the load."""

import os
import time

import pytest


def _cpu() -> float:
  t = os.times()
  return t.user + t.system + t.children_user + t.children_system


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
  cpu, wall = _cpu(), time.perf_counter()
  yield
  line = (f"{_cpu() - cpu:.2f}\t{time.perf_counter() - wall:.2f}\t"
          f"{os.getloadavg()[0]:.1f}\t{item.nodeid}\n")
  with open(os.environ.get("BLM_CPU_TIMES", "cpu_times.tsv"), "a") as f:
    f.write(line)
