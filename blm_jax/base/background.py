"""Work that runs beside the main thread: a daemon thread with a result.

The stages after training that do not depend on each other (the
candidate-only MLP beside the host's scorers, the context-free baselines
beside training, the figures beside the last writes) overlap through it.
XLA and numpy let go of the GIL while they compute, so a thread is enough.
"""

from __future__ import annotations

import threading
import time
from typing import Callable


class Background:
  """`fn()` run in a daemon thread from construction; `result()` waits
  for it and returns its value or raises its exception. Daemon: a run
  stopped (Ctrl-C, an error in training) does not wait for it to exit."""

  def __init__(self, fn: Callable[[], object]):
    self._value, self._error = None, None
    self.seconds = 0.0  # How long fn ran.

    def run():
      start = time.perf_counter()
      try:
        self._value = fn()
      except BaseException as e:  # noqa: B036 (re-raised by result())
        self._error = e
      finally:
        self.seconds = time.perf_counter() - start

    self._thread = threading.Thread(target=run, daemon=True,
                                    name="blm_jax-background")
    self._thread.start()

  def done(self) -> bool:
    return not self._thread.is_alive()

  def result(self):
    self._thread.join()
    if self._error is not None:
      raise self._error
    return self._value
