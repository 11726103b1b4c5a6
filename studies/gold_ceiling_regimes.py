"""The gold ceiling of the generalisation regimes: are the designs learnable
from perfect features when no test rule occurs in training?

  python studies/gold_ceiling_regimes.py --num_train=2000 \\
      --out=studies/records/gold_ceiling_regimes.json

For each regime (default: every registered `_seq_rules` and `_seq_extrap`
short name), lexical type I: the FFNN config at 1,600 training instances
(`configs/ffnn.py`, its paper schedule) trained on each sentence's one-hot
attributes in place of an embedding (the generic FFNN on gold attributes:
no encoder is run, the one-hot width is the input width), and the run's
gold ceiling (`results.gold_ceiling`: the attribute-relations reference
model with its value heads, same samples and seeds), the same reference
with equality relations only (`value_head=False`), with the regime's rule
counts
(`design.rule_coverage` of the whole train and test splits). Writes one
study record: table `regimes`, the builder versions the data came from,
per regime the two summaries. Resumable: a regime already in --out is kept
(`--redo` runs it again); the record is rewritten after each regime.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from blm_jax.base import files  # noqa: E402
from blm_jax.study import records as study_records  # noqa: E402

COLUMNS = ["regime", "train rules", "test rules", "test rules unseen in train",
           "train instances", "test instances", "chance", "reference (gold)",
           "equalities only (gold)", "FFNN (gold)"]


def regimes() -> list[str]:
  from data_builders import registry

  return [e.short_name for e in registry.entries()
          if e.short_name.endswith(("_seq_rules", "_seq_extrap"))]


def measure(name: str, workdir: str, num_train: int, seeds, epochs) -> dict:
  """One regime's entry: rules, sizes, the FFNN and the reference on gold
  attributes (mean and sample std over `seeds`)."""
  import numpy as np

  from blm_jax.data import design, input_pipeline
  from blm_jax.models import attribute_relations as ar
  from blm_jax.results import experiment, gold_ceiling
  from configs import ffnn
  from data_builders.common import attributes, loading

  config = ffnn.get_config(f"dataset={name}")
  with config.unlocked():
    config.data.train_types = ("I",)
    config.data.test_types = ("I",)
    config.data.num_train = num_train
    config.grid.seeds = tuple(seeds)
    config.results.context_free = False
    config.results.figure_formats = "png"
    if epochs:
      config.train.epochs = epochs
  input_pipeline.build_data_once(config.data)
  data_dir = config.data.data_dir or None
  tfds_name = input_pipeline.dataset_name(config.data.name, "I")
  data = input_pipeline.load(
      config.data, lambda s: np.zeros((len(s), 1), np.float32),
      config.data.data_dir or None, seeds=tuple(seeds))
  table = data.table
  if not table.attribute_names:
    raise SystemExit(f"error: {name}: no attributes: "
                     f"{table.attributes_missing}")
  gold = attributes.one_hot(table.attributes, table.attribute_sizes)
  data = dataclasses.replace(data, embeddings=np.asarray(gold, np.float32))
  t0 = time.time()
  results = experiment.run_experiment(config, workdir, data=data)
  equalities = [gold_ceiling.accuracy(
      gold_ceiling.fit(data.train_of(int(s), "I"), int(s),
                       ar.Settings(value_head=False)), data.test["I"])
                for s in seeds]
  seconds = time.time() - t0
  cov = design.rule_coverage(
      loading.load_instances(tfds_name, "train", data_dir),
      loading.load_instances(tfds_name, "test", data_dir))
  cell = lambda s: {k: s["I"]["I"][k] for k in ("f1_mean", "f1_std")}
  return {
      "dataset": tfds_name, "version": loading.version(tfds_name),
      "attributes": list(table.attribute_names),
      "input_width": int(gold.shape[1]),
      "rules": dataclasses.asdict(cov) if cov else None,
      "train_instances": int(data.train_of(int(seeds[0]), "I").num_instances),
      "test_instances": int(data.test["I"].num_instances),
      "chance": float(np.mean(1 / data.test["I"].answer_mask.sum(1))),
      "ffnn_gold": cell(results["summary"]),
      "reference_gold": cell(results["gold_ceiling"]["reference"]),
      "reference_settings": results["gold_ceiling"]["settings"],
      "equalities_only_gold": {
          "f1_mean": float(np.mean(equalities)),
          "f1_std": float(np.std(equalities, ddof=1)) if len(seeds) > 1
          else 0.0},
      "epochs": int(config.train.epochs), "seconds": round(seconds, 1)}


def row(name: str, e: dict) -> list[str]:
  r = e["rules"] or {}
  pm = lambda c: f"{c['f1_mean']:.3f} ± {c['f1_std']:.3f}"
  return [name, str(r.get("n_train_rules", "-")),
          str(r.get("n_test_rules", "-")),
          f"{r['unseen_rules']:.3f}" if r else "-",
          str(e["train_instances"]), str(e["test_instances"]),
          f"{e['chance']:.3f}", pm(e["reference_gold"]),
          pm(e["equalities_only_gold"]) if "equalities_only_gold" in e
          else "-", pm(e["ffnn_gold"])]


def main(argv=None) -> None:
  p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  p.add_argument("--names", default="", help="comma-separated short names "
                 "(default: every _seq_rules and _seq_extrap regime)")
  p.add_argument("--out", default="workdirs/gold_ceiling_regimes.json")
  p.add_argument("--workdir", default="workdirs/gold_ceiling_regimes")
  p.add_argument("--num_train", type=int, default=1600)
  p.add_argument("--seeds", default="0,1,2")
  p.add_argument("--epochs", type=int, default=0,
                 help="the FFNN's epochs (default: the config's)")
  p.add_argument("--redo", action="store_true")
  a = p.parse_args(argv)
  known = regimes()
  names = [n for n in a.names.split(",") if n] or known
  for n in names:
    if n not in known:
      raise SystemExit(f"error: --names: {n!r} is not a regime; known: "
                       f"{', '.join(known)}")
  seeds = tuple(int(s) for s in a.seeds.split(","))
  from blm_jax.study import records

  record = (records.read_json_object(a.out, "this script's record")
            if os.path.isfile(a.out) else {})
  entries = record.get("regimes", {})
  for n in names:
    if n in entries and not a.redo:
      print(f"{n}: kept")
      continue
    entries[n] = measure(n, os.path.join(a.workdir, n), a.num_train, seeds,
                         a.epochs)
    print(" | ".join(row(n, entries[n])), flush=True)
    record = {
        "study": "the gold ceiling of the generalisation regimes: the "
                 "attribute-relations reference model (with its value "
                 "heads, and with equality relations only) and the generic "
                 "FFNN on one-hot gold attributes, lexical type I",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime(
            "%Y-%m-%d"),
        "commit": study_records.head_commit(),
        "command": "python studies/gold_ceiling_regimes.py "
                   + " ".join(sys.argv[1:] if argv is None else argv),
        "config": None, "source": "measured",
        "note": f"{a.num_train} training instances per seed, seeds "
                f"{a.seeds}; the whole test split; rules: the whole train "
                "and test splits",
        "data": {"builder_versions": {e["dataset"]: e["version"]
                                      for e in entries.values()}},
        "regimes": entries,
        "tables": {"regimes": {"columns": COLUMNS, "rows": [
            row(k, entries[k]) for k in sorted(entries)]}}}
    files.write_json(a.out, record)
  print(f"wrote {a.out}")


if __name__ == "__main__":
  main()
