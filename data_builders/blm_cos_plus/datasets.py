"""The short names of the `blm_cos_plus` datasets (data_builders/registry.py):
COS+ (002 sec. 4.2) in English, Italian and German (case, mix), each
direction (T2I, I2T) in the papers' design and one `_ctx` design that draws
the direction per instance; lexical types MinLex / MaxLex (002 sec. 3)."""

from data_builders.registry import DatasetEntry

_VARIANTS = ("en", "it", "de_case", "de_mix")
_TYPES = ("MinLex", "MaxLex")
_DIRECTIONS = ("T2I", "I2T")

DATASETS = tuple(
    DatasetEntry(f"cos_plus_{v}_{d.lower()}", f"blm_cos_plus/{v}_{d}_{{}}",
                 "cos_plus", "paper", v[:2], types=_TYPES)
    for v in _VARIANTS for d in _DIRECTIONS) + tuple(
    DatasetEntry(f"cos_plus_{v}_ctx", f"blm_cos_plus/{v}_ctx_{{}}",
                 "cos_plus", "ctx", v[:2], types=_TYPES,
                 paper_designs=tuple(f"cos_plus_{v}_{d.lower()}"
                                     for d in _DIRECTIONS))
    for v in _VARIANTS)
