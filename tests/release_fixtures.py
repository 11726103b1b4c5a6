"""Small release-format files written by the tests (invented sentences).

`release_rows(n)` gives n well-formed agreement-style rows (3 context
sentences, 4 candidates, correct first as in the published files) as dicts
keyed by column name; `write_release` writes them as the release does (tab
separated, header row) in any column order, so tests can break one thing.
"""

from __future__ import annotations

import os
from typing import Sequence

RAW_LABELS = ("True", "agreement_error_V", "agreement_error_N1", "N1_alter")
MAPPED_LABELS = ("Corr", "AEV", "AEN1", "WN1")
NOUNS = ("lamp", "door", "kettle", "bridge", "garden", "letter", "window",
         "carpet", "engine", "basket")


def release_row(i: int) -> dict[str, str]:
  noun = f"{NOUNS[i % len(NOUNS)]}{i}"
  context = [f"The {noun} near the hill glows .",
             f"The {noun}s near the hill glow .",
             f"The {noun} near the hills glows ."]
  answers = [f"The {noun}s near the hills glow .",
             f"The {noun}s near the hills glows .",
             f"The {noun}s near the hill glows .",
             f"The {noun} near the hills glow ."]
  row = {"ID": str(i)}
  for k, s in enumerate(context, start=1):
    row[f"Sent_{k}"] = s
    row[f"Sent_template_{k}"] = f"Subj_{k} V_{k}"
    row[f"Sent_chunks_{k}"] = repr(s[:-2].split(" near ") + ["."])
  for k, s in enumerate(answers, start=1):
    row[f"Answer_{k}"] = s
    row[f"Answer_value_{k}"] = "True" if k == 1 else "False"
    row[f"Answer_label_{k}"] = RAW_LABELS[k - 1]
    row[f"Answer_template_{k}"] = f"Subj_a{k} V_a{k}"
    row[f"Answer_chunks_{k}"] = repr(s[:-2].split(" near ") + ["."])
  return row


def release_rows(n: int, start: int = 0) -> list[dict[str, str]]:
  return [release_row(i) for i in range(start, start + n)]


def write_release(path: str | os.PathLike, rows: Sequence[dict[str, str]],
                  columns: Sequence[str] | None = None,
                  id_column: str = "ID", encoding: str = "utf-8") -> str:
  """Writes `rows` (missing keys -> empty cells); returns the path."""
  path = os.fspath(path)
  os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
  columns = list(columns or rows[0])
  header = [id_column if c == "ID" else c for c in columns]
  lines = ["\t".join(header)]
  for row in rows:
    lines.append("\t".join(row.get(c, "") for c in columns))
  with open(path, "w", encoding=encoding, newline="") as f:
    f.write("\n".join(lines) + "\n")
  return path


def launch_inputs(root):
  """What a launch on a small release reads, shared between launches: the
  release (60 rows), a tiny BERT, and the folders of the built dataset and
  its embedding cache (the first launch fills them, the others read them)."""
  from tests import tiny_checkpoints

  release = root / "release"
  write_release(release / "all.tsv", release_rows(60))
  encoder = tiny_checkpoints.write_bert(str(root / "tiny_bert"))
  return release, encoder, root / "tfds", root / "cache"
