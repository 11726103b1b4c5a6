"""A BLM instance's record bytes, written directly for the fixed schema.

TFDS's generic path encodes each example feature by feature
(`FeaturesDict.encode_example`: numpy arrays per sequence), then builds a
tf.train.Example through `ExampleSerializer` (ragged-field checks, numpy
again, one proto per feature) and serializes it: most of a build's time
after generation. The BLM schema (`schema.features()`) is fixed: 5 texts, 9
text sequences and one int32 scalar, so `serialize` writes the protobuf wire
format of that Example at once, the same bytes as TFDS's path serialized
with `deterministic=True` (map entries sorted by key), which
tests/data_builders/test_records.py checks record by record.

`DIRECT` off makes the builders take TFDS's generic path again (the
benchmark's `--generic_serializer` and the byte-identity tests compare the
two).
"""

from __future__ import annotations

from data_builders.common import schema

# Builders write `serialize`'s bytes (True) or TFDS's generic path (False).
DIRECT = True

_TEXTS = ("family", "id", "language", "lexical_type", "subset")
_SEQUENCES = ("answer_chunks", "answer_patterns", "answers", "context",
              "context_chunks", "context_patterns", "labels", "raw_labels")
# The order upb's deterministic serialization writes the feature map in:
# bytewise, except that a key comes after the keys it is a prefix of
# ("context" after "context_patterns").
_ORDER = tuple(sorted(_TEXTS + _SEQUENCES + ("correct",),
                      key=lambda k: k.encode("ascii") + b"\xff"))
_KEYS = {k: k.encode("ascii") for k in _ORDER}


def _varint(n: int) -> bytes:
  out = bytearray()
  while n > 0x7F:
    out.append((n & 0x7F) | 0x80)
    n >>= 7
  out.append(n)
  return bytes(out)


def _field(tag: int, payload: bytes) -> bytes:
  """A length-delimited field: `tag` is (field number << 3) | 2."""
  return bytes((tag,)) + _varint(len(payload)) + payload


def _bytes_feature(values) -> bytes:
  """A Feature holding a BytesList (Feature.bytes_list = 1, value = 1)."""
  return _field(0x0A, b"".join(_field(0x0A, v.encode("utf-8"))
                               for v in values))


def _int64_feature(value: int) -> bytes:
  """A Feature holding a one-value Int64List (Feature.int64_list = 3,
  packed value = 1; negative int64 as ten-byte two's complement)."""
  return _field(0x1A, _field(0x0A, _varint(value & 0xFFFFFFFFFFFFFFFF)))


def _entry(key: bytes, feature: bytes) -> bytes:
  """A map<string, Feature> entry (key = 1, value = 2) of Features.feature."""
  return _field(0x0A, _field(0x0A, key) + _field(0x12, feature))


def serialize(inst: schema.BLMInstance) -> bytes:
  """The record TFDS writes for `inst.to_example()` (deterministic order)."""
  chunks = schema._chunks_to_str
  features = {
      "family": (inst.family,), "id": (inst.id,),
      "language": (inst.language,), "lexical_type": (inst.lexical_type,),
      "subset": (inst.subset,),
      "context": [s.text for s in inst.context],
      "context_patterns": [s.pattern for s in inst.context],
      "context_chunks": [chunks(s.chunks) for s in inst.context],
      "answers": [s.text for s in inst.answers],
      "answer_patterns": [s.pattern for s in inst.answers],
      "answer_chunks": [chunks(s.chunks) for s in inst.answers],
      "labels": inst.labels, "raw_labels": inst.raw_labels}
  body = b"".join(
      _entry(_KEYS[k], _int64_feature(inst.correct) if k == "correct"
             else _bytes_feature(features[k])) for k in _ORDER)
  # Example.features = 1, a Features message.
  return _field(0x0A, body)
