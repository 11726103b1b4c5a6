"""Full-size scans of every agreement `_seq` config (each language and
type, every instance, so every split; the `_seq_rules` configs hold the
same instances split by rule) for the checks of
`data_builders.blm_agreement.validate`: per check, the instances with a
finding, with an example id and message, and the generation time.

    PYTHONPATH=. python studies/agreement_seq_scans.py --out studies/records/agreement_seq_scans.json
    PYTHONPATH=. python studies/agreement_seq_scans.py --languages=ro --types=III
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from blm_jax.study import records as study_records  # noqa: E402
from data_builders.blm_agreement import blm_agreement_dataset_builder as bab  # noqa: E402
from data_builders.blm_agreement import generate_seq, lexicon, validate  # noqa: E402
from data_builders.common import validation  # noqa: E402


def scan(language: str, lexical_type: str, per_clause: int = 0) -> dict:
  """{instances, seconds, counts: {check: n}, examples: {check: [id, msg]}}
  of `<language>_seq_type_<lexical_type>`: at full size, or its first
  `per_clause` instances per clause type (type II/III anchors are drawn in
  order, so these are the full config's first ones)."""
  cfg = bab.seq_config(language, lexical_type)
  size = cfg.size_per_clause()
  start = time.time()
  xs = generate_seq.generate_seq(language, generate_seq.CLAUSES,
                                 lexical_type, min(per_clause or size, size),
                                 cfg.seed, fractions=cfg.fractions)
  seconds = time.time() - start
  counts = collections.Counter({c.name: 0 for c in validate.CHECKS})
  examples = {}
  for x in xs:
    for name, messages in validation.findings(validate.CHECKS, x).items():
      counts[name] += 1
      examples.setdefault(name, [x.id, messages[0]])
  return {"config": f"blm_agreement/{cfg.name}", "instances": len(xs),
          "seconds": round(seconds, 1), "counts": dict(counts),
          "examples": examples}


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--languages", default=",".join(lexicon.LANGUAGES))
  parser.add_argument("--types", default=",".join(bab.LEXICAL_TYPES))
  parser.add_argument("--per_clause", type=int, default=0,
                      help="instances per clause type (0: full size)")
  parser.add_argument("--out", default="")
  args = parser.parse_args(argv)
  rows = []
  for lang in args.languages.split(","):
    for t in args.types.split(","):
      row = scan(lang, t, args.per_clause)
      print(json.dumps(row, ensure_ascii=False), flush=True)
      rows.append(row)
  if args.out:
    with open(args.out, "w") as f:
      json.dump({"study": "agreement _seq validators (counts of instances "
                          "with a finding, per check)",
                 "command": "python studies/agreement_seq_scans.py "
                            + " ".join(argv or sys.argv[1:]),
                 "date": datetime.date.today().isoformat(),
                 "commit": study_records.head_commit(), "source": "measured",
                 "seq_version": str(bab.seq_config("en", "I").version),
                 "per_clause": args.per_clause or "full size",
                 "configs": rows}, f, ensure_ascii=False, indent=1)
      f.write("\n")
  return 0


if __name__ == "__main__":
  sys.exit(main())
