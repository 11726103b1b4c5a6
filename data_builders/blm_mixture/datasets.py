"""The short names of the `blm_mixture` datasets (data_builders/registry.py):
the Italian Mixture BLM (000 appendix 11.1)."""

from data_builders.registry import DatasetEntry

DATASETS = (
    DatasetEntry("mixture", "blm_mixture/type_{}", "mixture", "paper", "it"),
    DatasetEntry("mixture_ctx", "blm_mixture/ctx_type_{}", "mixture", "ctx",
                 "it", paper_designs=("mixture",)),
)
