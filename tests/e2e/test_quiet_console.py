"""The command lines are quiet by default: a normal tiny run of launch.py
(with a cold dataset build), probe, export and reproduce prints only the
project's own lines, none of absl's, orbax's, jax's or TFDS's INFO lines or
warnings."""

import os
import re
import subprocess
import sys
import textwrap

import pytest

from tests import ROOT, release_fixtures, tiny_checkpoints

pytestmark = pytest.mark.slow


# absl's line prefix (I/W/E/F, month and day), Python's warnings, TFDS's
# own lines.
NOISE = (re.compile(r"^[IWEF]\d{4} ", re.M), re.compile(r"Warning\b"),
         re.compile(r"WARNING"), re.compile("Traceback"),
         re.compile("dataset_info.json"),
         re.compile("Downloading and preparing"))


def _noise(text: str) -> list[str]:
  return [line for line in text.splitlines()
          if any(p.search(line) for p in NOISE)]


def _run(*args, timeout=300):
  env = dict(os.environ, JAX_PLATFORMS="cpu")
  return subprocess.run([sys.executable, *args], cwd=ROOT, env=env,
                        capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
  """A config file of a tiny run (the released format, a tiny BERT), and
  launch.py's run of it, building the dataset into a fresh data dir."""
  root = tmp_path_factory.mktemp("quiet")
  release = root / "release"
  for k, t in enumerate(("I", "II")):  # One release folder per type.
    release_fixtures.write_release(
        release / f"type_{t}" / "all.tsv",
        release_fixtures.release_rows(60, start=100 * k))
  encoder = tiny_checkpoints.write_bert(str(root / "tiny_bert"))
  configs = root / "configs"
  configs.mkdir()
  # reproduce reads the short names of <configs_dir>/common.py.
  (configs / "common.py").write_text(
      f"import sys\nsys.path.insert(0, {ROOT!r})\n"
      "from configs.common import *  # noqa: F401,F403\n"
      "from configs.common import DATASETS  # noqa: F401\n")
  # reproduce reads configs/<model>.py: the tiny run stands for every
  # dataset it is asked for.
  (configs / "ffnn.py").write_text(textwrap.dedent(f"""\
      import sys
      sys.path.insert(0, {ROOT!r})
      from configs import ffnn


      def get_config(arg=None):
        c = ffnn.get_config(None)
        c.data.name = "blm_published/type_{{}}"
        c.data.manual_dir = {str(release)!r}
        c.data.data_dir = {str(root / "tfds")!r}
        c.data.train_types = c.data.test_types = ("I", "II")
        c.encoder.name = {encoder!r}
        c.encoder.cache_dir = {str(root / "cache")!r}
        c.grid.seeds = (0,)
        c.train.epochs = 2
        c.train.batch_size = 16
        c.progress = False
        return c
      """))
  work = root / "work"
  proc = _run("launch.py", f"--config={configs / 'ffnn.py'}",
              f"--workdir={work}")
  return {"root": root, "configs": configs, "release": release,
          "work": work, "launch": proc}


def test_launch_with_a_cold_build_prints_only_its_own_lines(tiny):
  proc = tiny["launch"]
  assert proc.returncode == 0, proc.stderr[-3000:]
  assert _noise(proc.stderr) == [], proc.stderr[-3000:]
  lines = [l for l in proc.stderr.splitlines() if l.strip()]
  for line, t in zip(lines, ("I", "II")):
    assert line == (
        f"building dataset blm_published/type_{t} into "
        f"{tiny['root'] / 'tfds' / 'blm_published' / f'type_{t}' / '1.0.0'} "
        "(once)")
  lines = lines[2:]
  # The rest: the embedding bar and the small test sets' notices.
  own = ("embed [", "test type ")
  assert all(l.startswith(own) for l in lines), (
      [l for l in lines if not l.startswith(own)])
  assert _noise(proc.stdout) == [], proc.stdout[-3000:]


def test_probe_is_quiet(tiny):
  proc = _run("-m", "blm_jax.cli.probe", f"--workdir={tiny['work']}",
              "--analysis=confusion")
  assert proc.returncode == 0, proc.stderr[-3000:]
  assert proc.stderr == "", proc.stderr[-3000:]
  assert _noise(proc.stdout) == [], proc.stdout[-3000:]


def test_export_is_quiet(tiny):
  out = tiny["root"] / "export"
  proc = _run("-m", "blm_jax.cli.export", "--dataset=blm_published/type_I",
              f"--manual_dir={tiny['release']}",
              f"--data_dir={tiny['root'] / 'tfds'}", f"--out={out}")
  assert proc.returncode == 0, proc.stderr[-3000:]
  assert proc.stderr == "", proc.stderr[-3000:]
  assert _noise(proc.stdout) == [], proc.stdout[-3000:]


def test_reproduce_is_quiet(tiny):
  out = tiny["root"] / "reproduce"
  proc = _run("-m", "blm_jax.cli.reproduce", f"--configs_dir="
              f"{tiny['configs']}", "--models=ffnn",
              "--datasets=agreement_en", f"--out={out}")
  assert proc.returncode == 0, proc.stderr[-3000:]
  assert _noise(proc.stderr) == [], proc.stderr[-3000:]
  assert all(l.startswith(("embed [", "test type "))
             for l in proc.stderr.splitlines() if l.strip()), (
                 proc.stderr[-3000:])
  assert _noise(proc.stdout) == [], proc.stdout[-3000:]
  assert (out / "report.md").exists()
