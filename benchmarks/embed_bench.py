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
With --stages, the warm end-to-end run is split against the forward pass
(each stage timed on its own, best of --rounds), on the same sentences,
batch size and lengths:
  forward at the sentences' own lengths: the pooled forward of full
    batches of --batch_size rows at each sentence's token length (no
    padding, no host work), per sentence: the forward-only reference;
  padding: the forward of the batches the run computes (its length
    buckets) less that;
  tokenizing, host<->device copies (ids and mask in, pooled vectors out),
    cache writes (into a fresh temporary cache, as a run fills one), and
    the rest (batching, sorting, hashing: Python per batch);
  compiling: the cold run less the warm one.
--accelerator_buckets splits it again on a CPU with the accelerator's
length buckets (two per octave, what CPUs had before four).
The ratio printed is end-to-end sentences/s over the forward-only
reference's.
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
from blm_jax.embedding import cache as embedding_cache, embed, placement
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
          save=lambda row: None, batch_size=embed.DEFAULT_BATCH_SIZE,
          stages=False, rounds=3, accelerator_buckets=False):
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
  row = {"model": name, "random_weights": folder is not None,
         "forward": forward,
         "end_to_end_cold": {"sentences": cold.embedded,
                              "batch_size": batch_size, "seconds": cold_s,
                              "sentences_per_s": cold.embedded / cold_s},
          "end_to_end": {"sentences": s.embedded, "batch_size": batch_size,
                         "tokens_per_sentence": s.real_tokens / s.embedded,
                         "padding": 1 - s.real_tokens / s.padded_tokens,
                         "sentences_per_s": s.sentences_per_s}}
  if stages:
    save(row)
    row["stages"] = stage_split(enc, texts, batch_size, rounds, cold_s,
                                cold.embedded)
    if accelerator_buckets and devices[0].platform == "cpu":
      save(row)
      print("  the same with the accelerator's length buckets:")
      cpu_buckets = placement.CPU_BUCKETS
      placement.CPU_BUCKETS = placement.ACCELERATOR_BUCKETS
      try:
        row["stages_accelerator_buckets"] = stage_split(
            enc, texts, batch_size, rounds, cold_s, cold.embedded)
      finally:
        placement.CPU_BUCKETS = cpu_buckets
  return row


def _clocks():
  """(wall, CPU of the whole process) now: under a shared machine's load
  the CPU seconds hold where the wall ones do not."""
  return np.array([time.perf_counter(), time.process_time()])


def _timed_calls(owner, attr, spent):
  """Wraps owner.attr so that its calls add their (wall, CPU) seconds to
  spent[attr]; returns the undo."""
  real = getattr(owner, attr)

  def timed(*args, **kwargs):
    start = _clocks()
    try:
      return real(*args, **kwargs)
    finally:
      spent[attr] = spent.get(attr, 0.0) + _clocks() - start

  setattr(owner, attr, timed)
  return lambda: setattr(owner, attr, real)


def stage_split(enc, texts, batch_size, rounds, cold_s, cold_n):
  """Where the warm end-to-end time goes against the forward pass (see
  the module docstring); prints the table and returns it.

  Each round runs the end-to-end embedding, then the forward passes of the
  same batches, then those at the sentences' own lengths, each as one
  loop; every figure is its loop's best over the rounds, in wall and in
  CPU seconds, so both sides see the same spell of the machine's load."""
  devices = tuple(jax.local_devices())
  fn, params, rows_sharding = placement.compiled(enc, "mean", devices)
  max_length = min(64, enc.max_tokens)  # embed_sentences' default.
  lengths = [len(x) for x in enc.tokenize(texts, max_length)]
  shapes = embed.batch_shapes(lengths, batch_size, devices)
  full = shapes[0][0] if len(shapes) > 1 else max(r for r, _ in shapes)
  needed = sorted(set(shapes) | {(full, t) for t in set(lengths)})
  rng = np.random.default_rng(0)
  vocab = enc.tokenizer.vocab_size
  placed = {}
  for rows, length in needed:  # Compiled and warm before the rounds.
    ids = rng.integers(5, vocab, (rows, length), np.int32)
    placed[rows, length] = (jax.device_put(ids, rows_sharding),
                            jax.device_put(np.ones_like(ids), rows_sharding))
    jax.block_until_ready(fn(params, *placed[rows, length]))
  counts = np.bincount(lengths)
  inf = np.array([np.inf, np.inf])
  best, spent_best, stats = inf, {}, None
  own, batches, copies = inf, inf, inf
  for _ in range(rounds):
    spent = {}
    undo = [_timed_calls(type(enc), "tokenize", spent),
            _timed_calls(embedding_cache.EmbeddingCache, "add", spent)]
    try:
      with tempfile.TemporaryDirectory() as cache:  # Fresh: embeds all.
        start = _clocks()
        _, s = embed.embed_with_stats(texts, enc, batch_size=batch_size,
                                      cache_dir=cache, progress=False)
        took = _clocks() - start
    finally:
      for u in undo:
        u()
    if took[0] < best[0]:
      spent_best, stats = spent, s
    best = np.minimum(best, took)
    # The run's batches, forward only, one after another as the run has
    # them (what padding costs is this less the next).
    total = np.zeros(2)
    for shape in shapes:
      start = _clocks()
      out = jax.block_until_ready(fn(params, *placed[shape]))
      total += _clocks() - start
    batches = np.minimum(batches, total)
    # Full batches at each length present, as many as its sentences fill
    # (rounded up), charged for the sentences only.
    total = np.zeros(2)
    for length in np.nonzero(counts)[0]:
      calls = -(-counts[length] // full)
      spent_here = np.zeros(2)
      for _ in range(calls):
        start = _clocks()
        jax.block_until_ready(fn(params, *placed[full, int(length)]))
        spent_here += _clocks() - start
      total += spent_here / calls * counts[length] / full
    own = np.minimum(own, total)
    start = _clocks()  # The copies of one batch of the largest shape.
    ids, mask = (np.asarray(x) for x in placed[full, max(lengths)])
    jax.block_until_ready((jax.device_put(ids, rows_sharding),
                           jax.device_put(mask, rows_sharding)))
    np.asarray(out)
    copies = np.minimum(copies, _clocks() - start)
  tokenize = spent_best.get("tokenize", np.zeros(2))
  writes = spent_best.get("add", np.zeros(2))
  copies = copies * len(shapes)  # At most: a batch's copies per batch.
  n = stats.embedded
  parts = {"forward_own_lengths": own, "padding": batches - own,
           "tokenize": tokenize, "copies": copies, "cache_writes": writes,
           "rest": best - batches - copies - tokenize - writes}
  table = {
      "sentences": n, "batch_size": batch_size, "rounds": rounds,
      "compiled_shapes": [list(x) for x in sorted(set(shapes))],
      "padding": 1 - stats.real_tokens / stats.padded_tokens,
      "seconds": {k: {"wall": float(v[0]), "cpu": float(v[1])}
                  for k, v in dict(parts, end_to_end=best).items()},
      "compile_s": float(cold_s * n / cold_n - best[0]),
      "end_to_end_sentences_per_s": float(n / best[0]),
      "forward_only_sentences_per_s": float(n / own[0]),
      "ratio_wall": float(own[0] / best[0]),
      "ratio_cpu": float(own[1] / best[1]),
      "load_average_1min_after": os.getloadavg()[0]}
  print(f"  stages of the warm end-to-end run ({n} sentences, batch "
        f"{batch_size}, best of {rounds} rounds; "
        f"{len(table['compiled_shapes'])} shapes "
        f"{[tuple(x) for x in table['compiled_shapes']]}, padding "
        f"{table['padding']:.0%}):          wall s   share    CPU s   share")
  for key, v in dict(parts, end_to_end=best).items():
    print(f"    {key.replace('_', ' '):22s} {v[0]:7.2f} {v[0] / best[0]:7.1%}"
          f"  {v[1]:7.2f} {v[1] / best[1]:7.1%}")
  print(f"    compiling (cold run less warm) about {table['compile_s']:.1f} "
        "s wall")
  print(f"  end-to-end {n / best[0]:.1f} sentences/s, forward-only at the "
        f"sentences' own lengths {n / own[0]:.1f}/s: ratio "
        f"{table['ratio_wall']:.2f} (wall), {table['ratio_cpu']:.2f} (CPU)")
  return table


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
  p.add_argument("--stages", action="store_true",
                 help="split the warm end-to-end time against the forward "
                      "pass (compiles one forward per token length present)")
  p.add_argument("--rounds", type=int, default=3,
                 help="with --stages: rounds of (end to end, each forward "
                      "shape), the best of each kept")
  p.add_argument("--accelerator_buckets", action="store_true",
                 help="with --stages on a CPU: split again with the "
                      "accelerator's coarser length buckets")
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
                a.sentences, save, a.batch_size, a.stages, a.rounds,
                a.accelerator_buckets)
    if row:
      models.append(row)
      save()


if __name__ == "__main__":
  main()
