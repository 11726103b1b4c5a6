"""Minor faults of issue 37: each is fixed or one clear line."""

import os
import re
import types

import pytest

from blm_jax.training import run_health, run_log
from tests import ROOT


def _grid(cells):
  spec = types.SimpleNamespace(cell_name=lambda i: f"cell{i}")
  return types.SimpleNamespace(spec=spec, num_cells=cells)


def test_a_loss_from_zero_to_tiny_is_not_divergence():
  history = {"train": {"loss": [[1.2, 1.2], [0.0, 1e-5], [1e-4, 5.0]]}}
  assert run_health.diverging_cells(history, _grid(2)) == [
      "cell1: loss 5 at epoch 2, lowest 1e-05"]


def test_export_refuses_a_path_traversal_name_in_one_line(tmp_path):
  import pytest
  from blm_jax.cli import export
  f = types.SimpleNamespace(dataset="blm_spray_load/../../evil",
                            out=str(tmp_path / "out"), format="jsonl",
                            split=None, data_dir=str(tmp_path / "d"),
                            manual_dir=None)
  with pytest.raises(SystemExit) as e:
    export.run(f)
  assert re.match(
      r"error: --dataset=blm_spray_load/\.\./\.\./evil: 'blm_spray_load' has "
      r"no config '\.\./\.\./evil'; its \d+ configs: ALT-ATL_type_I, ",
      str(e.value)), str(e.value)
  assert not (tmp_path / "out").exists() and not (tmp_path / "d").exists()


def test_build_agreement_lists_the_valid_config_names(tmp_path):
  import pytest
  from blm_jax.cli import build_agreement
  names = build_agreement.all_config_names()
  assert {"en_seq_type_II", "fr_ctx_type_III"} <= set(names)
  with pytest.raises(SystemExit) as e:
    build_agreement.main(["--data_dir", str(tmp_path), "zzzz"])
  line = str(e.value)
  assert line.startswith("error: 'blm_agreement' has no config 'zzzz'; its "
                         f"{len(names)} configs: en_main_type_I, ")
  assert "en_seq_type_II" in line
  assert "\n" not in line and "..." not in line
  assert not os.listdir(tmp_path)
  with pytest.raises(SystemExit) as e:  # A design's name is known.
    build_agreement.main(["--data_dir", str(tmp_path), "en_seq_type_IV"])
  assert "did you mean 'blm_agreement/en_seq_type_I" in str(e.value)


def test_release_files_too_long_a_field_or_not_tab_separated(tmp_path):
  import pytest
  from data_builders.blm_published import release_format
  from tests import release_fixtures

  rows = release_fixtures.release_rows(3)
  rows[1]["Sent_chunks_2"] = repr(["x" * 400_000])
  path = release_fixtures.write_release(tmp_path / "long" / "f.tsv", rows)
  with pytest.raises(release_format.ReleaseFormatError) as e:
    release_format.read_release(path, family="agreement")
  import launch
  assert launch.error_line(e.value) == f"error: {e.value}"
  assert str(e.value).startswith(
      f"{path}, line 3, column 7 ('Sent_chunks_2'): field too long: "
      "400,004 characters, over the reader's limit of 131,072")
  path = tmp_path / "comma" / "f.tsv"
  release_fixtures.write_release(path, rows[:1])
  path.write_text(path.read_text().replace("\t", ","))
  with pytest.raises(release_format.ReleaseFormatError,
                     match=r"f\.tsv, line 1: not tab-separated: the header "
                     r"is one column holding \d+ commas"):
    release_format.read_release(path, family="agreement")


def test_previous_folders_are_bounded(tmp_path):
  from blm_jax.training import set_aside
  names = ["previous-20261120-100000", "previous-20261120-100000-2",
           "previous-20261120-100000-10", "previous-20261121-090000",
           "previous-20261122-090000"]
  for n in names:
    (tmp_path / n).mkdir()
  (tmp_path / "previous-notes").mkdir()  # not a set-aside folder
  assert set_aside.prune(str(tmp_path), keep=3) == names[:2]
  assert sorted(os.listdir(tmp_path)) == sorted(names[2:] + ["previous-notes"])
  assert set_aside.prune(str(tmp_path), keep=3) == []


def test_orbax_advice_goes_to_log_txt_not_the_console(tmp_path, capsys):
  from absl import logging as absl_logging
  from blm_jax.training import checkpoints
  log = run_log.open_log(str(tmp_path))
  checkpoints._route_advice_to_log()
  absl_logging.warning("Waiting for previous save to complete took %f "
                       "seconds. If this number is high, ...", 3.5)
  for h in log.handlers:
    h.flush()
  assert "Waiting for previous save" not in capsys.readouterr().err
  assert "orbax: Waiting for previous save to complete took 3.5" in (
      tmp_path / "log.txt").read_text()
  for h in list(log.handlers):  # the next test opens its own
    log.removeHandler(h)
    h.close()


@pytest.mark.slow
def test_a_failed_dataset_build_leaves_nothing_behind(tmp_path):
  import pytest
  from data_builders.common import loading
  import launch
  data_dir = tmp_path / "made" / "tfds"
  with pytest.raises(loading.ManualDirError) as e:
    loading.prepare("blm_published/folder", str(data_dir),
                    str(tmp_path / "no_release"))
  assert launch.error_line(e.value) == (
      f"error: dataset blm_published/folder: Manual directory "
      f"{tmp_path / 'no_release'} does not exist or is empty; it must hold "
      "the released BLM files (config.data.manual_dir, --manual_dir)")
  assert not (tmp_path / "made").exists()
  (tmp_path / "kept").mkdir()  # a data dir that was there stays, empty
  with pytest.raises(Exception, match="manual_dir"):
    loading.prepare("blm_published/folder", str(tmp_path / "kept"))
  assert os.listdir(tmp_path / "kept") == [
      ".blm_published--folder.build-lock"]


@pytest.mark.slow
def test_two_builds_of_one_dataset_at_once_build_it_once(tmp_path):
  import subprocess
  import sys
  from tests import release_fixtures
  release = tmp_path / "release"
  release_fixtures.write_release(release / "all.tsv",
                                 release_fixtures.release_rows(60))
  code = ("from data_builders.common import loading; "
          "import tensorflow_datasets as tfds; tfds.disable_progress_bar(); "
          f"b = loading.prepare('blm_published/folder', {str(tmp_path / 't')!r}"
          f", {str(release)!r}); print(sorted(b.info.splits))")
  root = ROOT
  procs = [subprocess.Popen([sys.executable, "-c", code], cwd=root,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True) for _ in range(2)]
  outs = [p.communicate(timeout=300) for p in procs]
  assert [p.returncode for p in procs] == [0, 0], outs
  assert all("train" in out for out, _ in outs)
  lines = [l for _, err in outs for l in err.splitlines()]
  assert len([l for l in lines if l.startswith("building dataset")]) == 1, \
      lines


@pytest.mark.slow
def test_a_full_disk_during_a_build_is_one_oserror_and_nothing_kept(
    tmp_path):
  import subprocess
  import pytest
  import tensorflow_datasets as tfds
  from data_builders.common import loading
  from tests import release_fixtures, small_disk
  release = tmp_path / "release"
  release_fixtures.write_release(release / "all.tsv",
                                 release_fixtures.release_rows(400))
  mount = tmp_path / "small"
  if not small_disk.mount_tmpfs(mount, "96k"):
    pytest.skip("cannot mount a tmpfs here (needs root)")
  try:
    tfds.disable_progress_bar()
    with pytest.raises(OSError) as e:
      loading.prepare("blm_published/folder", str(mount / "tfds"),
                      str(release))
    assert e.value.errno == 28
    assert e.value.filename == str(mount / "tfds" / "blm_published" /
                                   "folder" / "1.0.0")
    assert os.listdir(mount) == []
    import launch
    assert launch.error_line(e.value).startswith(
        "error: No space left on device (building dataset "
        "blm_published/folder; nothing of it was kept) (writing ")
  finally:
    subprocess.run(["umount", str(mount)])
