"""benchmarks/data_build_bench.py: a build's stages add up to it, and both
serializers' builds are compared byte for byte."""
import importlib
import os
import sys

import pytest
import tensorflow_datasets as tfds

from data_builders.common import builder, instances, records, schema
from tests import ROOT

sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
bench = importlib.import_module("data_build_bench")


class BenchToy(builder.GeneratedBLMBuilder):
  """A toy generated family for the benchmark's tests."""

  VERSION = tfds.core.Version("1.0.0")
  BUILDER_CONFIGS = [builder.GeneratedConfig(name="only", seed=2)]

  def generate(self, config):
    S = schema.Sentence
    return [instances.make_instance(
        id=f"b-{i:02d}", family="toy", language="en", lexical_type="I",
        subset="", context=[S(f"c{i} {j} .", f"P{j}") for j in range(3)],
        candidates=[("OK", S(f"a{i} .", "P9")), ("NO", S(f"n{i} ."))],
        correct_label="OK", seed=config.seed) for i in range(40)]


def test_stages_add_up_and_both_paths_write_the_same_bytes(tmp_path):
  direct = bench.build_one("bench_toy/only", str(tmp_path / "a"))
  assert set(direct) == set(bench.STAGES) | {"total"}
  # Every stage's wrapper caught its calls (the wall clock: the toy's
  # stages take under the CPU clock's tick).
  for stage in ("generate", "splits", "serialize", "write"):
    assert direct[stage]["wall_s"] > 0, stage
  assert direct["rest"]["wall_s"] < direct["total"]["wall_s"]
  try:
    records.DIRECT = False
    bench.build_one("bench_toy/only", str(tmp_path / "b"))
  finally:
    records.DIRECT = True
  a = bench.digest("bench_toy/only", str(tmp_path / "a"))
  assert a == bench.digest("bench_toy/only", str(tmp_path / "b"))
  assert a != bench.digest("bench_toy/only", str(tmp_path / "missing"))


def test_config_names():
  assert bench.config_names("default") == list(bench.DEFAULT)
  assert bench.config_names("blm_a/x,blm_b/y") == ["blm_a/x", "blm_b/y"]
  names = bench.config_names("paper000")
  assert len(names) == 40 and names[-1] == "blm_chunks/agreement_ro"
