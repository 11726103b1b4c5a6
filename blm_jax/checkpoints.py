"""Orbax checkpoints of the stacked grid state, with a resume that survives kills.

The state is saved with `StandardSave` and the grid description with
`JsonSave` (string leaves are not supported by StandardSave). A killed save
leaves a `*.orbax-checkpoint-tmp` folder that orbax ignores, but an
incomplete plain step folder is still listed: `restore_latest` therefore
tries the newest step and falls back to older ones.
"""

from __future__ import annotations

import logging
import os

import orbax.checkpoint as ocp


def manager(directory: str, max_to_keep: int = 2) -> ocp.CheckpointManager:
  return ocp.CheckpointManager(
      os.path.abspath(directory),
      options=ocp.CheckpointManagerOptions(
          max_to_keep=max_to_keep, create=True,
          cleanup_tmp_directories=True),
      item_names=("state", "meta"))


def save(mgr: ocp.CheckpointManager, step: int, state, meta: dict) -> None:
  mgr.save(step, args=ocp.args.Composite(
      state=ocp.args.StandardSave(state), meta=ocp.args.JsonSave(meta)))
  mgr.wait_until_finished()


def restore(directory: str, step: int, abstract_state):
  """(state, meta) of one step; `abstract_state` carries shapes + shardings."""
  mgr = manager(directory)
  try:
    out = mgr.restore(step, args=ocp.args.Composite(
        state=ocp.args.StandardRestore(abstract_state),
        meta=ocp.args.JsonRestore()))
    return out["state"], out["meta"]
  finally:
    mgr.close()


def restore_latest(directory: str, abstract_state):
  """(step, state, meta) of the newest readable step, or None if none."""
  if not os.path.isdir(directory):
    return None
  mgr = manager(directory)
  steps = sorted(mgr.all_steps(), reverse=True)
  mgr.close()
  for step in steps:
    try:
      state, meta = restore(directory, step, abstract_state)
      return step, state, meta
    except Exception as e:  # A step folder left incomplete by a kill.
      logging.warning("checkpoint step %d in %s is unreadable (%s); trying "
                      "an older one", step, directory, e)
  return None
