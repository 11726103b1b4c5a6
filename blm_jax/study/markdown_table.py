"""Markdown tables: one writer for the report's sections and the docs'
tables rendered from records, so a column and its cells cannot drift."""

from __future__ import annotations

from typing import Any, Sequence


def lines(columns: Sequence[str], rows: Sequence[Sequence[Any]]
          ) -> list[str]:
  """The table's lines: the header of named columns, then one line per
  row, cells written as given (str()). A row whose length is not the
  header's is an error naming it."""
  for i, row in enumerate(rows):
    if len(row) != len(columns):
      raise ValueError(f"row {i} has {len(row)} cells, the header "
                       f"{len(columns)}")
  return (["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]
          + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows])
