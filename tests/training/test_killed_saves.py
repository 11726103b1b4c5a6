"""What a save killed mid-write leaves is removed by the project before
orbax opens the folder (orbax's own cleanup raced with itself and printed
a traceback on the resume)."""

import os

from blm_jax.training import checkpoints


def _killed_save(folder, step):
  tmp = folder / f"{step}.orbax-checkpoint-tmp"
  for item in ("state", "meta"):
    nested = tmp / f"{item}.orbax-checkpoint-tmp" / "d"
    nested.mkdir(parents=True)
    (nested / "x").write_bytes(b"half")
  return tmp


def test_a_writing_manager_removes_killed_saves_and_keeps_steps(tmp_path):
  folder = tmp_path / "checkpoints"
  (folder / "3" / "state").mkdir(parents=True)
  (folder / "3" / "state" / "keep").write_text("a finished step")
  _killed_save(folder, 5)
  checkpoints.manager(str(folder), max_to_keep=2).close()
  assert sorted(os.listdir(folder)) == ["3"]
  assert (folder / "3" / "state" / "keep").read_text() == "a finished step"


def test_a_read_only_manager_changes_nothing(tmp_path):
  folder = tmp_path / "checkpoints"
  tmp = _killed_save(folder, 5)
  checkpoints.manager(str(folder), read_only=True).close()
  assert tmp.is_dir()
  assert checkpoints.remove_killed_saves(str(folder)) == [tmp.name]
  assert os.listdir(folder) == []
