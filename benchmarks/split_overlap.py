"""How much a generated dataset's dev and test splits share with its train split.

  python benchmarks/split_overlap.py blm_spray_load/ALT-ATL_type_{}

For each lexical type: the share of dev/test context sentences that occur
anywhere in the train split, and the share of dev/test correct answers that
are correct answers of train instances. Builders split by a hash of each
instance's group key, which keeps an instance (and its group) in one split,
not every sentence: this measures what the splits share.
"""

import sys

from data_builders.common import loading


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
  template = argv[1] if len(argv) > 1 else "blm_spray_load/ALT-ATL_type_{}"
  for t in ("I", "II", "III"):
    name = template.format(t)
    for split, r in overlap(name).items():
      print(f"{name} {split} ({r['instances']} instances): context sentences "
            f"in train {r['context_in_train']:.3f}, correct answers that are "
            f"train correct answers {r['correct_is_train_correct']:.3f}")


if __name__ == "__main__":
  main(sys.argv)
