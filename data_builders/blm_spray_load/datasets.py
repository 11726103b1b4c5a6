"""The short names of the `blm_spray_load` datasets
(data_builders/registry.py)."""

from data_builders.registry import DatasetEntry

_GROUPS = ("spray_load", "spray_load_atl_alt")  # ALT-ATL, ATL-ALT (004)

DATASETS = (
    DatasetEntry("spray_load", "blm_spray_load/ALT-ATL_type_{}",
                 "spray_load", "paper", "en"),
    DatasetEntry("spray_load_atl_alt", "blm_spray_load/ATL-ALT_type_{}",
                 "spray_load", "paper", "en"),
    # The direction is drawn per instance: one design beside both groups.
    DatasetEntry("spray_load_ctx", "blm_spray_load/ctx_type_{}",
                 "spray_load", "ctx", "en", paper_designs=_GROUPS),
    DatasetEntry("spray_load_seq", "blm_spray_load/seq_type_{}",
                 "spray_load", "seq", "en", paper_designs=_GROUPS),
    # Its generalisation regimes (README): rules held out, a period unseen.
    DatasetEntry("spray_load_seq_rules", "blm_spray_load/seq_rules_type_{}",
                 "spray_load", "seq_rules", "en", paper_designs=_GROUPS),
    DatasetEntry("spray_load_seq_extrap", "blm_spray_load/seq_extrap_type_{}",
                 "spray_load", "seq_extrap", "en", paper_designs=_GROUPS),
)
