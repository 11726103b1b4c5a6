"""Hugging Face model folders -> config dict + Flax parameter trees, no transformers.

Reads what people have on disk:
  * `model.safetensors` (one file) or `model.safetensors.index.json` plus its
    shards, in the PyTorch layout the hub publishes, with the `safetensors`
    package (no torch);
  * `flax_model.msgpack` (a transformers Flax `save_pretrained`);
  * `pytorch_model.bin` only where torch is installed.

PyTorch names map onto the Flax tree by rule, driven by the tree the module
expects (so every missing weight is named): `a.b.weight` -> `a/b/kernel`
(transposed) for dense layers, `embedding` for embeddings, `scale` for layer
norms (`gamma`/`beta` in old checkpoints); a head model's prefix (`bert.`,
`electra.`, `roberta.`, ...) is stripped. Weights become float32, as
transformers' Flax classes made them.
"""

from __future__ import annotations

import json
import os
from typing import Any, Mapping, Sequence

import numpy as np


class CheckpointError(OSError):
  """A model folder whose config or weights cannot be used."""


def read_config(model_dir: str) -> dict:
  path = os.path.join(model_dir, "config.json")
  if not os.path.isfile(path):
    raise CheckpointError(f"{model_dir}: no config.json")
  try:
    with open(path, encoding="utf-8") as f:
      config = json.load(f)
  except ValueError as e:
    raise CheckpointError(f"{path}: not valid JSON ({e})") from None
  if not isinstance(config, dict) or "model_type" not in config:
    raise CheckpointError(f"{path}: no 'model_type' field")
  return config


def _load_safetensors(path: str) -> dict[str, np.ndarray]:
  """float32 numpy arrays; bfloat16/float16 files are widened exactly."""
  from safetensors import safe_open

  out, bf16 = {}, []
  with safe_open(path, framework="numpy") as f:
    for k in f.keys():
      if f.get_slice(k).get_dtype() == "BF16":  # numpy has no bfloat16.
        bf16.append(k)
      else:
        out[k] = np.asarray(f.get_tensor(k), np.float32)
  if bf16:
    with safe_open(path, framework="flax") as f:
      for k in bf16:
        out[k] = np.asarray(f.get_tensor(k), np.float32)
  return out


def read_weights(model_dir: str) -> tuple[str, Any]:
  """("pt", {torch name: array}) or ("flax", nested dict) from a folder."""
  has = lambda n: os.path.isfile(os.path.join(model_dir, n))
  if has("flax_model.msgpack"):
    from flax import serialization
    with open(os.path.join(model_dir, "flax_model.msgpack"), "rb") as f:
      return "flax", serialization.msgpack_restore(f.read())
  if has("model.safetensors"):
    return "pt", _load_safetensors(os.path.join(model_dir,
                                                "model.safetensors"))
  if has("model.safetensors.index.json"):
    index = os.path.join(model_dir, "model.safetensors.index.json")
    with open(index, encoding="utf-8") as f:
      shards = sorted(set(json.load(f).get("weight_map", {}).values()))
    if not shards:
      raise CheckpointError(f"{index}: empty weight_map")
    state = {}
    for s in shards:
      if not has(s):
        raise CheckpointError(f"{index}: shard {s} is missing")
      state.update(_load_safetensors(os.path.join(model_dir, s)))
    return "pt", state
  if has("pytorch_model.bin"):
    try:
      import torch
    except ImportError:
      raise CheckpointError(
          f"{model_dir}: only pytorch_model.bin is there and torch is not "
          "installed; convert it once to model.safetensors where torch "
          "exists (`save_pretrained(d, safe_serialization=True)`)") from None
    state = torch.load(os.path.join(model_dir, "pytorch_model.bin"),
                       map_location="cpu", weights_only=True)
    return "pt", {k: v.float().numpy() for k, v in state.items()}
  raise CheckpointError(
      f"{model_dir}: no weights (flax_model.msgpack, model.safetensors or "
      "pytorch_model.bin)")


def _flat(tree, prefix=()) -> dict[tuple, Any]:
  out = {}
  for k, v in tree.items():
    if isinstance(v, Mapping):
      out.update(_flat(v, prefix + (k,)))
    else:
      out[prefix + (k,)] = v
  return out


def _unflat(flat: Mapping[tuple, Any]) -> dict:
  out: dict = {}
  for path, v in flat.items():
    d = out
    for k in path[:-1]:
      d = d.setdefault(k, {})
    d[path[-1]] = v
  return out


_PT_LEAF = {"kernel": ("weight",), "embedding": ("weight",),
            "scale": ("weight", "gamma"), "bias": ("bias", "beta")}


def _pt_lookup(state, path: tuple, prefixes: Sequence[str]):
  base = ".".join(path[:-1])
  for prefix in ("",) + tuple(prefixes):
    for leaf in _PT_LEAF[path[-1]]:
      name = f"{prefix}{base}.{leaf}"
      if name in state:
        value = state[name]
        return value.T if path[-1] == "kernel" else value
  return None


def to_params(kind: str, weights, expected: Mapping, *, prefixes=(),
              optional=(), where: str) -> dict:
  """Weights in either layout -> the Flax tree of `expected` (shapes).

  Args:
    kind, weights: what `read_weights` returned.
    expected: the module's abstract parameter tree (ShapeDtypeStructs).
    prefixes: head-model prefixes to strip, e.g. ("bert.",).
    optional: top-level submodules that may be missing (filled with zeros),
      e.g. ("pooler",): unused here, absent from some checkpoints.
    where: the folder, for error messages.
  """
  want = _flat(expected)
  if kind == "flax":
    tree = weights
    for p in prefixes:  # A head model's base: {"bert": {...}, "cls": ...}.
      name = p.rstrip(".")
      if name in tree and isinstance(tree[name], Mapping) and not any(
          k in tree for k in {path[0] for path in want}):
        tree = tree[name]
        break
    got = _flat(tree)
    find = lambda path: got.get(path)
  else:
    find = lambda path: _pt_lookup(weights, path, prefixes)
  params, missing = {}, []
  for path, spec in want.items():
    value = find(path)
    if value is None:
      if path[0] in optional:
        value = np.zeros(spec.shape, np.float32)
      else:
        missing.append("/".join(path))
        continue
    value = np.asarray(value, np.float32)
    if value.shape != tuple(spec.shape):
      raise CheckpointError(
          f"{where}: weight {'/'.join(path)} has shape {value.shape}, but "
          f"config.json implies {tuple(spec.shape)}")
    params[path] = value
  if missing:
    raise CheckpointError(
        f"{where}: {len(missing)} weights the model needs are missing from "
        f"the checkpoint, e.g. {missing[:3]} (is it a checkpoint of this "
        "model type?)")
  return _unflat(params)


def load_params(module, model_dir: str, *, prefixes=(), optional=()) -> dict:
  """The weights of `model_dir` as `module`'s float32 parameter tree."""
  import jax
  import jax.numpy as jnp

  expected = jax.eval_shape(module.init, jax.random.key(0),
                            jnp.ones((1, 2), jnp.int32))["params"]
  kind, weights = read_weights(model_dir)
  params = to_params(kind, weights, expected, prefixes=prefixes,
                     optional=optional, where=model_dir)
  return jax.tree_util.tree_map(jnp.asarray, params)
