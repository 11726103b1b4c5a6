"""Work that runs beside the main thread: a daemon thread with a result.

The stages after training that do not depend on each other (the
candidate-only MLP beside the host's scorers, the context-free baselines
beside training, the figures beside the last writes) overlap through it.
XLA and numpy let go of the GIL while they compute, so a thread is enough.

A process that exits while such a thread is inside XLA aborts ("FATAL:
exception not rethrown"): Python's shutdown stops daemon threads where
they stand, and XLA's C++ does not let that unwind through it. So exit
waits for them (an `atexit` hook, which runs before that); Ctrl-C while it
waits ends the process at once.
"""

from __future__ import annotations

import atexit
import logging
import os
import sys
import threading
import time
from typing import Callable

_LIVE: set["Background"] = set()
_LIVE_LOCK = threading.Lock()
_SAY_AFTER_SECONDS = 2.0


class Background:
  """`fn()` run in a daemon thread from construction; `result()` waits
  for it and returns its value or raises its exception. `what` names the
  work in the line said when the process waits for it at exit."""

  def __init__(self, fn: Callable[[], object], what: str = "background work"):
    self._value, self._error = None, None
    self.what = what
    self.seconds = 0.0  # How long fn ran.

    def run():
      start = time.perf_counter()
      try:
        self._value = fn()
      except BaseException as e:  # noqa: B036 (re-raised by result())
        self._error = e
      finally:
        self.seconds = time.perf_counter() - start
        with _LIVE_LOCK:
          _LIVE.discard(self)

    self._thread = threading.Thread(target=run, daemon=True,
                                    name="blm_jax-background")
    with _LIVE_LOCK:
      _LIVE.add(self)
    self._thread.start()

  def done(self) -> bool:
    return not self._thread.is_alive()

  def result(self):
    self._thread.join()
    if self._error is not None:
      raise self._error
    return self._value


def live() -> list[Background]:
  """The Backgrounds whose work still runs."""
  with _LIVE_LOCK:
    return [b for b in _LIVE if not b.done()]


def settle(say: Callable[[str], None] | None = None,
           say_after_seconds: float = _SAY_AFTER_SECONDS) -> None:
  """Waits for every live Background; when that takes longer than
  `say_after_seconds`, says once what it waits for (to stderr by
  default). Ctrl-C (or SIGTERM, which the command line raises as one)
  while it waits ends the process at once, with the interrupt's
  `exit_status` (130, the shells' Ctrl-C, when it has none)."""
  say = say or (lambda line: print(line, file=sys.stderr, flush=True))
  said = False
  try:
    for b in live():
      b._thread.join(say_after_seconds)  # pylint: disable=protected-access
      if not b.done() and not said:
        said = True
        say(f"waiting for {b.what} to finish before exiting (Ctrl-C "
            "stops it now)")
      b._thread.join()  # pylint: disable=protected-access
  except KeyboardInterrupt as e:
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(getattr(e, "exit_status", 130))


atexit.register(settle)
