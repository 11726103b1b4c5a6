"""The sentence-level chunk builder (000 sec. 7) on a toy source and the
published French agreement sample."""

import collections
import pathlib

import pytest
import tensorflow_datasets as tfds

from data_builders.blm_chunks import derive
from data_builders.common import loading as data, schema
from data_builders.blm_chunks.blm_chunks_dataset_builder import (
    BlmChunksConfig, config_for_source)
from data_builders.common import builder, instances

SPLITS = ("train", "dev", "test")
SHARED = pathlib.Path(__file__).resolve().parents[2] / ".." / "shared"
PUBLISHED = SHARED / "blm-published-samples"

# Pattern strings shaped like the agreement ones: 14 patterns.
PATTERNS = [f"NP-{n} " + pp + f" VP-{n}" for n in ("sg", "pl")
            for pp in ("", "PP1-sg", "PP1-pl", "PP1-sg PP2-sg", "PP1-sg PP2-pl",
                       "PP1-pl PP2-sg", "PP1-pl PP2-pl")]
PATTERNS = [" ".join(p.split()) for p in PATTERNS]


def _toy_source(n_instances, n_patterns, conflict=False):
  """Instances whose 7 context sentences cycle through the patterns; odd
  instances repeat a sentence of the previous one (as type I data does)."""
  out = []
  for i in range(n_instances):
    ctx = []
    for j in range(7):
      p = PATTERNS[(i + j) % n_patterns]
      text = f"toy {i} {j} ." if not (i % 2 and j == 0) else f"toy {i - 1} 1 ."
      ctx.append(schema.Sentence(text, p, (f"toy {i}", f"{j} .")))
    if conflict and i == 5:
      ctx[3] = schema.Sentence("toy 2 2 .", PATTERNS[0])
    out.append(instances.make_instance(
        id=f"src-{i:04d}", family="toy", language="xx", lexical_type="I",
        subset="toy", context=ctx,
        candidates=[("OK", schema.Sentence(f"a{i}", "A")),
                    ("KO", schema.Sentence(f"b{i}", "B"))],
        correct_label="OK", seed=0))
  return out


class ToyChunkSource(builder.GeneratedBLMBuilder):
  """A toy BLM source for the chunk builder's tests."""

  VERSION = tfds.core.Version("1.0.0")
  BUILDER_CONFIGS = [
      builder.GeneratedConfig(name="many", seed=1),  # 4550 sentences, 14 pats
      builder.GeneratedConfig(name="small", seed=1),  # 650, scaled down
      builder.GeneratedConfig(name="seven", seed=1),  # only 7 patterns
      builder.GeneratedConfig(name="conflict", seed=1),
  ]

  def generate(self, config):
    return {"many": lambda: _toy_source(700, 14),
            "small": lambda: _toy_source(100, 14),
            "seven": lambda: _toy_source(100, 7),
            "conflict": lambda: _toy_source(100, 14, conflict=True),
           }[config.name]()


class ToyManualSource(builder.GeneratedBLMBuilder):
  """A toy source that, like blm_published, reads its manual_dir."""

  VERSION = tfds.core.Version("1.0.0")
  BUILDER_CONFIGS = [builder.GeneratedConfig(name="only", seed=1)]
  MANUAL_DOWNLOAD_INSTRUCTIONS = "Put n_instances.txt in manual_dir."

  def _split_generators(self, dl_manager):
    n = int((dl_manager.manual_dir / "n_instances.txt").read_text())
    self._n_instances = n
    return super()._split_generators(dl_manager)

  def generate(self, config):
    return _toy_source(self._n_instances, 14)


def _build(data_dir, source, **kw):
  cfg = BlmChunksConfig(name=kw.pop("name", "toy"), source=source, **kw)
  b = tfds.builder("blm_chunks", config=cfg, data_dir=str(data_dir),
                   file_format="array_record")
  b.download_and_prepare()
  return b, {s: data.load_instances(f"blm_chunks/{cfg.name}", s,
                                    str(data_dir)) for s in SPLITS}


def _check_instances(splits, n_negatives=7, negatives="minimal",
                     view=derive.ALL):
  """The structural promises of the data, for every instance."""
  all_patterns = {x.context[0].pattern for v in splits.values() for x in v}
  texts = {}
  for split, insts in splits.items():
    texts[split] = set()
    for x in insts:
      assert x.family == "sentence_chunks"
      assert len(x.context) == 1 and len(x.answers) == n_negatives + 1
      assert x.labels.count("POS") == 1 and x.labels[x.correct] == "POS"
      assert x.labels.count("NEG") == n_negatives
      anchor, pos = x.context[0], x.correct_answer
      assert pos.pattern == anchor.pattern and pos.text != anchor.text
      neg = [a.pattern for a, lab in zip(x.answers, x.labels) if lab == "NEG"]
      neg_texts = [a.text for a, lab in zip(x.answers, x.labels) if lab == "NEG"]
      assert len(set(neg_texts)) == n_negatives and anchor.pattern not in neg
      if negatives == "uniform":
        assert len(set(neg)) == n_negatives
      else:  # The nearest patterns, each once before any repeats.
        near = derive.nearest_patterns(anchor.pattern, sorted(all_patterns),
                                       view)
        # A small split may run out of the nearest patterns' sentences:
        # only then may a farther pattern fill in, after every sentence of
        # the nearest ones is used.
        if not set(neg) <= set(near):
          in_split = collections.Counter(y.context[0].pattern for y in insts)
          for q in near:
            assert neg.count(q) == in_split[q], (anchor.pattern, neg, near)
        else:
          counts = collections.Counter(neg)
          assert len(counts) == min(len(near), n_negatives)
          assert max(counts.values()) - min(counts.values()) <= 1
      texts[split] |= {anchor.text} | {a.text for a in x.answers}
  for a in SPLITS:
    for b in SPLITS:
      if a < b:
        assert not texts[a] & texts[b], (a, b)  # No sentence in two splits.
  positions = collections.Counter(x.correct for v in splits.values() for x in v)
  assert len(positions) == n_negatives + 1  # The positive is not always first.


@pytest.mark.slow
def test_paper_sizes_pattern_balance_and_structure(tmp_path):
  b, splits = _build(tmp_path, "toy_chunk_source/many", seed=5,
                     view="agreement")
  assert {s: len(v) for s, v in splits.items()} == derive.PAPER_SPLIT_SIZES
  _check_instances(splits, view=derive.AGREEMENT)
  for x in splits["test"]:  # Minimal: one chunk attribute or presence.
    for a, lab in zip(x.answers, x.labels):
      if lab == "NEG":
        assert derive.distance(x.context[0].pattern, a.pattern,
                               derive.AGREEMENT) == 1
  # Uniform over the 14 patterns: 286 each, 184/45/57 per split.
  for split, per_pattern in (("train", 184), ("dev", 45), ("test", 57)):
    counts = collections.Counter(x.context[0].pattern for x in splits[split])
    assert set(counts.values()) == {per_pattern}, split
    assert len(counts) == 14
  x = splits["train"][0]
  assert x.subset == "toy_chunk_source/many" and x.language == "xx"
  assert x.lexical_type == "I" and x.context[0].chunks  # Chunks carried over.
  anchors = [x.context[0].text for v in splits.values() for x in v]
  assert len(set(anchors)) == len(anchors) == 4004


@pytest.mark.slow
def test_scaled_down_when_the_source_is_small(tmp_path, caplog):
  caplog.set_level("INFO")
  _, splits = _build(tmp_path, "toy_chunk_source/small")
  # 100 instances x 7 context sentences, 50 repeated: 650 distinct.
  sizes = {s: len(v) for s, v in splits.items()}
  assert sizes == derive.scaled_split_sizes(650, derive.PAPER_SPLIT_SIZES)
  assert sizes == {"train": 418, "dev": 102, "test": 130}
  assert "has only 650 usable sentences (< 4004): splits scaled down to " \
      "train=418, dev=102, test=130" in caplog.text
  _check_instances(splits)


@pytest.mark.slow
def test_rebuild_is_byte_identical_and_seed_matters(tmp_path):
  def record_bytes(d, seed):
    b, _ = _build(tmp_path / d, "toy_chunk_source/small", seed=seed,
                  source_data_dir=str(tmp_path / "source"))
    files = sorted(pathlib.Path(b.data_dir).glob("*array_record*"))
    assert files
    return [p.read_bytes() for p in files]

  first = record_bytes("a", 0)
  assert record_bytes("b", 0) == first
  assert record_bytes("c", 1) != first


@pytest.mark.slow
def test_seven_patterns_minimal_and_uniform_negatives(tmp_path):
  # Minimal negatives may repeat a pattern: 7 of them from 7 patterns.
  _, splits = _build(tmp_path / "a", "toy_chunk_source/seven")
  _check_instances(splits)
  _, splits = _build(tmp_path / "b", "toy_chunk_source/seven",
                     num_negatives=6, negatives="uniform")
  _check_instances(splits, n_negatives=6, negatives="uniform")


@pytest.mark.slow
def test_too_few_patterns_is_an_error(tmp_path):
  with pytest.raises(ValueError, match=(
      r"source 'toy_chunk_source/seven' has 7 usable sentence pattern\(s\) "
      r"\(of 7 found, each needing at least 6 distinct context sentences\), "
      r"but 7 negatives of distinct other patterns need at least 8")):
    _build(tmp_path, "toy_chunk_source/seven", negatives="uniform")
  # Nothing half-written that a later read would pick up.
  assert not tfds.builder(
      "blm_chunks", config=BlmChunksConfig(name="toy", source="x"),
      data_dir=str(tmp_path)).is_prepared()


@pytest.mark.slow
@pytest.mark.parametrize("source,message", [
    ("no_such_builder/x",
     r"blm_chunks/toy: unknown source dataset 'no_such_builder/x' \(project "
     r"builders: .*blm_chunks"),
    ("toy_chunk_source/nope",
     r"blm_chunks/toy: unknown source dataset 'toy_chunk_source/nope'"),
    ("", r"blm_chunks/toy: the config names no source dataset"),
])
def test_unknown_source_is_an_error(tmp_path, source, message):
  with pytest.raises(ValueError, match=message):
    _build(tmp_path, source)


@pytest.mark.slow
def test_manual_dir_reaches_the_source(tmp_path):
  with pytest.raises(ValueError, match=(
      r"toy_manual_source/only: Manual directory .* does not exist or is "
      r"empty; it must hold the released BLM files")):
    _build(tmp_path / "a", "toy_manual_source/only")
  manual = tmp_path / "release"
  manual.mkdir()
  (manual / "n_instances.txt").write_text("60")
  _, splits = _build(tmp_path / "b", "toy_manual_source/only",
                     source_manual_dir=str(manual))
  # 60 instances x 7, 30 repeated: 390 sentences.
  assert sum(len(v) for v in splits.values()) == 390
  # Or the manual_dir given to the blm_chunks build itself.
  cfg = BlmChunksConfig(name="toy2", source="toy_manual_source/only")
  b = tfds.builder("blm_chunks", config=cfg, data_dir=str(tmp_path / "c"),
                   file_format="array_record")
  b.download_and_prepare(download_config=tfds.download.DownloadConfig(
      manual_dir=str(manual)))
  assert b.info.splits["train"].num_examples == len(splits["train"])


@pytest.mark.slow
def test_sentence_with_two_patterns_is_an_error(tmp_path):
  with pytest.raises(ValueError, match=(
      r"source 'toy_chunk_source/conflict': sentence 'toy 2 2 \.' has pattern "
      r"'.*' in .*src-0002 \(context sentence 3\) but pattern 'NP-sg VP-sg' "
      r"in .*/src-0005 "
      r"\(context sentence 4\)")):
    _build(tmp_path, "toy_chunk_source/conflict")


@pytest.mark.slow
def test_config_for_source_names_and_reads_back(tmp_path):
  cfg = config_for_source("toy_chunk_source/small", seed=2)
  assert cfg.name == "from_toy_chunk_source__small_seed2"
  b = tfds.builder("blm_chunks", config=cfg, data_dir=str(tmp_path),
                   file_format="array_record")
  b.download_and_prepare()
  dev = data.load_instances(f"blm_chunks/{cfg.name}", "dev", str(tmp_path))
  assert len(dev) == 102


def test_uniform_quota_fills_evenly_up_to_supply():
  q = derive.uniform_quota({"a": 3, "b": 100, "c": 100, "d": 8}, 60, seed=0)
  assert q["a"] == 3 and q["d"] == 8 and {q["b"], q["c"]} == {24, 25}
  assert sum(q.values()) == 60
  assert derive.uniform_quota({"a": 5, "b": 5}, 10, 0) == {"a": 5, "b": 5}


def test_allocate_keeps_every_pattern_in_every_split():
  quota = {"p1": 6, "p2": 200, "p3": 200}
  sizes = derive.scaled_split_sizes(406, derive.PAPER_SPLIT_SIZES)
  counts = derive.allocate(quota, sizes)
  for s in sizes:
    assert sum(counts[s].values()) == sizes[s]
    assert min(counts[s].values()) >= 2
  for p in quota:
    assert sum(counts[s][p] for s in sizes) == quota[p]


@pytest.mark.slow
def test_published_french_agreement_sample(tmp_path, capsys):
  import data_builders
  if not PUBLISHED.is_dir():
    pytest.skip(f"published samples absent: {PUBLISHED}")
  if "blm_published" not in data_builders.BUILDER_PACKAGES:
    pytest.skip("the blm_published builder is not in data_builders yet")
  b = data.prepare("blm_chunks/published_agreement_fr_type_I", str(tmp_path),
                   manual_dir=str(PUBLISHED))
  splits = {s: data.load_instances("blm_chunks/published_agreement_fr_type_I",
                                   s, str(tmp_path)) for s in SPLITS}
  _check_instances(splits)
  sizes = {s: len(v) for s, v in splits.items()}
  patterns = {x.context[0].pattern for v in splits.values() for x in v}
  with capsys.disabled():
    print(f"\npublished agreement_fr type I -> blm_chunks: {sizes}, "
          f"{len(patterns)} patterns")
  # 21 patterns have >= 6 distinct context sentences, 672 sentences in all.
  assert len(patterns) == 21
  assert sizes == derive.scaled_split_sizes(672, derive.PAPER_SPLIT_SIZES)
  assert {x.language for v in splits.values() for x in v} == {"fr"}
  assert b.info.splits["train"].num_examples == sizes["train"]


# --- the paper's task -------------------------------------------------------

def test_distance_counts_one_change_per_chunk_attribute_or_presence():
  agr = derive.AGREEMENT
  assert derive.distance("NP-sg PP1-sg VP-sg", "NP-sg PP1-pl VP-sg") == 1
  assert derive.distance("NP-sg PP1-sg VP-sg", "NP-sg VP-sg") == 1
  assert derive.distance("NP-sg PP1-sg VP-sg",
                         "NP-sg PP1-sg PP2-pl VP-sg") == 1
  # The verb copies the subject's number: one change with the view.
  assert derive.distance("NP-sg PP1-sg VP-sg", "NP-pl PP1-sg VP-pl") == 2
  assert derive.distance("NP-sg PP1-sg VP-sg", "NP-pl PP1-sg VP-pl", agr) == 1
  # Another role in a position: remove one chunk, add another.
  assert derive.distance("NP-Agent V-act OBJ-Theme pNP",
                         "NP-Agent V-act OBJ-Theme byNP") == 2
  assert derive.view_pattern("Prefix NP-sg PP1-pl RC VP-sg", agr) == (
      "NP-sg PP1-pl VP-sg")


def _clause(s, lex):
  """The clause frame of an agreement sentence, from its chunks."""
  if s.chunks[0] in lex.prefixes:
    return "completive"
  return "relative" if set(s.chunks) & set(lex.relatives) else "main"


@pytest.fixture(scope="module")
def agreement_sources():
  from data_builders.blm_agreement import generate as agr
  return {lang: agr.generate(lang, ("main", "relative", "completive"), "I",
                             120, 0) for lang in ("en", "fr", "it", "ro")}


# 000 sec. 7: NP (PP1 (PP2)) VP, every chunk sg or pl, verb = subject.
PAPER_14 = {" ".join(f"{r}-{n}" for r, n in zip(roles, nums)) + f" VP-{nums[0]}"
            for k in (1, 2, 3) for roles in [("NP", "PP1", "PP2")[:k]]
            for nums in __import__("itertools").product(("sg", "pl"),
                                                        repeat=k)}


@pytest.mark.slow
@pytest.mark.parametrize("lang", ("en", "fr", "it", "ro"))
def test_agreement_chunks_are_the_papers_14_patterns(agreement_sources, lang):
  insts = agreement_sources[lang]
  by_pattern = derive.collect_sentences({"train": insts}, "agr",
                                        view=derive.AGREEMENT)
  assert len(PAPER_14) == 14 and set(by_pattern) == PAPER_14
  from data_builders.blm_agreement import lexicon as agr_lexicon
  lex = agr_lexicon.load(lang)
  for pat, sents in by_pattern.items():
    # The clause type is not in the pattern: every pattern has all three.
    assert {_clause(s.sentence, lex) for s in sents} == {
        "main", "relative", "completive"}, pat
    for s in sents:  # Shortened sentences are their chunks, in order.
      words = [c for c in s.sentence.chunks if c]
      assert " ".join(words[:-1]) + "." == s.sentence.text
      assert s.sentence.text[0].isupper()
  # NP VP sentences are the NP PP1 VP ones without their PP1.
  np_vp = {s.sentence.text for s in by_pattern["NP-sg VP-sg"]}
  example = {"en": "The key has been lost.", "fr": None, "it": None,
             "ro": None}[lang]
  if example:
    assert example in np_vp
  out = derive.derive({"train": insts}, source="agr", view=derive.AGREEMENT,
                      sizes={"train": 700, "dev": 140, "test": 140})
  _check_instances(out, view=derive.AGREEMENT)
  for x in out["test"]:
    for a, lab in zip(x.answers, x.labels):
      if lab == "NEG":  # One chunk number flipped or one PP added/removed.
        assert derive.distance(x.context[0].pattern, a.pattern,
                               derive.AGREEMENT) == 1


@pytest.mark.slow
def test_agreement_negatives_cannot_be_rejected_from_the_clause_frame(
    agreement_sources):
  # With the clause type in the pattern, most negatives had another clause
  # frame ("John thinks that", "that everyone talks about"): a cue that needs
  # no chunk structure. Now a negative shares the input's frame about as
  # often as the frames' shares predict (about 1/3), and never always.
  out = derive.derive({"train": agreement_sources["en"]}, source="agr",
                      view=derive.AGREEMENT,
                      sizes={"train": 700, "dev": 140, "test": 140})

  from data_builders.blm_agreement import lexicon as agr_lexicon
  lex = agr_lexicon.load("en")
  frame = lambda s: _clause(s, lex)
  same = total = 0
  for x in out["train"]:
    f = frame(x.context[0])
    for a, lab in zip(x.answers, x.labels):
      if lab == "NEG":
        total += 1
        same += frame(a) == f
  assert 0.2 < same / total < 0.5, same / total


def test_sent_vae_config_has_a_variant_per_chunk_dataset():
  from configs import sent_vae
  from data_builders.blm_chunks import blm_chunks_dataset_builder as chunks
  assert set(sent_vae.CHUNK_SOURCES) == set(chunks.SOURCES)
  names = {c.name for c in chunks.Builder.BUILDER_CONFIGS}
  for source in chunks.SOURCES:
    for name in (source, source + "_uniform"):
      assert name in names
      c = sent_vae.get_config(f"source={name}")
      assert c.data.name == f"blm_chunks/{name}"
  with pytest.raises(ValueError, match=r"unknown chunk source 'cos_de'"):
    sent_vae.get_config("source=cos_de")


_SERIALIZE = """
import hashlib, sys
from data_builders.common import builder, schema
from tensorflow_datasets.core import example_serializer
inst = schema.BLMInstance(
    id="x", family="toy", language="xx", lexical_type="I", subset="toy",
    context=(schema.Sentence("a b .", "NP-sg VP-sg", ("a", "b", ".")),),
    answers=(schema.Sentence("c .", "P"), schema.Sentence("d .", "Q")),
    correct=0, labels=("POS", "NEG"))
feats = schema.features()
ser = example_serializer.ExampleSerializer(feats.get_serialized_info())
with builder.deterministic_serialization():
  data = ser.serialize_example(feats.encode_example(inst.to_example()))
print(hashlib.sha256(data).hexdigest())
"""


@pytest.mark.slow
def test_records_serialize_identically_in_every_process():
  # upb writes a tf.Example's feature map in a per-process order: without
  # `deterministic_serialization` two builds hold the same records in
  # different bytes.
  import os
  import subprocess
  import sys
  env = dict(os.environ, PYTHONPATH=str(pathlib.Path(__file__).parents[2]))
  digests = {subprocess.run([sys.executable, "-c", _SERIALIZE], env=env,
                            capture_output=True, text=True, check=True
                            ).stdout.strip().splitlines()[-1]
             for _ in range(3)}
  assert len(digests) == 1, digests
