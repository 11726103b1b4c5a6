"""Reading one file of the officially released BLM data into `BLMInstance`s.

The release is tab-separated UTF-8 with a header row; columns are read by
name, never by position (their order differs between files and some are
missing):

  id column            `ID`, an empty header cell, or `Unnamed: 0`
  Sent_i               context sentences (i = 1..K, no gaps)
  Answer_i             candidate answers (i = 1..N, no gaps)
  Answer_value_i       `True` for the one correct answer, `False` otherwise
  Answer_label_i       the release's error label (mapped to the papers' names)
  Sent_template_i, Answer_template_i            optional pattern strings
  Sent_chunks_i, Answer_chunks_i                optional Python-list literals

Differences from the files as published, on purpose:
- The files always put the correct answer first and the wrong ones in a fixed
  label order; candidates are reordered here by a permutation seeded by the
  instance id (`data_builders.common.instances.rng_for`), so position carries
  no information.
- Ids repeat inside some files (French agreement type I concatenates clause
  types, each numbered from 0); a repeated id gets a short hash of its row's
  content appended, which keeps ids unique and identical across all/train/test.
- Some spray/load files repeat a column header (`Answer_7` twice, written
  `Answer_7.1` by pandas). As in pandas and the authors' code, the first
  column of that name is used; the repeat is ignored and recorded in `notes`.

Candidates follow the rule every reader shares
(`data_builders.common.candidates`): a correct candidate repeated as a
wrong one is a row error; other content defects (two wrong candidates
alike, copy cues, ...) are not format errors: they are read as published
and reported by `blm_jax.data.lint`.

Every format error raises one `ReleaseFormatError` naming the file, line and
column. With `skip_bad_rows=True`, row-level errors skip the row instead and
are returned in `ReleaseFile.skipped`; file-level errors (encoding, header,
family) always raise.
"""

from __future__ import annotations

import ast
import collections
import csv
import dataclasses
import hashlib
import io
import os
import re
from typing import Collection, Sequence

from data_builders.common import candidates as candidates_lib
from data_builders.common import instances as instances_lib
from data_builders.common import labels as labels_lib
from data_builders.common import safe_io
from data_builders.common.schema import BLMInstance, Sentence

ID_COLUMNS = ("ID", "", "Unnamed: 0")
TRUE_VALUES = ("true",)
FALSE_VALUES = ("false",)
# Raw labels every family accepts for its correct answer.
GENERIC_CORRECT_LABELS = ("True", "Correct")

_INDEXED = re.compile(
    r"^(Sent|Answer)(?:_(value|label|template|chunks))?_(\d+)$")
_PANDAS_DUPLICATE = re.compile(r"^(.*)\.(\d+)$")
MAX_LINE_BYTES = safe_io.MAX_LINE_BYTES  # One row; a release row is ~5 KB.
_LANGUAGES = ("en", "fr", "it", "ro", "de", "he")
_LEXICAL_TYPES = {"type_i": "I", "type_ii": "II", "type_iii": "III",
                  "minlex": "MinLex", "maxlex": "MaxLex"}
# A lexical-type folder, with the language the authors' cross-lingual
# folders append (`type_III_EN`).
_TYPE_FOLDER = re.compile(r"^(type_[IVXivx]+|MinLex|MaxLex)(?:_([A-Za-z]{2}))?$",
                          re.IGNORECASE)
# The authors' dataset folders as published (CLCL-Geneva/BLM-SNFDisentangling
# `data/`) and their language.
AUTHORS_DATASETS = {"BLM-AgrF": "fr", "BLMagr4dev": "fr", "BLM-slE": "en"}


class ReleaseFormatError(ValueError):
  """A malformed release file: names the file, the line and the column."""

  def __init__(self, path: str, line: int | None, column: str | None,
               message: str):
    self.path = str(path)
    self.line = line
    self.column = column
    self.message = message
    where = self.path
    if line is not None:
      where += f", line {line}"
    if column is not None:
      where += f", column {column}"
    super().__init__(f"{where}: {message}")


@dataclasses.dataclass(frozen=True)
class ReleaseFile:
  """What one release file holds, and what was skipped or ignored in it."""

  path: str
  family: str
  instances: tuple[BLMInstance, ...]
  skipped: tuple[ReleaseFormatError, ...] = ()
  notes: tuple[str, ...] = ()
  # The file's own ids that occur on several rows (made unique by a hash).
  repeated_ids: frozenset[str] = frozenset()


@dataclasses.dataclass(frozen=True)
class _Layout:
  """Where each field lives in a file: column positions by role and index."""

  names: tuple[str, ...]
  id_col: int
  sent: tuple[int, ...]
  answer: tuple[int, ...]
  value: tuple[int, ...]
  label: tuple[int, ...]
  sent_template: dict[int, int]
  answer_template: dict[int, int]
  sent_chunks: dict[int, int]
  answer_chunks: dict[int, int]
  notes: tuple[str, ...]

  def column(self, col: int) -> str:
    """Column for messages: its 1-based number, and its header name if any."""
    if col < len(self.names):
      return f"{col + 1} ({self.names[col]!r})"
    return f"{col + 1}"


@dataclasses.dataclass(frozen=True)
class _Row:
  line: int
  cells: tuple[str, ...]


def source_info(path: str | os.PathLike) -> dict[str, str]:
  """Language, lexical type and subset guessed from the folder names.

  Follows our layout `<family>_<lang>/[<subset>/]type_<I|II|III>/` and the
  authors' as published (`BLM-AgrF/type_I/`, `BLMagr4dev/type_II/`,
  `BLM-slE/ALT-ATL/type_III/`, `BLMagrXlang4dev/type_III_EN/`); anything
  not recognised is left empty.
  """
  parts = os.path.abspath(os.fspath(path)).split(os.sep)
  info = {"language": "", "lexical_type": "", "subset": ""}
  for i, part in enumerate(parts):
    lang = _dataset_language(part)
    if lang:
      info["language"] = lang
    m = _TYPE_FOLDER.match(part)
    if m and m.group(1).lower() in _LEXICAL_TYPES:
      info["lexical_type"] = _LEXICAL_TYPES[m.group(1).lower()]
      if i >= 2 and _dataset_language(parts[i - 2]):
        info["subset"] = parts[i - 1]
      if m.group(2) and m.group(2).lower() in _LANGUAGES:
        info["language"] = m.group(2).lower()
  return info


def _dataset_language(part: str) -> str:
  if part in AUTHORS_DATASETS:
    return AUTHORS_DATASETS[part]
  m = re.match(r"^[A-Za-z][\w-]*_([a-z]{2})$", part)
  return m.group(1) if m and m.group(1) in _LANGUAGES else ""


def known_labels(family: str) -> dict[str, str]:
  """Every accepted label of `family` (raw or papers' name) -> papers' name."""
  inventory = labels_lib.family_labels(family)
  mapping = {lab: lab for lab in inventory}
  for raw in GENERIC_CORRECT_LABELS:
    mapping[raw] = inventory[0]
  mapping.update(labels_lib.PUBLISHED_LABELS.get(family, {}))
  return mapping


def infer_family(raw_labels: Sequence[str]) -> list[str]:
  """The families whose label inventory accepts every label in `raw_labels`."""
  present = set(raw_labels)
  return [f for f in labels_lib.FAMILY_LABELS
          if present <= set(known_labels(f))]


def read_release(
    path: str | os.PathLike,
    *,
    family: str | None = None,
    language: str | None = None,
    lexical_type: str | None = None,
    subset: str | None = None,
    id_prefix: str = "",
    seed: int | str = 0,
    shuffle: bool = True,
    skip_bad_rows: bool = False,
    hashed_ids: Collection[str] = (),
) -> ReleaseFile:
  """Reads one release file; see the module docstring for the format.

  Args:
    path: the .tsv file.
    family: a key of `data_builders.common.labels.FAMILY_LABELS`; None infers it from the
      file's labels.
    language, lexical_type, subset: None guesses them from the folder names
      (`source_info`).
    id_prefix: prepended to every instance id (e.g. the config name).
    seed: with the instance id, seeds the candidate order.
    shuffle: False keeps the published order (correct answer first).
    skip_bad_rows: skip malformed rows (returned in `skipped`) instead of
      raising.
    hashed_ids: file ids that get the content hash even if unique here (so
      that files of one folder agree on ids; see `read_folder`).

  Raises:
    ReleaseFormatError: naming the file, line and column of the first error.
  """
  path = os.fspath(path)
  guessed = source_info(os.path.dirname(os.path.abspath(path)))
  language = guessed["language"] if language is None else language
  lexical_type = (guessed["lexical_type"] if lexical_type is None
                  else lexical_type)
  subset = guessed["subset"] if subset is None else subset

  text = _decode(path)
  layout, rows = _split_records(path, text)
  skipped: list[ReleaseFormatError] = []

  def fail_row(err: ReleaseFormatError):
    if not skip_bad_rows:
      raise err
    skipped.append(err)

  good_rows = []
  for row in rows:
    try:
      _check_field_count(path, layout, row, is_last=row is rows[-1],
                         ends_with_newline=text.endswith(("\n", "\r")))
      good_rows.append(row)
    except ReleaseFormatError as err:
      fail_row(err)

  family = _resolve_family(path, layout, good_rows, family)
  mapping = known_labels(family)

  parsed = []
  for row in good_rows:
    try:
      parsed.append((row, _parse_row(path, layout, row, family, mapping)))
    except ReleaseFormatError as err:
      fail_row(err)

  repeated = frozenset(
      k for k, n in collections.Counter(f["raw_id"] for _, f in parsed).items()
      if n > 1)
  ids = _instance_ids(path, layout, parsed, id_prefix,
                      repeated | set(hashed_ids), fail_row)
  out = []
  for (row, fields), inst_id in zip(parsed, ids):
    if inst_id is None:
      continue
    out.append(_instance(inst_id, fields, family=family, language=language,
                         lexical_type=lexical_type, subset=subset,
                         seed=seed, shuffle=shuffle))
  return ReleaseFile(path=path, family=family, instances=tuple(out),
                     skipped=tuple(skipped), notes=layout.notes,
                     repeated_ids=repeated)


def _decode(path: str) -> str:
  """The file's text, read line by line within `MAX_LINE_BYTES` each (a file
  without newlines is refused after that much); non-UTF-8 bytes are located
  by line and column."""
  try:
    data = b"".join(raw for _, raw in safe_io.raw_lines(path, MAX_LINE_BYTES))
  except safe_io.BoundError as err:
    raise ReleaseFormatError(path, err.line, None, err.reason) from None
  except OSError as err:
    raise ReleaseFormatError(path, None, None, f"cannot read file: {err}") from None
  if data.startswith(b"\xef\xbb\xbf"):
    data = data[3:]
  try:
    return data.decode("utf-8")
  except UnicodeDecodeError as err:
    line_start = data.rfind(b"\n", 0, err.start) + 1
    line = data.count(b"\n", 0, err.start) + 1
    field = data.count(b"\t", line_start, err.start)
    header = data.split(b"\n", 1)[0].decode("utf-8", "replace").split("\t")
    name = header[field].strip() if field < len(header) else ""
    raise ReleaseFormatError(
        path, line, f"{field + 1} ({name!r})",
        f"bytes {data[err.start:err.end]!r} at byte {err.start - line_start + 1}"
        " of the line are not UTF-8 (the release is UTF-8: re-encode the "
        "file)") from None


def _split_records(path: str, text: str) -> tuple[_Layout, list[_Row]]:
  """The header layout and the non-blank records with their line numbers."""
  reader = csv.reader(io.StringIO(text, newline=""), delimiter="\t",
                      strict=True)
  records: list[_Row] = []
  line = 0
  while True:
    start = reader.line_num + 1
    try:
      cells = next(reader)
    except StopIteration:
      break
    except csv.Error as err:
      raise _quoting_error(path, text, start, err) from None
    line = start
    if not cells or all(not c.strip() for c in cells) and len(cells) <= 1:
      continue  # Blank line: not a row.
    records.append(_Row(line, tuple(cells)))
  if not records:
    raise ReleaseFormatError(path, 1, None, "the file is empty (no header row)")
  header, rows = records[0], records[1:]
  if not rows:
    raise ReleaseFormatError(path, header.line + 1, None,
                             "the file has a header but no rows")
  return _layout(path, header), rows


def _quoting_error(path: str, text: str, start: int,
                   err: csv.Error) -> ReleaseFormatError:
  """Where a quote opened a field that never closes, instead of csv's
  "field larger than field limit" or "unexpected end of data"."""
  lines = text.split("\n")
  header = lines[0].rstrip("\r").split("\t")
  if "field larger than field limit" in str(err):
    limit = csv.field_size_limit()
    for line in range(start, len(lines) + 1):
      for k, field in enumerate(lines[line - 1].rstrip("\r").split("\t")):
        if len(field) > limit:
          name = header[k].strip() if k < len(header) else ""
          column = f"{k + 1} ({name!r})" if name else f"{k + 1}"
          return ReleaseFormatError(
              path, line, column,
              f"field too long: {len(field):,} characters, over the "
              f"reader's limit of {limit:,} (a release field is a sentence, "
              "its template or its chunks)")
  last = max(i for i, x in enumerate(lines) if x.strip()) + 1 if any(
      x.strip() for x in lines) else 1
  for line in range(start, len(lines) + 1):
    for k, field in enumerate(lines[line - 1].rstrip("\r").split("\t")):
      body = field[1:]
      closed = field.startswith('"') and body.endswith('"') and (
          len(body) - len(body.rstrip('"'))) % 2 == 1
      if field.startswith('"') and not closed:
        name = header[k].strip() if k < len(header) else ""
        column = f"{k + 1} ({name!r})" if name else f"{k + 1}"
        if line == last and "unexpected end of data" in str(err):
          return ReleaseFormatError(
              path, line, column,
              "truncated last line: the file ends inside a quoted field")
        return ReleaseFormatError(
            path, line, column,
            f"unbalanced quote: the field starts with '\"' ({field[:40]!r})"
            " and no closing quote ends it on this line, so the reader would "
            "run on into the following lines; remove the quote, or double it"
            " ('\"\"') inside a quoted field")
  if "unexpected end of data" in str(err):
    return ReleaseFormatError(
        path, start, None,
        "truncated last line: the file ends inside a quoted field")
  return ReleaseFormatError(path, start, None, f"malformed quoting: {err}")


def _layout(path: str, header: _Row) -> _Layout:
  names = tuple(c.strip() for c in header.cells)
  if len(names) == 1:
    for sep, what in ((",", "comma"), (";", "semicolon")):
      if names[0].count(sep) >= 2:
        raise ReleaseFormatError(
            path, header.line, None,
            f"not tab-separated: the header is one column holding "
            f"{names[0].count(sep)} {what}s ({names[0][:60]!r}); release "
            "files are tab-separated (save it with tabs, e.g. pandas "
            "`to_csv(path, sep='\\t')`)")
  first: dict[str, int] = {}
  notes = []
  for col, name in enumerate(names):
    if name in first:
      notes.append(
          f"{path}, line {header.line}, column {col + 1} ({name!r}): repeats "
          f"column {first[name] + 1}; the first one is read (as pandas does)")
      continue
    m = _PANDAS_DUPLICATE.match(name)
    if m and m.group(1) in names and _INDEXED.match(m.group(1)):
      notes.append(
          f"{path}, line {header.line}, column {col + 1} ({name!r}): pandas' "
          f"name for a repeated {m.group(1)!r} column; not read")
      continue
    first[name] = col

  id_col = next((first[n] for n in ID_COLUMNS if n in first), None)
  if id_col is None:
    raise ReleaseFormatError(
        path, header.line, None,
        "missing required id column (named 'ID', 'Unnamed: 0' or left "
        f"empty); the header has {list(names)}")

  by_role: dict[tuple[str, str | None], dict[int, int]] = (
      collections.defaultdict(dict))
  for name, col in first.items():
    m = _INDEXED.match(name)
    if m:
      by_role[(m.group(1), m.group(2))][int(m.group(3))] = col

  def required(kind: str, role: str | None, count: int) -> tuple[int, ...]:
    cols = by_role[(kind, role)]
    prefix = f"{kind}_{role}_" if role else f"{kind}_"
    for i in range(1, count + 1):
      if i not in cols:
        present = sorted(cols)
        raise ReleaseFormatError(
            path, header.line, f"{prefix}{i}",
            f"missing required column {prefix}{i} (the header has "
            f"{prefix}N for N in {present})")
    return tuple(cols[i] for i in range(1, count + 1))

  n_sent = max(by_role[("Sent", None)], default=0)
  if not n_sent:
    raise ReleaseFormatError(path, header.line, "Sent_1",
                             "missing required column Sent_1")
  n_answer = max([max(by_role[("Answer", r)], default=0)
                  for r in (None, "value", "label")])
  if not n_answer:
    raise ReleaseFormatError(path, header.line, "Answer_1",
                             "missing required column Answer_1")
  return _Layout(
      names=names,
      id_col=id_col,
      sent=required("Sent", None, n_sent),
      answer=required("Answer", None, n_answer),
      value=required("Answer", "value", n_answer),
      label=required("Answer", "label", n_answer),
      sent_template=dict(by_role[("Sent", "template")]),
      answer_template=dict(by_role[("Answer", "template")]),
      sent_chunks=dict(by_role[("Sent", "chunks")]),
      answer_chunks=dict(by_role[("Answer", "chunks")]),
      notes=tuple(notes),
  )


def _check_field_count(path, layout: _Layout, row: _Row, is_last: bool,
                       ends_with_newline: bool):
  want, got = len(layout.names), len(row.cells)
  if got == want:
    return
  if got < want:
    if is_last and not ends_with_newline:
      raise ReleaseFormatError(
          path, row.line, layout.column(got),
          f"truncated last line: it has {got} of the header's {want} fields "
          "and the file ends without a newline (was the file cut short?)")
    raise ReleaseFormatError(
        path, row.line, layout.column(got),
        f"row has {got} fields but the header has {want}: columns from "
        f"{layout.column(got)} on are missing")
  raise ReleaseFormatError(
      path, row.line, layout.column(want),
      f"row has {got} fields but the header has {want}: "
      f"{got - want} extra field(s) from column {want + 1} on")


def _resolve_family(path, layout: _Layout, rows: Sequence[_Row],
                    family: str | None) -> str:
  raw = [row.cells[c].strip() for row in rows for c in layout.label]
  if family is not None:
    if family not in labels_lib.FAMILY_LABELS:
      raise ReleaseFormatError(
          path, None, None, f"unknown family {family!r}; known: "
          f"{sorted(labels_lib.FAMILY_LABELS)}")
    return family
  fits = infer_family(raw)
  if len(fits) == 1:
    return fits[0]
  if len(fits) > 1:
    raise ReleaseFormatError(
        path, 1, "Answer_label_*",
        f"the labels {sorted(set(raw))} fit several families {fits}: "
        "pass the family explicitly")
  # No family accepts every label: pick the one that accepts most of them,
  # so the unknown labels are reported row by row (with line and column).
  counts = {f: sum(lab in known_labels(f) for lab in raw)
            for f in labels_lib.FAMILY_LABELS}
  best = max(counts, key=lambda f: (counts[f], f == "agreement"))
  generic = sum(lab in GENERIC_CORRECT_LABELS for lab in raw)
  if counts[best] <= generic:
    raise ReleaseFormatError(
        path, 1, "Answer_label_*",
        f"the labels {sorted(set(raw))[:12]} belong to no known family "
        f"{sorted(labels_lib.FAMILY_LABELS)}: pass the family explicitly")
  return best


def _parse_row(path, layout: _Layout, row: _Row, family: str,
               mapping: dict[str, str]) -> dict:
  cells = row.cells

  def err(col: int, message: str) -> ReleaseFormatError:
    return ReleaseFormatError(path, row.line, layout.column(col), message)

  for col, cell in enumerate(cells):
    if "\x00" in cell:
      raise err(col, f"NUL byte at character {cell.index(chr(0)) + 1} of the "
                "cell (a damaged file: the release has no NUL bytes)")
  raw_id = cells[layout.id_col].strip()
  if not raw_id:
    raise err(layout.id_col, "empty instance id")
  for col in layout.sent:
    if not cells[col].strip():
      raise err(col, "empty context sentence")
  for col in layout.answer:
    if not cells[col].strip():
      raise err(col, "empty candidate sentence")

  values = []
  for col in layout.value:
    v = cells[col].strip().lower()
    if v not in TRUE_VALUES + FALSE_VALUES:
      raise err(col, f"answer value {cells[col]!r} is neither True nor False")
    values.append(v in TRUE_VALUES)
  if values.count(True) != 1:
    true_cols = [layout.names[c] for c, v in zip(layout.value, values) if v]
    col = layout.value[0] if not true_cols else layout.value[
        [i for i, v in enumerate(values) if v][1]]
    raise err(col, f"expected exactly one True answer value, found "
              f"{values.count(True)}" + (f" (in {true_cols})" if true_cols
                                         else ""))

  raw_labels, labels = [], []
  correct = labels_lib.correct_label(family)
  for col, is_true in zip(layout.label, values):
    raw = cells[col].strip()
    if raw not in mapping:
      raise err(col, f"label {raw!r} is not in the {family} inventory "
                f"{sorted(mapping)}")
    lab = mapping[raw]
    if (lab == correct) != is_true:
      raise err(col, f"label {raw!r} ({lab}) contradicts its answer value "
                f"{is_true}")
    raw_labels.append(raw)
    labels.append(lab)

  def chunks(table: dict[int, int], i: int) -> tuple[str, ...]:
    col = table.get(i)
    if col is None or not cells[col].strip():
      return ()
    try:
      value = ast.literal_eval(cells[col].strip())
    except (ValueError, SyntaxError, TypeError, MemoryError,
            RecursionError) as e:
      raise err(col, f"chunks {cells[col][:60]!r} are not a Python list "
                f"literal ({type(e).__name__}: {e})") from None
    if (not isinstance(value, (list, tuple))
        or not all(isinstance(x, str) for x in value)):
      raise err(col, f"chunks {cells[col][:60]!r} are not a list of strings")
    return tuple(value)

  def sentences(text_cols, templates, chunk_cols):
    return tuple(
        Sentence(cells[col].strip(),
                 cells[templates[i]].strip() if i in templates else "",
                 chunks(chunk_cols, i))
        for i, col in enumerate(text_cols, start=1))

  texts = [cells[col].strip() for col in layout.answer]
  why = candidates_lib.problem(texts, values.index(True))
  if why:
    raise err(layout.answer[values.index(True)], why)
  return dict(
      raw_id=raw_id,
      context=sentences(layout.sent, layout.sent_template, layout.sent_chunks),
      answers=sentences(layout.answer, layout.answer_template,
                        layout.answer_chunks),
      correct=values.index(True),
      labels=tuple(labels),
      raw_labels=tuple(raw_labels),
  )


def _instance_ids(path, layout: _Layout, parsed, id_prefix, hashed, fail_row):
  """Unique, stable ids: the file's id, plus a content hash when it repeats."""
  seen: dict[str, int] = {}
  ids = []
  for row, f in parsed:
    raw = f["raw_id"]
    base = id_prefix + (raw.zfill(5) if raw.isdigit() else raw)
    if raw in hashed:
      base += "~" + _content_hash(f)
    if base in seen:
      fail_row(ReleaseFormatError(
          path, row.line, layout.column(layout.id_col),
          f"row repeats line {seen[base]} (same id {raw!r} and content)"))
      ids.append(None)
      continue
    seen[base] = row.line
    ids.append(base)
  return ids


def _content_hash(fields: dict) -> str:
  h = hashlib.sha256()
  for s in fields["context"] + fields["answers"]:
    h.update(s.text.encode("utf-8") + b"\x1f")
  h.update("\x1f".join(fields["raw_labels"]).encode("utf-8"))
  return h.hexdigest()[:8]


def _instance(inst_id: str, f: dict, *, family, language, lexical_type, subset,
              seed, shuffle) -> BLMInstance:
  n = len(f["answers"])
  order = (instances_lib.rng_for("answers", seed, inst_id).permutation(n)
           if shuffle else range(n))
  order = [int(i) for i in order]
  return BLMInstance(
      id=inst_id,
      family=family,
      language=language,
      lexical_type=lexical_type,
      subset=subset,
      context=f["context"],
      answers=tuple(f["answers"][i] for i in order),
      correct=order.index(f["correct"]),
      labels=tuple(f["labels"][i] for i in order),
      raw_labels=tuple(f["raw_labels"][i] for i in order),
  )


# Published split files; any other single file is split 90:10 by the builder.
SPLIT_FILES = ("train", "test", "all")
# Release files are tab-separated whatever their suffix: the authors publish
# `type_i.csv`, our samples and exports are `.tsv`.
RELEASE_SUFFIXES = (".tsv", ".csv")
# The authors' split of a type folder, beside its whole file (`type_i.csv`):
# `datasets/<train|test>/sentences/data.tsv`.
AUTHORS_SPLIT = ("datasets", "{split}", "sentences", "data.tsv")


def _authors_split(folder: str) -> dict[str, str]:
  """{'train', 'test'}: the authors' split files of `folder`, if both."""
  paths = {s: os.path.join(folder, *AUTHORS_SPLIT).format(split=s)
           for s in ("train", "test")}
  found = {s: p for s, p in paths.items() if os.path.isfile(p)}
  if len(found) == 1:
    (have,) = found
    raise ReleaseFormatError(
        folder, None, None, f"has {paths[have]} but no "
        f"{paths['test' if have == 'train' else 'train']}: give both, or "
        "one single file")
  return found


def release_files(folder: str | os.PathLike) -> dict[str, str]:
  """The release files of one folder, by name: {'train', 'test'[, 'all']}
  when a split is there (`train.tsv`/`test.tsv`, or the authors'
  `datasets/<split>/sentences/data.tsv` with the type's whole file as
  'all'), else {<stem>: path} for the single file (`.tsv` or `.csv`).
  """
  folder = os.fspath(folder)
  if not os.path.isdir(folder):
    raise ReleaseFormatError(folder, None, None,
                             "is not a folder of release files")
  found = sorted(f for f in os.listdir(folder)
                 if f.endswith(RELEASE_SUFFIXES)
                 and os.path.isfile(os.path.join(folder, f)))
  stems: dict[str, str] = {}
  for f in found:
    stem = f[:-4]
    if stem in stems:
      raise ReleaseFormatError(
          folder, None, None, f"holds both {os.path.basename(stems[stem])} "
          f"and {f}: which one to read is ambiguous")
    stems[stem] = os.path.join(folder, f)
  names = {s: os.path.basename(p) for s, p in stems.items()}
  authors = _authors_split(folder)
  if not stems and not authors:
    raise ReleaseFormatError(
        folder, None, None, "holds no release file (*.tsv or *.csv, "
        f"tab-separated); it has {sorted(os.listdir(folder))[:10]}")
  if "train" in stems or "test" in stems:
    missing = [s for s in ("train", "test") if s not in stems]
    if missing:
      have = names["train" if "test" in missing else "test"]
      raise ReleaseFormatError(
          folder, None, None, f"has {have} but no {missing[0]}.tsv: give "
          "both, or one single file")
    extra = sorted(set(stems) - set(SPLIT_FILES))
    if extra:
      raise ReleaseFormatError(
          folder, None, None, f"holds train/test files and also "
          f"{[names[e] for e in extra]}: which one to read is ambiguous")
    return {s: stems[s] for s in SPLIT_FILES if s in stems}
  if len(stems) > 1:
    raise ReleaseFormatError(
        folder, None, None, f"holds several release files {found} but no "
        "train.tsv/test.tsv: point to a folder with a single file")
  if authors:
    return {**authors, **{"all": p for p in stems.values()}}
  return stems


def read_folder(folder: str | os.PathLike, *, family: str | None = None,
                **kwargs) -> dict[str, ReleaseFile]:
  """Every release file of `folder` (`release_files`), with consistent ids
  and family across files. `kwargs` go to `read_release`."""
  files = release_files(folder)
  order = sorted(files, key=lambda s: s != "all")  # The superset first.
  out: dict[str, ReleaseFile] = {}
  for stem in order:
    out[stem] = read_release(files[stem], family=family, **kwargs)
    family = out[stem].family
  repeated = frozenset().union(*(f.repeated_ids for f in out.values()))
  for stem in order:
    if not repeated <= out[stem].repeated_ids:
      out[stem] = read_release(files[stem], family=family, hashed_ids=repeated,
                               **kwargs)
  return {s: out[s] for s in files}
