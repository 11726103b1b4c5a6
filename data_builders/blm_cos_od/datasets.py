"""The short names of the `blm_cos_od` datasets (data_builders/registry.py):
change-of-state (cos) and object-drop (od), English and Italian, each in
the papers' design, its `_ctx` and its `_seq` design, and the `_seq`
design's held-out-rules regime `_seq_rules`."""

from data_builders.registry import DatasetEntry

_VARIANTS = tuple((family, lang) for family in ("cos", "od")
                  for lang in ("en", "it"))

DATASETS = tuple(
    DatasetEntry(f"{family}_{lang}", f"blm_cos_od/{family}_{lang}_type_{{}}",
                 family, "paper", lang)
    for family, lang in _VARIANTS) + tuple(
    DatasetEntry(f"{family}_{lang}_{design}",
                 f"blm_cos_od/{family}_{lang}_{design}_type_{{}}", family,
                 design, lang, paper_designs=(f"{family}_{lang}",))
    for design in ("ctx", "seq", "seq_rules") for family, lang in _VARIANTS)
