"""`blm_caus_he`: BLM-CausH, the Hebrew binyanim Paal/Nifal/Hifil/Hufal.

002 sec. 4.3, Figure 11, Table 2. Two configs, both MaxLex:

  synthetic_MaxLex  verb forms generated from the curated roots in
                    `lexicon/roots.tsv`; 8000 instances split 72/18/10
                    (7200 train+dev / 800 test), no context in two splits;
  natural_MaxLex    treebank sentences from the CoNLL-U files in manual_dir
                    (002 uses UD Hebrew HTB); sentence-disjoint train+dev
                    (7200, 20% dev) and test (800) where the source allows.

    import data_builders, tensorflow_datasets as tfds
    src = tfds.data_source("blm_caus_he/synthetic_MaxLex", data_dir=...)
"""

from __future__ import annotations

import dataclasses
import os
import pathlib

import tensorflow_datasets as tfds

from data_builders.blm_caus_he import generate
from data_builders.common import builder, splits

TRAIN_DEV_FRACTIONS = {"train": 0.8, "dev": 0.2}


@dataclasses.dataclass(eq=False)
class CausHeConfig(builder.GeneratedConfig):
  variant: str = "synthetic"
  num_train: int = generate.NUM_TRAIN  # train + dev
  num_test: int = generate.NUM_TEST
  max_words: int = 0  # natural: keep sentences of at most this many words


class Builder(builder.GeneratedBLMBuilder):
  """Hebrew binyanim (CausH) BLMs, synthetic and natural, MaxLex."""

  VERSION = tfds.core.Version("1.0.0")
  RELEASE_NOTES = {"1.0.0": "CausH synthetic and natural (002 sec. 4.3)."}
  BUILDER_CONFIGS = [
      CausHeConfig(name=generate.config_name("synthetic"),
                   description="verb forms generated from curated roots",
                   variant="synthetic"),
      CausHeConfig(name=generate.config_name("natural"),
                   description="sentences of a UD Hebrew treebank "
                   "(manual_dir)", variant="natural"),
  ]
  MANUAL_DOWNLOAD_INSTRUCTIONS = """
  The natural config reads Universal Dependencies Hebrew treebanks in CoNLL-U
  (002 uses UD_Hebrew-HTB, v2.15; UD_Hebrew-IAHLTwiki can be added). Download
  them from https://universaldependencies.org (or the GitHub repositories
  UniversalDependencies/UD_Hebrew-HTB) and pass the folder holding the
  .conllu files (searched recursively) as manual_dir:

    manual_dir/he_htb-ud-train.conllu, he_htb-ud-dev.conllu, ...

  (launch.py: --config.data.manual_dir=FOLDER; python -m blm_jax.cli.lint:
  --manual_dir FOLDER). The synthetic config needs no manual_dir.
  """

  def generate(self, config):
    if config.variant != "synthetic":
      raise ValueError(f"{config.name}: only the synthetic variant is "
                       "generated without a treebank")
    return generate.synthetic(config.num_train + config.num_test,
                              seed=config.seed)

  def _split_generators(self, dl_manager):
    config = self.builder_config
    if config.variant == "synthetic":
      return super()._split_generators(dl_manager)
    folder = pathlib.Path(os.fspath(dl_manager.manual_dir))
    files = sorted(folder.rglob("*.conllu")) if folder.is_dir() else []
    if not files:
      raise FileNotFoundError(
          f"{folder}: no .conllu file; config {config.name!r} reads a UD "
          f"Hebrew treebank from manual_dir.\n"
          f"{self.MANUAL_DOWNLOAD_INSTRUCTIONS}")
    train_part, test = generate.natural(
        files, config.num_train, config.num_test, seed=config.seed,
        max_words=config.max_words)
    parts = splits.assign_splits(train_part, config.seed,
                                 fractions=TRAIN_DEV_FRACTIONS)
    parts["test"] = test
    return {name: self._generate_examples(items)
            for name, items in parts.items() if items}
