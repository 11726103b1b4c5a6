"""Lints BLM instances: a release file, a folder of them, or a TFDS name.

  python -m blm_jax.cli.lint blm_spray_load/ALT-ATL_type_I --answers_only

Prints one report per file or split (see blm_jax.data.lint for the rules);
exits 1 on errors (or warnings with --strict), 2 when the input cannot be read.
"""

from __future__ import annotations

import os
import sys
from typing import Sequence

from blm_jax.data.lint import lint, LintReport


# ----------------------------------------------------------------------------
# Command line.
# ----------------------------------------------------------------------------


def _sources(target: str, data_dir: str | None, manual_dir: str | None):
  """(title, instances) pairs for a file, a folder of files or a TFDS name."""
  if os.path.exists(target):
    from data_builders.blm_published import release_format

    if os.path.isdir(target):
      files = sorted(os.path.join(root, f)
                     for root, _, names in os.walk(target)
                     for f in names if f.endswith(".tsv"))
      if not files:
        raise release_format.ReleaseFormatError(
            target, None, None, "holds no release file (*.tsv)")
    else:
      files = [target]
    for path in files:
      release = release_format.read_release(path)
      for note in release.notes:
        print(f"note: {note}")
      yield path, list(release.instances)
    return
  from data_builders.common import loading as data

  for split in data.split_names(target, data_dir, manual_dir):
    yield (f"{target}[{split}]",
           data.load_instances(target, split, data_dir, manual_dir))


def main(argv: Sequence[str] | None = None) -> int:
  import argparse

  parser = argparse.ArgumentParser(
      prog="python -m blm_jax.cli.lint", description=__doc__.split("\n\n")[0])
  parser.add_argument("target",
                      help="a release .tsv file, a folder of them, or a TFDS "
                      "name such as blm_published/agreement_fr_type_I")
  parser.add_argument("--strict", action="store_true",
                      help="also exit non-zero on warnings")
  parser.add_argument("--answers_only", action="store_true",
                      help="also check that the answers alone do not solve "
                      "the puzzle (blm_jax.data.answers_only)")
  parser.add_argument("--data_dir", default=None,
                      help="TFDS data_dir (default: $BLM_DATA_DIR or "
                      "~/tensorflow_datasets)")
  parser.add_argument("--manual_dir", default=None,
                      help="the release files, for TFDS names that read them")
  args = parser.parse_args(argv)

  total = LintReport()
  try:
    for title, instances in _sources(args.target, args.data_dir,
                                     args.manual_dir):
      report = lint(instances, answers_only=args.answers_only)
      print(report.format(title))
      total.n_instances += report.n_instances
      for rule, n in report.counts.items():
        total.counts[rule] += n
  except (ValueError, OSError, AssertionError) as err:
    # ReleaseFormatError is a ValueError; TFDS reports a missing manual_dir
    # with an AssertionError.
    print(f"error: {err}", file=sys.stderr)
    return 2
  ok = total.ok(strict=args.strict)
  print(f"total: {total.n_instances} instances; errors {total.errors or 0}; "
        f"warnings {total.warnings or 0} -> {'OK' if ok else 'FAIL'}"
        + (" (--strict)" if args.strict else ""))
  return 0 if ok else 1


if __name__ == "__main__":
  sys.exit(main())
