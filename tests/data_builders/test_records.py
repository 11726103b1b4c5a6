"""The direct record serializer writes TFDS's bytes, and builds with it
write the same files as TFDS's generic path."""

import pathlib

import pytest
import tensorflow_datasets as tfds
from tensorflow_datasets.core import example_serializer

from data_builders.common import builder, instances, records, schema


def _generic(inst: schema.BLMInstance) -> bytes:
  """TFDS's generic path: encode, tf.train.Example, deterministic bytes."""
  feats = schema.features()
  ser = example_serializer.ExampleSerializer(feats.get_serialized_info())
  return ser.get_tf_example(feats.encode_example(inst.to_example())
                            ).SerializeToString(deterministic=True)


S = schema.Sentence
EDGE_CASES = [
    # Chunks, non-ASCII text, an empty pattern and subset.
    schema.BLMInstance(
        id="a", family="f", language="fr", lexical_type="I", subset="",
        context=(S("l'été où ça", "NP-sg", ("l'été", "où ça")), S("b .", "")),
        answers=(S("c .", "P"), S("d .", "Q", ("d", "."))), correct=1,
        labels=("OK", "ALT"), raw_labels=("ok", "")),
    # No context at all (empty sequences), a long id (two-byte lengths).
    schema.BLMInstance(
        id="x" * 300, family="toy", language="en", lexical_type="",
        subset="s", context=(), answers=(S("y" * 200, ""),), correct=0,
        labels=("OK",)),
    # Chunks that json escapes: quotes, backslashes, control characters.
    schema.BLMInstance(
        id="q", family="f", language="en", lexical_type="I", subset="",
        context=(S('say "hi" \\ now\t.', "P", ('say "hi"', "\\ now\t.")),),
        answers=(S("x\u2028y", "P", ("x\u2028y", "\x7f", "\x01")),),
        correct=0, labels=("OK",)),
    # Chunks given as a list (not hashable: not memoised).
    schema.BLMInstance(
        id="l", family="f", language="en", lexical_type="II", subset="",
        context=(S("a b", "P", ["a", "b"]),), answers=(S("a b", "P", ["a b"]),),
        correct=0, labels=("OK",)),
]


@pytest.mark.parametrize("inst", EDGE_CASES, ids=["chunks", "empty", "escaped", "list"])
def test_direct_bytes_equal_tfds_generic_bytes(inst):
  assert records.serialize(inst) == _generic(inst)


def test_a_large_correct_index_is_a_varint():
  answers = tuple(S(f"s{i}") for i in range(200))
  inst = schema.BLMInstance(
      id="big", family="f", language="en", lexical_type="I", subset="",
      context=(S("c"),), answers=answers, correct=199,
      labels=("L",) * 200)
  assert records.serialize(inst) == _generic(inst)


@pytest.mark.slow
@pytest.mark.parametrize("name", [
    "blm_agreement/en_mixed_type_II", "blm_spray_load/ALT-ATL_type_III",
    "blm_cos_od/od_it_seq_type_I", "blm_sequence_of_tense/type_I"])
def test_real_instances_of_each_family_serialize_as_tfds_does(name):
  b = tfds.builder(name, data_dir="/nonexistent-unused")
  generated = list(b.generate(b.builder_config))
  for inst in generated[:: max(1, len(generated) // 40)]:
    assert records.serialize(inst) == _generic(inst), inst.id


class ToyRecords(builder.GeneratedBLMBuilder):
  """Toy BLMs with chunks and empty contexts."""

  VERSION = tfds.core.Version("1.0.0")
  BUILDER_CONFIGS = [builder.GeneratedConfig(name="only", seed=1)]

  def generate(self, config):
    out = []
    for i in range(30):
      ctx = [S(f"s{i} c{j} é .", f"P{j}", ("a", f"b{j}") if j else ())
             for j in range(i % 3)]
      out.append(instances.make_instance(
          id=f"toy-{i:02d}", family="toy", language="en", lexical_type="I",
          subset="", context=ctx,
          candidates=[("OK", S(f"s{i} ok .", "P9")), ("NO", S(f"s{i} no ."))],
          correct_label="OK", seed=config.seed))
    return out


def _files(data_dir: pathlib.Path) -> dict:
  return {p.name: p.read_bytes()
          for p in sorted(data_dir.glob("toy_records/only/1.0.0/*array_record*"))}


def test_a_build_writes_the_same_files_on_either_path(tmp_path, monkeypatch):
  ToyRecords(data_dir=str(tmp_path / "direct"),
       file_format="array_record").download_and_prepare()
  monkeypatch.setattr(records, "DIRECT", False)
  ToyRecords(data_dir=str(tmp_path / "generic"),
       file_format="array_record").download_and_prepare()
  direct, generic = _files(tmp_path / "direct"), _files(tmp_path / "generic")
  assert len(direct) == 3 and direct == generic


def _tfds_decoded(data_dir, split):
  """The split's records as TFDS decodes them, as instances, by id."""
  from data_builders.common import loading
  b = loading.builder("toy_records/only", str(data_dir))
  source = b.as_data_source(split=split)
  return sorted((schema.BLMInstance.from_example(r)
                 for r in source.__getitems__(list(range(len(source))))),
                key=lambda x: x.id)


def test_records_read_back_as_tfds_decodes_them(tmp_path):
  from data_builders.common import loading
  ToyRecords(data_dir=str(tmp_path),
             file_format="array_record").download_and_prepare()
  b = loading.builder("toy_records/only", str(tmp_path))
  read = []
  for split in ("train", "dev", "test"):
    expected = _tfds_decoded(tmp_path, split)
    read += expected
    assert loading.load_instances("toy_records/only", split,
                                  str(tmp_path)) == expected
    parsed = loading._read_all(b, "toy_records/only", split)
    assert sorted((schema.BLMInstance.from_example(r) for r in parsed),
                  key=lambda x: x.id) == expected
  # The toy holds empty contexts and sentences with and without chunks.
  assert len(read) == 30 and any(not x.context for x in read)
  chunked = {bool(s.chunks) for x in read for s in x.context}
  assert chunked == {True, False}


@pytest.mark.parametrize("inst", EDGE_CASES[:3], ids=["chunks", "empty",
                                                      "escaped"])
def test_parse_inverts_serialize(inst):
  assert records.instance(records.serialize(inst)) == inst
  assert schema.BLMInstance.from_example(
      records.parse(records.serialize(inst))) == inst


def test_parse_refuses_what_is_not_a_record():
  from google.protobuf import message
  with pytest.raises(message.DecodeError):
    records.parse(records.serialize(EDGE_CASES[0])[:-3])
