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


def _weight_map(index: str) -> dict:
  """The `weight_map` of a sharded checkpoint's index (tensor -> file)."""
  try:
    with open(index, encoding="utf-8") as f:
      weight_map = json.load(f).get("weight_map")
  except (ValueError, AttributeError) as e:
    raise CheckpointError(f"{index}: not a JSON object ({e})") from None
  if not isinstance(weight_map, dict) or not weight_map:
    raise CheckpointError(f"{index}: field 'weight_map' is missing or empty")
  return weight_map


def _safetensors_files(model_dir: str) -> list[str]:
  """The safetensors files a folder's weights are read from (none: the
  weights are in another format, or missing)."""
  single = os.path.join(model_dir, "model.safetensors")
  index = single + ".index.json"
  if os.path.isfile(os.path.join(model_dir, "flax_model.msgpack")):
    return []
  if os.path.isfile(single):
    return [single]
  if not os.path.isfile(index):
    return []
  out = []
  for shard in sorted(set(_weight_map(index).values())):
    path = os.path.join(model_dir, shard)
    if not os.path.isfile(path):
      raise CheckpointError(f"{index}: field 'weight_map' names shard file "
                            f"{shard!r}, which is not in {model_dir}")
    out.append(path)
  return out


def _header(path: str) -> tuple[dict, int]:
  """A safetensors file's header (tensor name -> info) and data offset."""
  try:
    with open(path, "rb") as f:
      n = int.from_bytes(f.read(8), "little")
      if n > os.path.getsize(path) - 8:
        raise ValueError(f"a header of {n} bytes does not fit in the file")
      header = json.loads(f.read(n))
    if not isinstance(header, dict):
      raise ValueError("the header is not a JSON object")
  except (OSError, ValueError) as e:
    raise CheckpointError(f"{path}: not a safetensors file ({e})") from None
  header.pop("__metadata__", None)
  return header, 8 + n


def stored_parameters(model_dir: str) -> tuple[int, str] | None:
  """(number of parameters, the files counted) from the safetensors
  headers alone, reading no weight; None where the weights are in another
  format (their size then comes from config.json)."""
  files = _safetensors_files(model_dir)
  if not files:
    return None
  count = 0
  for path in files:
    header, _ = _header(path)
    for name, info in header.items():
      try:
        count += int(np.prod(info["shape"], dtype=np.float64))
      except (KeyError, TypeError, ValueError):
        raise CheckpointError(f"{path}: tensor {name!r} has no valid shape "
                              "in the header") from None
  return count, (f"the {os.path.basename(files[0])} header" if len(files) == 1
                 else f"the headers of {len(files)} safetensors shards")


def check_complete(model_dir: str) -> None:
  """Every safetensors file holds the bytes its header describes: a
  truncated file is named before any weight is read."""
  for path in _safetensors_files(model_dir):
    header, base = _header(path)
    end = max((int(info.get("data_offsets", (0, 0))[1])
               for info in header.values()), default=0)
    size = os.path.getsize(path)
    if base + end > size:
      raise CheckpointError(
          f"{path}: truncated: its header describes {base + end:,} bytes, "
          f"the file holds {size:,} (copy it again)")


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
    path = os.path.join(model_dir, "pytorch_model.bin")
    try:  # weights_only: nothing but tensors is ever unpickled.
      state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # pickle's, torch's and zip's own errors.
      # torch's own text advises weights_only=False (running the
      # pickle): keep only what it found, e.g. "unsupported GLOBAL
      # os.system".
      found = [line.strip() for line in str(e).splitlines()
               if "GLOBAL" in line]
      raise CheckpointError(
          f"{path}: not a PyTorch state dict of tensors only ("
          + (found[0][:160] if found else type(e).__name__)
          + "); nothing in it was run. Use a model.safetensors from a "
          "source you trust") from None
    if not isinstance(state, Mapping) or not all(
        isinstance(v, torch.Tensor) for v in state.values()):
      raise CheckpointError(f"{path}: not a state dict of tensors")
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


# -- Lazy tensor reading (decoders): one tensor at a time, in its target dtype.

_ST_DTYPES = {"F64": "float64", "F32": "float32", "F16": "float16",
              "BF16": "bfloat16", "I64": "int64", "I32": "int32",
              "I16": "int16", "I8": "int8", "U8": "uint8", "BOOL": "bool"}


def _np_dtype(name: str):
  if name == "bfloat16":
    import ml_dtypes
    return np.dtype(ml_dtypes.bfloat16)
  return np.dtype(name)


class SafetensorsFolder:
  """The tensors of `model.safetensors` or of a sharded checkpoint, by name.

  Reads only the headers when opened; `get` memory-maps one tensor (no copy
  until it is cast or transposed), so a model larger than host memory in
  float32 still loads tensor by tensor, and bfloat16 files need neither
  torch nor a trip through a device. A sharded checkpoint is
  `model.safetensors.index.json`, whose `weight_map` names a file per tensor.
  """

  def __init__(self, model_dir: str):
    self.model_dir = model_dir
    self._where: dict[str, tuple[str, dict, int]] = {}
    single = os.path.join(model_dir, "model.safetensors")
    index = single + ".index.json"
    if os.path.isfile(single):
      self._add_file(single, None)
    elif os.path.isfile(index):
      files = {}
      for tensor, shard in _weight_map(index).items():
        files.setdefault(shard, []).append(tensor)
      for shard, tensors in sorted(files.items()):
        path = os.path.join(model_dir, shard)
        if not os.path.isfile(path):
          raise CheckpointError(
              f"{index}: field 'weight_map' names shard file {shard!r} (for "
              f"{tensors[0]!r} and {len(tensors) - 1} more tensors), which "
              f"is not in {model_dir}")
        found = self._add_file(path, index)
        lacking = sorted(set(tensors) - found)
        if lacking:
          raise CheckpointError(
              f"{index}: field 'weight_map' puts {lacking[0]!r} in {shard}, "
              "which does not hold it")
    else:
      raise CheckpointError(
          f"{model_dir}: no model.safetensors or model.safetensors.index.json")

  def _add_file(self, path: str, index: str | None) -> set:
    header, base = _header(path)
    for name, info in header.items():
      if info.get("dtype") not in _ST_DTYPES:
        raise CheckpointError(f"{path}: tensor {name!r} has dtype "
                              f"{info.get('dtype')!r}, not supported")
      self._where[name] = (path, info, base)
    return set(header)

  def __contains__(self, name: str) -> bool:
    return name in self._where

  def names(self) -> list[str]:
    return sorted(self._where)

  def get(self, name: str) -> np.ndarray:
    """The tensor as stored (a read-only memory map)."""
    path, info, base = self._where[name]
    start, end = info["data_offsets"]
    dtype = _np_dtype(_ST_DTYPES[info["dtype"]])
    shape = tuple(info["shape"])
    if end - start != int(np.prod(shape, dtype=np.int64)) * dtype.itemsize:
      raise CheckpointError(f"{path}: tensor {name!r}: data_offsets do not "
                            f"match shape {shape} and dtype {info['dtype']}")
    if not shape or end == start:
      with open(path, "rb") as f:
        f.seek(base + start)
        return np.frombuffer(f.read(end - start), dtype).reshape(shape)
    return np.memmap(path, dtype=dtype, mode="r", offset=base + start,
                     shape=shape)


def load_tensors(folder: SafetensorsFolder, expected: Mapping, lookup,
                 dtype: str, where: str) -> dict:
  """The tree of `expected` (ShapeDtypeStructs) filled from `folder`.

  `lookup(path)` -> (candidate tensor names, transpose?). Each tensor is cast
  to `dtype` ('float32' or 'bfloat16') on the host, one at a time; the
  result's leaves are numpy arrays, placed on devices by the caller (whole
  or sharded).
  """
  target = _np_dtype(dtype)
  params, missing = {}, []
  for path, spec in _flat(expected).items():
    names, transpose = lookup(path)
    name = next((n for n in names if n in folder), None)
    if name is None:
      missing.append(names[0])
      continue
    value = folder.get(name)
    if transpose:
      value = value.T
    if value.shape != tuple(spec.shape):
      raise CheckpointError(
          f"{where}: tensor {name} has shape {value.shape}, but config.json "
          f"implies {tuple(spec.shape)}")
    params[path] = np.ascontiguousarray(value, dtype=target)
  if missing:
    raise CheckpointError(
        f"{where}: {len(missing)} tensors the model needs are missing from "
        f"the checkpoint, e.g. {missing[:3]} (is it a checkpoint of this "
        "model type, with this config.json?)")
  return _unflat(params)
