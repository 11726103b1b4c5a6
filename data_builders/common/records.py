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

import functools
import json


from data_builders.common import schema

# Builders write `serialize`'s bytes (True) or TFDS's generic path (False).
DIRECT = True

# What json.dumps(..., ensure_ascii=False) writes for one string.
_json_string = json.encoder.encode_basestring

_TEXTS = ("family", "id", "language", "lexical_type", "subset")
_SEQUENCES = ("answer_chunks", "answer_patterns", "answers", "context",
              "context_chunks", "context_patterns", "labels", "raw_labels")
# The order upb's deterministic serialization writes the feature map in:
# bytewise, except that a key comes after the keys it is a prefix of
# ("context" after "context_patterns").
_ORDER = tuple(sorted(_TEXTS + _SEQUENCES + ("correct",),
                      key=lambda k: k.encode("ascii") + b"\xff"))


def _varint(n: int) -> bytes:
  if n < 0x80:
    return _SMALL[n]
  out = bytearray()
  while n > 0x7F:
    out.append((n & 0x7F) | 0x80)
    n >>= 7
  out.append(n)
  return bytes(out)


_SMALL = tuple(bytes((i,)) for i in range(0x80))


def _field(tag: bytes, payload: bytes) -> bytes:
  """A length-delimited field: `tag` is the byte (field number << 3) | 2."""
  return tag + _varint(len(payload)) + payload


@functools.lru_cache(maxsize=1 << 16)
def _value(text: str) -> bytes:
  """One BytesList.value (= 1) entry; memoised: patterns, labels and many
  sentences recur across a config's records."""
  return _field(b"\x0a", text.encode("utf-8"))


def _bytes_feature(values) -> bytes:
  """A Feature holding a BytesList (Feature.bytes_list = 1)."""
  return _field(b"\x0a", b"".join([_value(v) for v in values]))


def _int64_feature(value: int) -> bytes:
  """A Feature holding a one-value Int64List (Feature.int64_list = 3,
  packed value = 1; negative int64 as ten-byte two's complement)."""
  return _field(b"\x1a", _field(b"\x0a",
                                _varint(value & 0xFFFFFFFFFFFFFFFF)))


# A map<string, Feature> entry of Features.feature: key = 1, value = 2; the
# key's part is the same in every record.
_KEY_FIELDS = {k: _field(b"\x0a", k.encode("ascii")) for k in _ORDER}


def _entry(key: str, feature: bytes) -> bytes:
  return _field(b"\x0a", _KEY_FIELDS[key] + _field(b"\x12", feature))


def _chunks_text(chunks) -> str:
  """`schema._chunks_to_str` (json.dumps of the list, ensure_ascii=False)
  without json's per-call set-up: its C string encoder on each chunk."""
  if not chunks:
    return ""
  try:
    return "[" + ", ".join(map(_json_string, chunks)) + "]"
  except TypeError:  # A chunk that is not a string: json's own way.
    return schema._chunks_to_str(chunks)


@functools.lru_cache(maxsize=1 << 16)
def _cached_sentence_values(s: schema.Sentence) -> tuple[bytes, bytes, bytes]:
  return _value(s.text), _value(s.pattern), _value(_chunks_text(s.chunks))


def _sentence_values(s: schema.Sentence) -> tuple[bytes, bytes, bytes]:
  """The BytesList entries of a sentence's text, pattern and chunk list;
  memoised: generators reuse a sentence across instances."""
  try:
    return _cached_sentence_values(s)
  except TypeError:  # Chunks given as a list: not hashable.
    return _cached_sentence_values.__wrapped__(s)


def _list(values) -> bytes:
  return _field(b"\x0a", b"".join(values))


def serialize(inst: schema.BLMInstance) -> bytes:
  """The record TFDS writes for `inst.to_example()` (deterministic order)."""
  ctx = [_sentence_values(s) for s in inst.context]
  ans = [_sentence_values(s) for s in inst.answers]
  features = {
      "answer_chunks": _list([v[2] for v in ans]),
      "answer_patterns": _list([v[1] for v in ans]),
      "answers": _list([v[0] for v in ans]),
      "context_chunks": _list([v[2] for v in ctx]),
      "context_patterns": _list([v[1] for v in ctx]),
      "context": _list([v[0] for v in ctx]),
      "correct": _int64_feature(inst.correct),
      "family": _bytes_feature((inst.family,)),
      "id": _bytes_feature((inst.id,)),
      "labels": _bytes_feature(inst.labels),
      "language": _bytes_feature((inst.language,)),
      "lexical_type": _bytes_feature((inst.lexical_type,)),
      "raw_labels": _bytes_feature(inst.raw_labels),
      "subset": _bytes_feature((inst.subset,))}
  # Example.features = 1, a Features message.
  return _field(b"\x0a", b"".join([_entry(k, features[k]) for k in _ORDER]))
