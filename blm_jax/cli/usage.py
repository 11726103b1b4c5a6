"""`--help` of every command: its flags, the dataset short names and config
files it accepts, exit status 0 (absl's own --help exits 1).

The short names come from data_builders.registry (each builder package
declares its own); the config files are listed from the configs folder.
"""

from __future__ import annotations

import os
import sys
import textwrap

HELP_FLAGS = ("--help", "-h", "-?", "--helpshort", "--helpfull")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
CONFIGS = os.path.join(ROOT, "configs")


def datasets_text(configs_dir: str = CONFIGS) -> str:
  """The dataset short names (`dataset=<name>` in a config variant, or the
  dataset of lint, export, embed and reproduce) and the config files (when
  `configs_dir` is there), as lines for --help."""
  from data_builders import registry

  names = ", ".join(sorted(registry.names()))
  files = (", ".join(sorted(
      f"configs/{f}" for f in os.listdir(configs_dir)
      if f.endswith(".py") and f not in ("__init__.py", "common.py")))
           if os.path.isdir(configs_dir) else "")
  return (("\nconfig files: " + files + "\n" if files else "\n")
          + "dataset short names (configs/<model>.py:dataset=<name>; lint, "
          "export, embed and reproduce take them too, <name>:<type> for one "
          "type; each family declares its own in "
          "data_builders/<family>/datasets.py):\n"
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
