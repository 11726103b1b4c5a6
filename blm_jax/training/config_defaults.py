"""Every config key's default, in one place: `default_config(model_name)`.

A config holds the shared sections (data, encoder, train, the answer loss,
grid, controls, progress) plus the section of its one solver, whose keys
and defaults its spec declares (`blm_jax.models.registry`). configs/*.py
build on this and override a few keys; a key of another solver is not in
the config, so setting it is an error that names it.
"""

from __future__ import annotations

import ml_collections

from blm_jax.models import registry

# The config.loss keys every solver has: the answer margin.
ANSWER_LOSS = {
    "answer_margin": 1.0,
    # Over wrong candidates: 'sum' = eq. 1, 'mean' = maxM of eq. 3/5,
    # 'mean_hinge' = mean of the hinges (the authors' code).
    "answer_reduction": "sum",
}


def _shared() -> ml_collections.ConfigDict:
  """The sections every solver shares, with the paper's settings (000 sec.
  6.1)."""
  c = ml_collections.ConfigDict()

  # Data: a TFDS name with '{}' for the lexical type.
  c.data = ml_collections.ConfigDict()
  c.data.name = "blm_spray_load/ALT-ATL_type_{}"
  c.data.train_types = ("I", "II", "III")
  c.data.test_types = c.data.train_types
  c.data.num_train = 2000  # sampled per train type; 20% of it is dev
  c.data.dev_fraction = 0.2
  c.data.seed = 0
  # True: cell (seed s, type t) trains on the train/dev sample drawn with
  # data seed s, so the spread over grid seeds covers the sample too.
  c.data.seed_follows_grid = False
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
  c.encoder.batch_size = 128  # 0 = the largest that fits the devices
  c.encoder.dtype = "float32"  # or 'bfloat16' (about 1% off; own cache key)
  c.encoder.cache_dir = ""  # '' = the embedding module's default
  # Layer sweep: '' = off; 'all' = every hidden state (0 = embeddings); or
  # '0,3,6'. One encoder pass embeds them all; each layer is a block of grid
  # cells beside the real ones; results.json 'layer_sweep', layers.png.
  c.encoder.layer_sweep = ""

  # Training (000 footnote 19).
  c.train = ml_collections.ConfigDict()
  c.train.optimizer = "adam"  # training/optimizers.py OPTIMIZERS
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
  # ... but not sooner than this many seconds after the last save (the last
  # epoch always saves): on a GPU an epoch takes milliseconds and a save
  # seconds (benchmarks/device/README.md), on a CPU a resume loses at most
  # this much work. 0 saves at every checkpoint epoch.
  c.train.checkpoint_min_seconds = 60.0
  # Checkpoints kept; each holds the latest state AND the best-dev
  # parameters, so 1 is enough to resume and to probe.
  c.train.keep_checkpoints = 1
  # A workdir's checkpoints: 'auto' resumes only the same config and data
  # (else an error names what differs), 'restart' discards them, 'force'
  # resumes despite differences.
  c.train.resume = "auto"

  # The objective: the answer margin plus every term the solver returns,
  # each weighted by loss.<term> (0 switches a term off); the solver's
  # spec adds its terms' keys.
  c.loss = ml_collections.ConfigDict(dict(ANSWER_LOSS))

  # The grid: seeds x c.data.train_types.
  c.grid = ml_collections.ConfigDict()
  c.grid.seeds = (0, 1, 2)
  # How the cells share the jitted epoch: 'vmap' (batched), 'scan' (one
  # after another) or 'auto' (per solver and platform, from measurements:
  # the solver spec's scan_on). Same results within float tolerance.
  c.grid.mode = "auto"
  # Memory the epoch may use, in GiB; 0 = what the device has available.
  # Before training, XLA's estimate of the compiled epoch is checked against
  # it: 'auto' scans a vmapped grid that does not fit, and a grid that does
  # not fit either way stops with a message (training/grid.py fit_memory).
  c.grid.memory_limit_gb = 0.0
  # Control baselines, more cells of the same grid (training/variants.py):
  # comma-separated subset of 'answer_only,shuffled_context,random_encoder,
  # gold_attributes'; results.json 'controls' (with selectivity),
  # heatmap.png shows them. gold_attributes (data whose sentences carry
  # attributes) trains the solver on one-hot attributes: its gold ceiling.
  c.controls = ""

  # Reporting (results/report.py); no part of the run's identity.
  c.results = ml_collections.ConfigDict()
  # Context-free baselines (candidate-only MLP, word logit, odd-one-in) per
  # (train, test) pair: results.json 'context_free'. False skips them.
  c.results.context_free = True
  # Where those baselines' scores are cached (data/context_free/cache.py):
  # they depend on the data only, so the grids of one dataset fit them
  # once. 'auto' = a folder 'context_free' beside the embedding cache
  # (~/.cache/blm_jax/context_free by default); '' = no cache.
  c.results.context_free_cache = "auto"
  # The gold-attribute ceiling (results/gold_ceiling.py) on data whose
  # sentences carry attributes: the attribute-relations reference model per
  # (train, test) pair, beside the gold_attributes control when the run
  # has it; results.json 'gold_ceiling'. False skips it.
  c.results.gold_ceiling = True
  # heatmap.png: 'f1' (F1, the best context-free score in each cell) or
  # 'context_gain' (F1 minus the best context-free score).
  c.results.heatmap = "f1"
  # Every figure is written once per format: comma-separated subset of
  # FIGURE_FORMATS ('png' to view, 'svg'/'pdf' for a paper).
  c.results.figure_formats = "png,svg"
  # TensorBoard event files, one folder per cell under tensorboard/ (the
  # epochs' train loss terms and dev accuracy and loss, the test F1): the
  # curves of several runs side by side. False writes none.
  c.results.tensorboard = True

  c.progress = True
  return c


HEATMAPS = ("f1", "context_gain")
FIGURE_FORMATS = ("png", "svg", "pdf")


def default_config(model_name: str) -> ml_collections.ConfigDict:
  """The shared sections plus solver `model_name`'s own keys, defaulted."""
  spec = registry.get(model_name)
  c = _shared()
  c.model = ml_collections.ConfigDict({"name": model_name, **spec.model})
  for key, value in spec.loss.items():
    c.loss[key] = value
  return c


def flat_keys(cfg, prefix: str = "") -> list[str]:
  """'section.key' of every leaf of a config (or a nested dict)."""
  out = []
  for k, v in cfg.items():
    if hasattr(v, "items"):
      out.extend(flat_keys(v, f"{prefix}{k}."))
    else:
      out.append(f"{prefix}{k}")
  return out


def foreign_keys(config) -> list[str]:
  """Messages for model/loss keys that solver `config.model.name` lacks,
  and for keys of the shared sections that no solver has.

  Such a key does nothing; it usually is another solver's (a config built
  by hand, or a workdir's config.json edited).
  """
  name = config.model.name
  spec = registry.get(name)
  own = {"model": {"name", *spec.model},
         "loss": {*ANSWER_LOSS, *spec.loss}}
  out = []
  for section, keys in own.items():
    for key in config[section]:
      if key not in keys:
        out.append(
            f"config.{section}.{key} is not a key of the {name!r} solver; "
            f"its config.{section} keys: {', '.join(sorted(keys))}")
  # The shared sections become typed values (EncoderSettings, DataSpec,
  # TrainSettings, GridSettings), which have exactly these keys.
  shared = _shared()
  for section in ("data", "encoder", "train", "grid"):
    keys = set(shared[section])
    for key in config[section]:
      if key not in keys:
        out.append(f"config.{section}.{key} is not a config key; the "
                   f"config.{section} keys: {', '.join(sorted(keys))}")
  return out
