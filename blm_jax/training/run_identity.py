"""What makes a run the run it is: the resolved config plus a data fingerprint.

Saved with every checkpoint and compared before anything is restored, so a
workdir is never silently resumed by a run that another config or other data
would have produced. Keys that only change how a run executes (epochs to go,
checkpoint cadence, batch sizes of embedding, progress bars, paths, whether
the grid's cells are vmapped or scanned, what the report adds) may
differ: extending `train.epochs` resumes. Only keys of the run's solver and
of the shared sections are compared: a saved identity that holds other
solvers' keys (configs once carried every solver's section) still
matches.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np

from blm_jax.models import latents, registry
from blm_jax.training import config_defaults

# Config keys that may change between a run and its resumption.
EXECUTION_KEYS = frozenset({
    "progress", "train.epochs", "train.checkpoint_every_epochs",
    "train.checkpoint_min_seconds",
    "train.eval_chunk", "train.resume", "train.keep_checkpoints",
    "encoder.batch_size", "encoder.cache_dir", "data.data_dir",
    "data.manual_dir", "grid.mode", "grid.memory_limit_gb",
    "results.context_free", "results.context_free_cache", "results.heatmap",
    "results.figure_formats", "results.tensorboard", "results.gold_ceiling",
})

RESUME_MODES = ("auto", "force", "restart")

# Keys added after runs were saved, left out of the identity while at this
# (neutral) value, so those runs still resume; any other value is part of
# the identity like every key (a changed controls list refuses to resume).
NEUTRAL_DEFAULTS = {"controls": "", "encoder.layer_sweep": "",
                    "data.seed_follows_grid": False,
                    # The sentence VAEs' array (models/sentence_vae.py).
                    "model.sentence_array": "ours",
                    # The VAEs' categorical latents (models/latents.py).
                    **{f"model.{k}": v for k, v in
                       latents.neutral_defaults("model").items()},
                    **{f"loss.{k}": v for k, v in
                       latents.neutral_defaults("loss").items()}}


def flatten(cfg, prefix: str = "") -> dict:
  out = {}
  for k, v in cfg.items():
    if hasattr(v, "items"):
      out.update(flatten(v, f"{prefix}{k}."))
    else:
      out[f"{prefix}{k}"] = list(v) if isinstance(v, tuple) else v
  return out


def _digest(*parts) -> str:
  h = hashlib.sha256()
  for p in parts:
    h.update(p if isinstance(p, bytes) else str(p).encode())
    h.update(b"\0")
  return h.hexdigest()[:16]


def identity_keys(flat: dict) -> dict:
  """The keys of a flattened config that make a run what it is."""
  return {k: v for k, v in flat.items()
          if k not in EXECUTION_KEYS
          and not (k in NEUTRAL_DEFAULTS and v == NEUTRAL_DEFAULTS[k])}


def fingerprint(config, data) -> dict:
  """JSON-ready identity of a run: its config and its data."""
  cfg = identity_keys(flatten(config.to_dict()))
  splits = {}
  for split in ("train", "dev", "test"):
    for t, table in getattr(data, split).items():
      splits[f"{split}/{t}"] = _digest(*table.instance_ids)
    for (s, t), table in getattr(data, f"{split}_by_seed", {}).items():
      splits[f"{split}/{t}/seed={s}"] = _digest(*table.instance_ids)
  emb = np.ascontiguousarray(data.embeddings)
  return {"config": json.loads(json.dumps(cfg, default=str)),
          "data": {"instances": splits,
                   "embeddings": _digest(emb.shape, emb.tobytes())}}


def _run_keys(config: dict) -> set[str] | None:
  """The config keys a run of `config`'s solver can have; None = unknown
  solver (every key counts)."""
  name = config.get("model.name")
  if name not in registry.names():
    return None
  return set(config_defaults.flat_keys(config_defaults.default_config(name)))


def differences(old: dict, new: dict) -> list[str]:
  """'key: old -> new' for every config key or data part that differs.

  A key only the saved identity has and that the new run's solver does
  not have (another solver's section) is not a difference.
  """
  lines = []
  for section, label in (("config", "config."), ("data", "data ")):
    a, b = old.get(section, {}), new.get(section, {})
    if section == "data":
      a = {**a.get("instances", {}), "embeddings": a.get("embeddings")}
      b = {**b.get("instances", {}), "embeddings": b.get("embeddings")}
    keys = set(a) | set(b)
    own = _run_keys(b) if section == "config" else None
    if own is not None:
      keys = set(b) | (set(a) & own)
    for k in sorted(keys):
      if a.get(k, "<absent>") != b.get(k, "<absent>"):
        lines.append(f"{label}{k}: {a.get(k, '<absent>')!r} -> "
                     f"{b.get(k, '<absent>')!r}")
  return lines


# Keys that may differ between a run and its resumption but not between a
# finished grid and the grid it stands for: its results depend on them.
RESULT_KEYS = ("train.epochs",)


def result_keys(flat: dict) -> dict:
  """The keys of a flattened config that a finished run's results depend
  on: the identity's and the schedule (`RESULT_KEYS`), JSON-ready."""
  flat = json.loads(json.dumps(flat, default=str))
  return {**identity_keys(flat), **{k: flat.get(k) for k in RESULT_KEYS}}


def reuse_differences(saved_flat: dict, config) -> list[str]:
  """'key: old -> new' for every key in which the finished run of the
  flattened config `saved_flat` (whole, or its `result_keys`) differs from
  a run of `config`. The data is not compared (it is not loaded to decide
  whether a grid is reusable)."""
  return differences({"config": result_keys(saved_flat)},
                     {"config": result_keys(flatten(config.to_dict()))})
