"""The fields every experiment config has, with the paper's settings (000 sec. 6.1).

Config files call `base(...)` and override a few fields. Variants are passed
big_vision style after the file name: `--config=configs/vae2.py:dataset=cos_en,cpu`
(`cpu` = the short schedule the README's main job uses on a 2-core CPU; the
defaults stay paper-scale).
"""

import ml_collections

# Short names for the datasets the project builds or reads; '{}' is the
# lexical type (I, II, III).
DATASETS = {
    "spray_load": "blm_spray_load/ALT-ATL_type_{}",
    "spray_load_atl_alt": "blm_spray_load/ATL-ALT_type_{}",
    "cos_en": "blm_cos_od/cos_en_type_{}",
    "cos_it": "blm_cos_od/cos_it_type_{}",
    "od_en": "blm_cos_od/od_en_type_{}",
    "od_it": "blm_cos_od/od_it_type_{}",
    "agreement_en": "blm_agreement/en_mixed_type_{}",
    "agreement_fr": "blm_agreement/fr_mixed_type_{}",
    "agreement_it": "blm_agreement/it_mixed_type_{}",
    "agreement_ro": "blm_agreement/ro_mixed_type_{}",
    # --- blm_cos_plus (002 sec. 4.2): lexical types MinLex / MaxLex. -------
    "cos_plus_en_t2i": "blm_cos_plus/en_T2I_{}",
    "cos_plus_en_i2t": "blm_cos_plus/en_I2T_{}",
    "cos_plus_it_t2i": "blm_cos_plus/it_T2I_{}",
    "cos_plus_it_i2t": "blm_cos_plus/it_I2T_{}",
    "cos_plus_de_case_t2i": "blm_cos_plus/de_case_T2I_{}",
    "cos_plus_de_case_i2t": "blm_cos_plus/de_case_I2T_{}",
    "cos_plus_de_mix_t2i": "blm_cos_plus/de_mix_T2I_{}",
    "cos_plus_de_mix_i2t": "blm_cos_plus/de_mix_I2T_{}",
    # --- end blm_cos_plus ----------------------------------------------------
    # Issue 15: spray/load v0 (003 sec. 4.2), BLM-AgrF's 6-candidate answer
    # set (001 Figure 3), Italian sequence of tense and Mixture (000 sec.
    # 3.2.5, appendix 11.1).
    "spray_load_v0": "blm_spray_load_v0/Template1_type_{}",
    "spray_load_v0_t2": "blm_spray_load_v0/Template2_type_{}",
    "agreement6_fr": "blm_agreement/fr_agrf6_type_{}",
    "agreement6_it": "blm_agreement/it_agrf6_type_{}",
    "sequence_of_tense": "blm_sequence_of_tense/type_{}",
    "mixture": "blm_mixture/type_{}",
    # The published release; needs --config.data.manual_dir=<release folder>.
    "published_agreement_fr": "blm_published/agreement_fr_type_{}",
    "published_spray_load": "blm_published/spray_load_en_ALT-ATL_type_{}",
    # --- Roll verbs (000 Figure 10) and Hebrew binyanim (002 sec. 4.3) ---
    "roll": "blm_roll/type_{}",
    "caus_he": "blm_caus_he/synthetic_{}",
    # Needs --config.data.manual_dir=<folder of UD Hebrew .conllu files>.
    "caus_he_natural": "blm_caus_he/natural_{}",
}

# Lexical types of the datasets that do not use types I-III (the train and
# test axes of the heatmap).
DATASET_TYPES = {
    # blm_caus_he: MaxLex only (002 Table 2).
    "caus_he": ("MaxLex",),
    "caus_he_natural": ("MaxLex",),
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
  if dataset not in DATASETS:
    raise ValueError(f"dataset {dataset!r} is not known; known: "
                     f"{sorted(DATASETS)}")
  c = ml_collections.ConfigDict()

  # Data: a TFDS name with '{}' for the lexical type.
  c.data = ml_collections.ConfigDict()
  c.data.name = DATASETS[dataset]
  c.data.train_types = DATASET_TYPES.get(dataset, ("I", "II", "III"))
  c.data.test_types = c.data.train_types
  c.data.num_train = 2000  # sampled per train type; 20% of it is dev
  c.data.dev_fraction = 0.2
  c.data.seed = 0
  c.data.max_test = 0  # 0 = the whole test split
  c.data.num_answers = 0  # 0 = whatever the data has; else checked
  c.data.data_dir = ""  # '' = $BLM_DATA_DIR or ~/tensorflow_datasets
  c.data.manual_dir = ""  # release files, for blm_published

  # Frozen encoder: averaged token embeddings (000 sec. 6.1).
  c.encoder = ml_collections.ConfigDict()
  c.encoder.name = "minilm"  # offline default; papers: Electra, OpenAI-GPT
  c.encoder.pooling = "mean"
  c.encoder.layer = -1
  c.encoder.max_length = 64
  c.encoder.batch_size = 128
  c.encoder.dtype = "float32"  # or 'bfloat16' (about 1% off; own cache key)
  c.encoder.cache_dir = ""  # '' = the embedding module's default
  # Layer sweep: '' = off; 'all' = every hidden state (0 = embeddings); or
  # '0,3,6'. One encoder pass embeds them all; each layer is a block of grid
  # cells beside the real ones; results.json 'layer_sweep', layers.png.
  c.encoder.layer_sweep = ""

  # Solver.
  c.model = ml_collections.ConfigDict()
  c.model.name = model
  c.model.hidden_factor = 3.5  # ffnn
  c.model.channels = (8, 8, 8)  # cnn: three 3x3 convolutions
  c.model.grid_shape = ()  # VAEs: 2-D reshape of D; () = derived (32x24 for 768)
  c.model.kernel = 15
  c.model.latent = 5
  c.model.task_latent = 5  # vae2 task level
  c.model.task_level = "mlp"  # 'mlp' (ours) or 'conv' (the authors' code)
  c.model.task_hidden = 64  # 'mlp' task level
  c.model.task_channels = 32  # 'conv' task level: 4x4 encoder, 15x15 decoder
  c.model.task_kernel = 4
  c.model.decoder_hidden_relu = True  # VAE decoders: ReLU after the dense
  c.model.decoder_output_relu = False  # ... and on the output (authors' code)

  # Training (000 footnote 19).
  c.train = ml_collections.ConfigDict()
  c.train.optimizer = "adam"
  c.train.learning_rate = 1e-3
  c.train.batch_size = 100
  c.train.epochs = 120
  c.train.score = "dot"  # to train: 000 eq. 1; 'cosine' as in 001/003/004
  c.train.predict_score = ""  # to pick the answer; '' = train.score
  # Which epoch is evaluated: 'accuracy' (best dev accuracy, ties to lower
  # dev loss, then the later epoch), 'loss' (lowest dev loss), 'last'.
  c.train.select_by = "accuracy"
  c.train.eval_chunk = 256  # instances per evaluation chunk (bounds memory)
  c.train.checkpoint_every_epochs = 10
  # Checkpoints kept; each holds the latest state AND the best-dev
  # parameters, so 1 is enough to resume and to probe.
  c.train.keep_checkpoints = 1
  # A workdir's checkpoints: 'auto' resumes only the same config and data
  # (else an error names what differs), 'restart' discards them, 'force'
  # resumes despite differences.
  c.train.resume = "auto"

  # The objective: the answer margin plus every term the model returns, each
  # weighted here (0 switches a term off). eq. (6) of 000 is all weights 1
  # with sentence_reduction='sum'.
  c.loss = ml_collections.ConfigDict()
  c.loss.answer_margin = 1.0
  # Over wrong candidates: 'sum' = eq. 1, 'mean' = maxM of eq. 3/5,
  # 'mean_hinge' = mean of the hinges (the authors' code).
  c.loss.answer_reduction = "sum"
  c.loss.task_kl = 1.0  # vae2: KL_seq of eq. 5
  c.loss.sentence_margin = 1.0  # vae2: maxM of eq. 4, per context sentence
  c.loss.sentence_kl = 1.0  # vae2 (eq. 4) and sent_vae (eq. 2)
  # vae2: the sentence terms over the context, 'sum' (eq. 6) or 'mean'.
  c.loss.sentence_reduction = "sum"
  # vae2 sentence-level score: '' = train.score; 'normalized' = dot scores
  # L2-normalised over (positive, negatives), as in the authors' code.
  c.loss.sentence_score = ""
  # Every KL weight times 'none' = 1, or 'latent_over_dim' = latent size / D
  # (the authors' code: 5/768, without which, they note, nothing is learnt).
  c.loss.kl_scale = "none"

  # The grid: seeds x c.data.train_types.
  c.grid = ml_collections.ConfigDict()
  c.grid.seeds = (0, 1, 2)
  # How the cells share the jitted epoch: 'vmap' (batched), 'scan' (one
  # after another) or 'auto' (per model and platform, from measurements:
  # blm_jax/grid.py AUTO_SCAN). Same results within float tolerance.
  c.grid.mode = "auto"
  # Memory the epoch may use, in GiB; 0 = what the device has available.
  # Before training, XLA's estimate of the compiled epoch is checked against
  # it: 'auto' scans a vmapped grid that does not fit, and a grid that does
  # not fit either way stops with a message (blm_jax/grid.py fit_memory).
  c.grid.memory_limit_gb = 0.0
  # Control baselines, more cells of the same grid (blm_jax/variants.py):
  # comma-separated subset of 'answer_only,shuffled_context,random_encoder';
  # results.json 'controls' (with selectivity), heatmap.png shows them.
  c.controls = ""

  c.progress = True
  return c


def apply_authors_code(c: ml_collections.ConfigDict) -> None:
  """What the authors' VAE code does beyond the papers, shared by the
  `reference` variants of configs/vae2.py and configs/sent_vae.py: no ReLU
  after the decoders' dense layer but one on their output, cosine scores
  to predict, the epoch of lowest dev loss, KL weights x latent / D."""
  c.model.decoder_hidden_relu = False
  c.model.decoder_output_relu = True
  c.train.predict_score = "cosine"
  c.train.select_by = "loss"
  c.loss.kl_scale = "latent_over_dim"


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
