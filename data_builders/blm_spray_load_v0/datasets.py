"""The short names of the `blm_spray_load_v0` datasets
(data_builders/registry.py): 003's Templates 1 and 2, each with its `_ctx`
design."""

from data_builders.registry import DatasetEntry

DATASETS = (
    DatasetEntry("spray_load_v0", "blm_spray_load_v0/Template1_type_{}",
                 "spray_load_v0", "paper", "en"),
    DatasetEntry("spray_load_v0_t2", "blm_spray_load_v0/Template2_type_{}",
                 "spray_load_v0", "paper", "en"),
    DatasetEntry("spray_load_v0_ctx", "blm_spray_load_v0/ctx_type_{}",
                 "spray_load_v0", "ctx", "en",
                 paper_designs=("spray_load_v0",)),
    DatasetEntry("spray_load_v0_t2_ctx", "blm_spray_load_v0/ctx_t2_type_{}",
                 "spray_load_v0", "ctx", "en",
                 paper_designs=("spray_load_v0_t2",)),
)
