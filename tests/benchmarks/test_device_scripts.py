"""The device-run helpers (benchmarks/device): the model's weights travel
compressed without loss, and the rest step deals every pending grid once,
each dataset's grids to one process."""
import importlib
import os
import sys

import numpy as np
import pytest

from tests import ROOT

DEVICE = os.path.join(ROOT, "benchmarks", "device")
sys.path.insert(0, DEVICE)
rebuild_minilm = importlib.import_module("rebuild_minilm")
collect_vocab = importlib.import_module("collect_vocab")


@pytest.mark.parametrize("n", [0, 1, 7, 4096, 40001])
def test_shuffled_weights_round_trip(n):
  rng = np.random.default_rng(n)
  data = rng.standard_normal(n // 4 + 1).astype(np.float32).tobytes()[:n]
  packed = rebuild_minilm.shuffle_compress(data)
  assert rebuild_minilm.shuffle_decompress(packed) == data
  if n >= 4096:  # float32 weights' exponent bytes compress
    assert len(packed) < 0.95 * n


def test_shuffled_weights_refuse_another_file():
  with pytest.raises(ValueError, match="not a shuffled weights file"):
    rebuild_minilm.shuffle_decompress(b"PK\x03\x04" + bytes(20))


def test_rest_plan_deals_each_dataset_to_one_process(tmp_path, monkeypatch):
  monkeypatch.setattr(collect_vocab, "KEPT", str(tmp_path))  # none kept
  lines = collect_vocab.rest_plan(4)
  grids = [g for line in lines for g in line.split(",")]
  assert len(grids) == len(set(grids)) == 54  # 27 _seq + 27 _ctx
  where = {}
  for i, line in enumerate(lines):
    for g in line.split(","):
      assert where.setdefault(g.split("/")[0], i) == i, g
  assert all(line.split(",")[0].split("/")[0].endswith("_seq")
             for line in lines)
  # A kept record takes its grid out of the plan.
  (tmp_path / "cos_en_seq").mkdir()
  src = os.path.join(collect_vocab.ROOT, "studies", "records", "paper_rest",
                     "cos_en_seq")
  for name in ("ffnn.json", "ffnn.predictions.npz"):
    (tmp_path / "cos_en_seq" / name).write_bytes(
        open(os.path.join(src, name), "rb").read())
  after = [g for line in collect_vocab.rest_plan(4) for g in line.split(",")]
  assert set(grids) - set(after) == {"cos_en_seq/ffnn"}


def test_rest_plan_of_another_suite_keeps_a_chunk_grid_with_its_source(
    tmp_path, monkeypatch):
  monkeypatch.setattr(collect_vocab, "KEPT", str(tmp_path))
  monkeypatch.setenv("REST_SUITE", "paper000")
  lines = [line.split(",") for line in collect_vocab.rest_plan(6)]
  grids = [g for line in lines for g in line]
  assert len(grids) == len(set(grids)) == 40
  at = {g: (i, j) for i, line in enumerate(lines) for j, g in enumerate(line)}
  for chunk, source in [("chunks_cos_en", "cos_en"),
                        ("chunks_spray_load_ALT-ATL", "spray_load"),
                        ("chunks_spray_load_ATL-ALT", "spray_load_atl_alt"),
                        ("chunks_agreement_ro", "agreement_ro")]:
    c, s = at[f"{chunk}/sent_vae"], at[f"{source}/vae2"]
    assert c[0] == s[0] and c[1] > s[1], (chunk, lines[c[0]])
  monkeypatch.setenv("REST_SUITE", "paper999")
  with pytest.raises(SystemExit, match="REST_SUITE: --suite: unknown suite"):
    collect_vocab.rest_plan(6)


def test_names_refuse_an_unknown_dataset():
  with pytest.raises(SystemExit, match=r"NAMES=nope: unknown datasets"):
    collect_vocab.names("nope")
  assert collect_vocab.names("cos_en_seq") == [
      f"blm_cos_od/cos_en_seq_type_{t}" for t in ("I", "II", "III")]
  # A chunk grid's name builds its chunk config (after any source).
  assert collect_vocab.names("chunks_od_it,od_it") == [
      f"blm_cos_od/od_it_type_{t}" for t in ("I", "II", "III")] + [
          "blm_chunks/od_it"]
  with pytest.raises(SystemExit, match=r"unknown datasets \['chunks_od_xx'\]"):
    collect_vocab.names("chunks_od_xx")


def _wordpiece(padding: dict | None):
  """A tiny WordPiece tokenizer truncating at 6 tokens, padded as asked."""
  import tokenizers
  from tokenizers import models, pre_tokenizers
  vocab = {w: i for i, w in enumerate(
      "[PAD] [UNK] the girl boy sprayed paint wall ##s .".split())}
  tok = tokenizers.Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
  tok.pre_tokenizer = pre_tokenizers.Whitespace()
  tok.enable_truncation(6)
  if padding is not None:
    tok.enable_padding(pad_id=0, pad_token="[PAD]", **padding)
  return tok


def _ids_padded(tok, strings) -> set:
  """collect_vocab's ids as they were: every padded encoding's ids."""
  return {i for enc in tok.encode_batch(strings) for i in enc.ids}


@pytest.mark.parametrize("padding", [None, {"length": 6}, {"length": None},
                                     {"length": None, "pad_to_multiple_of": 4}],
                         ids=["none", "fixed", "longest", "multiple"])
@pytest.mark.parametrize("strings", [
    ["the girl sprayed paint .", "boy walls", "the the the the the the the"],
    ["the girl the boy the wall ."],  # one string, truncated: no padding
    ["girl boy", "boy girl"],         # all of one length
], ids=["mixed", "truncated", "equal"])
def test_token_ids_without_padding_are_the_padded_ids(padding, strings):
  tok = _wordpiece(padding)
  before = tok.padding
  assert collect_vocab.token_ids(tok, strings) == _ids_padded(tok, strings)
  assert tok.padding == before  # The tokenizer's padding is put back.


def test_build_and_read_collects_every_string_tfds_decodes(tmp_path,
                                                           monkeypatch):
  import tensorflow_datasets as tfds
  from data_builders.common import builder, instances, loading, schema

  class VocabToy(builder.GeneratedBLMBuilder):
    """Toy BLMs for collect_vocab's read."""

    VERSION = tfds.core.Version("1.0.0")
    BUILDER_CONFIGS = [builder.GeneratedConfig(name="only")]

    def generate(self, config):
      S = schema.Sentence
      return [instances.make_instance(
          id=f"v-{i}", family="toy", language="fr", lexical_type="I",
          subset="s", context=[S(f"l'été {i} .", "P", ("l'été", f"{i} ."))],
          candidates=[("OK", S(f"oui {i} .", "Q")), ("NO", S(f"non {i} ."))],
          correct_label="OK") for i in range(12)]

  monkeypatch.setenv("BLM_DATA_DIR", str(tmp_path))
  name, strings = collect_vocab.build_and_read("vocab_toy/only")
  b = loading.builder(name, str(tmp_path))
  expected = set()
  for split in b.info.splits:
    source = b.as_data_source(split=split)  # TFDS's own decoding
    for record in source.__getitems__(list(range(len(source)))):
      collect_vocab._strings(record, expected)
  assert strings == sorted(expected)
  assert {"v-3", "l'été 3 .", '["l\'été", "3 ."]', "OK", "fr"} <= expected
