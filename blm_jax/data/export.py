"""BLM datasets in formats other toolkits read: GenBench jsonl, lm-eval tasks.

  python -m blm_jax.cli.export --dataset=blm_spray_load/ALT-ATL_type_I \
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
from typing import Sequence

from blm_jax.base import files
from data_builders.common import safe_io, schema

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


def write_jsonl(path: str, instances: Sequence[schema.BLMInstance]) -> None:
  files.write_text(path, (json.dumps(to_record(i), ensure_ascii=False) + "\n"
                      for i in instances))


def read_jsonl(path: str) -> list[schema.BLMInstance]:
  """Instances of a jsonl file `write_jsonl` wrote (errors name the line)."""
  out = []
  try:  # Bounded lines and nesting (safe_io), UTF-8 checked.
    for n, line in safe_io.text_lines(path):
      if not line.strip():
        continue
      record = safe_io.json_loads(line, path, n)
      if not isinstance(record, dict):
        raise ExportFormatError(f"{path}:{n}: not a JSON object")
      out.append(from_record(record, f"{path}:{n}"))
  except safe_io.BoundError as e:
    raise ExportFormatError(str(e)) from None
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
      "metadata": {"version": 1.0, "source": f"blm_jax.data.export of {dataset}"},
  })
  return config


def export(dataset: str, fmt: str, out: str, *,
           splits: Sequence[str] | None = None, data_dir: str | None = None,
           manual_dir: str | None = None) -> dict[str, str]:
  """Writes `dataset`'s splits to `out`; returns {name: path} of the files."""
  from data_builders.common import loading as data

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
    files.write_text(path, [yaml.safe_dump(config, sort_keys=False,
                                       allow_unicode=True)])
    written["yaml"] = path
  return written
