"""blm_jax.data.export: GenBench jsonl and lm-eval tasks that read back the same."""

import json
import os
import pathlib

import pytest
import tensorflow_datasets as tfds
import yaml

from blm_jax.cli import export as export_cli
from blm_jax.data import export
from data_builders.common import builder, instances, loading as data, schema

SAMPLES = pathlib.Path(os.environ.get(
    "BLM_PUBLISHED_SAMPLES", pathlib.Path(__file__).resolve().parents[2] /
    ".." / "shared" / "blm-published-samples")).resolve()


class ExportToyBlm(builder.GeneratedBLMBuilder):
  """Patterns, chunks, non-ASCII text and several labels: every field."""

  VERSION = tfds.core.Version("1.0.0")
  BUILDER_CONFIGS = [builder.GeneratedConfig(name="only", seed=3)]

  def generate(self, config):
    out = []
    for i in range(24):
      ctx = [schema.Sentence(f"Le chat n° {i} mange « la souris » {k}.",
                             pattern=f"NP-sg V{k}", chunks=("Le chat",
                                                             f"mange {k}"))
             for k in range(3)]
      cands = [("Corr", schema.Sentence(f"L'homme {i} dort.", "NP-sg V")),
               ("WNA", schema.Sentence(f"L'homme {i} dorment.", "NP-sg V-pl")),
               ("AEV", schema.Sentence(f"Les hommes {i} dort.", "NP-pl V"))]
      out.append(instances.make_instance(
          id=f"x-{i:02d}", family="toy", language="fr", lexical_type="II",
          subset="only", context=ctx, candidates=cands, correct_label="Corr",
          seed=config.seed))
    return out


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
  d = str(tmp_path_factory.mktemp("tfds"))
  ExportToyBlm(data_dir=d, file_format="array_record").download_and_prepare()
  return d


@pytest.mark.slow
def test_jsonl_round_trips_every_split(data_dir, tmp_path):
  written = export.export("export_toy_blm/only", "jsonl", str(tmp_path),
                          data_dir=data_dir)
  assert set(written) == {"train", "dev", "test"}
  total = 0
  for split, path in written.items():
    want = data.load_instances("export_toy_blm/only", split, data_dir)
    got = export.read_jsonl(path)
    assert got == want and len(got) > 0
    total += len(got)
    first = json.loads(open(path, encoding="utf-8").readline())
    # The GenBench multiple-choice fields.
    assert first["input"] == " ".join(s.text for s in want[0].context)
    assert first["target_options"][first["target"]] == (
        want[0].correct_answer.text)
    assert first["labels"][first["target"]] == "Corr"
    assert first["context_patterns"] == ["NP-sg V0", "NP-sg V1", "NP-sg V2"]
  assert total == 24
  # Candidate order is the builder's seeded one, not "correct first".
  targets = {json.loads(line)["target"] for p in written.values()
             for line in open(p, encoding="utf-8")}
  assert len(targets) > 1


@pytest.mark.slow
def test_lm_eval_task_yaml(data_dir, tmp_path):
  written = export.export("export_toy_blm/only", "lm_eval", str(tmp_path),
                          splits=["train", "test"], data_dir=data_dir)
  assert os.path.basename(written["yaml"]) == "export_toy_blm_only.yaml"
  with open(written["yaml"], encoding="utf-8") as f:
    task = yaml.safe_load(f)
  assert task["task"] == "export_toy_blm_only"
  assert task["output_type"] == "multiple_choice"
  assert task["dataset_path"] == "json"
  files = task["dataset_kwargs"]["data_files"]
  assert files == {"train": written["train"], "test": written["test"]}
  assert all(os.path.isabs(p) and os.path.exists(p) for p in files.values())
  assert task["training_split"] == "train" and task["test_split"] == "test"
  assert task["fewshot_split"] == "train" and "validation_split" not in task
  assert [m["metric"] for m in task["metric_list"]] == ["acc", "acc_norm"]
  assert task["metadata"]["version"] == 1.0
  # What lm-eval renders for one document: the context as the prompt, each
  # candidate as a continuation, the gold index pointing at the correct one.
  assert task["doc_to_text"] == "{{input}}"
  doc = json.loads(open(files["test"], encoding="utf-8").readline())
  choices = doc[task["doc_to_choice"]]
  gold = doc[task["doc_to_target"]]
  assert doc["labels"][gold] == "Corr" and len(choices) == 3
  # Only keys of lm-eval's documented TaskConfig.
  documented = {"task", "task_alias", "tag", "dataset_path", "dataset_name",
                "dataset_kwargs", "training_split", "validation_split",
                "test_split", "fewshot_split", "process_docs", "description",
                "doc_to_text", "doc_to_target", "doc_to_choice",
                "fewshot_delimiter", "target_delimiter", "num_fewshot",
                "metric_list", "output_type", "generation_kwargs", "repeats",
                "filter_list", "metadata"}
  assert set(task) <= documented, set(task) - documented


@pytest.mark.slow
def test_bad_records_name_file_line_and_field(tmp_path, data_dir):
  path = export.export("export_toy_blm/only", "jsonl", str(tmp_path),
                       splits=["test"], data_dir=data_dir)["test"]
  lines = open(path, encoding="utf-8").read().splitlines()
  record = json.loads(lines[1])
  record["target"] = "0"
  bad = tmp_path / "bad.jsonl"
  bad.write_text(lines[0] + "\n" + json.dumps(record) + "\n")
  with pytest.raises(export.ExportFormatError,
                     match=r"bad.jsonl:2: field 'target' must be an int"):
    export.read_jsonl(str(bad))
  del record["labels"]
  bad.write_text(json.dumps(record) + "\n")
  with pytest.raises(export.ExportFormatError,
                     match=r"bad.jsonl:1: missing fields \['labels'\]"):
    export.read_jsonl(str(bad))
  with pytest.raises(ValueError, match=r"has no split\(s\) \['valid'\]"):
    export.export("export_toy_blm/only", "jsonl", str(tmp_path),
                  splits=["valid"], data_dir=data_dir)
  with pytest.raises(ValueError, match="--format='csv' is not one of"):
    export.export("export_toy_blm/only", "csv", str(tmp_path),
                  data_dir=data_dir)


@pytest.mark.skipif(not SAMPLES.is_dir(),
                    reason=f"published BLM samples not found at {SAMPLES}")
def test_published_release_round_trips(tmp_path):
  """Real data (raw labels, chunks, repeated candidates) through the CLI."""
  from absl import flags
  name = "blm_published/agreement_fr_type_I"
  argv = ["export", f"--dataset={name}", "--format=lm_eval",
          f"--out={tmp_path / 'out'}", f"--data_dir={tmp_path / 'tfds'}",
          f"--manual_dir={SAMPLES}"]
  fv = flags.FlagValues()
  export_cli.define_flags(fv)
  fv(argv)
  written = export_cli.run(fv)
  assert written["yaml"].endswith("blm_published_agreement_fr_type_i.yaml")
  for split in data.split_names(name, str(tmp_path / "tfds")):
    want = data.load_instances(name, split, str(tmp_path / "tfds"))
    got = export.read_jsonl(str(tmp_path / "out" / f"{split}.jsonl"))
    assert got == want and any(i.context[0].chunks for i in got)


def _cli(*argv):
  from absl import flags
  fv = flags.FlagValues()
  export_cli.define_flags(fv)
  fv(["export", *argv])
  return export_cli.run(fv)


def test_an_unknown_split_and_no_manual_dir_are_one_line(tmp_path):
  from tests import release_fixtures
  release = tmp_path / "release"
  release_fixtures.write_release(str(release / "all.tsv"),
                                 release_fixtures.release_rows(30))
  with pytest.raises(SystemExit) as e:
    _cli("--dataset=blm_published/folder", f"--manual_dir={release}",
         f"--data_dir={tmp_path / 'tfds'}", f"--out={tmp_path / 'o'}",
         "--split=nosuch")
  assert str(e.value) == ("error: dataset 'blm_published/folder' has no "
                          "split(s) ['nosuch']; it has ['full', 'test', "
                          "'train']")
  with pytest.raises(SystemExit) as e:
    _cli("--dataset=blm_jsonl/folder", f"--data_dir={tmp_path / 'j'}",
         f"--out={tmp_path / 'o'}")
  assert str(e.value).startswith("error: dataset blm_jsonl/folder: Manual "
                                 "directory ") and "\n" not in str(e.value)
  assert "--manual_dir" in str(e.value)
  assert not (tmp_path / "o").exists()
