"""The short names of the `blm_sequence_of_tense` datasets
(data_builders/registry.py): Italian sequence of tense (000 sec. 3.2.5)."""

from data_builders.registry import DatasetEntry

DATASETS = (
    DatasetEntry("sequence_of_tense", "blm_sequence_of_tense/type_{}",
                 "sequence_of_tense", "paper", "it"),
    DatasetEntry("sequence_of_tense_ctx", "blm_sequence_of_tense/ctx_type_{}",
                 "sequence_of_tense", "ctx", "it",
                 paper_designs=("sequence_of_tense",)),
)
