"""`python launch.py ...` is `blm train ...`: the trainer's command line
lives in blm_jax/cli/train.py, inside the package, so the installed `blm`
command finds it; this file keeps the README's and older scripts' commands
working (and `launch.error_line` & co. for those that import it).
"""

import runpy

if __name__ == "__main__":
  # Run as its own __main__, as `blm train` does: --help lists its flags.
  runpy.run_module("blm_jax.cli.train", run_name="__main__", alter_sys=True)
else:
  from blm_jax.cli.train import *  # noqa: F401,F403
