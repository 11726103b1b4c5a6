"""The strongest context-free scorer (`blm_jax.data.context_free.set_scorer`) on the
training split of generated configs, without building or embedding them.

  python studies/set_scorer_generated.py --configs=roll_ctx,cos_plus_ctx \
      --out=studies/records/set_scorer_roll_cos_plus.json

Each config is generated in memory, split as its builder splits it, and
scored on the first `--train` instances of its train split (the size a
training run draws): top-1 of both set scorers, top-2 and the effective
chance of the stronger, and whether it stays within the context-necessary
ceiling (`answers_only.CONTEXT_FREE_CEILING`). Writes a record whose
`scores` table the family READMEs render.
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from blm_jax.base import files  # noqa: E402
from blm_jax.study import records as study_records  # noqa: E402
from blm_jax.data.context_free import answers_only, set_scorer  # noqa: E402
from data_builders.blm_cos_plus import blm_cos_plus_dataset_builder as cos_plus  # noqa: E402,E501
from data_builders.blm_cos_plus import generate as cos_plus_gen  # noqa: E402
from data_builders.blm_roll import blm_roll_dataset_builder as roll  # noqa: E402
from data_builders.blm_roll import generate as roll_gen  # noqa: E402
from data_builders.common import splits  # noqa: E402


def _roll_ctx():
  for t in roll_gen.LEXICAL_TYPES:
    yield (f"blm_roll/{roll_gen.config_name(t, True)}", roll.Builder,
           lambda t=t: roll_gen.generate(t, context_necessary=True))


def _cos_plus_ctx():
  for v in cos_plus_gen.VARIANTS:
    for lx in cos_plus_gen.LEXICALITIES:
      yield (f"blm_cos_plus/{cos_plus_gen.ctx_config_name(v, lx)}",
             cos_plus.Builder,
             lambda v=v, lx=lx: cos_plus_gen.generate_ctx(v, lx))


CONFIGS = {"roll_ctx": _roll_ctx, "cos_plus_ctx": _cos_plus_ctx}


def rows(names, train: int) -> list[list]:
  out = []
  for name in names:
    for config, builder, make in CONFIGS[name]():
      xs = make()
      part = splits.assign_splits(xs, 0, builder.group_of,
                                  builder.split_fractions)["train"][:train]
      s = set_scorer.score(part)
      print(config, s, flush=True)
      within = s.best_top1 <= answers_only.CONTEXT_FREE_CEILING
      out.append([config, str(builder.VERSION), len(part), f"{s.chance:.3f}",
                  f"{s.top1['set_logit']:.3f}", f"{s.top1['set_trees']:.3f}",
                  f"{s.best_top2:.3f}", f"{s.effective_chance:.3f}",
                  "yes" if within else "**no**"])
  return out


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  p.add_argument("--configs", default="roll_ctx,cos_plus_ctx",
                 help=f"comma-separated, of {sorted(CONFIGS)}")
  p.add_argument("--train", type=int, default=2000)
  p.add_argument("--out", required=True)
  a = p.parse_args(argv)
  names = a.configs.split(",")
  unknown = [n for n in names if n not in CONFIGS]
  if unknown:
    sys.exit(f"error: --configs: unknown {unknown}; known: {sorted(CONFIGS)}")
  table = rows(names, a.train)
  commit = study_records.head_commit()
  record = {
      "study": "the strongest context-free scorer on generated configs' "
               "training splits",
      "date": datetime.date.today().isoformat(), "commit": commit,
      "command": "python studies/set_scorer_generated.py "
                 + " ".join(argv if argv is not None else sys.argv[1:]),
      "config": None, "source": "measured",
      "tables": {"scores": {
          "columns": ["config", "builder version", "train instances",
                      "chance", "set logit top-1", "set trees top-1",
                      "top-2", "effective chance",
                      f"within {answers_only.CONTEXT_FREE_CEILING}"],
          "rows": table}},
  }
  files.write_json(a.out, record, indent=1, ensure_ascii=False)
  print(f"wrote {a.out}")


if __name__ == "__main__":
  main()
