"""The experiment config files a command line names, run by path.

Configs are files the user points at (`--config`, `--configs_dir` with
`--models`), as ml_collections' config flags read them; the library below
cli/ gets the resulting ConfigDicts, or a loader from here, and never runs
a file by its path itself.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from typing import Callable

import ml_collections


def load(configs_dir: str, model: str, arg: str) -> ml_collections.ConfigDict:
  """get_config(arg) of `<configs_dir>/<model>.py`; FileNotFoundError
  naming --models when there is no such file."""
  path = os.path.join(configs_dir, f"{model}.py")
  if not os.path.exists(path):
    raise FileNotFoundError(f"--models: no config file {path}")
  spec = importlib.util.spec_from_file_location(f"_blm_config_{model}", path)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module.get_config(arg)


def loader(configs_dir: str
           ) -> Callable[[str, str], ml_collections.ConfigDict]:
  """(model, arg) -> that model's config from `configs_dir`."""
  return functools.partial(load, configs_dir)
