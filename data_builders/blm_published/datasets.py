"""The short names of the `blm_published` datasets (data_builders/registry.py):
the published release and the user's own files in its format, all read
from --config.data.manual_dir (docs/tutorials/own-data.md)."""

from data_builders.registry import DatasetEntry

DATASETS = (
    DatasetEntry("published_agreement_fr",
                 "blm_published/agreement_fr_type_{}", "agreement", "paper",
                 "fr", needs_manual_dir=True),
    DatasetEntry("published_spray_load",
                 "blm_published/spray_load_en_ALT-ATL_type_{}", "spray_load",
                 "paper", "en", needs_manual_dir=True),
    # One folder of release-format files is one type: a grid trains and
    # tests on it; or a folder with type_I/ type_II/ type_III/ subfolders.
    DatasetEntry("own_release", "blm_published/folder", "own", "own", None,
                 types=("folder",), needs_manual_dir=True),
    DatasetEntry("own_release_types", "blm_published/type_{}", "own", "own",
                 None, needs_manual_dir=True),
)
