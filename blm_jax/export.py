"""BLM datasets in formats other toolkits read: GenBench jsonl, lm-eval tasks.

  python -m blm_jax.export --dataset=blm_spray_load/ALT-ATL_type_I \
      --format=jsonl --out=DIR [--split=train,test] [--data_dir=...]

`jsonl`: DIR/<split>.jsonl, one instance per line in the GenBench
multiple-choice format (`input`: the context sentences joined by a space,
`target`: the index of the correct candidate, `target_options`: the
candidates, as the GenBench BLM tasks have them) plus every field of our
instance schema (`id`, `labels` per candidate, `context`, `context_patterns`,
`answer_patterns`, chunks, ...), so `read_jsonl` rebuilds the same
`schema.BLMInstance`s.

`lm_eval`: the same jsonl files plus DIR/<task>.yaml, an lm-evaluation-harness
`multiple_choice` task (keys from its documented TaskConfig: task, tag,
dataset_path `json` with `dataset_kwargs.data_files`, the split keys,
output_type, doc_to_text/doc_to_target/doc_to_choice, metric_list,
metadata): each candidate is scored by the model's log-likelihood given the
context (`input` + " " + candidate), and `acc`/`acc_norm` report how often the
correct one scores highest. Run it with
`lm_eval --model hf --model_args pretrained=... --tasks <task> --include_path DIR`.
The data paths in the YAML are absolute: export again (or edit them) after
moving DIR.

Files are written to a temporary name and renamed, so a killed export leaves
no half-written file under the final name.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from typing import Iterable, Sequence

from blm_jax import schema

FORMATS = ("jsonl", "lm_eval")
# TFDS split -> lm-eval TaskConfig split key.
_SPLIT_KEYS = {"train": "training_split", "dev": "validation_split",
               "validation": "validation_split", "test": "test_split"}


class ExportFormatError(ValueError):
  """An exported file that does not hold what `export` writes."""


def to_record(inst: schema.BLMInstance) -> dict:
  """One instance as a GenBench multiple-choice record plus our fields."""
  ex = inst.to_example()
  record = {
      "input": " ".join(s.text for s in inst.context),
      "target": int(inst.correct),
      "target_options": [s.text for s in inst.answers],
  }
  for key, value in ex.items():
    if key == "answers":
      continue  # = target_options
    if key == "correct":
      continue  # = target
    record[key] = value
  return record


_FIELDS = ("id", "family", "language", "lexical_type", "subset", "context",
           "context_patterns", "context_chunks", "answer_patterns",
           "answer_chunks", "labels", "raw_labels")


def from_record(record: dict, where: str = "record") -> schema.BLMInstance:
  """Inverse of `to_record`; errors name `where` and the field."""
  missing = [k for k in ("input", "target", "target_options") + _FIELDS
             if k not in record]
  if missing:
    raise ExportFormatError(f"{where}: missing fields {missing}")
  if not isinstance(record["target"], int) or isinstance(record["target"],
                                                         bool):
    raise ExportFormatError(f"{where}: field 'target' must be an int index, "
                            f"got {record['target']!r}")
  if record["input"] != " ".join(record["context"]):
    raise ExportFormatError(f"{where}: field 'input' is not the context "
                            "sentences joined by a space")
  ex = {k: record[k] for k in _FIELDS}
  ex["answers"] = record["target_options"]
  ex["correct"] = record["target"]
  try:
    return schema.BLMInstance.from_example(ex)
  except (ValueError, TypeError) as e:
    raise ExportFormatError(f"{where}: {e}") from None


def _atomic_text(path: str, lines: Iterable[str]) -> None:
  folder = os.path.dirname(os.path.abspath(path))
  os.makedirs(folder, exist_ok=True)
  fd, tmp = tempfile.mkstemp(dir=folder, prefix=".", suffix=".tmp")
  try:
    with os.fdopen(fd, "w", encoding="utf-8") as f:
      for line in lines:
        f.write(line)
    os.replace(tmp, path)
  except BaseException:
    if os.path.exists(tmp):
      os.remove(tmp)
    raise


def write_jsonl(path: str, instances: Sequence[schema.BLMInstance]) -> None:
  _atomic_text(path, (json.dumps(to_record(i), ensure_ascii=False) + "\n"
                      for i in instances))


def read_jsonl(path: str) -> list[schema.BLMInstance]:
  """Instances of a jsonl file `write_jsonl` wrote (errors name the line)."""
  out = []
  with open(path, encoding="utf-8") as f:
    for n, line in enumerate(f, 1):
      if not line.strip():
        continue
      try:
        record = json.loads(line)
      except ValueError as e:
        raise ExportFormatError(f"{path}:{n}: not JSON ({e})") from None
      if not isinstance(record, dict):
        raise ExportFormatError(f"{path}:{n}: not a JSON object")
      out.append(from_record(record, f"{path}:{n}"))
  return out


def task_name(dataset: str) -> str:
  """'blm_spray_load/ALT-ATL_type_I' -> 'blm_spray_load_alt_atl_type_i'."""
  return re.sub(r"[^a-z0-9]+", "_", dataset.lower()).strip("_")


def lm_eval_task(dataset: str, data_files: dict[str, str]) -> dict:
  """The lm-evaluation-harness task config (a YAML mapping) for the files."""
  config = {
      "task": task_name(dataset),
      "tag": ["blm"],
      "dataset_path": "json",
      "dataset_kwargs": {"data_files": dict(data_files)},
  }
  for split in data_files:
    key = _SPLIT_KEYS.get(split)
    if key and key not in config:
      config[key] = split
  if "train" in data_files:
    config["fewshot_split"] = "train"
  config.update({
      "output_type": "multiple_choice",
      "doc_to_text": "{{input}}",
      "doc_to_target": "target",
      "doc_to_choice": "target_options",
      "target_delimiter": " ",
      "metric_list": [
          {"metric": "acc", "aggregation": "mean", "higher_is_better": True},
          {"metric": "acc_norm", "aggregation": "mean",
           "higher_is_better": True},
      ],
      "metadata": {"version": 1.0, "source": f"blm_jax.export of {dataset}"},
  })
  return config


def export(dataset: str, fmt: str, out: str, *,
           splits: Sequence[str] | None = None, data_dir: str | None = None,
           manual_dir: str | None = None) -> dict[str, str]:
  """Writes `dataset`'s splits to `out`; returns {name: path} of the files."""
  from blm_jax import data

  if fmt not in FORMATS:
    raise ValueError(f"--format={fmt!r} is not one of {FORMATS}")
  available = list(data.split_names(dataset, data_dir, manual_dir))
  splits = list(splits or available)
  unknown = [s for s in splits if s not in available]
  if unknown:
    raise ValueError(f"dataset {dataset!r} has no split(s) {unknown}; it has "
                     f"{available}")
  out = os.path.abspath(os.path.expanduser(out))
  written = {}
  for split in splits:
    path = os.path.join(out, f"{split}.jsonl")
    write_jsonl(path, data.load_instances(dataset, split, data_dir,
                                          manual_dir))
    written[split] = path
  if fmt == "lm_eval":
    import yaml

    config = lm_eval_task(dataset, written)
    path = os.path.join(out, f"{config['task']}.yaml")
    _atomic_text(path, [yaml.safe_dump(config, sort_keys=False,
                                       allow_unicode=True)])
    written["yaml"] = path
  return written


def run(f) -> dict[str, str]:
  """The command line's work, given parsed absl flag values `f`."""
  written = export(f.dataset, f.format, f.out,
                   splits=f.split.split(",") if f.split else None,
                   data_dir=f.data_dir, manual_dir=f.manual_dir)
  for name, path in written.items():
    print(f"{name:>6}: {path}")
  return written


def main(argv) -> None:
  from absl import flags

  if len(argv) > 1:
    raise SystemExit(f"unexpected arguments: {argv[1:]}")
  run(flags.FLAGS)


def define_flags(fv=None) -> None:
  from absl import flags

  fv = flags.FLAGS if fv is None else fv
  flags.DEFINE_string("dataset", None, "TFDS name, e.g. "
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
  from absl import app

  define_flags()
  app.run(main)
