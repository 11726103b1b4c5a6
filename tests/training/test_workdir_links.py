"""A run never writes through a symbolic link in its workdir: a `.lock`,
`log.txt` or any other output placed there as a link to someone's file is
refused, naming it, and the file it points to is untouched."""

import os
import subprocess
import sys

import pytest

from blm_jax.data import input_pipeline
from blm_jax.training import run_log, trainer as train
from blm_jax.training import workdir_lock
from tests import ROOT, synthetic


@pytest.fixture
def no_data_work(monkeypatch):
  def fails(data_cfg):
    raise AssertionError("the data work started")
  monkeypatch.setattr(input_pipeline, "build_data_once", fails)


@pytest.mark.slow
@pytest.mark.parametrize("name", workdir_lock.WRITTEN)
def test_a_link_among_the_files_a_run_writes_is_refused(tmp_path, name,
                                                        no_data_work):
  victim = tmp_path / "victim"
  victim.write_text("precious\n")
  work = tmp_path / "w"
  work.mkdir()
  os.symlink(victim, work / name)
  with pytest.raises(workdir_lock.WorkdirLinkError) as e:
    train.train_and_evaluate(synthetic.config("ffnn", epochs=1), str(work))
  assert f"({name} -> {victim})" in str(e.value)
  assert str(e.value).startswith(f"{work} holds symbolic links where a run "
                                 "writes its files")
  assert victim.read_text() == "precious\n"
  assert os.path.islink(work / name)  # left as it was
  assert not [k for k in workdir_lock._held if k.startswith(str(work))]


@pytest.mark.slow
@pytest.mark.parametrize("name", [workdir_lock.LOCK_NAME,
                                  workdir_lock.LOG_NAME, "results.json"])
def test_a_hard_link_among_the_files_a_run_writes_is_refused(
    tmp_path, name, no_data_work):
  victim = tmp_path / "victim"
  victim.write_text("precious\n")
  work = tmp_path / "w"
  work.mkdir()
  os.link(victim, work / name)
  with pytest.raises(workdir_lock.WorkdirLinkError) as e:
    train.train_and_evaluate(synthetic.config("ffnn", epochs=1), str(work))
  assert str(e.value) == (
      f"{work} holds hard links where a run writes its files ({name}: a "
      "hard link, 2 names for one file); a run does not write through "
      "links: remove them or use another --workdir")
  assert victim.read_text() == "precious\n"
  assert not [k for k in workdir_lock._held if k.startswith(str(work))]


def test_a_hard_linked_lock_is_refused_by_its_descriptor_check(tmp_path,
                                                               monkeypatch):
  """Even where the name check misses it (a link made after it), the lock
  file is checked on its descriptor before it is truncated."""
  victim = tmp_path / "victim"
  victim.write_text("precious\n")
  work = tmp_path / "w"
  work.mkdir()
  os.link(victim, work / ".lock")
  monkeypatch.setattr(workdir_lock, "links", lambda workdir: [])
  with pytest.raises(workdir_lock.WorkdirLinkError,
                     match=r"holds hard links where a run writes its files "
                     r"\(\.lock: a hard link \(2 names for one file\)\)"):
    workdir_lock.acquire(str(work))
  assert victim.read_text() == "precious\n"


def test_a_dangling_lock_link_is_refused_and_not_created(tmp_path):
  work = tmp_path / "w"
  work.mkdir()
  target = tmp_path / "made-by-the-run"
  os.symlink(target, work / ".lock")
  with pytest.raises(workdir_lock.WorkdirLinkError, match=r"\.lock -> "):
    workdir_lock.acquire(str(work))
  assert not target.exists()


def test_log_txt_is_opened_without_following_a_link(tmp_path):
  """The handler itself refuses a link made after the workdir check."""
  victim = tmp_path / "victim"
  victim.write_text("11 bytes.\n")
  work = tmp_path / "w"
  work.mkdir()
  os.symlink(victim, work / "log.txt")
  with pytest.raises(OSError):
    run_log.open_log(str(work)).info("a line")
  assert victim.read_text() == "11 bytes.\n"
  os.remove(work / "log.txt")
  os.link(victim, work / "log.txt")
  with pytest.raises(OSError, match="a hard link"):
    run_log.open_log(str(work)).info("a line")
  assert victim.read_text() == "11 bytes.\n"


@pytest.mark.slow
def test_launch_says_it_in_one_line(tmp_path):
  victim = tmp_path / "victim"
  victim.write_text("precious\n")
  work = tmp_path / "w"
  work.mkdir()
  os.symlink(victim, work / ".lock")
  proc = subprocess.run(
      [sys.executable, "launch.py", "--config=configs/ffnn.py:cpu",
       f"--workdir={work}", "--config.data.data_dir=" + str(tmp_path / "d")],
      cwd=ROOT, env=dict(os.environ, JAX_PLATFORMS="cpu"),
      capture_output=True, text=True, timeout=120)
  err = proc.stderr.strip()
  assert proc.returncode == 1, err[-2000:]
  assert err == (f"error: {work} holds symbolic links where a run writes its "
                 f"files (.lock -> {victim}); a run does not write through "
                 "links: remove them or use another --workdir")
  assert victim.read_text() == "precious\n"
