"""Fill-mask augmentation of lexical seeds (000 sec. 4.1-4.2, 004 sec. 3).

The papers grew each verb's seed sentence into five agents, themes and
locations by masking one argument at a time, in an indefinite frame
("I spritz [MASK] with low-fat oil") and a definite one ("I spritz the
[MASK] with low-fat oil"), and reading a masked language model's top
candidates (DistilBERT / bert-base-uncased: a different model from the one
being probed, to avoid bias). People then chose what went into the lexicon.
This tool does the first half and writes a reviewable TSV; curated lexicons
in the repository are what builders read.

    python -m data_builders.augment --model distilbert-base-uncased \
        --lexicon data_builders/blm_spray_load/lexicon --top_k 25 \
        --output candidates.tsv
    python -m data_builders.augment --model /path/to/local/model \
        --seeds seeds.txt --output candidates.tsv

Seeds mark their arguments: "[AGENT I] spritz [LOC the fish] with [THEME
low-fat oil]." A seeds file holds one per line (optionally "id<TAB>seed";
blank lines and lines starting with # are skipped); a lexicon folder is read
for the "seed" field of every *.json file (id = file name). The model is a
hub name or a local folder with Flax (or single-file safetensors) weights.

It runs transformers' Flax masked-LM classes, which only transformers 4.x
has, so it needs the optional extra `pip install 'blm-jax[augment]'`; the
encoders that embed sentences (blm_jax.encoders.encoder) do not use transformers.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import os
import pathlib
import re
import sys
import tempfile
from typing import Iterable, Sequence

_MARK = re.compile(r"\[([A-Z]+) ([^\[\]]+)\]")
FRAMES = ("indefinite", "definite")
COLUMNS = ("id", "role", "frame", "rank", "candidate", "score",
           "masked_sentence", "original", "keep")


class AugmentError(ValueError):
  """Bad seeds or an unloadable model; the message says what and where."""


@dataclasses.dataclass(frozen=True)
class Seed:
  id: str
  marked: str
  where: str = ""  # file:line, for messages.

  def spans(self) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in _MARK.finditer(self.marked)]


@dataclasses.dataclass(frozen=True)
class Query:
  """One masked sentence: which seed, role and frame it asks about."""

  seed_id: str
  role: str
  frame: str
  original: str
  text: str  # Contains the tokenizer's mask token once.


def read_seeds(path: str | os.PathLike) -> list[Seed]:
  """Seeds from a text file, or from the "seed" fields of a folder of JSON."""
  path = pathlib.Path(path)
  seeds = []
  if path.is_dir():
    files = sorted(path.glob("*.json"))
    if not files:
      raise AugmentError(f"{path}: no *.json lexicon files")
    for f in files:
      try:
        raw = json.loads(f.read_text(encoding="utf-8"))
      except json.JSONDecodeError as e:
        raise AugmentError(f"{f}: line {e.lineno}: invalid JSON: {e.msg}"
                           ) from None
      if not isinstance(raw, dict) or not isinstance(raw.get("seed"), str):
        raise AugmentError(f"{f}: no \"seed\" string field")
      seeds.append(Seed(f.stem, raw["seed"], str(f)))
  else:
    try:
      lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
      raise AugmentError(f"{path}: no such seeds file or lexicon folder"
                         ) from None
    for n, line in enumerate(lines, 1):
      if not line.strip() or line.lstrip().startswith("#"):
        continue
      id_, _, marked = line.partition("\t") if "\t" in line else (
          f"line{n}", "", line)
      seeds.append(Seed(id_.strip(), marked.strip(), f"{path}:{n}"))
  for s in seeds:
    if not s.spans():
      raise AugmentError(f"{s.where}: seed {s.marked!r} marks no argument; "
                         "write e.g. [AGENT the baker]")
  if not seeds:
    raise AugmentError(f"{path}: no seeds")
  return seeds


def queries(seeds: Iterable[Seed], mask: str,
            roles: Sequence[str] | None = None) -> list[Query]:
  """Each marked argument masked in the indefinite and definite frames."""
  out = []
  for s in seeds:
    for role, span in s.spans():
      if roles and role not in roles:
        continue
      for frame in FRAMES:
        filler = mask if frame == "indefinite" else f"the {mask}"
        text = _MARK.sub(
            lambda m: filler if m.group(1) == role else m.group(2), s.marked,
            count=0)
        out.append(Query(s.id, role, frame, span, _capitalise(text)))
  return out


def _capitalise(text: str) -> str:
  return text[:1].upper() + text[1:] if text[:1].islower() else text


@dataclasses.dataclass(frozen=True)
class MaskedLM:
  tokenizer: object
  model: object   # A transformers Flax masked-LM (module + config).
  params: object  # Its weights, kept apart so the forward pass can be jitted.


def load_model(name_or_path: str) -> MaskedLM:
  """The tokenizer and Flax masked LM, with one clear error when missing.

  Weights are loaded without a random init first (`_do_init=False`): for
  a 66M-parameter DistilBERT that init costs more than the whole run.
  """
  try:
    from transformers import AutoTokenizer, FlaxAutoModelForMaskedLM
  except ImportError as e:
    raise AugmentError(
        "fill-mask augmentation runs transformers' Flax masked LMs, which only "
        "transformers 4.x has (the encoders of blm_jax do not need it): "
        f"`pip install 'blm-jax[augment]'` ({e})") from None
  try:
    tokenizer = AutoTokenizer.from_pretrained(name_or_path)
  except (OSError, ValueError) as e:
    raise AugmentError(
        f"cannot load a tokenizer from {name_or_path!r}: {e}\nNo model hub "
        "is reachable offline: pass a local folder holding the tokenizer "
        "files, config.json and Flax (flax_model.msgpack) or single-file "
        "safetensors weights.") from None
  try:
    model, params = FlaxAutoModelForMaskedLM.from_pretrained(
        name_or_path, _do_init=False)
  except OSError:
    try:  # PyTorch safetensors load into Flax without torch.
      model, params = FlaxAutoModelForMaskedLM.from_pretrained(
          name_or_path, from_pt=True, _do_init=False)
    except (OSError, ImportError, ValueError) as e:
      raise AugmentError(
          f"cannot load a Flax masked language model from {name_or_path!r}: "
          f"{e}") from None
  if tokenizer.mask_token is None:
    raise AugmentError(f"{name_or_path!r}: the tokenizer has no mask token")
  return MaskedLM(tokenizer, model, params)


def _word_ids(tokenizer) -> tuple[list[int], list[str]]:
  """Vocabulary entries that are whole alphabetic words (no subword pieces,
  no special tokens), and their text."""
  special = set(tokenizer.all_special_ids)
  ids, words = [], []
  for i, tok in enumerate(tokenizer.convert_ids_to_tokens(
      list(range(len(tokenizer))))):
    if i in special or tok is None or tok.startswith("##"):
      continue
    word = tokenizer.convert_tokens_to_string([tok]).strip()
    if word.isalpha():
      ids.append(i)
      words.append(word)
  return ids, words


def fill_mask(qs: Sequence[Query], lm: MaskedLM, top_k: int = 25,
              batch_size: int = 64) -> list[list[tuple[str, float]]]:
  """For each query, the top_k whole-word fillers with their probability."""
  import jax
  import numpy as np

  tokenizer = lm.tokenizer

  @jax.jit
  def mask_probs(params, ids, attention, pos):
    logits = lm.model(ids, attention_mask=attention, params=params).logits
    at_mask = logits[np.arange(ids.shape[0]), pos].astype(np.float32)
    return jax.nn.softmax(at_mask, axis=-1)

  ids, words = _word_ids(tokenizer)
  ids = np.asarray(ids)
  k = min(top_k, len(ids))
  out = []
  for start in range(0, len(qs), batch_size):
    batch = qs[start:start + batch_size]
    # Lengths padded to a multiple of 16: few shapes, few compilations.
    enc = tokenizer([q.text for q in batch], padding=True,
                    pad_to_multiple_of=16, return_tensors="np")
    where = enc["input_ids"] == tokenizer.mask_token_id
    for q, row in zip(batch, where):
      if row.sum() != 1:
        raise AugmentError(f"{q.seed_id} {q.role} {q.frame}: the masked "
                           f"sentence {q.text!r} must tokenize to exactly one "
                           "mask")
    probs = np.asarray(mask_probs(lm.params, enc["input_ids"],
                                  enc["attention_mask"], where.argmax(1)))
    for p in probs[:, ids]:
      order = np.argsort(-p, kind="stable")[:k]
      out.append([(words[j], float(p[j])) for j in order])
  return out


def write_tsv(path: str | os.PathLike, qs: Sequence[Query],
              results: Sequence[Sequence[tuple[str, float]]],
              mask: str) -> None:
  """The review file, written atomically (never half-written)."""
  path = pathlib.Path(path)
  path.parent.mkdir(parents=True, exist_ok=True)
  fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
  try:
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
      w = csv.writer(f, delimiter="\t", lineterminator="\n")
      w.writerow(COLUMNS)
      for q, cands in zip(qs, results):
        for rank, (word, score) in enumerate(cands, 1):
          w.writerow([q.seed_id, q.role, q.frame, rank, word, f"{score:.6f}",
                      q.text.replace(mask, "[MASK]"), q.original, ""])
    os.replace(tmp, path)
  except BaseException:
    os.unlink(tmp)
    raise


def run(model: str, seeds_path: str, output: str, top_k: int = 25,
        roles: Sequence[str] | None = None, batch_size: int = 64) -> int:
  """Writes the candidates; returns the number of rows."""
  seeds = read_seeds(seeds_path)
  lm = load_model(model)
  mask = lm.tokenizer.mask_token
  qs = queries(seeds, mask, roles)
  if not qs:
    raise AugmentError(f"{seeds_path}: no argument marked with roles {roles}")
  results = fill_mask(qs, lm, top_k, batch_size)
  write_tsv(output, qs, results, mask)
  return sum(len(r) for r in results)


def main(argv: Sequence[str] | None = None) -> int:
  p = argparse.ArgumentParser(
      prog="python -m data_builders.augment",
      description=__doc__.split("\n\n")[0])
  src = p.add_mutually_exclusive_group(required=True)
  src.add_argument("--seeds", help="text file of marked seeds, one per line")
  src.add_argument("--lexicon", help="folder of lexicon *.json with a seed")
  p.add_argument("--model", required=True,
                 help="hub name or local folder of a masked LM")
  p.add_argument("--output", required=True, help="TSV file to write")
  p.add_argument("--top_k", type=int, default=25)
  p.add_argument("--roles", default="",
                 help="comma-separated roles to mask (default: all marked)")
  p.add_argument("--batch_size", type=int, default=64)
  args = p.parse_args(argv)
  roles = [r for r in args.roles.split(",") if r] or None
  try:
    n = run(args.model, args.seeds or args.lexicon, args.output, args.top_k,
            roles, args.batch_size)
  except AugmentError as e:
    print(f"error: {e}", file=sys.stderr)
    return 2
  print(f"wrote {n} candidates to {args.output}")
  return 0


if __name__ == "__main__":
  sys.exit(main())
