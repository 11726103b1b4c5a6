"""TFDS builders of the project; importing this package registers them all.

Every subpackage `<name>/` holding `<name>_dataset_builder.py` (the `tfds new`
layout) is imported, so `tfds.builder('<name>/<config>')` and
`tfds.data_source(...)` work by name. A package's `datasets.py` declares
the short names of its configs; `registry.py` collects them.
"""

import importlib
import pathlib
import pkgutil

_HERE = pathlib.Path(__file__).resolve().parent

BUILDER_PACKAGES = tuple(sorted(
    m.name for m in pkgutil.iter_modules([str(_HERE)])
    if m.ispkg and (_HERE / m.name / f"{m.name}_dataset_builder.py").exists()))

for _name in BUILDER_PACKAGES:
  importlib.import_module(f"{__name__}.{_name}.{_name}_dataset_builder")
