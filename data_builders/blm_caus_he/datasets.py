"""The short names of the `blm_caus_he` datasets (data_builders/registry.py):
Hebrew binyanim (002 sec. 4.3), MaxLex only (002 Table 2)."""

from data_builders.registry import DatasetEntry

DATASETS = (
    DatasetEntry("caus_he", "blm_caus_he/synthetic_{}", "caus_he", "paper",
                 "he", types=("MaxLex",)),
    # Read from a folder of UD Hebrew .conllu files (--config.data.manual_dir).
    DatasetEntry("caus_he_natural", "blm_caus_he/natural_{}", "caus_he",
                 "paper", "he", types=("MaxLex",), needs_manual_dir=True),
)
