"""The fill-mask augmentation tool, run on tiny masked-LM checkpoints that the
tests create (DistilBERT and BERT heads, a real WordPiece tokenizer)."""

import csv
import os
import string

import jax
import numpy as np
import pytest

from data_builders import augment
from data_builders.blm_spray_load import lexicon

WORDS = ("the i spritz sprays fish with oil low fat paint wall gardener roses "
         "insecticide butter chef bastes turkey onto over every week").split()


def _tiny_checkpoint(folder, arch, favourites):
  """A tiny masked LM whose output bias favours `favourites` (in order)."""
  from transformers import (BertConfig, BertTokenizerFast, DistilBertConfig,
                            FlaxBertForMaskedLM, FlaxDistilBertForMaskedLM)

  os.makedirs(folder, exist_ok=True)
  specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
  vocab = list(dict.fromkeys(
      specials + WORDS + list(string.ascii_lowercase) + [".", "-"]
      + ["##" + c for c in string.ascii_lowercase] + ["##ing"]))
  with open(os.path.join(folder, "vocab.txt"), "w") as f:
    f.write("\n".join(vocab) + "\n")
  tok = BertTokenizerFast(os.path.join(folder, "vocab.txt"), do_lower_case=True)
  tok.save_pretrained(folder)
  if arch == "distilbert":
    cls, config = FlaxDistilBertForMaskedLM, DistilBertConfig(
        vocab_size=len(vocab), dim=16, n_layers=1, n_heads=2, hidden_dim=32,
        max_position_embeddings=64)
    bias_path = ("vocab_projector", "bias")
  else:
    cls, config = FlaxBertForMaskedLM, BertConfig(
        vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1,
        num_attention_heads=2, intermediate_size=32,
        max_position_embeddings=64)
    bias_path = ("cls", "predictions", "bias")
  # Random weights from the parameter shapes (an eager Flax init is slow).
  model = cls(config, _do_init=False)
  shapes = jax.eval_shape(lambda k: model.init_weights(k, (1, 8)),
                          jax.random.key(0))
  rng = np.random.default_rng(0)
  params = jax.tree_util.tree_map(
      lambda x: (0.05 * rng.standard_normal(x.shape)).astype(x.dtype), shapes)
  node = params
  for key in bias_path[:-1]:
    node = node[key]
  bias = np.zeros_like(node[bias_path[-1]])
  # Subword pieces and specials get the highest bias of all: the tool must
  # filter them out, not just take the argmax.
  bias[vocab.index("##ing")] = 40.0
  bias[vocab.index("[UNK]")] = 40.0
  for rank, word in enumerate(favourites):
    bias[vocab.index(word)] = 30.0 - 3 * rank
  node[bias_path[-1]] = bias
  model.save_pretrained(folder, params=params)
  return folder


@pytest.fixture(scope="module")
def distilbert(tmp_path_factory):
  return _tiny_checkpoint(str(tmp_path_factory.mktemp("distilbert")),
                          "distilbert", ["paint", "butter", "oil"])


def _read(path):
  with open(path, newline="") as f:
    return list(csv.DictReader(f, delimiter="\t"))


@pytest.mark.slow
def test_masks_each_argument_in_both_frames(tmp_path, distilbert):
  seeds = tmp_path / "seeds.txt"
  seeds.write_text("# comment\n\nspritz\t[AGENT I] spritz [LOC the fish] "
                   "with [THEME low-fat oil].\n")
  out = tmp_path / "out" / "candidates.tsv"
  assert augment.main(["--seeds", str(seeds), "--model", distilbert,
                       "--output", str(out), "--top_k", "3"]) == 0
  rows = _read(out)
  assert list(rows[0]) == list(augment.COLUMNS)
  masked = {(r["role"], r["frame"]): r["masked_sentence"] for r in rows}
  assert masked == {
      ("AGENT", "indefinite"): "[MASK] spritz the fish with low-fat oil.",
      ("AGENT", "definite"): "The [MASK] spritz the fish with low-fat oil.",
      ("LOC", "indefinite"): "I spritz [MASK] with low-fat oil.",
      ("LOC", "definite"): "I spritz the [MASK] with low-fat oil.",
      ("THEME", "indefinite"): "I spritz the fish with [MASK].",
      ("THEME", "definite"): "I spritz the fish with the [MASK]."}
  assert len(rows) == 6 * 3
  for key in masked:
    cands = [r for r in rows if (r["role"], r["frame"]) == key]
    # The biased words, in bias order, whole words only (no ##ing, [UNK]).
    assert [r["candidate"] for r in cands] == ["paint", "butter", "oil"]
    assert [int(r["rank"]) for r in cands] == [1, 2, 3]
    scores = [float(r["score"]) for r in cands]
    assert scores == sorted(scores, reverse=True) and 0 < scores[0] < 1
    assert all(r["id"] == "spritz" and r["keep"] == "" for r in cands)
  originals = {r["role"]: r["original"] for r in rows}
  assert originals == {"AGENT": "I", "LOC": "the fish", "THEME": "low-fat oil"}


@pytest.mark.slow
def test_matches_the_model_directly(distilbert):
  """The scores are the model's own softmax at the mask."""
  lm = augment.load_model(distilbert)
  tok, model = lm.tokenizer, lm.model
  q = augment.queries([augment.Seed("s", "[AGENT The chef] bastes [LOC the "
                                         "turkey] with [THEME butter].")],
                      tok.mask_token, roles=["THEME"])
  got = augment.fill_mask(q, lm, top_k=2)
  enc = tok(q[0].text, return_tensors="np")
  forward = jax.jit(lambda p, ids, m: model(ids, attention_mask=m,
                                            params=p).logits)
  logits = np.asarray(forward(lm.params, enc["input_ids"],
                              enc["attention_mask"])[0])
  pos = list(enc["input_ids"][0]).index(tok.mask_token_id)
  probs = np.exp(logits[pos] - logits[pos].max())
  probs /= probs.sum()
  want = probs[tok.convert_tokens_to_ids("paint")]
  assert got[0][0][0] == "paint"
  assert got[0][0][1] == pytest.approx(float(want), rel=1e-5)


@pytest.mark.slow
def test_bert_head_and_lexicon_folder(tmp_path):
  ckpt = _tiny_checkpoint(str(tmp_path / "bert"), "bert",
                          ["wall", "roses", "turkey"])
  out = tmp_path / "lex.tsv"
  n = augment.run(ckpt, str(lexicon.LEXICON_DIR), str(out), top_k=2,
                  roles=["LOC"])
  rows = _read(out)
  assert n == len(rows) == 30 * 2 * 2  # 30 seeds, 2 frames, top 2.
  assert {r["id"] for r in rows} == set(lexicon.load_lexicon().verbs)
  assert {r["candidate"] for r in rows} == {"wall", "roses"}
  spray = [r for r in rows if r["id"] == "spray"]
  assert {r["masked_sentence"] for r in spray} == {
      "The gardener sprays [MASK] with insecticide every week.",
      "The gardener sprays the [MASK] with insecticide every week."}


@pytest.mark.slow
def test_bad_inputs_give_one_clear_error(tmp_path, distilbert, capsys):
  seeds = tmp_path / "seeds.txt"
  seeds.write_text("ok\t[AGENT I] spritz [LOC the fish] with [THEME oil].\n"
                   "bad\tI spritz the fish with oil.\n")
  with pytest.raises(augment.AugmentError,
                     match=r"seeds\.txt:2: seed 'I spritz the fish with oil\.'"
                     r" marks no argument"):
    augment.read_seeds(seeds)
  missing = tmp_path / "no_model"
  out = tmp_path / "never.tsv"
  seeds.write_text("[AGENT I] spritz [LOC the fish] with [THEME oil].\n")
  assert augment.main(["--seeds", str(seeds), "--model", str(missing),
                       "--output", str(out)]) == 2
  err = capsys.readouterr().err
  assert f"cannot load a tokenizer from '{missing}'" in err
  assert "No model hub is reachable offline" in err
  assert not out.exists()
  assert augment.main(["--seeds", str(tmp_path / "nope.txt"), "--model",
                       distilbert, "--output", str(out)]) == 2
  assert "nope.txt: no such seeds file" in capsys.readouterr().err
