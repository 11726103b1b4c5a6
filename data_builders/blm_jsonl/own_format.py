"""Your own BLM instances, one JSON object per line.

Each line holds one instance:

- `context`: the context sentences (a list of strings);
- `answers` (or `target_options`, as `blm_jax.cli.export` writes): the
  candidates;
- `correct` (or `target`): the index of the correct candidate;
- optional: `id` (default `<file>:<line>`), `labels` (one per candidate;
  default `Correct` for the correct one and `Wrong` for the others: the
  error-type bars then have two classes), `family` (default `own`),
  `language`, `lexical_type`, `subset`, `context_patterns`,
  `answer_patterns` (one per sentence; what `lint --design` reads).

Every error names the file, the line and the field. Candidates follow the
rule every reader shares (`data_builders.common.candidates`: two wrong
ones may repeat a sentence, the correct one may not be repeated, counts may
vary). Candidates are put in an order seeded by the instance id, so their
position carries no information (as for every generated and released BLM).
"""

from __future__ import annotations

from data_builders.common import candidates as candidates_lib
from data_builders.common import instances as instances_lib
from data_builders.common import safe_io
from data_builders.common.schema import BLMInstance, Sentence

OWN_FAMILY = "own"
CORRECT, WRONG = "Correct", "Wrong"
MAX_LINE_BYTES = safe_io.MAX_LINE_BYTES  # one instance; longer is not a BLM
MAX_JSON_DEPTH = 8  # an instance nests 2 deep


class OwnFormatError(ValueError):
  """A line that is not one BLM instance; the message names where."""


def _strings(record: dict, key: str, where: str, n: int | None = None
             ) -> list[str]:
  value = record[key]
  if not isinstance(value, list) or not all(isinstance(v, str)
                                            for v in value):
    raise OwnFormatError(f"{where}: field {key!r} must be a list of strings")
  if n is not None and len(value) != n:
    raise OwnFormatError(f"{where}: field {key!r} has {len(value)} entries "
                         f"for {n} sentences")
  return value


def _first(record: dict, keys: tuple[str, ...], where: str):
  for k in keys:
    if k in record:
      return k
  raise OwnFormatError(f"{where}: missing field {' or '.join(map(repr, keys))}")


def parse(record: dict, where: str, default_id: str, seed: int = 0
          ) -> BLMInstance:
  """One instance from one JSON object; `where` names it in errors."""
  if not isinstance(record, dict):
    raise OwnFormatError(f"{where}: not a JSON object")
  context_key = _first(record, ("context",), where)
  context = _strings(record, context_key, where)
  answers_key = _first(record, ("answers", "target_options"), where)
  answers = _strings(record, answers_key, where)
  correct_key = _first(record, ("correct", "target"), where)
  correct = record[correct_key]
  if not isinstance(correct, int) or isinstance(correct, bool):
    raise OwnFormatError(f"{where}: field {correct_key!r} must be an integer "
                         f"index, got {correct!r}")
  if not context:
    raise OwnFormatError(f"{where}: needs at least one context sentence")
  if len(answers) < candidates_lib.MIN_CANDIDATES:
    raise OwnFormatError(f"{where}: field {answers_key!r}: "
                         f"{candidates_lib.problem(answers, 0)}")
  for key, texts in ((context_key, context), (answers_key, answers)):
    for i, text in enumerate(texts):
      if not text.strip():
        raise OwnFormatError(f"{where}: field {key!r}: sentence {i + 1} is "
                             "empty")
  if not 0 <= correct < len(answers):
    raise OwnFormatError(f"{where}: field {correct_key!r}={correct} is "
                         f"outside 0..{len(answers) - 1}")
  why = candidates_lib.problem(answers, correct)
  if why:
    raise OwnFormatError(f"{where}: field {answers_key!r}: {why}")
  if "labels" in record:
    labels = _strings(record, "labels", where, len(answers))
  else:
    labels = [CORRECT if i == correct else WRONG for i in range(len(answers))]
  ctx_pat = (_strings(record, "context_patterns", where, len(context))
             if "context_patterns" in record else [""] * len(context))
  ans_pat = (_strings(record, "answer_patterns", where, len(answers))
             if "answer_patterns" in record else [""] * len(answers))
  meta = {}
  for key in ("id", "family", "language", "lexical_type", "subset"):
    value = record.get(key, "")
    if not isinstance(value, str):
      raise OwnFormatError(f"{where}: field {key!r} must be a string")
    meta[key] = value
  inst_id = meta["id"] or default_id
  # The order every reader uses (`instances.rng_for`), so a candidate's
  # position carries no information.
  order = [int(i) for i in instances_lib.rng_for(
      "answers", seed, inst_id).permutation(len(answers))]
  return BLMInstance(
      id=inst_id, family=meta["family"] or OWN_FAMILY,
      language=meta["language"], lexical_type=meta["lexical_type"],
      subset=meta["subset"],
      context=tuple(Sentence(t, p) for t, p in zip(context, ctx_pat)),
      answers=tuple(Sentence(answers[i], ans_pat[i]) for i in order),
      correct=order.index(correct), labels=tuple(labels[i] for i in order))


def read(path: str, seed: int = 0) -> list[BLMInstance]:
  """Every instance of a JSONL file; the first bad line raises, named."""
  out, seen = [], {}
  name = path.rsplit("/", 1)[-1]
  try:
    for n, line in safe_io.text_lines(path, MAX_LINE_BYTES):
      where = f"{path}:{n}"
      if not line.strip():
        continue
      record = safe_io.json_loads(line, path, n, MAX_JSON_DEPTH)
      inst = parse(record, where, f"{name}:{n}", seed)
      if inst.id in seen:
        raise OwnFormatError(f"{where}: id {inst.id!r} already used on line "
                             f"{seen[inst.id]}")
      seen[inst.id] = n
      out.append(inst)
  except OwnFormatError:
    raise
  except ValueError as e:  # Past a bound, not UTF-8, not JSON: one line.
    raise OwnFormatError(str(e)) from None
  if not out:
    raise OwnFormatError(f"{path}: no instances")
  return out
