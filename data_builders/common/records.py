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

`parse` reads a record back into the example dict (what the runs, the
chunk builder and collect_vocab read), without TFDS's generic decoding.

`DIRECT` off makes the builders take TFDS's generic path again (the
benchmark's `--generic_serializer` and the byte-identity tests compare the
two).
"""

from __future__ import annotations

import functools
import json

from tensorflow_datasets.proto import tf_example_pb2

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
  n = len(payload)
  return tag + (_SMALL[n] if n < 0x80 else _varint(n)) + payload


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


def _list_entry(key: str, values) -> bytes:
  """The map entry of a text sequence feature from its BytesList entries."""
  return _entry(key, _field(b"\x0a", b"".join(values)))


@functools.lru_cache(maxsize=1 << 12)
def _texts_entry(key: str, texts: tuple) -> bytes:
  """The map entry of a text feature that recurs (family, language, type,
  subset, the label tuples): the same bytes in most records of a config."""
  return _entry(key, _bytes_feature(texts))


def serialize(inst: schema.BLMInstance) -> bytes:
  """The record TFDS writes for `inst.to_example()` (deterministic order)."""
  ctx = [_sentence_values(s) for s in inst.context]
  ans = [_sentence_values(s) for s in inst.answers]
  entries = {
      "answer_chunks": _list_entry("answer_chunks", [v[2] for v in ans]),
      "answer_patterns": _list_entry("answer_patterns", [v[1] for v in ans]),
      "answers": _list_entry("answers", [v[0] for v in ans]),
      "context_chunks": _list_entry("context_chunks", [v[2] for v in ctx]),
      "context_patterns": _list_entry("context_patterns",
                                      [v[1] for v in ctx]),
      "context": _list_entry("context", [v[0] for v in ctx]),
      "correct": _entry("correct", _int64_feature(inst.correct)),
      "family": _texts_entry("family", (inst.family,)),
      "id": _entry("id", _field(b"\x0a", _field(
          b"\x0a", inst.id.encode("utf-8")))),
      "labels": _texts_entry("labels", tuple(inst.labels)),
      "language": _texts_entry("language", (inst.language,)),
      "lexical_type": _texts_entry("lexical_type", (inst.lexical_type,)),
      "raw_labels": _texts_entry("raw_labels", tuple(inst.raw_labels)),
      "subset": _texts_entry("subset", (inst.subset,))}
  # Example.features = 1, a Features message.
  return _field(b"\x0a", b"".join([entries[k] for k in _ORDER]))


def is_blm_schema(features) -> bool:
  """Whether a built dataset's FeaturesDict is the BLM schema (`parse`
  reads its records)."""
  try:
    return set(features.keys()) == set(_ORDER)
  except AttributeError:
    return False


def parse(record: bytes) -> dict:
  """A record's example dict in `to_example`'s form (texts as str): what
  TFDS's decoding gives, a hundred times sooner (upb parses the proto; no
  per-feature numpy). Raises on a record that is not one."""
  feature = tf_example_pb2.Example.FromString(record).features.feature
  out = {k: feature[k].bytes_list.value[0].decode("utf-8") for k in _TEXTS}
  for k in _SEQUENCES:
    out[k] = [v.decode("utf-8") for v in feature[k].bytes_list.value]
  out["correct"] = int(feature["correct"].int64_list.value[0])
  return out


@functools.lru_cache(maxsize=1 << 16)
def _sentence(text: bytes, pattern: bytes, chunks: bytes) -> schema.Sentence:
  """One Sentence per distinct (text, pattern, chunks) a read meets:
  instances share their sentences (frozen, so sharing is safe)."""
  return schema.Sentence(text.decode("utf-8"), pattern.decode("utf-8"),
                         schema._chunks_from_str(chunks.decode("utf-8")))


def instance(record: bytes) -> schema.BLMInstance:
  """`schema.BLMInstance.from_example(parse(record))`, without the dict."""
  f = tf_example_pb2.Example.FromString(record).features.feature
  text = lambda k: f[k].bytes_list.value[0].decode("utf-8")
  values = lambda k: f[k].bytes_list.value

  def sentences(texts, patterns, chunks):
    texts, patterns, chunks = values(texts), values(patterns), values(chunks)
    return tuple(_sentence(t, p, c) for t, p, c in zip(texts, patterns,
                                                        chunks))

  return schema.BLMInstance(
      id=text("id"), family=text("family"), language=text("language"),
      lexical_type=text("lexical_type"), subset=text("subset"),
      context=sentences("context", "context_patterns", "context_chunks"),
      answers=sentences("answers", "answer_patterns", "answer_chunks"),
      correct=int(f["correct"].int64_list.value[0]),
      labels=tuple(v.decode("utf-8") for v in values("labels")),
      raw_labels=tuple(v.decode("utf-8") for v in values("raw_labels")))
