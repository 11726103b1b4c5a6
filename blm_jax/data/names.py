"""Is a dataset name one of the registered TFDS builders and configs, or a
short name that stands for some?

Checked before TFDS sees the name, so that a misspelled name (or one like
`blm_spray_load/../../evil`) is one line with the closest registered
names, instead of TFDS's traceback and catalogue of every dataset it knows.
"""

from __future__ import annotations

import difflib


def name_problem(full: str) -> str | None:
  """What is wrong with the dataset name `full` ('builder[/config]'), or
  None when it is registered."""
  import tensorflow_datasets as tfds
  import data_builders  # noqa: F401  Registers the project's builders.

  builder, _, cfg_name = full.partition("/")
  builder = builder.split(":")[0]
  builders = tfds.core.registered.list_imported_builders()
  if builder not in builders:
    close = difflib.get_close_matches(builder, builders, 1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"no dataset {builder!r}{hint}"
  if not cfg_name:
    return None
  configs = [c.name for c in (tfds.builder_cls(builder).BUILDER_CONFIGS
                              or ())]
  if configs and cfg_name.split(":")[0] not in configs:
    return config_problem(builder, cfg_name, configs)
  return None


def config_problem(builder: str, cfg_name: str, configs,
                   limit: int | None = 12) -> str:
  """'B has no config C' with the closest configs, or the first `limit` of
  them (None: all)."""
  configs = list(configs)
  limit = len(configs) if limit is None else limit
  close = difflib.get_close_matches(cfg_name, configs, 3)
  hint = ("; did you mean " + " or ".join(repr(f"{builder}/{c}")
                                          for c in close) + "?" if close
          else f"; its {len(configs)} configs: {', '.join(configs[:limit])}"
          + (" ..." if len(configs) > limit else ""))
  return f"{builder!r} has no config {cfg_name!r}{hint}"


def resolve_datasets(name: str) -> list[str]:
  """The TFDS names a command line's dataset stands for: a short name of
  data_builders.registry (every lexical type: 'spray_load'), a short name
  and one type ('spray_load:II'), or a registered TFDS name. ValueError
  (one line, with the closest names) for anything else."""
  from data_builders import registry

  if "/" in name or name.startswith("blm_"):
    problem = name_problem(name)
    if problem:
      raise ValueError(problem)
    return [name]
  return list(registry.resolve(name))
