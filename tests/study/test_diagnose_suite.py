"""`reproduce --suite=diagnose`: which designs it runs, its plan, and the
ladder end to end on a tiny setting (a toy BLM with attributes, the tiny
test BERT, every layer) writing each design's diagnose.json and the
suite's record."""

import json
import os
import types

import pytest

import numpy as np

from blm_jax.analysis import attribute_probes, diagnose
from blm_jax.cli import config_files
from blm_jax.cli import reproduce as reproduce_cli
from blm_jax.data import input_pipeline
from blm_jax.study import diagnose_suite, reproduce, suites
from data_builders.common import attributes
from tests import ROOT, tiny_checkpoints
from tests.results.test_gold_ceiling import _seq_instances

CONFIGS = os.path.join(ROOT, "configs")
REGISTRY = ("spray_load", "spray_load_ctx", "spray_load_seq",
            "spray_load_seq_rules", "spray_load_seq_extrap", "cos_en_seq",
            "agreement_ro_seq_rules", "sequence_of_tense",
            "sequence_of_tense_ctx")


def test_the_suite_is_every_seq_design_and_regime():
  assert diagnose_suite.designs(REGISTRY) == [
      "spray_load_seq", "spray_load_seq_rules", "spray_load_seq_extrap",
      "cos_en_seq", "agreement_ro_seq_rules"]
  every = diagnose_suite.designs(reproduce.known_datasets()[0])
  assert {"agreement_fr_seq", "od_it_seq_rules", "cos_it_seq"} <= set(every)
  assert all("_seq" in d for d in every)


def test_diagnose_runs_alone():
  with pytest.raises(suites.SuiteError, match=r"^--suite=diagnose runs the "
                     "diagnosis ladder, no grids: give it alone"):
    suites.grids("diagnose,paper000", ("cos_en",))


def _opts(tmp_path, **kw):
  base = dict(suite="diagnose", encoder="", encoder_batch_size=None,
              shard="", grids=[], out=str(tmp_path / "out"), variant="cpu",
              seeds=["0"], configs_dir=CONFIGS,
              seed_follows_grid=True, report_only=False, plan_only=True)
  base.update(kw)
  return types.SimpleNamespace(**base)


def _config_of(tmp_path, **kw):
  """Each design's config as reproduce's command line makes it."""
  opts = _opts(tmp_path, **kw)
  options = reproduce.options_of(opts, config_files.loader(opts.configs_dir))
  return lambda grid: reproduce.grid_config(grid, options)


def test_plan_only_lists_every_design_and_runs_nothing(tmp_path):
  lines = []
  reproduce_cli.run_diagnose_suite(_opts(tmp_path), REGISTRY,
                                   _config_of(tmp_path), echo=lines.append)
  (text,) = lines
  assert text.splitlines()[0] == (
      "plan: the diagnosis ladder on 5 designs (lexical type I, every "
      "layer), 0 done, 5 to run")
  assert "  spray_load_seq_extrap/diagnose" in text
  assert not (tmp_path / "out").exists()
  with pytest.raises(suites.SuiteError, match="^--suite=diagnose runs "
                     "design by design and resumes: drop --shard"):
    reproduce_cli.run_diagnose_suite(_opts(tmp_path, shard="0/2"),
                                     REGISTRY, _config_of(tmp_path))


@pytest.mark.slow
def test_the_ladder_runs_end_to_end_and_writes_its_records(tmp_path):
  bert = tiny_checkpoints.write_bert(str(tmp_path / "bert"))
  opts = _opts(tmp_path, encoder=bert)
  options = reproduce.Options(config_files.loader(opts.configs_dir), "cpu",
                              (0,), True,
                              suites.parse_encoder(bert))
  out = str(tmp_path / "out")
  entries = diagnose_suite.entries_of(
      ["spray_load_seq"], lambda g: reproduce.grid_config(g, options), out)
  calls = []

  def toy_ladder(config, folder):
    """The real ladder on a few hundred spray/load _seq instances (the
    generator's patterns) in place of the built data, each layer's vectors
    the one-hot attributes plus noise growing with the layer."""
    calls.append(folder)
    parts = {("I", "train"): _seq_instances(60, 0),
             ("I", "dev"): _seq_instances(10, 1),
             ("I", "test"): _seq_instances(30, 2)}
    data = input_pipeline.from_parts(
        parts, lambda s: np.zeros((len(s), 1), np.float32),
        name="blm_spray_load/seq_type_{}")
    splits = {"train": parts["I", "train"], "test": parts["I", "test"]}
    one_hot = attributes.one_hot(data.table.attributes,
                                 data.table.attribute_sizes)
    rng = np.random.default_rng(0)

    def embed_layers(sentences, layers):
      assert list(sentences) == list(data.table.sentences)
      return {k: one_hot + 0.3 * k * rng.normal(size=one_hot.shape)
              for k in layers}

    with config.unlocked():
      config.data.train_types = ("I",)
      config.data.test_types = ("I",)
      config.data.num_train = 60
    return diagnose.ladder(
        config, data, splits, "all", folder, embed_layers=embed_layers,
        settings=attribute_probes.ProbeSettings(steps=30))["result"]

  record = diagnose_suite.run(entries, out, "cmd", ladder_fn=toy_ladder,
                              echo=lambda line: None)
  per_design = json.loads(
      (tmp_path / "out" / "spray_load_seq" / "diagnose" /
       "diagnose.json").read_text())
  # Every hidden state of the 2-layer BERT, each probed.
  assert list(per_design["layers"]) == ["layer=0", "layer=1", "layer=2"]
  assert per_design["design"]["rules"]["n_test_rules"] > 0
  assert per_design["attributes"] == ["alternant", "form", "polarity",
                                      "violation"]
  assert per_design["gold_ceiling"]["reference"]["I"]["I"]["f1_mean"] > 0.5
  assert per_design["design"]["populations"][0]["n"] == 60
  assert per_design["data"]["builder_versions"] == {
      "blm_spray_load/seq_type_I": "1.3.0"}
  for name in ("diagnose.md", "diagnose.png"):
    assert (tmp_path / "out" / "spray_load_seq" / "diagnose" / name).exists()
  saved = json.loads((tmp_path / "out" / "diagnose_suite.json").read_text())
  assert saved == json.loads(json.dumps(record))
  assert saved["data"]["builder_versions"] == per_design["data"][
      "builder_versions"]
  (row,) = saved["tables"]["ladder"]["rows"]
  assert row[0] == "spray_load_seq" and row[8] == "layer=2"
  assert row[10].split(" (alone ")[0] in per_design["attributes"]
  assert "| spray_load_seq |" in (
      tmp_path / "out" / "diagnose_suite.md").read_text()
  # Run again: the design is done, read back, not run.
  again = diagnose_suite.entries_of(
      ["spray_load_seq"], lambda g: reproduce.grid_config(g, options), out)
  assert diagnose_suite.plan_lines(again)[0].endswith("1 done, 0 to run")
  diagnose_suite.run(again, out, "cmd", ladder_fn=toy_ladder,
                     echo=lambda line: None)
  assert len(calls) == 1
