"""The generated-builder base: schema round trip, splits, no leakage, rebuilds."""

import pathlib

import pytest
import tensorflow_datasets as tfds

from blm_jax.data.sentence_table import build_sentence_table
from data_builders.common import builder, instances, loading as data, schema

pytestmark = pytest.mark.slow


def _toy(config):
  out = []
  for i in range(50):
    ctx = [schema.Sentence(f"s{i} c{j} .", f"P{j}", ("a", f"b{j}"))
           for j in range(3 + i % 2)]
    cands = [("CORRECT", schema.Sentence(f"s{i} ok .", "P9")),
             ("WRONG", schema.Sentence(f"s{i} bad .", "P8"))]
    out.append(instances.make_instance(
        id=f"toy-{i:03d}", family="toy", language="en", lexical_type="I",
        subset=config.name, context=ctx, candidates=cands,
        correct_label="CORRECT", seed=config.seed))
  return out


class ToyBlm(builder.GeneratedBLMBuilder):
  """A toy generated BLM family for tests."""

  VERSION = tfds.core.Version("1.0.0")
  BUILDER_CONFIGS = [builder.GeneratedConfig(name="only", seed=3)]

  def generate(self, config):
    return _toy(config)


def test_build_and_read_back(tmp_path):
  b = ToyBlm(data_dir=str(tmp_path), file_format="array_record")
  b.download_and_prepare()
  splits = {s: data.load_instances("toy_blm/only", s, str(tmp_path))
            for s in ("train", "dev", "test")}
  assert {k: len(v) for k, v in splits.items()} == {
      "train": 36, "dev": 9, "test": 5}
  everything = {x.id: x for x in _toy(b.builder_config)}
  for insts in splits.values():
    for x in insts:
      assert x == everything[x.id]  # Full round trip, chunks included.
  contexts = [{tuple(s.text for s in x.context) for x in v}
              for v in splits.values()]
  assert not (contexts[0] & contexts[1] or contexts[0] & contexts[2]
              or contexts[1] & contexts[2])
  # Correct answer positions are spread, not always first.
  positions = {x.correct for v in splits.values() for x in v}
  assert positions == {0, 1}
  table = build_sentence_table(splits["train"])
  assert table.context.shape == (36, 4)
  assert table.context_mask.sum() == sum(len(x.context) for x in splits["train"])


def test_rebuild_is_byte_identical(tmp_path):
  digests = []
  for d in ("a", "b"):
    b = ToyBlm(data_dir=str(tmp_path / d), file_format="array_record")
    b.download_and_prepare()
    files = sorted(p for p in pathlib.Path(b.data_dir).glob("*array_record*"))
    digests.append([p.read_bytes() for p in files])
  assert digests[0] == digests[1] and digests[0]
