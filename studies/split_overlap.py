"""How much a generated dataset's splits, and its seeds' samples, share.

  python studies/split_overlap.py blm_spray_load/ALT-ATL_type_{}
  python studies/split_overlap.py --seeds --out=R.json spray_load agreement_en ...

For each lexical type: the share of dev/test context sentences that occur
anywhere in the train split, and the share of dev/test correct answers that
are correct answers of train instances. Builders split by a hash of each
instance's group key, which keeps an instance (and its group) in one split,
not every sentence: this measures what the splits share.

With --seeds (short dataset names of configs/common.py): with
`data.seed_follows_grid` each grid seed draws its own train/dev sample
(blm_jax.data.input_pipeline.train_dev_samples, at paper settings: 2000
per type, 20% dev); the share of one seed's training instances that
another seed also trains on, averaged over the pairs of seeds 0-4. Where
the pool is barely larger than the sample (agreement type I), seeds see
nearly the same training data and the seed spread says little about the
sample.
"""

import datetime
import itertools
import json
import sys

import ml_collections

from blm_jax.data import input_pipeline
from blm_jax.study import records as study_records
from data_builders.common import loading

SEEDS = (0, 1, 2, 3, 4)


def seed_overlap(template: str, lexical_type: str, num_train: int = 2000,
                 dev_fraction: float = 0.2) -> dict:
  """Pool size and the mean pairwise share of the seeds' train samples."""
  name = input_pipeline.dataset_name(template, lexical_type)
  cfg = ml_collections.ConfigDict({"num_train": num_train,
                                   "dev_fraction": dev_fraction})
  samples, _ = input_pipeline.train_dev_samples(
      name, loading.split_names(name), cfg, lexical_type, None, None, SEEDS)
  ids = {s: {x.id for x in tr} for s, (tr, _) in samples.items()}
  shares = [len(ids[a] & ids[b]) / len(ids[a])
            for a, b in itertools.combinations(SEEDS, 2)]
  return {"pool": len(loading.load_instances(name, "train")),
          "train": len(ids[SEEDS[0]]), "share": sum(shares) / len(shares)}


def seeds_main(names: list[str], out: str) -> None:
  sys.path.insert(0, ".")
  from configs import common
  rows = []
  for short in names:
    for t in ("I", "II", "III"):
      r = seed_overlap(common.DATASETS[short], t)
      rows.append([short, t, str(r["pool"]), str(r["train"]),
                   f"{r['share']:.3f}"])
      print(" ".join(rows[-1]), flush=True)
  commit = study_records.head_commit()
  record = {"study": "how much the seeds' training samples share",
            "date": datetime.date.today().isoformat(), "commit": commit,
            "command": "python studies/split_overlap.py --seeds "
                       + " ".join(names), "config": None,
            "source": "measured on the builds of this commit",
            "tables": {"seed_overlap": {"columns": [
                "dataset", "type", "train pool (train split)",
                "train instances per seed",
                "share of a seed's train instances another seed also "
                "trains on (mean over pairs of seeds 0-4)"],
                "rows": rows}}}
  if out:
    with open(out, "w", encoding="utf-8") as f:
      json.dump(record, f, indent=1, ensure_ascii=False)
      f.write("\n")


def overlap(name: str) -> dict:
  splits = {s: loading.load_instances(name, s)
            for s in loading.split_names(name)}
  train = splits["train"]
  seen = {s.text for x in train for s in x.context + x.answers}
  train_correct = {x.answers[x.correct].text for x in train}
  out = {}
  for split in ("dev", "test"):
    insts = splits.get(split, [])
    ctx = [s.text for x in insts for s in x.context]
    correct = [x.answers[x.correct].text for x in insts]
    if ctx:
      out[split] = {
          "instances": len(insts),
          "context_in_train": sum(c in seen for c in ctx) / len(ctx),
          "correct_is_train_correct":
              sum(c in train_correct for c in correct) / len(correct)}
  return out


def main(argv):
  if len(argv) > 1 and argv[1] == "--seeds":
    out = [a.split("=", 1)[1] for a in argv[2:] if a.startswith("--out=")]
    seeds_main([a for a in argv[2:] if not a.startswith("--")],
               out[0] if out else "")
    return
  template = argv[1] if len(argv) > 1 else "blm_spray_load/ALT-ATL_type_{}"
  for t in ("I", "II", "III"):
    name = template.format(t)
    for split, r in overlap(name).items():
      print(f"{name} {split} ({r['instances']} instances): context sentences "
            f"in train {r['context_in_train']:.3f}, correct answers that are "
            f"train correct answers {r['correct_is_train_correct']:.3f}")


if __name__ == "__main__":
  main(sys.argv)
