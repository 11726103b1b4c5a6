"""The fields every experiment config has, with the paper's settings (000 sec. 6.1).

Config files call `base(...)` and override a few fields. Variants are passed
big_vision style after the file name: `--config=configs/vae2.py:dataset=cos_en,cpu`
(`cpu` = the short schedule the README's main job uses on a 2-core CPU; the
defaults stay paper-scale).
"""

import ml_collections

from blm_jax.training import config_defaults
from data_builders import registry

# The dataset short names are declared by the builder packages that build
# them (data_builders/<family>/datasets.py) and collected by
# data_builders.registry; these views of it serve config files and scripts.
# DATASETS: {short name: TFDS template, '{}' the lexical type}.
DATASETS = registry.templates()
# The datasets read from files the user supplies (--config.data.manual_dir):
# nothing to build, so suites that run every dataset (the battery) skip them.
NEEDS_MANUAL_DIR = tuple(e.short_name for e in registry.entries()
                         if e.needs_manual_dir)
# Lexical types of the datasets that do not use types I-III (the train and
# test axes of the heatmap).
DATASET_TYPES = {e.short_name: e.types for e in registry.entries()
                 if e.types != registry.LEXICAL_TYPES}


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
  entry = registry.lookup(dataset)  # One line with the closest names.
  c = config_defaults.default_config(model)
  c.data.name = entry.template
  c.data.train_types = entry.types
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
