"""The package's layers import one way: a test that keeps the house plan.

blm_jax/__init__.py names the layers bottom to top; every import in
blm_jax (at module level or inside a function) goes to its own layer or a
lower one, modules import each other in no circle, `data_builders` imports
nothing of blm_jax, and library code never imports `configs`.
"""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
# Bottom to top, as blm_jax/__init__.py documents them.
LAYERS = ("base", "data", "encoders", "embedding", "models", "training",
          "results", "analysis", "study", "cli")


def _module_name(path: pathlib.Path) -> str:
  parts = path.relative_to(ROOT).with_suffix("").parts
  return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: pathlib.Path):
  """(imported module, line, at module level) of every absolute import."""
  tree = ast.parse(path.read_text())
  top = set(map(id, tree.body))
  for node in ast.walk(tree):
    if isinstance(node, ast.Import):
      for a in node.names:
        yield a.name, node.lineno, id(node) in top
    elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
      for a in node.names:
        # `from blm_jax.training import trainer` imports a module.
        yield f"{node.module}.{a.name}", node.lineno, id(node) in top


def _files(package: str):
  return sorted((ROOT / package).rglob("*.py"))


def _layer(module: str) -> int | None:
  parts = module.split(".")
  if parts[0] != "blm_jax" or len(parts) < 2:
    return None
  return LAYERS.index(parts[1]) if parts[1] in LAYERS else None


def test_every_blm_jax_module_is_in_a_layer():
  for path in _files("blm_jax"):
    name = _module_name(path)
    if name == "blm_jax":
      continue
    assert _layer(name) is not None, (
        f"{path.relative_to(ROOT)} is in no layer of {LAYERS}")


def test_layers_are_documented_in_the_package_docstring():
  doc = ast.get_docstring(ast.parse((ROOT / "blm_jax/__init__.py")
                                    .read_text()))
  positions = [doc.index(f"{layer}/") for layer in LAYERS]
  assert positions == sorted(positions, reverse=True), (
      "blm_jax/__init__.py lists the layers top to bottom in LAYERS order")


def test_imports_run_downward_only():
  upward = []
  for path in _files("blm_jax"):
    me = _layer(_module_name(path))
    if me is None:
      continue
    for target, line, _ in _imports(path):
      other = _layer(target)
      if other is not None and other > me:
        upward.append(f"{path.relative_to(ROOT)}:{line} imports {target} "
                      f"({LAYERS[me]} -> {LAYERS[other]})")
  assert not upward, "imports from a lower layer to a higher one:\n" + (
      "\n".join(upward))


def test_data_builders_never_import_blm_jax_and_libraries_never_configs():
  found = []
  for path in _files("data_builders"):
    found += [f"{path.relative_to(ROOT)}:{line} imports {t}"
              for t, line, _ in _imports(path)
              if t.split(".")[0] in ("blm_jax", "configs")]
  for path in _files("blm_jax"):
    found += [f"{path.relative_to(ROOT)}:{line} imports {t}"
              for t, line, _ in _imports(path)
              if t.split(".")[0] == "configs"]
  assert not found, "\n".join(found)


def test_no_circle_of_module_level_imports():
  modules = {_module_name(p): p for p in _files("blm_jax")}
  graph = {}
  for name, path in modules.items():
    graph[name] = set()
    for target, _, at_top in _imports(path):
      if not at_top:
        continue
      # `from pkg import mod` names a module when pkg.mod is one.
      while target and target not in modules:
        target = target.rpartition(".")[0]
      if target and target != name and not name.startswith(target + "."):
        graph[name].add(target)
  seen, stack, circles = set(), [], []

  def visit(node):
    if node in stack:
      circles.append(stack[stack.index(node):] + [node])
      return
    if node in seen:
      return
    seen.add(node)
    stack.append(node)
    for nxt in sorted(graph.get(node, ())):
      visit(nxt)
    stack.pop()

  for node in sorted(graph):
    visit(node)
  assert not circles, "\n".join(" -> ".join(c) for c in circles)


@pytest.mark.parametrize("planted", ["upward", "configs"])
def test_the_checks_catch_a_planted_import(tmp_path, monkeypatch, planted):
  """A data-layer module importing training (or configs) is reported."""
  pkg = tmp_path / "blm_jax" / "data"
  pkg.mkdir(parents=True)
  (tmp_path / "blm_jax" / "__init__.py").write_text("")
  (tmp_path / "data_builders").mkdir()
  line = ("from blm_jax.training import trainer\n" if planted == "upward"
          else "from configs import common\n")
  (pkg / "bad.py").write_text(line)
  monkeypatch.setattr(__import__(__name__, fromlist=["ROOT"]), "ROOT",
                      tmp_path)
  check = (test_imports_run_downward_only if planted == "upward"
           else test_data_builders_never_import_blm_jax_and_libraries_never_configs)
  with pytest.raises(AssertionError, match=r"blm_jax/data/bad.py:1 imports"):
    check()
