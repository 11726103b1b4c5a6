"""Sentences/s of decoder encoders (GPT-2, the Llama layout) on this machine.

  python benchmarks/decoder_bench.py --record         # replaces the record
  python benchmarks/decoder_bench.py --rounds=1        # workdirs/benchmarks/

Each model is a random decoder of the given shape, written as a Hugging Face
folder (config.json, model.safetensors, a byte-level BPE tokenizer.json
trained on the sentences, up to 1000 tokens: whole words, as a real one) and
read back through `load_encoder`, as a real checkpoint is. The figure is
`embed_sentences` end to end (tokenize, length buckets, all local devices,
pooled every hidden state, no cache) on 1000 BLM-like sentences, warm: a
first pass over the same sentences compiles every bucket. Median of --rounds
passes. The record (benchmarks/results/decoder_bench.json)
holds the command, the device, the versions and every round.
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import tempfile

import jax
import jax.numpy as jnp
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from blm_jax.base import files  # noqa: E402
from blm_jax.study import records as study_records  # noqa: E402
from blm_jax.results import benchmark_record  # noqa: E402
from blm_jax.embedding import embed  # noqa: E402
from blm_jax.encoders import encoder as encoders  # noqa: E402
from blm_jax.encoders import gpt2, llama_family  # noqa: E402

WORDS = ("the girl boy sprayed loaded paint hay onto into wall truck with cat "
         "neighbour eats mouse quickly yesterday garden old red").split()

# name: (model_type, config.json fields beyond the vocabulary)
MODELS = {
    "gpt2-tiny": ("gpt2", dict(n_positions=128, n_embd=64, n_layer=2,
                               n_head=4)),
    "llama-tiny": ("llama", dict(hidden_size=64, intermediate_size=128,
                                 num_hidden_layers=2, num_attention_heads=4,
                                 num_key_value_heads=2,
                                 max_position_embeddings=128)),
    "llama-small": ("llama", dict(hidden_size=256, intermediate_size=688,
                                  num_hidden_layers=4, num_attention_heads=8,
                                  num_key_value_heads=4,
                                  max_position_embeddings=128)),
}


def _sentences(n, seed=0):
  rng = np.random.default_rng(seed)
  return [" ".join(rng.choice(WORDS, size=rng.integers(5, 16))) + " ."
          for _ in range(n)]


def write_folder(folder, model_type, fields, texts):
  """A random decoder in the published layout (PyTorch names, safetensors)."""
  from safetensors.numpy import save_file
  from tokenizers import ByteLevelBPETokenizer

  tok = ByteLevelBPETokenizer()
  tok.train_from_iterator(texts, vocab_size=1000, min_frequency=1,
                          special_tokens=["<s>", "</s>", "<unk>"])
  tok.save(os.path.join(folder, "tokenizer.json"))
  config = {"model_type": model_type, "vocab_size": tok.get_vocab_size(),
            **fields}
  with open(os.path.join(folder, "config.json"), "w") as f:
    json.dump(config, f)
  lib = gpt2 if model_type == "gpt2" else llama_family
  module = lib.build(config, folder)
  params = jax.jit(module.init)(jax.random.key(0),
                                jnp.ones((1, 4), jnp.int32))["params"]
  state = {}
  for path, leaf in jax.tree_util.tree_leaves_with_path(params):
    keys = [str(p.key) for p in path]
    names, transpose = lib._lookup(tuple(keys))
    value = np.asarray(leaf, np.float32)
    state[names[0]] = np.ascontiguousarray(value.T if transpose else value)
  save_file(state, os.path.join(folder, "model.safetensors"),
            metadata={"format": "pt"})


def main():
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("--models", default=",".join(MODELS))
  p.add_argument("--sentences", type=int, default=1000)
  p.add_argument("--batch_size", type=int, default=64)
  p.add_argument("--dtype", default="float32")
  p.add_argument("--rounds", type=int, default=3)
  p.add_argument("--out", default="", help="the record (default: "
                 "workdirs/benchmarks/, with --record benchmarks/results/)")
  p.add_argument("--record", action="store_true",
                 help="replace the committed benchmarks/results record")
  a = p.parse_args()
  d = jax.local_devices()
  texts = _sentences(a.sentences)
  record = {
      "command": "python " + " ".join(
          [os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:]),
      "date": datetime.datetime.now(datetime.timezone.utc).isoformat(
          timespec="seconds"),
      "commit": study_records.head_commit(), "devices": len(d), "device_kind": d[0].device_kind,
      "platform": d[0].platform, "cpu_count": os.cpu_count(),
      "python": platform.python_version(), "jax": jax.__version__,
      "dtype": a.dtype, "batch_size": a.batch_size,
      "sentences": a.sentences,
      "load_average_before": os.getloadavg()[0], "models": {}}
  print(f"devices: {len(d)} x {d[0].device_kind}; jax {jax.__version__}")
  for name in a.models.split(","):
    model_type, fields = MODELS[name]
    with tempfile.TemporaryDirectory() as folder:
      write_folder(folder, model_type, fields, texts)
      enc = encoders.load_encoder(folder, dtype=a.dtype)
      run = lambda: embed.embed_with_stats(
          texts, enc, batch_size=a.batch_size, progress=False)[1]
      run()  # Compiles every bucket.
      stats = [run() for _ in range(a.rounds)]
      rates = [s.sentences_per_s for s in stats]
      row = {"model_type": model_type, **fields,
             "params": sum(x.size for x in jax.tree_util.tree_leaves(
                 enc.params)),
             "tokens_per_sentence": stats[0].real_tokens / stats[0].embedded,
             "padding": 1 - stats[0].real_tokens / stats[0].padded_tokens,
             "sentences_per_s_rounds": rates,
             "sentences_per_s": statistics.median(rates)}
      record["models"][name] = row
      print(f"  {name:12s} {row['params']:>9,d} params: "
            f"{row['sentences_per_s']:8.1f} sentences/s "
            f"(rounds {', '.join(f'{r:.1f}' for r in rates)}; "
            f"{row['tokens_per_sentence']:.1f} tokens, padding "
            f"{row['padding']:.0%})")
  record["load_average_after"] = os.getloadavg()[0]
  out = os.path.join(ROOT, benchmark_record.record_path(
      "decoder_bench", a.out, a.record))
  files.write_json(out, record, indent=1)
  print(f"record: {os.path.relpath(out, ROOT)}")


if __name__ == "__main__":
  main()
