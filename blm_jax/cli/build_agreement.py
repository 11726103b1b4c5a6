"""Builds blm_agreement configs, timing each build, and lints what they hold.

    python -m blm_jax.cli.build_agreement --data_dir /tmp/agr \
        [config ...]

Prints one JSON line per config: build seconds (TFDS generation and writing),
the 1-minute load average when it finished (the CPU is shared), split sizes,
the linter's error counts, its copy-cue count and whether `--strict` passes.
Type I configs come first (they are fast). The linted instances are those
`generate` returns, which are the ones written (generation is deterministic).
"""

from __future__ import annotations

import argparse
import json
import os
import time

import tensorflow_datasets as tfds

from blm_jax.data import lint
from blm_jax.data.names import config_problem
import data_builders  # noqa: F401  Registers the builders.
from data_builders.blm_agreement import blm_agreement_dataset_builder as bab


def build_one(name: str, data_dir: str) -> dict:
  start = time.time()
  b = tfds.builder(f"blm_agreement/{name}", data_dir=data_dir,
                   file_format="array_record")
  b.download_and_prepare()
  seconds = time.time() - start
  report = lint.lint(b.generate(b.builder_config))
  return dict(config=name, build_s=round(seconds, 1),
              load=round(os.getloadavg()[0], 2),
              **{k: v.num_examples for k, v in b.info.splits.items()},
              lint_errors=report.errors, copy_cue=report.counts["copy_cue"],
              strict_ok=report.ok(strict=True))


def all_config_names() -> tuple[str, ...]:
  return tuple(c.name for c in bab.Builder.BUILDER_CONFIGS)


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--data_dir", required=True)
  parser.add_argument("configs", nargs="*")
  args = parser.parse_args(argv)
  # Every config the builder declares (the `_ctx`, `_seq`, agrF6 designs
  # too); with none named, the base configs.
  known = all_config_names()
  names = args.configs or sorted(
      bab.CONFIG_NAMES, key=lambda n: (not n.endswith("_type_I"), n))
  for name in names:
    if name not in known:
      raise SystemExit("error: " + config_problem(
          "blm_agreement", name, known, limit=None))
  for name in names:
    print(json.dumps(build_one(name, args.data_dir), ensure_ascii=False),
          flush=True)
  return 0


if __name__ == "__main__":
  raise SystemExit(main())
