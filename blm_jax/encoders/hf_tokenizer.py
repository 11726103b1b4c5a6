"""Tokenizers of Hugging Face model folders, through the `tokenizers` package.

`load_tokenizer(folder, model_type)` reads `tokenizer.json` (what the hub
publishes for every fast tokenizer). Where a folder has none, it builds the
same pipeline transformers' slow-to-fast converters build from the vocabulary
files (WordPiece from vocab.txt for BERT/Electra, byte-level BPE from
vocab.json + merges.txt for RoBERTa, lowercased BPE with `</w>` word ends for
GPT-1), reading the casing and special tokens from tokenizer_config.json /
special_tokens_map.json. A sentencepiece-only folder (XLM-R without
tokenizer.json) is an error that says how to produce the file.

Padding and truncation stored in tokenizer.json are overridden per call, as
transformers does: ids come back unpadded, cut at `max_length` with the
special tokens counted.
"""

from __future__ import annotations

import json
import os
from typing import Sequence

SPECIAL_DEFAULTS = {
    "bert": {"cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]",
             "unk_token": "[UNK]", "mask_token": "[MASK]"},
    "roberta": {"cls_token": "<s>", "sep_token": "</s>", "pad_token": "<pad>",
                "unk_token": "<unk>", "mask_token": "<mask>",
                "bos_token": "<s>", "eos_token": "</s>"},
    "openai-gpt": {"unk_token": "<unk>"},
    # GPT-2 and the decoder LLMs: tokenizer.json only, specials from the
    # tokenizer config (Llama-style folders have no pad token).
    "decoder": {},
}
_KIND = {"bert": "bert", "electra": "bert", "roberta": "roberta",
         "xlm-roberta": "roberta", "openai-gpt": "openai-gpt",
         "gpt2": "decoder", "llama": "decoder", "mistral": "decoder",
         "qwen2": "decoder", "qwen3": "decoder", "gemma": "decoder"}
PADDING_SIDES = ("right", "left")


class TokenizerError(OSError):
  """A model folder's tokenizer files are missing or unusable."""


class TextTokenizer:
  """Text -> ids with the special tokens a model was trained with."""

  def __init__(self, tokenizer, special: dict[str, str], source: str,
               padding_side: str = "right"):
    self._tok = tokenizer
    self.source = source
    self.padding_side = padding_side
    self.special_tokens = dict(special)
    for name in ("cls_token", "sep_token", "pad_token", "unk_token",
                 "mask_token"):
      tok = special.get(name)
      setattr(self, name + "_id",
              None if tok is None else tokenizer.token_to_id(tok))

  @property
  def vocab_size(self) -> int:
    return self._tok.get_vocab_size(with_added_tokens=True)

  def token_to_id(self, token: str) -> int | None:
    return self._tok.token_to_id(token)

  def encode(self, texts: Sequence[str], max_length: int) -> list[list[int]]:
    """Ids per text, special tokens added, at most max_length of them."""
    self._tok.no_padding()
    self._tok.enable_truncation(max_length)
    return [e.ids for e in self._tok.encode_batch(list(texts),
                                                  add_special_tokens=True)]

  def tokens(self, text: str) -> list[str]:
    self._tok.no_truncation()
    self._tok.no_padding()
    return self._tok.encode(text, add_special_tokens=True).tokens


def _read_json(path: str) -> dict:
  if not os.path.isfile(path):
    return {}
  try:
    with open(path, encoding="utf-8") as f:
      d = json.load(f)
  except ValueError as e:
    raise TokenizerError(f"{path}: not valid JSON ({e})") from None
  return d if isinstance(d, dict) else {}


def _token_str(v) -> str | None:
  if isinstance(v, dict):  # AddedToken serialised: {"content": ...}.
    return v.get("content")
  return v


def _special_tokens(model_dir: str, kind: str) -> tuple[dict, dict]:
  config = _read_json(os.path.join(model_dir, "tokenizer_config.json"))
  special = dict(SPECIAL_DEFAULTS[kind])
  for src in (config, _read_json(os.path.join(model_dir,
                                              "special_tokens_map.json"))):
    for k in list(SPECIAL_DEFAULTS["roberta"]):
      if src.get(k) is not None:
        special[k] = _token_str(src[k])
  return special, config


def load_tokenizer(model_dir: str, model_type: str) -> TextTokenizer:
  """The tokenizer of a model folder (tokenizer.json, else vocab files)."""
  from tokenizers import Tokenizer

  kind = _KIND.get(model_type)
  if kind is None:
    raise TokenizerError(f"{model_dir}: no tokenizer rule for model_type "
                         f"{model_type!r}")
  special, config = _special_tokens(model_dir, kind)
  side = config.get("padding_side", "right")
  if side not in PADDING_SIDES:
    raise TokenizerError(f"{model_dir}/tokenizer_config.json: field "
                         f"padding_side={side!r} is not one of "
                         f"{PADDING_SIDES}")
  path = os.path.join(model_dir, "tokenizer.json")
  if os.path.isfile(path):
    try:
      tok = Tokenizer.from_file(path)
    except Exception as e:  # tokenizers raises a bare Exception.
      raise TokenizerError(f"{path}: cannot be read by tokenizers ({e})") \
          from None
    return TextTokenizer(tok, special, path, side)
  has = lambda n: os.path.isfile(os.path.join(model_dir, n))
  if kind == "bert" and has("vocab.txt"):
    tok = _wordpiece(model_dir, special, config)
  elif kind in ("roberta", "openai-gpt") and has("vocab.json") and has(
      "merges.txt"):
    tok = (_byte_bpe if kind == "roberta" else _gpt_bpe)(model_dir, special,
                                                         config)
  elif kind == "decoder":
    raise TokenizerError(
        f"{model_dir}: no tokenizer.json, which {model_type} folders are "
        "read from. Write one once where transformers is installed: "
        f"`AutoTokenizer.from_pretrained({model_dir!r}).save_pretrained("
        f"{model_dir!r})`")
  elif has("sentencepiece.bpe.model") or has("spiece.model"):
    raise TokenizerError(
        f"{model_dir}: only a sentencepiece model is there, no "
        "tokenizer.json. Write one once where transformers is installed: "
        f"`AutoTokenizer.from_pretrained({model_dir!r}).save_pretrained("
        f"{model_dir!r})`")
  else:
    raise TokenizerError(
        f"{model_dir}: no tokenizer.json and no vocabulary files for a "
        f"{model_type} tokenizer (vocab.txt, or vocab.json + merges.txt)")
  return TextTokenizer(tok, special, model_dir, side)


def _read_vocab_txt(path: str) -> dict[str, int]:
  vocab = {}
  with open(path, encoding="utf-8") as f:
    for i, line in enumerate(f):
      vocab.setdefault(line.rstrip("\n"), i)
  return vocab


def _read_merges(path: str) -> list[tuple[str, str]]:
  merges = []
  with open(path, encoding="utf-8") as f:
    for n, line in enumerate(f, 1):
      line = line.rstrip("\n")
      if not line or (n == 1 and line.startswith("#version")):
        continue
      parts = line.split(" ")
      if len(parts) != 2:
        raise TokenizerError(f"{path}:{n}: a merge is two symbols, got "
                             f"{line!r}")
      merges.append((parts[0], parts[1]))
  return merges


def _wordpiece(model_dir, special, config):
  """transformers' BertConverter, from vocab.txt + tokenizer_config.json."""
  from tokenizers import Tokenizer, decoders, normalizers, pre_tokenizers
  from tokenizers import processors
  from tokenizers.models import WordPiece

  vocab = _read_vocab_txt(os.path.join(model_dir, "vocab.txt"))
  tok = Tokenizer(WordPiece(vocab, unk_token=special["unk_token"]))
  tok.normalizer = normalizers.BertNormalizer(
      clean_text=True,
      handle_chinese_chars=config.get("tokenize_chinese_chars", True),
      strip_accents=config.get("strip_accents"),
      lowercase=config.get("do_lower_case", True))
  tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
  cls, sep = special["cls_token"], special["sep_token"]
  for t in (cls, sep):
    if t not in vocab:
      raise TokenizerError(f"{model_dir}/vocab.txt: special token {t!r} is "
                           "not in the vocabulary")
  tok.post_processor = processors.TemplateProcessing(
      single=f"{cls}:0 $A:0 {sep}:0",
      pair=f"{cls}:0 $A:0 {sep}:0 $B:1 {sep}:1",
      special_tokens=[(cls, vocab[cls]), (sep, vocab[sep])])
  tok.decoder = decoders.WordPiece(prefix="##")
  _add_specials(tok, special, vocab)
  return tok


def _byte_bpe(model_dir, special, config):
  """transformers' RobertaConverter, from vocab.json + merges.txt."""
  from tokenizers import Tokenizer, decoders, pre_tokenizers, processors
  from tokenizers.models import BPE

  vocab = _read_json(os.path.join(model_dir, "vocab.json"))
  merges = _read_merges(os.path.join(model_dir, "merges.txt"))
  prefix = bool(config.get("add_prefix_space", False))
  tok = Tokenizer(BPE(vocab=vocab, merges=merges, dropout=None,
                      continuing_subword_prefix="", end_of_word_suffix="",
                      fuse_unk=False))
  tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=prefix)
  tok.decoder = decoders.ByteLevel()
  cls, sep = special["cls_token"], special["sep_token"]
  tok.post_processor = processors.RobertaProcessing(
      sep=(sep, vocab[sep]), cls=(cls, vocab[cls]), add_prefix_space=prefix,
      trim_offsets=True)
  _add_specials(tok, special, vocab)
  return tok


def _gpt_bpe(model_dir, special, config):
  """transformers' OpenAIGPTConverter: lowercased BPE, `</w>` word ends."""
  from tokenizers import Tokenizer, decoders, normalizers, pre_tokenizers
  from tokenizers.models import BPE

  vocab = _read_json(os.path.join(model_dir, "vocab.json"))
  merges = _read_merges(os.path.join(model_dir, "merges.txt"))
  unk = special["unk_token"]
  tok = Tokenizer(BPE(vocab=vocab, merges=merges, dropout=None, unk_token=unk,
                      end_of_word_suffix="</w>", fuse_unk=False))
  if tok.token_to_id(unk) is not None:
    tok.add_special_tokens([unk])
  tok.normalizer = normalizers.BertNormalizer(lowercase=True)
  tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
  tok.decoder = decoders.BPEDecoder(suffix="</w>")
  return tok


def _add_specials(tok, special, vocab):
  """Registers the special tokens, so text containing them is not split."""
  names = [t for t in dict.fromkeys(special.values())
           if t is not None and t in vocab]
  tok.add_special_tokens(names)
