"""One check of a whole experiment config, before any data is built or embedded.

Without it a misspelled model or score name is reported only after the
datasets are generated and embedded (minutes on a cold cache), and a zero
batch size, epoch count or dev fraction ends in a ZeroDivisionError, or, for
`epochs=0`, in the results of an untrained model. `validate` reports every
problem at once, each naming the config key, the bad value and what is
accepted. `check_dataset_names` (used by launch.py, not by the trainer, whose
tests pass data directly) checks the TFDS names against the registered
builders and suggests the closest one.
"""

from __future__ import annotations

import difflib
import os
import re

from blm_jax.data import names as names_lib
from blm_jax.data.input_pipeline import DataSpec
from blm_jax.embedding.spec import EncoderSettings
from blm_jax.encoders import encoder as encoders
from blm_jax.models import losses, registry
from blm_jax.training import config_defaults, run_identity, variants
from blm_jax.training.grid import GRID_MODES
from blm_jax.training.optimizers import OPTIMIZERS
from blm_jax.training.settings import GridSettings, TrainSettings
from blm_jax.training.solver import SELECT_BY

# A hub id: 'org/name' (or a legacy one-part name, which must be registered).
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


class ConfigError(ValueError):
  """An invalid config; the message has one line per problem."""


def _choices(key: str, value, choices) -> str | None:
  if value in choices:
    return None
  close = difflib.get_close_matches(str(value), [str(c) for c in choices], 1)
  close = close or [c for c in choices if value and str(c).startswith(
      str(value))][:1]
  hint = f" (did you mean {close[0]!r}?)" if close else ""
  return (f"config.{key}={value!r} is not known{hint}; expected one of "
          f"{', '.join(repr(c) for c in choices)}")


def _number(key: str, value, *, integer: bool, low: float,
            low_open: bool = False, high: float | None = None,
            high_open: bool = True, what: str = "") -> str | None:
  """None when low (<|<=) value (<|<=) high, else the message."""
  kind = "an integer" if integer else "a number"
  ok_type = (isinstance(value, int) if integer else
             isinstance(value, (int, float))) and not isinstance(value, bool)
  if ok_type:
    ok = value > low if low_open else value >= low
    if high is not None:
      ok = ok and (value < high if high_open else value <= high)
    if ok:
      return None
  lo = f"> {low:g}" if low_open else f">= {low:g}"
  rng = lo if high is None else (
      f"in ({low:g}, {high:g})" if low_open and high_open else
      f"{lo} and {'<' if high_open else '<='} {high:g}")
  return f"config.{key}={value!r}: must be {kind} {rng}" + (
      f" ({what})" if what else "")


def _encoder_error(name) -> str | None:
  if not isinstance(name, str) or not name:
    return (f"config.encoder.name={name!r}: expected 'minilm', a hub name "
            "such as 'google/electra-base-discriminator', or a model folder")
  canon = encoders.canonical_name(name)
  if canon in encoders.REGISTRY:
    return None
  path = os.path.expanduser(name)
  if os.path.isdir(path):
    return None
  if name.startswith((".", "/", "~")) or name.count("/") > 1:
    return f"config.encoder.name={name!r}: the folder {path!r} does not exist"
  if _HUB_ID.match(name):
    return None
  known = sorted(set(encoders.REGISTRY) | set(encoders.ALIASES))
  close = difflib.get_close_matches(name, known, 1)
  hint = f" (did you mean {close[0]!r}?)" if close else ""
  return (f"config.encoder.name={name!r} is not known{hint}; expected "
          f"one of {', '.join(known)}, a hub name 'org/model' or an "
          "existing model folder")


def _variants_error(key: str, value) -> str | None:
  """A bad `controls` or `encoder.layer_sweep` (variants.py's message)."""
  try:
    if key == "controls":
      variants.parse_controls(value)
    else:
      variants.parse_layer_sweep(value)
  except ValueError as e:
    return str(e)
  return None


def _missing_keys(config) -> list[str]:
  """Keys of the solver's default config that `config` lacks."""
  name = config.model.name
  have = set(config_defaults.flat_keys(config))
  return [f"config.{k} is missing (a {name!r} config has every key of "
          f"config_defaults.default_config({name!r}))"
          for k in config_defaults.flat_keys(
              config_defaults.default_config(name)) if k not in have]


def _solver_problems(config) -> list[str | None]:
  """The solver's own keys: none foreign, values its spec accepts, weights
  of its loss terms."""
  spec = registry.get(config.model.name)
  out: list[str | None] = list(config_defaults.foreign_keys(config))
  for key, accepted in spec.choices.items():
    section, field = key.split(".")
    out.append(_choices(key, config[section][field], accepted))
  for name in ("answer_margin",) + spec.loss_terms:
    out.append(_number(f"loss.{name}", config.loss[name], integer=False,
                       low=0, what="a loss weight; 0 switches the term off"))
  if spec.check_config is not None:
    out.extend(spec.check_config(config))
  return out


_TYPE_NAMES = {bool: "True or False", int: "an integer", float: "a number",
               str: "a string"}
_PLURALS = {int: "integers", float: "numbers", str: "strings",
            bool: "booleans"}


def _typed(value, kind) -> bool:
  if kind is bool or isinstance(value, bool):
    return isinstance(value, kind) and kind is bool
  if kind is float:
    return isinstance(value, (int, float))
  return isinstance(value, kind)


def _type_problems(config) -> list[str]:
  """Every number, boolean and tuple of `config` against the type of the
  solver's default (config_defaults): an override such as
  --config.grid.seeds=[0;1] or --config.model.channels=8,x,8 parses as a
  string, which would otherwise fail only once the data is built."""
  if config.model.name not in registry.names():
    return []
  defaults = config_defaults.default_config(config.model.name)
  out = []
  for key in config_defaults.flat_keys(defaults):
    section, _, field = key.rpartition(".")
    want = defaults[section][field] if section else defaults[field]
    try:
      value = config[section][field] if section else config[field]
    except (KeyError, AttributeError):
      continue  # _missing_keys reports it.
    if isinstance(want, tuple) and want:
      kind = type(want[0])
      if not isinstance(value, (tuple, list)) or not all(
          _typed(v, kind) for v in value):
        example = ",".join(str(v) for v in want)
        out.append(f"config.{key}={value!r}: expected a tuple of "
                   f"{_PLURALS.get(kind, kind.__name__)}, e.g. "
                   f"--config.{key}={example}")
    elif type(want) in _TYPE_NAMES and type(want) is not str:
      if not _typed(value, type(want)):
        out.append(f"config.{key}={value!r}: expected "
                   f"{_TYPE_NAMES[type(want)]}")
  return out


def problems(config) -> list[str]:
  """Every problem of `config`, one message each (empty when valid)."""
  out: list[str | None] = []
  name = config.model.name
  out.append(_choices("model.name", name, registry.names()))
  if name in registry.names():
    missing = _missing_keys(config)
    if missing:
      return missing  # The checks below read every key.
    typed = _type_problems(config)
    if typed:
      return typed  # The checks below compare values of these types.
    out.extend(_solver_problems(config))
  d, t, loss = config.data, config.train, config.loss
  out.append(_choices("train.optimizer", t.optimizer, tuple(OPTIMIZERS)))
  out.append(_choices("train.score", t.score, losses.SCORES))
  if t.predict_score:
    out.append(_choices("train.predict_score", t.predict_score,
                        losses.SCORES))
  out.append(_choices("train.select_by", t.select_by, SELECT_BY))
  out.append(_choices("train.resume", t.resume, run_identity.RESUME_MODES))
  out.append(_choices("loss.answer_reduction", loss.answer_reduction,
                      losses.MARGIN_REDUCTIONS))
  out.append(_encoder_error(config.encoder.name))
  out.append(_choices("encoder.pooling", config.encoder.pooling,
                      encoders.POOLINGS))
  out.append(_number("encoder.max_length", config.encoder.max_length,
                     integer=True, low=0, low_open=True))
  out.append(_number("encoder.batch_size", config.encoder.batch_size,
                     integer=True, low=0,
                     what="sentences per step; 0 = chosen from memory"))

  out.append(_number("data.num_train", d.num_train, integer=True, low=0,
                     low_open=True,
                     what="instances sampled per train type, dev included"))
  out.append(_number("data.dev_fraction", d.dev_fraction, integer=False,
                     low=0, low_open=True, high=1,
                     what="the share of num_train kept for dev"))
  out.append(_number("data.max_test", d.max_test, integer=True, low=0,
                     what="0 = the whole test split"))
  out.append(_number("data.num_answers", d.num_answers, integer=True, low=0,
                     what="0 = whatever the data has"))
  for key in ("train_types", "test_types"):
    if not tuple(d[key]):
      out.append(f"config.data.{key}=(): needs at least one lexical type")
  out.append(_number("train.epochs", t.epochs, integer=True, low=0,
                     low_open=True,
                     what="0 would write the results of an untrained model"))
  out.append(_number("train.batch_size", t.batch_size, integer=True, low=0,
                     low_open=True))
  out.append(_number("train.learning_rate", t.learning_rate, integer=False,
                     low=0, low_open=True))
  out.append(_number("train.checkpoint_every_epochs",
                     t.checkpoint_every_epochs, integer=True, low=0,
                     low_open=True))
  out.append(_number("train.checkpoint_min_seconds",
                     t.get("checkpoint_min_seconds", 0.0), integer=False,
                     low=0))
  out.append(_number("train.eval_chunk", t.eval_chunk, integer=True,
                     low=0, low_open=True,
                     what="instances per evaluation chunk"))
  out.append(_number("train.keep_checkpoints", t.keep_checkpoints,
                     integer=True, low=1,
                     what="checkpoints kept; 1 suffices to resume"))
  out.append(_choices("grid.mode", config.grid.mode, GRID_MODES))
  out.append(_number("grid.memory_limit_gb", config.grid.memory_limit_gb,
                     integer=False, low=0,
                     what="GiB the epoch may use; 0 = available"))
  out.append(_variants_error("controls", config.controls))
  out.append(_choices("results.heatmap", config.results.heatmap,
                      config_defaults.HEATMAPS))
  formats = [f.strip() for f in
             str(config.results.get("figure_formats", "png")).split(",")]
  if not any(formats):
    out.append("config.results.figure_formats='': name at least one of "
               + ", ".join(config_defaults.FIGURE_FORMATS))
  for f in formats:
    if f:
      out.append(_choices("results.figure_formats", f,
                          config_defaults.FIGURE_FORMATS))
  if not isinstance(config.results.context_free, bool):
    out.append(f"config.results.context_free="
               f"{config.results.context_free!r}: expected True or False")
  elif (config.results.heatmap == "context_gain"
        and not config.results.context_free):
    out.append("config.results.heatmap='context_gain' needs the "
               "context-free baselines: config.results.context_free=True")
  if not isinstance(config.results.get("gold_ceiling", True), bool):
    out.append(f"config.results.gold_ceiling="
               f"{config.results.gold_ceiling!r}: expected True or False")
  cache = config.results.get("context_free_cache", "auto")
  if not isinstance(cache, str):
    out.append(f"config.results.context_free_cache={cache!r}: expected a "
               "folder, 'auto' or '' (no cache)")
  out.append(_variants_error("encoder.layer_sweep",
                             config.encoder.layer_sweep))
  seeds = tuple(config.grid.seeds)
  if not seeds:
    out.append("config.grid.seeds=(): needs at least one seed")
  elif len(set(seeds)) != len(seeds):
    out.append(f"config.grid.seeds={seeds!r}: a seed is repeated")
  return [p for p in out if p] or _typed_value_problems(config)


def _typed_value_problems(config) -> list[str]:
  """What the typed values the trainer reads the config into refuse, once
  every check above passed: a bound they keep that is not checked here is
  still one line, before any work."""
  out = []
  for make in (lambda: EncoderSettings(**config.encoder),
               lambda: DataSpec(**config.data),
               lambda: TrainSettings(**config.train),
               lambda: GridSettings(controls=config.controls,
                                    **config.grid)):
    try:
      make()
    except ValueError as e:
      out.append(str(e))
  return out


def validate(config) -> None:
  """Raises ConfigError listing every problem of `config`; None when valid."""
  found = problems(config)
  if found:
    raise ConfigError("invalid config:\n  " + "\n  ".join(found))


def check_dataset_names(config) -> None:
  """Every `data.name` x type is a registered TFDS builder and config.

  Catches a misspelled name in one line with the closest registered name,
  instead of TFDS's catalogue of every dataset it knows, and before the
  workdir is created.
  """
  template = config.data.name
  types = sorted(set(config.data.train_types) | set(config.data.test_types))
  if "{}" not in template and len(types) > 1:
    raise ConfigError(
        f"config.data.name={template!r} is one dataset (no '{{}}' for the "
        f"lexical type), but config.data.train_types="
        f"{tuple(config.data.train_types)} and config.data.test_types="
        f"{tuple(config.data.test_types)} name {len(types)} types: every "
        "cell would read the same data under another type's name. Train on "
        "it as one type (--config.data.train_types=\"('folder',)\" "
        "--config.data.test_types=\"('folder',)\", or dataset=own_release / "
        "own_jsonl), or name one folder per type (blm_published/type_{} or "
        "blm_jsonl/type_{}, docs/tutorials/own-data.md)")
  names = sorted({template.format(t) if "{}" in template else template
                  for t in types})
  for full in names:
    problem = names_lib.name_problem(full)
    if problem:
      raise ConfigError(f"config.data.name={template!r}: {problem}")
