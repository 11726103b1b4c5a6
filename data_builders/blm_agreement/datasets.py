"""The short names of the `blm_agreement` datasets (data_builders/registry.py):
BLM-Agr's 8-answer set in four languages (papers' design, `_ctx`, `_seq`
and its held-out-rules regime `_seq_rules`) and BLM-AgrF's 6-answer set in
French and Italian (papers' design, `_ctx`)."""

from data_builders.registry import DatasetEntry

_LANGUAGES = ("en", "fr", "it", "ro")
_AGRF6 = ("fr", "it")

DATASETS = tuple(
    DatasetEntry(f"agreement_{lang}", f"blm_agreement/{lang}_mixed_type_{{}}",
                 "agreement", "paper", lang)
    for lang in _LANGUAGES) + tuple(
    # `ctx`: N1's phase drawn per instance; `seq`: the number progressions'
    # rules drawn per instance; `seq_rules`: those split by rule (README.md).
    DatasetEntry(f"agreement_{lang}_{design}",
                 f"blm_agreement/{lang}_{design}_type_{{}}", "agreement",
                 design, lang, paper_designs=(f"agreement_{lang}",))
    for design in ("ctx", "seq", "seq_rules") for lang in _LANGUAGES) + tuple(
    DatasetEntry(f"agreement6_{lang}", f"blm_agreement/{lang}_agrf6_type_{{}}",
                 "agreement6", "paper", lang)
    for lang in _AGRF6) + tuple(
    DatasetEntry(f"agreement6_{lang}_ctx",
                 f"blm_agreement/{lang}_agrf6_ctx_type_{{}}", "agreement6",
                 "ctx", lang, paper_designs=(f"agreement6_{lang}",))
    for lang in _AGRF6)
