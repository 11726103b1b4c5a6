"""The fields every experiment config has, with the paper's settings (000 sec. 6.1).

Config files call `base(...)` and override a few fields. Variants are passed
big_vision style after the file name: `--config=configs/vae2.py:dataset=cos_en,cpu`
(`cpu` = the short schedule the README's main job uses on a 2-core CPU; the
defaults stay paper-scale).
"""

import ml_collections

from blm_jax.training import config_defaults

# Short names for the datasets the project builds or reads; '{}' is the
# lexical type (I, II, III).
DATASETS = {
    "spray_load": "blm_spray_load/ALT-ATL_type_{}",
    "spray_load_atl_alt": "blm_spray_load/ATL-ALT_type_{}",
    "spray_load_ctx": "blm_spray_load/ctx_type_{}",
    # spray/load sequence-necessary (data_builders/blm_spray_load/README.md).
    "spray_load_seq": "blm_spray_load/seq_type_{}",
    "cos_en": "blm_cos_od/cos_en_type_{}",
    "cos_it": "blm_cos_od/cos_it_type_{}",
    "od_en": "blm_cos_od/od_en_type_{}",
    "od_it": "blm_cos_od/od_it_type_{}",
    "cos_en_ctx": "blm_cos_od/cos_en_ctx_type_{}",
    "cos_it_ctx": "blm_cos_od/cos_it_ctx_type_{}",
    "od_en_ctx": "blm_cos_od/od_en_ctx_type_{}",
    "od_it_ctx": "blm_cos_od/od_it_ctx_type_{}",
    # --- blm_cos_od sequence-necessary (issue 33): the progression varies. --
    "cos_en_seq": "blm_cos_od/cos_en_seq_type_{}",
    "cos_it_seq": "blm_cos_od/cos_it_seq_type_{}",
    "od_en_seq": "blm_cos_od/od_en_seq_type_{}",
    "od_it_seq": "blm_cos_od/od_it_seq_type_{}",
    "agreement_en": "blm_agreement/en_mixed_type_{}",
    "agreement_fr": "blm_agreement/fr_mixed_type_{}",
    "agreement_it": "blm_agreement/it_mixed_type_{}",
    "agreement_ro": "blm_agreement/ro_mixed_type_{}",
    # Context-necessary: N1's phase drawn per instance (README).
    "agreement_en_ctx": "blm_agreement/en_ctx_type_{}",
    "agreement_fr_ctx": "blm_agreement/fr_ctx_type_{}",
    "agreement_it_ctx": "blm_agreement/it_ctx_type_{}",
    "agreement_ro_ctx": "blm_agreement/ro_ctx_type_{}",
    # --- agreement _seq (issue 33): the number progressions' rules drawn per
    # instance (data_builders/blm_agreement/README.md).
    "agreement_en_seq": "blm_agreement/en_seq_type_{}",
    "agreement_fr_seq": "blm_agreement/fr_seq_type_{}",
    "agreement_it_seq": "blm_agreement/it_seq_type_{}",
    "agreement_ro_seq": "blm_agreement/ro_seq_type_{}",
    # --- end agreement _seq.
    # --- blm_cos_plus (002 sec. 4.2): lexical types MinLex / MaxLex. -------
    "cos_plus_en_t2i": "blm_cos_plus/en_T2I_{}",
    "cos_plus_en_i2t": "blm_cos_plus/en_I2T_{}",
    "cos_plus_it_t2i": "blm_cos_plus/it_T2I_{}",
    "cos_plus_it_i2t": "blm_cos_plus/it_I2T_{}",
    "cos_plus_de_case_t2i": "blm_cos_plus/de_case_T2I_{}",
    "cos_plus_de_case_i2t": "blm_cos_plus/de_case_I2T_{}",
    "cos_plus_de_mix_t2i": "blm_cos_plus/de_mix_T2I_{}",
    "cos_plus_de_mix_i2t": "blm_cos_plus/de_mix_I2T_{}",
    # Context-necessary: T2I or I2T drawn per instance (README).
    "cos_plus_en_ctx": "blm_cos_plus/en_ctx_{}",
    "cos_plus_it_ctx": "blm_cos_plus/it_ctx_{}",
    "cos_plus_de_case_ctx": "blm_cos_plus/de_case_ctx_{}",
    "cos_plus_de_mix_ctx": "blm_cos_plus/de_mix_ctx_{}",
    # --- end blm_cos_plus ----------------------------------------------------
    # Spray/load v0 (003 sec. 4.2), BLM-AgrF's 6-candidate answer
    # set (001 Figure 3), Italian sequence of tense and Mixture (000 sec.
    # 3.2.5, appendix 11.1).
    "spray_load_v0": "blm_spray_load_v0/Template1_type_{}",
    "spray_load_v0_t2": "blm_spray_load_v0/Template2_type_{}",
    "spray_load_v0_ctx": "blm_spray_load_v0/ctx_type_{}",
    "spray_load_v0_t2_ctx": "blm_spray_load_v0/ctx_t2_type_{}",
    "agreement6_fr": "blm_agreement/fr_agrf6_type_{}",
    "agreement6_it": "blm_agreement/it_agrf6_type_{}",
    "agreement6_fr_ctx": "blm_agreement/fr_agrf6_ctx_type_{}",
    "agreement6_it_ctx": "blm_agreement/it_agrf6_ctx_type_{}",
    "sequence_of_tense": "blm_sequence_of_tense/type_{}",
    "sequence_of_tense_ctx": "blm_sequence_of_tense/ctx_type_{}",
    "mixture": "blm_mixture/type_{}",
    "mixture_ctx": "blm_mixture/ctx_type_{}",
    # The published release; needs --config.data.manual_dir=<release folder>.
    "published_agreement_fr": "blm_published/agreement_fr_type_{}",
    "published_spray_load": "blm_published/spray_load_en_ALT-ATL_type_{}",
    # Your own data (docs/own-data.md); needs --config.data.manual_dir:
    # one folder of release-format .tsv files or of .jsonl instances, or a
    # folder with type_I/ type_II/ type_III/ subfolders of them.
    "own_release": "blm_published/folder",
    "own_release_types": "blm_published/type_{}",
    "own_jsonl": "blm_jsonl/folder",
    "own_jsonl_types": "blm_jsonl/type_{}",
    # --- Roll verbs (000 Figure 10) and Hebrew binyanim (002 sec. 4.3) ---
    "roll": "blm_roll/type_{}",
    "roll_ctx": "blm_roll/ctx_type_{}",
    "caus_he": "blm_caus_he/synthetic_{}",
    # Needs --config.data.manual_dir=<folder of UD Hebrew .conllu files>.
    "caus_he_natural": "blm_caus_he/natural_{}",
}

# The datasets read from files the user supplies (--config.data.manual_dir):
# nothing to build, so suites that run every dataset (the battery) skip them.
NEEDS_MANUAL_DIR = ("published_agreement_fr", "published_spray_load",
                    "own_release", "own_release_types", "own_jsonl",
                    "own_jsonl_types", "caus_he_natural")

# Lexical types of the datasets that do not use types I-III (the train and
# test axes of the heatmap).
DATASET_TYPES = {
    # blm_caus_he: MaxLex only (002 Table 2).
    "caus_he": ("MaxLex",),
    "caus_he_natural": ("MaxLex",),
    # One folder of your own data is one type: a grid trains and tests on it.
    "own_release": ("folder",),
    "own_jsonl": ("folder",),
    # blm_cos_plus: 002's MinLex / MaxLex (sec. 3) in place of types I-III.
    **{k: ("MinLex", "MaxLex") for k in DATASETS if k.startswith("cos_plus_")},
}


_TRUE = ("true", "1", "yes", "on")
_FALSE = ("false", "0", "no", "off")


def _parse_variant(key: str, value: str, default):
  """`value` as the type of `default`; a ValueError naming what is accepted."""
  if isinstance(default, bool):
    if value.lower() in _TRUE:
      return True
    if value.lower() in _FALSE:
      return False
    raise ValueError(
        f"config variant {key}={value!r} is not a boolean; accepted: "
        f"{key} (= true), {key}=true or {key}=false "
        f"(also {'/'.join(_TRUE[1:])} and {'/'.join(_FALSE[1:])})")
  for kind, what in ((int, "an integer"), (float, "a number")):
    if isinstance(default, kind):
      try:
        return kind(value)
      except ValueError:
        raise ValueError(f"config variant {key}={value!r} is not {what} "
                         f"(default {default!r})") from None
  return value


def parse_arg(arg: str | None, **defaults) -> ml_collections.ConfigDict:
  """'dataset=cos_en,cpu' -> {dataset: 'cos_en', cpu: True} over defaults.

  Each value is parsed by the type of its default, so `cpu=False` is False
  (not the non-empty string 'False'); a bare key is only allowed for
  booleans. Anything else is a ValueError naming the variant.
  """
  out = dict(defaults)
  for part in filter(None, (arg or "").split(",")):
    key, eq, value = part.partition("=")
    key = key.strip()
    if key not in out:
      raise ValueError(f"config variant {key!r} is not known; variants: "
                       f"{sorted(out)}")
    if not eq:
      if not isinstance(defaults[key], bool):
        raise ValueError(f"config variant {key!r} needs a value: "
                         f"{key}=<value> (default {defaults[key]!r})")
      out[key] = True
    else:
      out[key] = _parse_variant(key, value.strip(), defaults[key])
  return ml_collections.ConfigDict(out)


def base(model: str, dataset: str = "spray_load") -> ml_collections.ConfigDict:
  """The library defaults of solver `model` (its keys only) on `dataset`."""
  if dataset not in DATASETS:
    raise ValueError(f"dataset {dataset!r} is not known; known: "
                     f"{sorted(DATASETS)}")
  c = config_defaults.default_config(model)
  c.data.name = DATASETS[dataset]
  c.data.train_types = DATASET_TYPES.get(dataset, ("I", "II", "III"))
  c.data.test_types = c.data.train_types
  return c


def apply_authors_code(c: ml_collections.ConfigDict) -> None:
  """What the authors' VAE code does beyond the papers, shared by the
  `reference` variants of configs/vae2.py and configs/sent_vae.py: no ReLU
  after the decoders' dense layer but one on their output, cosine scores
  to predict, the epoch of lowest dev loss, KL weights x latent / D, and
  their sentence array (32 x D/32, padded: at D = 384 not ours)."""
  c.model.sentence_array = "authors"
  c.model.decoder_hidden_relu = False
  c.model.decoder_output_relu = True
  c.train.predict_score = "cosine"
  c.train.select_by = "loss"
  c.loss.kl_scale = "latent_over_dim"


def apply_authors_training(c: ml_collections.ConfigDict) -> None:
  """The authors' training and test loop (utils/losses.py, train.py,
  test.py), the `reference` variants of the solvers that exist only in
  their code (cnn_seq, vae, vae_1d_2level): the mean of the per-candidate
  hinges of the dot scores, the cosine to predict, the epoch of lowest dev
  loss."""
  c.loss.answer_reduction = "mean_hinge"
  c.train.predict_score = "cosine"
  c.train.select_by = "loss"


def apply_cpu_schedule(c: ml_collections.ConfigDict, epochs: int) -> None:
  """The short schedule for a 2-core CPU (README main job).

  Fewer instances mostly saves embedding time (MiniLM embeds about 200
  sentences/s on 2 cores): 600 sampled per train type (480 train, 120 dev)
  and 300 test instances per type.
  """
  c.train.epochs = epochs
  c.data.num_train = 600
  c.data.max_test = 300
  c.train.checkpoint_every_epochs = max(1, epochs // 4)
