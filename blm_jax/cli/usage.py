"""`--help` of every command: its flags, the dataset short names and config
files it accepts, exit status 0 (absl's own --help exits 1).

The short names live in configs/common.py, which library code must not
import: it is read as a file, as the reproduction suite reads configs.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import textwrap

HELP_FLAGS = ("--help", "-h", "-?", "--helpshort", "--helpfull")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
CONFIGS = os.path.join(ROOT, "configs")


def load_common(configs_dir: str = CONFIGS):
  """`<configs_dir>/common.py` as a module, loaded from its file."""
  path = os.path.join(configs_dir, "common.py")
  spec = importlib.util.spec_from_file_location("_blm_configs_common", path)
  module = importlib.util.module_from_spec(spec)
  sys.path.insert(0, os.path.dirname(configs_dir))
  try:
    spec.loader.exec_module(module)
  finally:
    sys.path.pop(0)
  return module


def datasets_text(configs_dir: str = CONFIGS) -> str:
  """The dataset short names (`dataset=<name>` in a config variant) and the
  config files, as lines for --help; empty when configs/ is not there."""
  if not os.path.isfile(os.path.join(configs_dir, "common.py")):
    return ""
  names = ", ".join(sorted(load_common(configs_dir).DATASETS))
  files = ", ".join(sorted(
      f"configs/{f}" for f in os.listdir(configs_dir)
      if f.endswith(".py") and f not in ("__init__.py", "common.py")))
  return ("\nconfig files: " + files + "\n"
          + "dataset short names (configs/<model>.py:dataset=<name>; the TFDS "
          "names they stand for are in configs/common.py):\n"
          + textwrap.fill(names, 78, initial_indent="  ",
                          subsequent_indent="  ") + "\n")


def run(main, *, flags_parser=None, extra: str = "") -> None:
  """absl's app.run, except that --help prints the flags, `extra` and the
  dataset short names, and exits 0."""
  from absl import app, flags

  if any(a.split("=")[0] in HELP_FLAGS for a in sys.argv[1:]):
    full = "--helpfull" in sys.argv[1:]
    app.usage(shorthelp=not full, writeto_stdout=True)
    print((extra + "\n" if extra else "") + datasets_text(), end="")
    sys.exit(0)
  if flags_parser is None:
    app.run(main)
  else:
    app.run(main, flags_parser=flags_parser)
