"""The docs stay findable and true; code and configs carry no history.

- Every relative link in README.md, docs/**/*.md, studies/**/*.md and the
  family cards resolves to a file or folder (and `#anchor`s of markdown
  files to one of their headings).
- docs/reference/cli.md is generated from the flag definitions in the
  command-line modules' source (absl `DEFINE_*`, argparse `add_argument`):
  `python tests/repo/test_docs_house.py` rewrites it, and the test fails when a
  flag is added, removed or reworded without rewriting it.
- No issue numbers, commit hashes or dates in the library, the configs,
  the builders' code or launch.py: they belong in studies/ and git.
"""

from __future__ import annotations

import ast
import os
import re
import sys

import pytest
from tests import ROOT

CLI_DOC = os.path.join("docs", "reference", "cli.md")

# -- Links ----------------------------------------------------------------------


def markdown_files(root: str = ROOT) -> list[str]:
  """README.md, the family cards and every .md under docs/, studies/ and
  benchmarks/, relative to `root`."""
  out = ["README.md"]
  for top in ("docs", "studies", "benchmarks", "data_builders"):
    for folder, dirs, names in os.walk(os.path.join(root, top)):
      dirs.sort()
      out += sorted(os.path.relpath(os.path.join(folder, n), root)
                    for n in names if n.endswith(".md"))
  return [p for p in out if os.path.isfile(os.path.join(root, p))]


LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


def _anchor(heading: str) -> str:
  """GitHub's anchor of a heading: lower case, punctuation dropped,
  spaces to hyphens."""
  text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
  return text.replace(" ", "-")


def anchors(path: str) -> set[str]:
  with open(path, encoding="utf-8") as f:
    text = re.sub(r"^```.*?^```", "", f.read(), flags=re.M | re.S)
  return {_anchor(m.group(1)) for m in re.finditer(r"^#+ (.*)$", text, re.M)}


def broken_links(doc: str, root: str = ROOT) -> list[str]:
  """'doc:line: target' for each relative link of `doc` that resolves to
  nothing (or to a heading its file does not have)."""
  with open(os.path.join(root, doc), encoding="utf-8") as f:
    text = f.read()
  out = []
  for m in LINK.finditer(text):
    target = m.group(1)
    if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, mailto:, ...
      continue
    path, _, anchor = target.partition("#")
    full = (os.path.join(root, doc) if not path else os.path.normpath(
        os.path.join(root, os.path.dirname(doc), path)))
    line = text.count("\n", 0, m.start()) + 1
    if not os.path.exists(full):
      out.append(f"{doc}:{line}: {target} (no such file)")
    elif anchor and full.endswith(".md") and anchor not in anchors(full):
      out.append(f"{doc}:{line}: {target} (no such heading)")
  return out


@pytest.mark.parametrize("doc", markdown_files())
def test_every_relative_link_resolves(doc):
  assert not broken_links(doc), "\n".join(broken_links(doc))


def test_a_broken_link_is_named_with_its_line(tmp_path):
  (tmp_path / "docs").mkdir()
  (tmp_path / "docs" / "a.md").write_text("# Title\n\n[ok](a.md#title)\n"
                                          "[gone](b.md) [x](a.md#nope)\n")
  assert broken_links("docs/a.md", str(tmp_path)) == [
      "docs/a.md:4: b.md (no such file)",
      "docs/a.md:4: a.md#nope (no such heading)"]


def test_docs_has_a_folder_per_reader_and_the_findings():
  docs = os.path.join(ROOT, "docs")
  for reader in ("tutorials", "how-to", "reference", "explanation"):
    names = os.listdir(os.path.join(docs, reader))
    assert any(n.endswith(".md") for n in names), f"docs/{reader}/ is empty"
  assert os.path.isfile(os.path.join(docs, "findings.md"))
  # Every doc is reachable from the index of docs/.
  with open(os.path.join(docs, "README.md"), encoding="utf-8") as f:
    index = f.read()
  for reader in ("tutorials", "how-to", "reference", "explanation"):
    for name in sorted(os.listdir(os.path.join(docs, reader))):
      assert f"{reader}/{name}" in index, (
          f"docs/README.md does not link docs/{reader}/{name}")


# -- The command-line reference ---------------------------------------------------

# (command as typed, module under blm_jax/cli, what it does)
COMMANDS = [
    ("blm train", "train", "Train a solver grid from a config file; "
     "launch.py is the same command."),
    ("blm reproduce", "reproduce", "A paper's grids at paper scale, then "
     "report.md: the papers' numbers and claims beside ours."),
    ("blm embed", "embed", "Fill the embedding cache with a dataset's or a "
     "run's sentences."),
    ("blm lint", "lint", "Check a dataset, release folder or file; "
     "optionally score the answers without their context."),
    ("blm export", "export", "Write a dataset as GenBench JSON lines or an "
     "lm-evaluation-harness task."),
    ("blm doctor", "doctor", "Check the install."),
    ("blm records", "records", "Study records: make one from a run, check "
     "the docs' tables against theirs, print LaTeX."),
    ("blm probe", "probe", "Probe a finished run."),
    ("blm bench", "bench", "Grid throughput: vmapped and scanned grids "
     "against a loop over cells."),
    ("python -m blm_jax.cli.diagnose", "diagnose", "Where the signal is "
     "lost: per-layer probes from sentence vectors to the design's "
     "attributes, probe-then-solve."),
    ("python -m blm_jax.cli.build_agreement", "build_agreement", "Build "
     "and time the agreement configs, and lint them."),
]
ABSL = re.compile(r"DEFINE_(string|integer|float|bool|boolean|list|enum|"
                  r"multi_string|multi_integer|multi_enum|enum_class|"
                  r"config_file)$")


def _value(node):
  """A literal's value, string concatenations joined; None otherwise."""
  try:
    return ast.literal_eval(node)
  except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
    pass
  if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
    a, b = _value(node.left), _value(node.right)
    return (a if isinstance(a, str) else "…") + (
        b if isinstance(b, str) else "…")
  return None


def flags_of(path: str) -> list[tuple[str, object, str]]:
  """(flag, default, help) of every absl or argparse flag defined in the
  file at `path`, in source order."""
  with open(path, encoding="utf-8") as f:
    tree = ast.parse(f.read())
  calls = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Call)),
                 key=lambda n: (n.lineno, n.col_offset))
  out = []
  for node in calls:
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(
        func, "id", "")
    keywords = {k.arg: k.value for k in node.keywords}
    if ABSL.match(name) and node.args:
      help_at = 3 if name in ("DEFINE_enum", "DEFINE_multi_enum") else 2
      default = (node.args[1] if len(node.args) > 1
                 else keywords.get("default"))
      if default is not None and _value(default) is None and not (
          isinstance(default, ast.Constant)):
        # A name is shown as written; an expression as "computed".
        default = ast.Constant(ast.unparse(default) if isinstance(
            default, (ast.Name, ast.Attribute)) else "computed")
      help_node = (node.args[help_at] if len(node.args) > help_at
                   else keywords.get("help"))
      out.append(("--" + str(_value(node.args[0])),
                  None if default is None else _value(default),
                  _value(help_node) if help_node is not None else ""))
    elif name == "add_argument" and node.args:
      out.append((", ".join(str(_value(a)) for a in node.args),
                  _value(keywords["default"]) if "default" in keywords
                  else None,
                  _value(keywords["help"]) if "help" in keywords else ""))
  return out


def _cell(value) -> str:
  text = " ".join(str(value).split())
  return text.replace("|", "\\|")


def cli_reference(root: str = ROOT) -> str:
  """docs/reference/cli.md, from the flag definitions."""
  lines = [
      "# Command lines", "",
      "Every entry point and its flags, generated from their definitions "
      "in `blm_jax/cli/` (`python tests/repo/test_docs_house.py` rewrites this "
      "file; a test fails when it is out of date). `blm <command> --help` "
      "prints the same flags with the dataset short names and config "
      "files; `pip install` puts `blm` on the path, and each `blm X` runs "
      "the module `blm_jax.cli.X`.", ""]
  for command, module, what in COMMANDS:
    source = f"blm_jax/cli/{module}.py"
    lines += [f"## `{command}`", "", f"{what} Source: `{source}`.", "",
              "| flag | default | what |", "| --- | --- | --- |"]
    for flag, default, help_ in flags_of(os.path.join(root, source)):
      shown = "" if default is None else f"`{_cell(default)}`" if (
          default != "") else "`''`"
      lines.append(f"| `{_cell(flag)}` | {shown} | {_cell(help_)} |")
    lines.append("")
  return "\n".join(lines)


def test_cli_reference_is_generated_from_the_flags():
  with open(os.path.join(ROOT, CLI_DOC), encoding="utf-8") as f:
    assert f.read() == cli_reference(), (
        f"{CLI_DOC} differs from the flags in blm_jax/cli/: run `python "
        "tests/repo/test_docs_house.py` to regenerate it")


def test_every_command_line_is_in_the_reference():
  cli = os.path.join(ROOT, "blm_jax", "cli")
  with_flags = {f[:-3] for f in os.listdir(cli)
                if f.endswith(".py") and flags_of(os.path.join(cli, f))}
  assert with_flags <= {m for _, m, _ in COMMANDS}, (
      f"command lines missing from {CLI_DOC}'s COMMANDS: "
      f"{sorted(with_flags - {m for _, m, _ in COMMANDS})}")


def test_flags_of_reads_absl_and_argparse(tmp_path):
  source = tmp_path / "m.py"
  source.write_text(
      "flags.DEFINE_string('out', 'x', 'Where ' + 'it goes.')\n"
      "flags.DEFINE_enum('kind', 'a', ['a', 'b'], 'Which.')\n"
      "p.add_argument('target', help='a | b')\n"
      "p.add_argument('--quick', action='store_true', help='fast')\n")
  assert flags_of(str(source)) == [
      ("--out", "x", "Where it goes."), ("--kind", "a", "Which."),
      ("target", None, "a | b"), ("--quick", None, "fast")]
  assert _cell("a | b") == "a \\| b"


# -- No history in code and configs ---------------------------------------------

HISTORY_FOLDERS = ("blm_jax", "configs", "data_builders")
ISSUE = re.compile(r"\bissues? #?\d+", re.I)
DATE = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b")
# A short commit hash: 7-12 hex digits with at least one letter and one
# digit, standing alone (not part of a longer hex string: checksums, the
# papers' file names).
HASH = re.compile(r"(?<![0-9a-fA-F_.-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)"
                  r"[0-9a-f]{7,12}(?![0-9a-fA-F_])")


def history(text: str) -> list[str]:
  """The issue numbers, dates and commit hashes in `text`."""
  return [m.group(0) for pattern in (ISSUE, DATE, HASH)
          for m in pattern.finditer(text)]


def code_files(root: str = ROOT) -> list[str]:
  out = ["launch.py"]
  for top in HISTORY_FOLDERS:
    for folder, dirs, names in os.walk(os.path.join(root, top)):
      dirs[:] = sorted(d for d in dirs if d != "__pycache__")
      out += sorted(os.path.relpath(os.path.join(folder, n), root)
                    for n in names if n.endswith(".py"))
  return out


def test_code_and_configs_carry_no_history():
  found = []
  for path in code_files():
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
      for k, line in enumerate(f, 1):
        found += [f"{path}:{k}: {h}" for h in history(line)]
  assert not found, ("issue numbers, dates or commit hashes in code or "
                     "configs (say what and why; the history lives in "
                     "studies/ and git):\n" + "\n".join(found))


def test_history_finds_issues_dates_and_hashes():
  assert history("see issue 33 and Issue #7; run 2026-11-24 at 9651dd0") \
      == ["issue 33", "Issue #7", "2026-11-24", "9651dd0"]
  # Checksums, paper file names, words and numbers are not history.
  assert history("000_880eb7ee4be22a72.txt sha256 " + "ab12" * 16
                 + " deadbeef 1234567 facade") == []


if __name__ == "__main__":
  if sys.argv[1:] != []:
    raise SystemExit("usage: python tests/repo/test_docs_house.py  (rewrites "
                     f"{CLI_DOC})")
  os.makedirs(os.path.dirname(os.path.join(ROOT, CLI_DOC)), exist_ok=True)
  with open(os.path.join(ROOT, CLI_DOC), "w", encoding="utf-8") as f:
    f.write(cli_reference())
  print(f"wrote {CLI_DOC}")
