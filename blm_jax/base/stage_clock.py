"""Where a run's wall time went, stage by stage.

Every run times its stages (data build, embedding, compilation, training,
evaluation, context-free baselines, report, plots...) with one `StageClock`
and writes them to results.json and the console's last line, so a user sees
where the time goes on their machine and the suite's plan can estimate a
grid from committed records.
"""

from __future__ import annotations

import contextlib
import statistics
import time
from typing import Iterator


class StageClock:
  """Seconds per named stage, summed over repeats, in first-seen order."""

  def __init__(self) -> None:
    self._seconds: dict[str, float] = {}

  @contextlib.contextmanager
  def measure(self, stage: str) -> Iterator[None]:
    """Adds the block's wall time to `stage` (also when it raises)."""
    start = time.perf_counter()
    try:
      yield
    finally:
      self.add(stage, time.perf_counter() - start)

  def add(self, stage: str, seconds: float) -> None:
    if seconds < 0:
      raise ValueError(f"stage {stage!r}: negative time {seconds}")
    self._seconds[stage] = self._seconds.get(stage, 0.0) + float(seconds)

  def seconds(self, stage: str) -> float:
    return self._seconds.get(stage, 0.0)

  def as_dict(self) -> dict[str, float]:
    """{stage: seconds} rounded to milliseconds, in first-seen order."""
    return {k: round(v, 3) for k, v in self._seconds.items()}

  def total(self) -> float:
    return sum(self._seconds.values())


def stages_line(stage_seconds: dict[str, float]) -> str:
  """'stages: data_build 1.2 s, embedding 30.1 s, ... (total 95.3 s)'."""
  parts = [f"{k} {v:.1f} s" for k, v in stage_seconds.items()]
  total = sum(stage_seconds.values())
  return f"stages: {', '.join(parts)} (total {total:.1f} s)"


def split_compile(epoch_seconds: list[float]) -> tuple[float, float]:
  """(compile, training) seconds of a run's epochs. The first epoch holds
  the compilation: its excess over the median of the others is counted as
  compiling (one epoch alone is all training: nothing to compare with)."""
  if not epoch_seconds:
    return 0.0, 0.0
  if len(epoch_seconds) == 1:
    return 0.0, epoch_seconds[0]
  typical = float(statistics.median(epoch_seconds[1:]))
  compile_s = max(0.0, epoch_seconds[0] - typical)
  return compile_s, sum(epoch_seconds) - compile_s
