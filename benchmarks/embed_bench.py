"""Sentences/s of the frozen-encoder precompute (blm_jax.embedding.embed).

  python benchmarks/embed_bench.py                      # MiniLM, this machine
  python benchmarks/embed_bench.py --models=minilm,electra,openai-gpt
  python benchmarks/embed_bench.py --batches=32,128,512,2048 --sentences=20000 \
      --out=benchmarks/results/embed_<machine>.json     # a committed record

Three measurements per model:
  cold end-to-end (first, before anything is compiled): `embed_sentences`
    on --sentences BLM-like sentences into an empty on-disk cache, timed
    from the call to its return: tokenizing, compiling, the forward and
    the cache writes, what a user's first run pays (a persistent
    compilation cache, if JAX_COMPILATION_CACHE_DIR is set, counts too);
  forward (warm): the jitted, sharded pooled forward on synthetic token
    ids, for a few padded lengths x batch sizes: what padding costs;
  end-to-end (warm): `embed_sentences` on other sentences (tokenize, length
    buckets, all local devices), no cache.
Electra-base and OpenAI-GPT need their weights on disk (a folder or the
Hugging Face cache); without them, --random_weights times the same
architecture with random weights (the speed is the same, the vectors are not).
"""

import argparse
import os
import sys
import tempfile
import time

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from blm_jax.embedding import embed, placement
from blm_jax.encoders import encoder as encoders  # noqa: E402

WORDS = ("the girl boy sprayed loaded paint hay onto into wall truck with cat "
         "neighbour eats mouse quickly yesterday garden old red").split()


def _sentences(n, seed=0):
  rng = np.random.default_rng(seed)
  return [" ".join(rng.choice(WORDS, size=rng.integers(5, 16))) + " ."
          for _ in range(n)]


def _random_encoder(name):
  """The published architecture with random weights (no download needed)."""
  import tempfile

  import transformers

  from blm_jax.encoders import openai_gpt

  folder = tempfile.mkdtemp()
  if name == "openai-gpt":
    config = transformers.OpenAIGPTConfig()
    module = openai_gpt.OpenAIGPTModule.from_config(config)
    params = jax.jit(module.init)(jax.random.key(0),
                                  jnp.zeros((1, 4), jnp.int32))["params"]
    openai_gpt.save(folder, params, config)
    tok_src = None
  else:  # electra-base-discriminator's shape; MiniLM's 30522 vocab matches.
    config = transformers.ElectraConfig(
        embedding_size=768, hidden_size=768, num_attention_heads=12,
        intermediate_size=3072, num_hidden_layers=12)
    model = transformers.FlaxElectraModel(config, _do_init=False)
    params = jax.jit(model.init_weights, static_argnums=1)(
        jax.random.key(0), (1, 4))
    model.save_pretrained(folder, params=params)
    tok_src = encoders.minilm_dir()
  if tok_src:
    transformers.AutoTokenizer.from_pretrained(tok_src).save_pretrained(folder)
  else:  # GPT-1 BPE needs its vocabulary: time forward passes only.
    return None, folder
  return encoders.load_encoder(folder), folder


def _time(fn, *args, repeats=3):
  jax.block_until_ready(fn(*args))  # Compile + warm.
  best = float("inf")
  for _ in range(repeats):
    t = time.perf_counter()
    jax.block_until_ready(fn(*args))
    best = min(best, time.perf_counter() - t)
  return best


def forward_table(enc_or_forward, hidden_params, lengths, batches, vocab):
  fn, params = enc_or_forward, hidden_params
  rows = []
  n_dev = len(jax.local_devices())
  for t in lengths:
    for b in batches:
      b = -(-b // n_dev) * n_dev
      ids = np.random.default_rng(0).integers(5, vocab, (b, t), np.int32)
      mask = np.ones((b, t), np.int32)
      s = _time(fn, params, ids, mask)
      rows.append({"length": t, "batch": b, "sentences_per_s": b / s})
      print(f"  forward  len {t:4d}  batch {b:4d}: {b / s:9.1f} sentences/s")
  return rows


def bench(name, lengths, batches, random_weights, n_sentences=1000,
          save=lambda row: None, batch_size=embed.DEFAULT_BATCH_SIZE):
  """Prints the two tables and returns them (None when the model is
  skipped); `save` gets the row after each table, so a run cut at its time
  limit keeps the forward table."""
  print(f"== {name}")
  folder = None
  try:
    enc = encoders.load_encoder(name)
  except encoders.EncoderUnavailableError as e:
    if not random_weights:
      print(f"  skipped: {str(e)[:160]}... (or use --random_weights)")
      return None
    enc, folder = _random_encoder(name)
    print("  (random weights of the published architecture)")
  devices = tuple(jax.local_devices())
  if enc is None:  # GPT-1 without its tokenizer: forward passes only.
    from blm_jax.encoders import openai_gpt
    module, params, config = openai_gpt.load(folder)

    @jax.jit
    def fwd(p, ids, mask):
      return encoders.pool(module.apply({"params": p}, ids, mask)[0], mask,
                           "mean")

    return {"model": name, "random_weights": True,
            "forward": forward_table(fwd, params, lengths, batches,
                                     config.vocab_size)}
  # Cold: nothing compiled yet, an empty cache that is written.
  with tempfile.TemporaryDirectory() as cache:
    start = time.perf_counter()
    _, cold = embed.embed_with_stats(_sentences(n_sentences, seed=1), enc,
                                     batch_size=batch_size, cache_dir=cache,
                                     progress=False)
    cold_s = time.perf_counter() - start
  print(f"  cold end-to-end (compiling and cache writes included), batch "
        f"{batch_size}: {cold.embedded} sentences in {cold_s:.1f} s, "
        f"{cold.embedded / cold_s:.1f} sentences/s")
  fn, params, rows = placement.compiled(enc, "mean", devices)
  put = lambda x: jax.device_put(x, rows)
  forward = forward_table(lambda p, i, m: fn(p, put(i), put(m)), params,
                          lengths, batches, enc.tokenizer.vocab_size)
  save({"model": name, "random_weights": folder is not None,
        "forward": forward})
  texts = _sentences(n_sentences)
  embed.embed_sentences(texts[:max(batch_size, 64)], enc,
                        batch_size=batch_size, progress=False)  # Warm up.
  _, s = embed.embed_with_stats(texts, enc, batch_size=batch_size,
                                progress=False)
  print(f"  end-to-end embed_sentences, batch {batch_size}, "
        f"{s.embedded} sentences "
        f"({s.real_tokens / s.embedded:.1f} tokens each, padding "
        f"{1 - s.real_tokens / s.padded_tokens:.0%}): "
        f"{s.sentences_per_s:.1f} sentences/s")
  return {"model": name, "random_weights": folder is not None,
          "forward": forward,
          "end_to_end_cold": {"sentences": cold.embedded,
                              "batch_size": batch_size, "seconds": cold_s,
                              "sentences_per_s": cold.embedded / cold_s},
          "end_to_end": {"sentences": s.embedded, "batch_size": batch_size,
                         "tokens_per_sentence": s.real_tokens / s.embedded,
                         "padding": 1 - s.real_tokens / s.padded_tokens,
                         "sentences_per_s": s.sentences_per_s}}


def main():
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("--models", default="minilm")
  p.add_argument("--lengths", default="16,32,64,128")
  p.add_argument("--batches", default="32,128")
  p.add_argument("--random_weights", action="store_true")
  p.add_argument("--sentences", type=int, default=1000,
                 help="sentences in the end-to-end measurement")
  p.add_argument("--batch_size", type=int, default=embed.DEFAULT_BATCH_SIZE,
                 help="the end-to-end measurement's batch (a training "
                      "config's encoder.batch_size; 0 = the largest that "
                      "fits)")
  p.add_argument("--out", default="",
                 help="JSON record "
                 "(blm_jax.results.benchmark_record.write_record)")
  a = p.parse_args()
  d = jax.local_devices()
  print(f"devices: {len(d)} x {d[0].device_kind} ({d[0].platform}); "
        f"jax {jax.__version__}")
  from blm_jax.results.benchmark_record import write_record
  models = []

  def save(row=None):  # Rewritten after each table: a cut run keeps the rest.
    if a.out:
      write_record("embed", {"models": models + ([row] if row else [])},
                   a.out)

  for name in a.models.split(","):
    row = bench(name, [int(x) for x in a.lengths.split(",")],
                [int(x) for x in a.batches.split(",")], a.random_weights,
                a.sentences, save, a.batch_size)
    if row:
      models.append(row)
      save()


if __name__ == "__main__":
  main()
