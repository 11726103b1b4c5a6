"""Every snippet and command README.md (and docs/*.md) shows works as written.

- ```python blocks run as written, in a fresh interpreter in an empty folder
  with an empty $BLM_DATA_DIR; the placeholder `path/to/release` is replaced
  by a small release folder in the published layout. A block whose first
  line is `# needs a finished run` (or `# needs the network`) is heavy: it
  is only compiled and its imports resolved.
- Python calls with arguments may not appear inline (`tfds.builder('x', ...)`):
  they cannot run as written, so they belong in a ```python block.
- Commands (```bash blocks and inline `python ...`): `python launch.py` is
  checked, not run (the main job takes minutes): its config file, variant,
  every --config.<key> override and config_check.validate; `python -m M`
  runs `M --help` and checks every --flag it uses; `python path.py` exists;
  `pip install -e '.[x]'` extras exist in pyproject.toml. Placeholders
  (`...`, `<...>`, an upper-case metavariable like `--model=M`) are allowed
  in commands only.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import os
import re
import shlex
import subprocess
import sys
import textwrap

import pytest

from tests import ROOT

README = os.environ.get("BLM_README", os.path.join(ROOT, "README.md"))
# The docs (every reader's folder) are checked like the README;
# studies/experiments/ records the commands of past runs as they were, so it
# is not.
DOCS = [README] + ([] if "BLM_README" in os.environ else sorted(
    os.path.join(folder, n)
    for folder, dirs, names in os.walk(os.path.join(ROOT, "docs"))
    if os.path.relpath(folder, os.path.join(ROOT, "docs")).split(os.sep)[0]
    not in ("experiments", "records")
    for n in names if n.endswith(".md")))
HEAVY_MARKERS = ("# needs a finished run", "# needs the network")
RELEASE_PLACEHOLDER = "path/to/release"


def _text(path: str = README) -> str:
  with open(path, encoding="utf-8") as f:
    return f.read()


def _where(path: str, line: int) -> str:
  return f"{os.path.relpath(path, ROOT)}:{line}"


def _blocks(lang: str, path: str = README) -> list[tuple[str, str]]:
  """(file:line, body) of every ```lang fenced block."""
  out, text = [], _text(path)
  for m in re.finditer(r"^[ \t]*```" + lang + r"[ \t]*\n(.*?)^[ \t]*```",
                       text, re.M | re.S):
    # Blocks inside list items are indented: dedent them.
    out.append((_where(path, text.count("\n", 0, m.start()) + 1),
                textwrap.dedent(m.group(1))))
  return out


def _all_blocks(lang: str) -> list[tuple[str, str]]:
  return [b for path in DOCS for b in _blocks(lang, path)]


def _inline_spans(path: str = README) -> list[tuple[str, str]]:
  """(file:line, code) of every inline `code` span outside fenced blocks."""
  text = re.sub(r"^[ \t]*```.*?^[ \t]*```", lambda m: "\n" * m.group(0).count("\n"),
                _text(path), flags=re.M | re.S)
  return [(_where(path, text.count("\n", 0, m.start()) + 1), m.group(1))
          for m in re.finditer(r"(?<!`)`([^`\n]+)`(?!`)", text)]


def _all_inline_spans() -> list[tuple[str, str]]:
  return [s for path in DOCS for s in _inline_spans(path)]


def _commands() -> list[tuple[str, str]]:
  out = []
  for path in DOCS:
    for where, body in _blocks("bash", path):
      line = int(where.rsplit(":", 1)[1])
      for k, raw in enumerate(body.splitlines()):
        for part in raw.split("&&"):
          if part.strip() and not part.strip().startswith("#"):
            out.append((_where(path, line + 1 + k), part.strip()))
    out += [(where, code) for where, code in _inline_spans(path)
            if code.startswith(("python ", "python3 ", "pip "))]
  return out


def _id(item) -> str:
  return item[0]


# -- Python snippets ------------------------------------------------------------


def test_no_inline_python_calls_with_arguments():
  calls = [f"{where}: `{code}`" for where, code in _all_inline_spans()
           if re.match(r"^[A-Za-z_][\w.]*\(.+\)", code)
           and re.search(r"['\"=]", code)  # not prose like `jit(vmap(...))`
           and not code.startswith(("python ", "pip "))]
  assert not calls, (
      "these inline snippets cannot run as written (no imports, no values); "
      "put each in a ```python block with its imports:\n" + "\n".join(calls))


def test_readme_has_python_snippets():
  assert _blocks("python"), "README.md shows no ```python block"


def _write_release(root):
  from tests.release_fixtures import release_rows, write_release

  for t in ("I", "II", "III"):
    folder = os.path.join(root, "agreement_fr", f"type_{t}")
    write_release(os.path.join(folder, "train.tsv"), release_rows(40))
    write_release(os.path.join(folder, "test.tsv"),
                  release_rows(10, start=40))
    write_release(os.path.join(folder, "all.tsv"), release_rows(50))


def _imports_resolve(body: str) -> None:
  for node in ast.walk(ast.parse(body)):
    if isinstance(node, ast.Import):
      for a in node.names:
        assert importlib.util.find_spec(a.name), f"no module {a.name}"
    elif isinstance(node, ast.ImportFrom):
      module = importlib.import_module(node.module)
      for a in node.names:
        assert hasattr(module, a.name) or importlib.util.find_spec(
            f"{node.module}.{a.name}"), f"{node.module} has no {a.name}"


@pytest.mark.slow
@pytest.mark.parametrize("block", _all_blocks("python"), ids=_id)
def test_python_block_runs_as_written(block, tmp_path):
  where, body = block
  if body.lstrip().startswith(HEAVY_MARKERS):
    compile(body, where, "exec")
    _imports_resolve(body)
    return
  if RELEASE_PLACEHOLDER in body:
    _write_release(str(tmp_path / "release"))
    body = body.replace(RELEASE_PLACEHOLDER, str(tmp_path / "release"))
  work = tmp_path / "cwd"
  work.mkdir()
  env = dict(os.environ, JAX_PLATFORMS="cpu",
             BLM_DATA_DIR=str(tmp_path / "tfds"),
             PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
  proc = subprocess.run([sys.executable, "-c", body], cwd=work, env=env,
                        capture_output=True, text=True, timeout=300)
  assert proc.returncode == 0, (
      f"{where} fails as written:\n{body}\n{proc.stderr[-3000:]}")


# -- Commands -------------------------------------------------------------------


def _is_placeholder(value: str) -> bool:
  return value in ("...", "M") or bool(re.fullmatch(r"<[^>]*>|[A-Z]+", value))


def _check_launch(args: list[str]) -> None:
  from blm_jax.training import config_check
  from configs import common

  spec = next(a.split("=", 1)[1] for a in args if a.startswith("--config="))
  path, _, variant = spec.partition(":")
  assert os.path.isfile(os.path.join(ROOT, path)), f"no config file {path}"
  module_spec = importlib.util.spec_from_file_location(
      "_readme_config", os.path.join(ROOT, path))
  module = importlib.util.module_from_spec(module_spec)
  module_spec.loader.exec_module(module)
  config = module.get_config(variant or None)
  for a in args:
    if a.startswith("--config."):
      key, _, value = a[len("--config."):].partition("=")
      node = config
      *parents, leaf = key.split(".")
      for p in parents:
        node = node[p]
      assert leaf in node, f"--config.{key} is not a config key"
      if not _is_placeholder(value):
        old = node[leaf]
        if isinstance(old, tuple):  # absl parses a tuple field as a literal
          value = ast.literal_eval(value)
          assert isinstance(value, tuple), (
              f"--config.{key}={value!r} is not a tuple literal like (0,)")
        node[leaf] = type(old)(value) if isinstance(old, (int, float)) and (
            not isinstance(old, bool)) else value
    elif a.startswith("--") and a.split("=")[0] not in (
        "--config", "--workdir", "--distributed", "--verbosity",
        "--coordinator_address", "--num_processes", "--process_id",
        "--distributed_init_timeout", "--distributed_heartbeat_timeout"):
      raise AssertionError(f"launch.py has no flag {a}")
  config_check.validate(config)
  assert common.DATASETS  # the short names the README points at


@functools.lru_cache(maxsize=None)
def _help(module: str) -> str:
  """`python -m module --help` (one subprocess per module, however many
  commands of the docs name it)."""
  env = dict(os.environ, JAX_PLATFORMS="cpu",
             PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
  proc = subprocess.run([sys.executable, "-m", module, "--help"], cwd=ROOT,
                        env=env, capture_output=True, text=True, timeout=300)
  out = proc.stdout + proc.stderr
  assert proc.returncode == 0, f"python -m {module} --help:\n{out}"
  return out


@pytest.mark.slow
@pytest.mark.parametrize("command", _commands(), ids=_id)
def test_command_is_valid(command):
  line, text = command
  words = shlex.split(text)
  where = f"{line}: {text}"
  if words[0] in ("pip", "pip3"):
    for extra in re.findall(r"\.\[([\w,-]+)\]", text):
      pyproject = open(os.path.join(ROOT, "pyproject.toml")).read()
      for e in extra.split(","):
        assert re.search(rf"^{e}\s*=", pyproject, re.M), (
            f"{where}: pyproject.toml has no extra {e!r}")
    return
  if words[0] not in ("python", "python3") or words[1:3] == ["-m", "venv"]:
    return  # Shell set-up (activate a venv): nothing to check.
  if words[1:3] == ["-m", "pytest"]:
    return  # This very suite.
  if words[1] == "launch.py":
    _check_launch(words[2:])
    return
  if words[1] == "-m":
    module, args = words[2], words[3:]
    usage = _help(module)
    overrides = [a for a in args if a.startswith("--config.")]
    if overrides:  # A command that reads a config file (cli.embed).
      assert re.search(r"--config\b", usage), (
          f"{where}: {module} has no flag --config")
      _check_launch([a for a in args if a.startswith("--config=")]
                    + overrides)
    for a in args:
      if a.startswith("--config."):
        continue
      if a.startswith("--"):
        flag = a.split("=")[0]
        # absl lists a boolean flag as --[no]name.
        assert re.search(r"--(\[no\])?" + re.escape(flag[2:]) + r"\b",
                         usage), (
            f"{where}: {module} has no flag {flag}")
      if a.startswith("--dataset=") or (module == "blm_jax.cli.lint"
                                        and not a.startswith("-")):
        name = a.split("=", 1)[-1]
        if "/" in name and not os.path.exists(name):
          _check_dataset(name, where)
    return
  assert os.path.isfile(os.path.join(ROOT, words[1])), (
      f"{where}: no file {words[1]}")


def _check_dataset(name: str, where: str) -> None:
  import ml_collections

  from blm_jax.training import config_check

  c = ml_collections.ConfigDict({"data": {"name": name, "train_types": ("I",),
                                          "test_types": ("I",)}})
  try:
    config_check.check_dataset_names(c)
  except config_check.ConfigError as e:
    raise AssertionError(f"{where}: {e}") from None
