"""Where the signal is lost: encoder probes tied to a BLM design.

  python -m blm_jax.cli.diagnose \\
      --config=configs/ffnn.py:dataset=agreement_en_seq,cpu --out=DIR

For one lexical type of the config's data (default its first train type;
its sampled training instances and its test instances, frames held out
across both), every hidden state of the config's encoder (or --layers):
linear and MLP probes from the sentence vectors to each attribute the
design declares, trained and tested on disjoint lexical frames, the
per-instance compounding, and probe-then-solve
(`blm_jax.analysis.attribute_probes`; the ladder is
`blm_jax.analysis.diagnose`); with them the design analyzer
(`blm_jax.data.design`: chance, the strongest context-free scorer, the
rules and the share of test rules unseen in training) and the gold
ceiling on the config's own sample of its first seed
(`results.gold_ceiling`),
and the builder versions of the data. Writes DIR/diagnose.json,
DIR/diagnose.md and DIR/diagnose.png (probe accuracy by layer; by layer
probe-then-solve and compounding under the gold ceiling and chance) and
prints the table. Data without attributes (own data,
the release) stops with one line saying why.
"""

from __future__ import annotations

import os
from typing import Sequence

from blm_jax.analysis import diagnose as ladder
from blm_jax.training import config_check


def run(f) -> dict:
  """The ladder of parsed flag values `f` (`define_flags`); bad input
  stops with one line."""
  if f.config is None:
    raise SystemExit("error: give --config=configs/<model>.py:dataset=<name>"
                     " (its data and encoder are probed)")
  try:
    out = ladder.diagnose(f.config, f.lexical_type, f.layers, f.out)
  except (ladder.LadderError, config_check.ConfigError) as e:
    raise SystemExit(f"error: {e}") from None
  print(out["markdown"])
  print(f"wrote {os.path.join(f.out, 'diagnose.json')}, diagnose.md and "
        "diagnose.png")
  return out


def main(argv: Sequence[str]) -> None:
  from absl import flags

  from blm_jax.cli import quiet

  quiet.quiet_logs()
  if len(argv) > 1:
    raise SystemExit(f"unexpected arguments: {argv[1:]}")
  run(flags.FLAGS)


def define_flags(fv=None) -> None:
  from absl import flags
  from ml_collections import config_flags

  fv = flags.FLAGS if fv is None else fv
  config_flags.DEFINE_config_file(
      "config", None, "A training config (configs/<name>.py[:variant]): its "
      "data and encoder are probed; --config.<key>=<value> overrides.",
      flag_values=fv, lock_config=True)
  flags.DEFINE_string("lexical_type", None, "The lexical type probed "
                      "(default: the config's first train type).",
                      flag_values=fv)
  flags.DEFINE_string("layers", "all", "Hidden states: 'all' or indices "
                      "such as '0,3,-1' (0 = embeddings).", flag_values=fv)
  flags.DEFINE_string("out", "diagnose", "Folder of diagnose.json and "
                      "diagnose.md.", flag_values=fv)


if __name__ == "__main__":
  define_flags()
  from blm_jax.cli import usage

  usage.run(main)
