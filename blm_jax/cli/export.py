"""Writes a BLM dataset as JSON lines, or as an lm-evaluation-harness task.

  python -m blm_jax.cli.export --dataset=blm_spray_load/ALT-ATL_type_I --out=DIR
  python -m blm_jax.cli.export --dataset=spray_load --out=DIR   # every type
  python -m blm_jax.cli.export --dataset=spray_load:II --out=DIR
  python -m blm_jax.cli.export --dataset=... --format=lm_eval --out=DIR
"""

from __future__ import annotations

import os

from blm_jax.cli import quiet, usage
from blm_jax.data.export import export, FORMATS
from blm_jax.data.names import resolve_datasets


def run(f) -> dict[str, str]:
  """The command line's work, given parsed absl flag values `f`; an
  unknown --dataset or an --out that cannot be written is one error line."""
  try:
    datasets = resolve_datasets(f.dataset)
  except ValueError as e:
    raise SystemExit(f"error: --dataset={f.dataset}: {e}") from None
  try:
    written = _export_each(datasets, f)
  except OSError as e:
    if e.filename is None or not os.path.abspath(str(e.filename)).startswith(
        os.path.abspath(os.path.expanduser(f.out))):
      raise
    raise SystemExit(f"error: --out={f.out}: {e.strerror}: {e.filename}"
                     ) from None
  except (ValueError, AssertionError) as e:
    # An unknown split, no --manual_dir for a builder that reads one, a
    # bad line in the files read: each names what to fix. (TFDS says a
    # manual_dir is missing with an AssertionError.)
    raise SystemExit("error: " + " ".join(str(e).split())) from None
  for name, path in written.items():
    print(f"{name:>6}: {path}")
  return written


def _export_each(datasets: list[str], f) -> dict[str, str]:
  """`datasets` into --out, each into `<out>/<its config>/` when there are
  several (a short name's types); {name: path} of the files."""
  def one(dataset, out):
    return export(dataset, f.format, out,
                  splits=f.split.split(",") if f.split else None,
                  data_dir=f.data_dir, manual_dir=f.manual_dir)

  if len(datasets) == 1:
    return one(datasets[0], f.out)
  written = {}
  for dataset in datasets:
    config = dataset.split("/", 1)[1]
    written.update({f"{config}/{name}": path for name, path in one(
        dataset, os.path.join(f.out, config)).items()})
  return written


def main(argv) -> None:
  from absl import flags

  if len(argv) > 1:
    raise SystemExit(f"unexpected arguments: {argv[1:]}")
  quiet.quiet_logs()
  run(flags.FLAGS)


def define_flags(fv=None) -> None:
  from absl import flags

  fv = flags.FLAGS if fv is None else fv
  flags.DEFINE_string("dataset", None, "Short name (spray_load: every "
                      "type; spray_load:II: one) or TFDS name, e.g. "
                      "blm_spray_load/ALT-ATL_type_I.", flag_values=fv)
  flags.DEFINE_enum("format", "jsonl", list(FORMATS), "jsonl (GenBench "
                    "records) or lm_eval (jsonl + an lm-evaluation-harness "
                    "task YAML).", flag_values=fv)
  flags.DEFINE_string("out", None, "Output folder.", flag_values=fv)
  flags.DEFINE_string("split", None, "Comma-separated splits (default all).",
                      flag_values=fv)
  flags.DEFINE_string("data_dir", None, "TFDS data_dir (default "
                      "$BLM_DATA_DIR or ~/tensorflow_datasets).",
                      flag_values=fv)
  flags.DEFINE_string("manual_dir", None, "Folder of release files, for "
                      "builders that read them.", flag_values=fv)
  for name in ("dataset", "out"):
    flags.mark_flag_as_required(name, flag_values=fv)


if __name__ == "__main__":
  define_flags()
  usage.run(main)
