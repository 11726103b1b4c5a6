"""The short names of the `blm_roll` datasets (data_builders/registry.py):
English Roll verbs (000 Figure 10)."""

from data_builders.registry import DatasetEntry

DATASETS = (
    DatasetEntry("roll", "blm_roll/type_{}", "roll", "paper", "en"),
    DatasetEntry("roll_ctx", "blm_roll/ctx_type_{}", "roll", "ctx", "en",
                 paper_designs=("roll",)),
)
