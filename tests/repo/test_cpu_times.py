"""tests/cpu_times.py, the plugin the `slow` marker is sorted by: a test
that computes is charged its CPU seconds, one that waits only its wall."""

import os
import subprocess
import sys

from tests import ROOT

_TESTS = '''
import time

def test_computes():
  end = time.process_time() + 0.3
  while time.process_time() < end:
    pass

def test_waits():
  time.sleep(0.3)
'''


def test_cpu_and_wall_seconds_per_test(tmp_path):
  (tmp_path / "test_two.py").write_text(_TESTS)
  out = tmp_path / "times.tsv"
  subprocess.run(
      [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
       "-p", "tests.cpu_times", str(tmp_path / "test_two.py")],
      cwd=ROOT, env={**os.environ, "BLM_CPU_TIMES": str(out)},
      capture_output=True, text=True, check=True)
  rows = [line.split("\t") for line in out.read_text().splitlines()]
  times = {r[3].rsplit("::", 1)[1]: (float(r[0]), float(r[1])) for r in rows}
  assert set(times) == {"test_computes", "test_waits"}
  assert times["test_computes"][0] >= 0.29
  assert times["test_waits"][0] < 0.15 <= 0.29 <= times["test_waits"][1]
