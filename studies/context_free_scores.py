"""Context-free scores of datasets: what the answers alone give, per split.

  python studies/context_free_scores.py --names=spray_load_ctx,cos_en_ctx \
      --probe_sample=2000 --out=studies/records/context_free_scores.json

For each short name of configs/common.py (each lexical type) and each
split: the word logit and odd-one-in over the whole split (pooled over
subsets, as `lint` scores a context-necessary config), and on a seeded
sample of `--probe_sample` train instances (the size a training run draws)
the embedding probe of `lint --probe` (MiniLM). Each row says whether the
config is context-necessary and whether it stays under the ceiling.
Writes a record whose `scores` table the docs render.
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from blm_jax.base import files  # noqa: E402
from blm_jax.cli import lint as lint_cli  # noqa: E402
from blm_jax.study import records as study_records  # noqa: E402
from blm_jax.data import lint  # noqa: E402
from blm_jax.data.context_free import answers_only  # noqa: E402
from blm_jax.results import context_free  # noqa: E402
from configs import common  # noqa: E402
from data_builders.common import loading  # noqa: E402


def scores(name: str, data_dir: str | None, probe_sample: int,
           probe_encoder: str) -> list[list]:
  """Rows (config, split, n, chance, word logit, odd-one-in, probe, ceiling)
  of every lexical type of short name `name`."""
  rows = []
  types = common.DATASET_TYPES.get(name, ("I", "II", "III"))
  for t in types:
    tfds_name = common.DATASETS[name].format(t)
    necessary = lint_cli.context_necessary(tfds_name, data_dir)
    for split in loading.split_names(tfds_name, data_dir):
      xs = loading.load_instances(tfds_name, split, data_dir)
      ceiling = answers_only.CONTEXT_FREE_CEILING
      report = lint.lint(xs, ceiling=ceiling)
      if probe_sample and split == "train":
        got = context_free.embedding_probe_scores(
            lint.sample(xs, probe_sample), probe_encoder, None)
        for key, (n, acc) in got.items():
          report.hold_to_ceiling(key, n, {"embedding_probe": acc}, ceiling)
      chance = sum(1 / len(x.answers) for x in xs) / len(xs)
      for s in report.ceiling_scores.values():
        within = max(s.values()) <= ceiling
        rows.append([tfds_name, split, len(xs), f"{chance:.3f}",
                     f"{s['word_logit']:.3f}", f"{s['odd_one_in']:.3f}",
                     f"{s['embedding_probe']:.3f}" if "embedding_probe" in s
                     else "-",
                     ("yes" if within else "**no**") if necessary
                     else "(paper design)"])
  return rows


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--names", required=True,
                      help="short names of configs/common.py, comma-separated")
  parser.add_argument("--probe_sample", type=int, default=2000,
                      help="train instances the probe scores (0: no probe)")
  parser.add_argument("--probe_encoder", default="minilm")
  parser.add_argument("--data_dir", default=None)
  parser.add_argument("--out", default=None, help="record to write")
  args = parser.parse_args(argv)
  columns = ["config", "split", "instances", "chance", "word logit",
             "odd-one-in", f"embedding probe (train, {args.probe_sample})",
             f"within {answers_only.CONTEXT_FREE_CEILING}"]
  rows = []
  for name in args.names.split(","):
    for row in scores(name, args.data_dir, args.probe_sample,
                      args.probe_encoder):
      print(" | ".join(str(c) for c in row), flush=True)
      rows.append(row)
  if args.out:
    commit = study_records.head_commit()
    files.write_json(args.out, {
        "study": "context-free scores of the datasets' splits",
        "date": datetime.date.today().isoformat(), "commit": commit,
        "command": "python studies/context_free_scores.py "
                   + " ".join(sys.argv[1:] if argv is None else argv),
        "config": None, "source": "measured",
        "tables": {"scores": {"columns": columns, "rows": rows}}},
        indent=1)
    print(f"wrote {args.out}")


if __name__ == "__main__":
  main()
