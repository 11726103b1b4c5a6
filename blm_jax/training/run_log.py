"""The run's log.txt: one logger per process, lines lost on a full disk
rather than each printing a traceback (the run reports the full disk in one
line), never appended through a link."""

from __future__ import annotations

import errno
import logging
import os
import sys

from blm_jax.training import distributed, workdir_lock
from data_builders.common import safe_io


class _LogFile(logging.FileHandler):
  """log.txt; on a full disk the lines that cannot be written are lost
  instead of each printing a traceback on the console (the run reports the
  full disk in one line)."""

  def _open(self):
    # Never appended through a symbolic or hard link (workdir_lock refuses
    # one up front; this closes the gap of a link made after that check).
    fd = safe_io.open_unlinked(self.baseFilename,
                               os.O_WRONLY | os.O_APPEND, 0o666)
    return os.fdopen(fd, "a", encoding=self.encoding, errors=self.errors)

  def handleError(self, record):
    error = sys.exc_info()[1]
    if isinstance(error, OSError) and error.errno == errno.ENOSPC:
      return
    super().handleError(record)


def open_log(workdir: str) -> logging.Logger:
  """The run's logger, writing to the workdir's log.txt (the terminal gets
  the progress bar and the `Progress` events instead)."""
  log = logging.getLogger("blm_jax.training.trainer")
  log.setLevel(logging.INFO)
  log.propagate = False
  if not distributed.is_writer():  # Process 0 writes the one log.txt.
    for h in list(log.handlers):
      log.removeHandler(h)
    log.addHandler(logging.NullHandler())
    return log
  path = os.path.abspath(os.path.join(workdir, workdir_lock.LOG_NAME))
  if not any(getattr(h, "baseFilename", None) == path for h in log.handlers):
    for h in list(log.handlers):
      log.removeHandler(h)
    handler = _LogFile(path)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    log.addHandler(handler)
  return log
