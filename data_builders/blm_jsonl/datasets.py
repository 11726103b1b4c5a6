"""The short names of the `blm_jsonl` datasets (data_builders/registry.py):
the user's own JSONL instances, read from --config.data.manual_dir
(docs/tutorials/own-data.md): one folder (one type), or type_I/ type_II/ type_III/
subfolders."""

from data_builders.registry import DatasetEntry

DATASETS = (
    DatasetEntry("own_jsonl", "blm_jsonl/folder", "own", "own", None,
                 types=("folder",), needs_manual_dir=True),
    DatasetEntry("own_jsonl_types", "blm_jsonl/type_{}", "own", "own", None,
                 needs_manual_dir=True),
)
