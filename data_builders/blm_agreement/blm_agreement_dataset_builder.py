"""`blm_agreement`: subject-verb agreement BLMs in English, French, Italian
and Romanian (BLM-Agr, 000 sec. 3.2.4 and 4.4 with Figure 3; 001 sec. 2.2.1;
003 sec. 4.1 and appendix A), generated from the lexicons in `lexicon/`.

Configs are `<en|fr|it|ro>_<main|relative|completive|mixed>_type_<I|II|III>`;
`mixed` holds the three clause types in equal numbers, as the papers' data.
The context-necessary configs `<lang>_ctx_type_<T>` and
`<fr|it>_agrf6_ctx_type_<T>` draw N1's phase per instance and build the
answers around both phases' answers (README "Context-necessary configs");
the sequence-necessary `<lang>_seq_type_<T>` draw the rule of each number
progression and of the embedding under a matrix clause per instance (README
"Sequence-necessary configs"), and `<lang>_seq_rules_type_<T>` split
the same instances by rule (README "Generalisation regimes").
The template and answer set are in `templates.py`, the lexical types in
`generate.py`. Any other combination (for instance type I without the copy
cue of the paper's template) is a run-time config:

    cfg = AgreementConfig.from_name("fr_mixed_type_I", keep_copy_cue=False,
                                    name="fr_mixed_type_I_nocue")
    tfds.builder("blm_agreement", config=cfg, data_dir=...)
"""

from __future__ import annotations

import dataclasses

import tensorflow_datasets as tfds

from data_builders.blm_agreement import generate as generate_lib
from data_builders.blm_agreement import generate_seq
from data_builders.blm_agreement import lexicon
from data_builders.blm_agreement import templates
from data_builders.common import builder

CLAUSE_CONFIGS = {"main": ("main",), "relative": ("relative",),
                  "completive": ("completive",),
                  "mixed": templates.CLAUSE_TYPES}
LEXICAL_TYPES = ("I", "II", "III")

# Instances per clause type. Type I: every seed x number variant up to this
# many (000 Table 4: 2000 to train on plus ~256 to test, so >= 2300 in the
# mixed configs). Types II/III: enough for 2000 training instances and a
# test split (10% of the groups) of about 4,000-4,800.
TYPE_I_PER_CLAUSE = {"single": 2400, "mixed": 800}
VARIED_PER_CLAUSE = {"single": 30000, "mixed": 10000}


@dataclasses.dataclass(eq=False)
class AgreementConfig(builder.GeneratedConfig):
  """One language, clause-type set and lexical type.

  `keep_copy_cue`: type I keeps the paper's template, where WN1 repeats
  context sentence 6 and WNA sentence 4; False realises the answer set with
  the frame's other N1 and N2 so that no candidate repeats the context.
  `per_clause`: instances per clause type (0: the defaults above).
  """

  language: str = ""
  clause: str = ""
  lexical_type: str = ""
  keep_copy_cue: bool = True
  per_clause: int = 0
  answer_set: str = "full"

  @classmethod
  def from_name(cls, config_name: str, **overrides) -> "AgreementConfig":
    """Parses `<lang>_<clause>_type_<T>`; raises naming the bad part."""
    parts = config_name.split("_")
    if len(parts) != 4 or parts[2] != "type":
      raise ValueError(f"config {config_name!r}: expected "
                       "<language>_<clause>_type_<I|II|III>")
    lang, clause, _, ltype = parts
    kwargs = dict(name=config_name, language=lang, clause=clause,
                  lexical_type=ltype,
                  description=f"Agreement BLM, {lang}, {clause} clauses, "
                  f"type {ltype}.")
    kwargs.update(overrides)
    cfg = cls(**kwargs)
    cfg.validate()
    return cfg

  def validate(self) -> None:
    if self.language not in lexicon.LANGUAGES:
      raise ValueError(f"config {self.name!r}: unknown language "
                       f"{self.language!r}; known: {lexicon.LANGUAGES}")
    if self.clause not in CLAUSE_CONFIGS:
      raise ValueError(f"config {self.name!r}: unknown clause type "
                       f"{self.clause!r}; known: {sorted(CLAUSE_CONFIGS)}")
    if self.answer_set not in generate_lib.ANSWER_SETS:
      raise ValueError(f"config {self.name!r}: unknown answer set "
                       f"{self.answer_set!r}; known: "
                       f"{generate_lib.ANSWER_SETS}")
    if self.lexical_type not in LEXICAL_TYPES:
      raise ValueError(f"config {self.name!r}: unknown lexical type "
                       f"{self.lexical_type!r}; known: {LEXICAL_TYPES}")

  def size_per_clause(self) -> int:
    if self.per_clause:
      return self.per_clause
    table = TYPE_I_PER_CLAUSE if self.lexical_type == "I" else VARIED_PER_CLAUSE
    return table["mixed" if self.clause == "mixed" else "single"]


# BLM-AgrF with its 6-candidate answer set (001 Figure 3), sizes per 001
# Table 1: type I 2073 train / 3840 test, type III 34650 / 3840 (type II,
# absent there, as type III). Mixed clauses in equal numbers; type I is
# capped by the lexicon (1536 main-clause seeds x variants), so it holds
# 1536 + 2 x 1971 = 5478 instances, cut 35:65 (train+dev : test) by groups.
AGRF6_LANGUAGES = ("fr", "it")
AGRF6_PER_CLAUSE = {"I": 1971, "II": 12830, "III": 12830}
# Splits are cut by whole groups (frame, clause, prefix/relative clause), so
# the test share of groups is set per language such that, with seed 0, the
# test split holds about Table 1's 3,840 instances (fr 3,758, it 3,732 in
# types II and III; 3,742 each in type I).
AGRF6_TEST_SHARE = {"I": {"fr": 0.65, "it": 0.65},
                    "II": {"fr": 0.12, "it": 0.10},
                    "III": {"fr": 0.12, "it": 0.10}}


def agrf6_fractions(language: str, lexical_type: str):
  test = AGRF6_TEST_SHARE[lexical_type][language]
  return (("train", 0.8 * (1 - test)), ("dev", 0.2 * (1 - test)),
          ("test", test))


def agrf6_config(language: str, lexical_type: str) -> AgreementConfig:
  """`<lang>_agrf6_type_<T>`: mixed clauses, 6 candidates, 001 sizes."""
  cfg = AgreementConfig(
      name=f"{language}_agrf6_type_{lexical_type}", language=language,
      clause="mixed", lexical_type=lexical_type, answer_set="agrf6",
      per_clause=AGRF6_PER_CLAUSE[lexical_type],
      split_fractions=agrf6_fractions(language, lexical_type),
      description=f"Agreement BLM, {language}, mixed clauses, 6 candidates "
      f"(BLM-AgrF, 001 Figure 3), type {lexical_type}.")
  cfg.validate()
  return cfg


CONFIG_NAMES = tuple(f"{lang}_{clause}_type_{t}" for lang in lexicon.LANGUAGES
                     for clause in ("main", "relative", "completive", "mixed")
                     for t in LEXICAL_TYPES)


def ctx_config(language: str, lexical_type: str) -> AgreementConfig:
  """`<lang>_ctx_type_<T>`: context-necessary (README), mixed clauses, the
  sizes of `<lang>_mixed_type_<T>`."""
  cfg = AgreementConfig(
      name=f"{language}_ctx_type_{lexical_type}", language=language,
      clause="mixed", lexical_type=lexical_type, context_necessary=True,
      description=f"Agreement BLM, {language}, mixed clauses, type "
      f"{lexical_type}, context-necessary: N1's phase drawn per instance, "
      "Corr and WN1 each with their own errors.")
  cfg.validate()
  return cfg


def agrf6_ctx_config(language: str, lexical_type: str) -> AgreementConfig:
  """`<fr|it>_agrf6_ctx_type_<T>`: the context-necessary design with the
  6-candidate set's labels (9 candidates), the sizes and split shares of
  `<lang>_agrf6_type_<T>`."""
  cfg = AgreementConfig(
      name=f"{language}_agrf6_ctx_type_{lexical_type}", language=language,
      clause="mixed", lexical_type=lexical_type, answer_set="agrf6",
      per_clause=AGRF6_PER_CLAUSE[lexical_type], context_necessary=True,
      split_fractions=agrf6_fractions(language, lexical_type),
      description=f"Agreement BLM, {language}, mixed clauses, BLM-AgrF "
      f"labels, type {lexical_type}, context-necessary: N1's phase drawn "
      "per instance, Corr and WN1 each with their own errors.")
  cfg.validate()
  return cfg


# Sequence-necessary: main and relative clauses (`generate_seq.CLAUSES`, the
# completive being the embedding attribute). Type I: seeds drawn with
# replacement, each with its own plan, so the size is free; enough for 2000
# training instances. Types II and III: the 30,000 instances of
# `<lang>_mixed_type_*`, in two clause types.
SEQ_PER_CLAUSE = {"I": 1650, "II": 15000, "III": 15000}
# The `_seq` configs' own version: their data changed after the builder's
# (RELEASE_NOTES), the other configs' did not, so their records stay current.
SEQ_VERSION = "1.3.0"


def seq_config(language: str, lexical_type: str,
               regime: str = "") -> AgreementConfig:
  """`<lang>_seq_type_<T>`: sequence-necessary (README), main and relative
  clauses, each sentence embedded under a matrix clause or not;
  `<lang>_seq_rules_type_<T>` (regime "rules"): the same instances split by
  rule, no test rule in train or dev."""
  design = f"seq_{regime}" if regime else "seq"
  cfg = AgreementConfig(
      name=f"{language}_{design}_type_{lexical_type}", language=language,
      clause="mixed", lexical_type=lexical_type, context_necessary=True,
      sequence_necessary=True, per_clause=SEQ_PER_CLAUSE[lexical_type],
      regime=regime, version=SEQ_VERSION,
      description=f"Agreement BLM, {language}, main and relative clauses, "
      f"type {lexical_type}, sequence-necessary: the subject's, N1's and "
      "N2's number progressions and the embedding under a matrix clause "
      "drawn per instance, the sixteen continuations and 000 Figure 3's "
      "errors on continuations drawn per instance."
      + (" Split by rule: no test rule in train or dev." if regime else ""))
  cfg.validate()
  return cfg


class Builder(builder.GeneratedBLMBuilder):
  """Subject-verb agreement BLMs (BLM-Agr), four languages, three clause types."""

  VERSION = tfds.core.Version("1.2.0")
  RELEASE_NOTES = {
      "1.0.0": "Generated agreement BLMs (en, fr, it, ro).",
      "1.1.0": "Italian lexicon: parco -> parchi (was parci); the Italian "
               "configs change, en/fr/ro are byte-identical (digests in "
               "tests/data_builders/test_agreement_ctx.py). New "
               "sequence-necessary configs <lang>_seq_type_<T>.",
      "1.2.0": "Sequence-necessary configs: a fourth progression, the "
               "embedding (main clause or completive under the instance's "
               "matrix clause), drawn per instance; 21 candidates (the 16 "
               "well-formed continuations and 000 Figure 3's 5 errors), "
               "label component WEMB; main and relative seeds. The other "
               "configs are unchanged.",
      "1.3.0": "Sequence-necessary configs only (their own version; the "
               "others stay 1.2.0): N2 from sentence 4 (four context "
               "sentences show it; rules constant, period 1, period 2, "
               "period 4 flipping once in the block); types II/III never "
               "repeat a context sentence word for word; no sentence holds "
               "a quantifier phrase twice; Romanian object marking "
               "corrected (lexicon/ro/corrections.tsv).",
  }
  BUILDER_CONFIGS = [AgreementConfig.from_name(n) for n in CONFIG_NAMES] + [
      agrf6_config(lang, t) for lang in AGRF6_LANGUAGES
      for t in LEXICAL_TYPES] + [
          ctx_config(lang, t) for lang in lexicon.LANGUAGES
          for t in LEXICAL_TYPES] + [
              agrf6_ctx_config(lang, t) for lang in AGRF6_LANGUAGES
              for t in LEXICAL_TYPES] + [
                  seq_config(lang, t) for lang in lexicon.LANGUAGES
                  for t in LEXICAL_TYPES] + [
                      seq_config(lang, t, "rules")
                      for lang in lexicon.LANGUAGES for t in LEXICAL_TYPES]

  # Type I instances of one frame share sentences: split by frame and clause.
  group_of = staticmethod(generate_lib.group_of)

  def generate(self, config):
    config.validate()
    if config.sequence_necessary:
      return generate_seq.generate_seq(
          config.language, generate_seq.CLAUSES,
          config.lexical_type, config.size_per_clause(), config.seed,
          fractions=config.fractions)
    if config.context_necessary:
      return generate_lib.generate_ctx(
          config.language, CLAUSE_CONFIGS[config.clause],
          config.lexical_type, config.size_per_clause(), config.seed,
          answer_set=config.answer_set, fractions=config.fractions)
    return generate_lib.generate(
        config.language, CLAUSE_CONFIGS[config.clause], config.lexical_type,
        config.size_per_clause(), config.seed, config.keep_copy_cue,
        answer_set=config.answer_set, fractions=config.fractions)
