"""Orbax checkpoints of the stacked grid state, with a resume that survives kills.

The state is saved with `StandardSave` and the grid description with
`JsonSave` (string leaves are not supported by StandardSave). Each save also
records the shape of every leaf and a sha256 digest of the state's bytes:

- A step whose metadata or state cannot be read (a kill mid-save leaves an
  incomplete plain step folder, which orbax still lists) or whose restored
  bytes do not match the digest (bit damage) is moved aside into
  `<checkpoints>-quarantine/` with a warning, and the next older step is
  tried. Moving it aside matters: orbax skips every save at or below the
  newest listed step, so a damaged newest step would otherwise block all
  new checkpoints.
- A readable step whose shapes differ from the run's state is not damage
  but another model or grid: that is an error (`CheckpointMismatchError`),
  never a silent fresh start.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import logging
import os
import shutil
import signal
import sys
import threading
import time
import warnings

import jax
import numpy as np
import orbax.checkpoint as ocp

from blm_jax.training import distributed


class CheckpointMismatchError(ValueError):
  """The checkpoint holds a state of another structure than this run's."""


class _ReadOnlyNotice(logging.Filter):
  """Drops orbax's warning that a manager is read-only (probing asks for
  read-only managers; each would print it)."""

  def filter(self, record):
    return not str(record.msg).startswith("Given directory is read only")


TMP_MARK = ".orbax-checkpoint-tmp"  # In what a killed save leaves.


def remove_killed_saves(directory: str) -> list[str]:
  """Removes the folders a killed save left in `directory` (names holding
  `TMP_MARK`; each holds its items' own tmp folders) and returns their
  names. Done here rather than by orbax's `cleanup_tmp_directories`, which
  removes a step's tmp folder and the tmp folders nested in it at once and
  races with itself: a resume then printed its FileNotFoundError
  traceback."""
  try:
    names = sorted(n for n in os.listdir(directory) if TMP_MARK in n)
  except OSError:
    return []
  for n in names:
    shutil.rmtree(os.path.join(directory, n), ignore_errors=True)
  return names


def manager(directory: str, max_to_keep: int = 1,
            read_only: bool = False) -> ocp.CheckpointManager:
  """A manager that may create the folder and clean up killed saves, or,
  `read_only` (probing), one that changes nothing on disk."""
  if read_only:
    absl_logger = logging.getLogger("absl")
    if not any(isinstance(f, _ReadOnlyNotice) for f in absl_logger.filters):
      # First: before the filters that hold orbax's records back to replay
      # them (restore_latest).
      absl_logger.filters.insert(0, _ReadOnlyNotice())
  if not read_only and distributed.is_writer():
    remove_killed_saves(directory)
  return ocp.CheckpointManager(
      os.path.abspath(directory),
      options=ocp.CheckpointManagerOptions(
          # The values a read-only manager takes (orbax warns when it has
          # to set them itself).
          max_to_keep=None if read_only else max_to_keep,
          save_interval_steps=0 if read_only else 1, create=not read_only,
          cleanup_tmp_directories=False, read_only=read_only),
      item_names=("state", "meta"))


def shapes(state) -> dict[str, list[int]]:
  """{leaf path: shape} of a state or an abstract state."""
  leaves = jax.tree_util.tree_flatten_with_path(state)[0]
  return {jax.tree_util.keystr(p): [int(d) for d in x.shape]
          for p, x in leaves}


def digest(state) -> str:
  """sha256 over every leaf's path, dtype, shape and bytes (of the whole
  array: with several processes each gathers the others' shards, so the
  digest does not depend on how many processes save or restore)."""
  h = hashlib.sha256()
  for path, x in jax.tree_util.tree_flatten_with_path(state)[0]:
    a = np.ascontiguousarray(distributed.to_host(x))
    h.update(f"{jax.tree_util.keystr(path)}|{a.dtype}|{a.shape}".encode())
    h.update(a.reshape(-1).view(np.uint8))  # the bytes, without a copy
  return h.hexdigest()


def _disk_full(e: BaseException) -> bool:
  """Whether `e` (or what caused it) is a full disk. orbax reports one as a
  ValueError from tensorstore: 'RESOURCE_EXHAUSTED: ... No space left on
  device [os_error_code='28']'."""
  while e is not None:
    if getattr(e, "errno", None) == errno.ENOSPC or any(
        s in str(e) for s in ("No space left", "os_error_code='28'")):
      return True
    e = e.__cause__ or e.__context__
  return False


class _Held(logging.Filter):
  """Holds back the records of a logger (orbax's error reports)."""

  def __init__(self):
    super().__init__()
    self.records: list[logging.LogRecord] = []

  def filter(self, record):
    self.records.append(record)
    return False


# Signals deferred during a save: Ctrl-C, and the SIGTERM batch schedulers
# send before they kill (preemption).
DEFERRED_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def _interrupt_after():
  """Defers Ctrl-C (SIGINT) and SIGTERM to the end of the block.

  A save cut in half by KeyboardInterrupt leaves orbax's commit threads
  running into interpreter shutdown, which prints their tracebacks after
  the launcher's one-line message; a deferred signal costs the rest of one
  save and leaves a whole step to resume from. A deferred signal goes to
  the handler that was in place (the default one: the process ends as it
  would have); a signal the process ignores (SIGINT of a process started
  in the background) stays ignored.
  """
  if threading.current_thread() is not threading.main_thread():
    yield
    return
  previous = {s: signal.getsignal(s) for s in DEFERRED_SIGNALS}
  # A handler installed outside Python (None) cannot be put back: left alone.
  deferred = [s for s, h in previous.items() if h not in (signal.SIG_IGN,
                                                          None)]
  received = []
  for s in deferred:
    signal.signal(s, lambda signum, _: received.append(signum))
  try:
    yield
  finally:
    for s in deferred:
      signal.signal(s, previous[s])
    for signum in dict.fromkeys(received):
      if callable(previous[signum]):  # Python's SIGINT raises KeyboardInterrupt
        previous[signum](signum, None)
      else:  # SIG_DFL: ends the process, as it would have
        os.kill(os.getpid(), signum)


# What orbax and tensorstore report, after a save failed on a full disk, about
# the writes still in flight: consequences of the one failure already
# reported, sent to log.txt.
# A write still queued when the process ends meets a shut-down executor:
# the loop's own ('... after shutdown') or Python's ('... after interpreter
# shutdown').
_AFTERMATH = ("No space left", "os_error_code='28'", "Event loop is closed",
              "cannot schedule new futures after")


def _aftermath(text: str) -> bool:
  return any(s in text for s in _AFTERMATH)


def _to_run_log(what: str, text: str) -> None:
  """One line in log.txt (the trainer's logger; nothing if no run's log is
  open: its records are INFO, below the last-resort handler's level)."""
  first = text.strip().splitlines()[0] if text.strip() else ""
  logging.getLogger("blm_jax.training.trainer").info("%s: %s", what, first)


def _unraisable_to_log(previous):
  def hook(unraisable):
    # tensorstore's callback into the loop orbax closed when the save failed
    # (asyncio's call_soon_threadsafe, no object to name).
    if (unraisable.object is None
        and isinstance(unraisable.exc_value, RuntimeError)
        and str(unraisable.exc_value) == "Event loop is closed"):
      _to_run_log("orbax, a write still in flight after a failed save",
                  repr(unraisable.exc_value))
    else:
      previous(unraisable)
  hook.blm_checkpoints = True
  return hook


class _AftermathToLog(logging.Filter):
  """Sends the records of a failed save's aftermath to log.txt."""

  def filter(self, record):
    if record.levelno < logging.WARNING:
      return True
    text = record.getMessage()
    if record.exc_info and record.exc_info[1] is not None:
      text += f" {type(record.exc_info[1]).__name__}: {record.exc_info[1]}"
    if not _aftermath(text):
      return True
    _to_run_log(f"orbax, after a failed save ({record.name})", text)
    return False


# orbax's advice (WARNING through absl) that would break the progress bar,
# e.g. on a slow disk: it goes to log.txt.
_ADVICE = ("Waiting for previous save to complete took",)


class _AdviceToLog(logging.Filter):
  """Sends orbax's advice lines to log.txt instead of the console."""

  def filter(self, record):
    text = record.getMessage()
    if not text.startswith(_ADVICE):
      return True
    _to_run_log("orbax", text)
    return False


def _route_advice_to_log() -> None:
  absl_logger = logging.getLogger("absl")
  if not any(isinstance(f, _AdviceToLog) for f in absl_logger.filters):
    absl_logger.addFilter(_AdviceToLog())


def _route_aftermath_to_log() -> None:
  """Keeps the aftermath of a save that failed on a full disk off the console.

  orbax closes its asyncio loop at the first failed write while tensorstore
  still has writes in flight. Each one that ends then calls back into the
  closed loop (Python prints a bare 'Event loop is closed' traceback), its
  task's error is logged when the task is collected ('Task exception was
  never retrieved'), and orbax's threads log theirs, during the save and up
  to the process's end: dozens of tracebacks for one full disk, sometimes
  in the middle of the launcher's error line. They go to log.txt, for the
  rest of the process (they come after the save has returned). Installed
  at the first save (the unraisable reports start before the save fails).
  """
  if getattr(sys.unraisablehook, "blm_checkpoints", False):
    return
  sys.unraisablehook = _unraisable_to_log(sys.unraisablehook)
  for name in ("absl", "asyncio"):
    logging.getLogger(name).addFilter(_AftermathToLog())


def _ignore_unstarted_writes() -> None:
  """The writes orbax had queued but never started when its loop closed are
  coroutines never awaited; Python warns of each as it collects them, often
  at the process's end, after the launcher's error line. They are the one
  failure already reported."""
  warnings.filterwarnings("ignore", category=RuntimeWarning,
                          message=r"coroutine '.*' was never awaited")


def _close_quietly(mgr: ocp.CheckpointManager) -> None:
  """Waits for a failed save's threads (their errors are its aftermath), so
  that closing the manager again raises nothing new."""
  try:
    mgr.close()
  except Exception as e:  # The full disk already reported.
    _to_run_log("orbax, closing after a failed save", f"{type(e).__name__}: "
                f"{e}")


def save(mgr: ocp.CheckpointManager, step: int, state, meta: dict) -> None:
  """Saves one step; a full disk is reported in one line (the run resumes).

  orbax reports a failed write from each of its threads, with tracebacks
  (hundreds of lines for one full disk): those reports are held back while
  saving and dropped when the disk is full, else passed on; what orbax and
  tensorstore report afterwards goes to log.txt (`_route_aftermath_to_log`).
  A Ctrl-C during the save (or a SIGTERM) takes effect once the step is
  written.
  """
  held, absl_logger = _Held(), logging.getLogger("absl")
  try:
    # The digest takes a while: a signal during it waits for the step too.
    with _interrupt_after():
      _route_aftermath_to_log()
      _route_advice_to_log()
      meta = {**meta, "state_digest": digest(state),
              "state_shapes": shapes(state)}
      absl_logger.addFilter(held)
      mgr.save(step, args=ocp.args.Composite(
          state=ocp.args.StandardSave(state), meta=ocp.args.JsonSave(meta)))
      mgr.wait_until_finished()
  except Exception as e:
    if _disk_full(e):
      _close_quietly(mgr)
      held.records.clear()
      _ignore_unstarted_writes()
      raise OSError(
          errno.ENOSPC, f"no space left on the device of {mgr.directory} "
          f"while saving the checkpoint of epoch {step}; free some space and "
          f"rerun the same command to resume from the last saved epoch"
      ) from None
    raise
  finally:
    absl_logger.removeFilter(held)
    for record in held.records:
      absl_logger.handle(record)


def has_step(mgr: ocp.CheckpointManager, step: int) -> bool:
  """Whether `step` is written in full (a Ctrl-C that came before its save
  began left it out)."""
  mgr.reload()  # from the disk, not the manager's list of calls
  return step in mgr.all_steps()


def read_meta(directory: str, step: int, read_only: bool = False) -> dict:
  """The JSON metadata saved with one step (the state is not read)."""
  mgr = manager(directory, read_only=read_only)
  try:
    return mgr.restore(step, args=ocp.args.Composite(
        meta=ocp.args.JsonRestore()))["meta"]
  finally:
    mgr.close()


def _steps(directory: str, read_only: bool = False) -> list[int]:
  if not os.path.isdir(directory):
    return []
  mgr = manager(directory, read_only=read_only)
  try:
    return sorted(mgr.all_steps(), reverse=True)
  finally:
    mgr.close()


def quarantine(directory: str, step: int, why: str) -> str:
  """Moves a damaged step out of orbax's sight; returns where it went.
  With several processes, process 0 moves it once all have seen it fail."""
  dest_root = os.path.abspath(directory).rstrip("/") + "-quarantine"
  dest = os.path.join(dest_root, f"{step}-{time.strftime('%Y%m%d-%H%M%S')}")
  distributed.barrier(f"quarantine {step}")
  if distributed.is_writer():
    os.makedirs(dest_root, exist_ok=True)
    shutil.move(os.path.join(directory, str(step)), dest)
    logging.getLogger("blm_jax.training.trainer").warning(
        "checkpoint step %d in %s is damaged (%s); moved to %s", step,
        directory, why, dest)
  distributed.barrier(f"quarantined {step}")
  return dest


def restore_state(directory: str, step: int, abstract_state,
                  read_only: bool = False):
  """The state of one step; `abstract_state` carries shapes + shardings."""
  mgr = manager(directory, read_only=read_only)
  try:
    return mgr.restore(step, args=ocp.args.Composite(
        state=ocp.args.StandardRestore(abstract_state)))["state"]
  finally:
    mgr.close()


def restore_latest(directory: str, abstract_state, move_damaged: bool = True,
                   check_meta=None):
  """(step, state, meta) of the newest intact step, or None if none.

  Damaged steps are quarantined, or only skipped with `move_damaged=False`
  (probing never changes a workdir: its managers are then read-only, so
  not even a killed save's tmp folder is cleaned up). `check_meta(step,
  meta)`, if given, is called with each candidate step's metadata before
  its state is read (the trainer refuses another run's checkpoint there);
  each step's metadata is read once. Raises CheckpointMismatchError if a
  readable step has another structure.
  """
  want = shapes(abstract_state)
  bad = []

  def damaged(step, why):
    bad.append(step)
    if move_damaged:
      quarantine(directory, step, why)
    else:
      logging.getLogger("blm_jax.training.trainer").warning(
          "checkpoint step %d in %s is damaged (%s); skipped", step,
          directory, why)

  read_only = not move_damaged
  with _reports_to_log_if(lambda: bool(bad)):
    for step in _steps(directory, read_only):
      found = _read_step(directory, step, abstract_state, want, read_only,
                         check_meta, damaged)
      if found is not None:
        return found
  return None


@contextlib.contextmanager
def _reports_to_log_if(condition):
  """Holds back orbax's reports (errors with tracebacks, one per leaf of a
  damaged step) during the block; sends them to the run's log.txt if
  `condition()` holds at its end (the console then gets one-line notices),
  else passes them on."""
  held, absl_logger = _Held(), logging.getLogger("absl")
  absl_logger.addFilter(held)
  try:
    yield
  finally:
    absl_logger.removeFilter(held)
    to_log = condition()
    log = logging.getLogger("blm_jax.training.trainer")
    for record in held.records:
      if to_log:
        log.info("orbax, reading checkpoints: %s",
                 logging.Formatter().format(record))
      else:
        absl_logger.handle(record)


def _read_step(directory, step, abstract_state, want, read_only, check_meta,
               damaged):
  """(step, state, meta) of one step, or None if it is damaged."""
  try:
    meta = read_meta(directory, step, read_only)
  except Exception as e:
    damaged(step, f"unreadable metadata: {e}")
    return None
  if check_meta is not None:
    check_meta(step, meta)
  saved = meta.get("state_shapes")
  if saved is not None and saved != want:
    diff = [f"{k}: {saved.get(k)} -> {want.get(k)}"
            for k in sorted(set(saved) | set(want))
            if saved.get(k) != want.get(k)]
    raise CheckpointMismatchError(
        f"{directory} step {step} holds a state of another structure "
        f"(another model, size or grid): {len(diff)} leaves differ, e.g. "
        + "; ".join(diff[:3]) + ". Use a new --workdir or "
        "--config.train.resume=restart.")
  try:
    state = restore_state(directory, step, abstract_state, read_only)
  except Exception as e:
    damaged(step, f"unreadable state: {e}")
    return None
  if "state_digest" in meta and digest(state) != meta["state_digest"]:
    damaged(step, "its bytes do not match the saved digest")
    return None
  return step, state, meta


def folder_bytes(directory: str) -> int:
  """Bytes of the files under `directory` (0 when it is absent)."""
  total = 0
  for root, _, names in os.walk(directory):
    for name in names:
      try:
        total += os.path.getsize(os.path.join(root, name))
      except OSError:  # Removed while walking (a killed save's tmp folder).
        pass
  return total


def size_line(directory: str, state, num_cells: int) -> str:
  """'checkpoints: 791.1 MB on disk, the last and best state of 9 cells of
  5.94M parameters each (with the optimizer's state)': why a small run's
  checkpoint is large (its size follows the model, not the data)."""
  leaves = jax.tree_util.tree_leaves(state.params)
  padded = leaves[0].shape[0] if leaves and leaves[0].ndim else 1
  per_cell = sum(int(x.size) for x in leaves) // max(1, padded)
  count = (f"{per_cell / 1e6:.2f}M" if per_cell >= 1e6 else f"{per_cell:,}")
  return (f"checkpoints: {folder_bytes(directory) / 1e6:.1f} MB on disk, "
          f"the last and best state of {num_cells} cells of {count} "
          "parameters each (with the optimizer's state)")

