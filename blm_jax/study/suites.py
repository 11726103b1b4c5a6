"""The reproduction suites: which grids each runs, shards, encoder specs.

A grid is one config file run with one argument into `<out>/<name>/<model>`
(`name`: the dataset's short name, or `chunks_<source>` for 000 Table 5).
`--suite` names suites and lists grids ('paper000,paper001',
'cos_en/ffnn,spray_load/vae2');
`--shard=i/N` keeps the i-th (0-based) of N shares, whole datasets each,
so a job array of N tasks runs the whole suite once; `--encoder` sets every
grid's encoder.
"""

from __future__ import annotations

import dataclasses

from blm_jax.encoders import encoder as encoders
from blm_jax.study import claims
from data_builders import registry


class SuiteError(ValueError):
  """A bad --suite, --shard or --encoder: the message is the error line."""


@dataclasses.dataclass(frozen=True)
class Grid:
  """One grid of a suite: `configs/<model>.py` with `arg` (plus
  `overrides`, config key -> value) into `<out>/<name>/<model>`."""

  name: str
  model: str
  arg: str
  shows: str = ""  # which figure or table of the papers it stands for
  overrides: tuple = ()
  # `blm_jax.analysis.probing` analyses run on the finished grid (000
  # sec. 7 probes the chunk runs); their numbers join the report.
  probe: tuple = ()

  @property
  def key(self) -> str:
    return f"{self.name}/{self.model}"

  @property
  def data_group(self) -> str:
    """The dataset whose data the grid builds and reads: its `dataset=`
    (001's `<dataset>_n<size>` grids read their dataset's), or for a chunk
    grid of 000 Table 5 the dataset its source is."""
    kind, _, value = self.arg.partition("=")
    if kind == "source":
      return CHUNK_SOURCE_DATASETS.get(value, value)
    return value if kind == "dataset" else self.name


# 000 sec. 6.2 Figures 15/16 (FFNN; CNN in the earlier work of footnote
# 18), Figures 17-19 (the error bars of the same grids), Table 4 (their
# test sizes), sec. 8 Figures 24-28 (two-level VAE).
FIG15 = ("spray_load", "spray_load_atl_alt", "cos_en", "cos_it", "od_en",
         "od_it")
FIG16 = ("agreement_en", "agreement_fr", "agreement_it", "agreement_ro")
# 000 Table 5 and Figures 20-22: sent_vae on the blm_chunks sources.
# The probe's analyses standing for Figures 20 (confusion; traversal), 21
# (traversal) and 22 (projection).
PROBING = ("confusion", "traversal", "projection")
TABLE5 = ("spray_load_ALT-ATL", "spray_load_ATL-ALT", "cos_en", "cos_it",
          "od_en", "od_it", "agreement_en", "agreement_fr", "agreement_it",
          "agreement_ro")
# The dataset short names (data_builders.registry) whose type I the Table 5
# sources named otherwise are (data_builders.blm_chunks SOURCES); the others
# share the name.
CHUNK_SOURCE_DATASETS = {"spray_load_ALT-ATL": "spray_load",
                         "spray_load_ATL-ALT": "spray_load_atl_alt"}
# 001 Figure 7: F1 against the amount of training data (types I and III;
# the sizes are ours: 001 plots them without printing them).
TRAIN_SIZES = (250, 500, 1000, 2000)


def _dataset_grids(datasets, models, shows):
  return [Grid(ds, m, f"dataset={ds}", shows) for ds in datasets
          for m in models]


def paper000() -> list[Grid]:
  return (_dataset_grids(FIG15, ("ffnn", "cnn"),
                         "000 Fig. 15, 17-19; Table 4")
          + _dataset_grids(FIG16, ("ffnn", "cnn"),
                           "000 Fig. 16, 17-19; Table 4")
          + _dataset_grids(FIG15 + FIG16, ("vae2",), "000 Fig. 24-28")
          + [Grid(f"chunks_{s}", "sent_vae", f"source={s}",
                  "000 Table 5, Fig. 20-22", probe=PROBING)
             for s in TABLE5])


def paper000_ctx() -> list[Grid]:
  """The 000 grids on the context-necessary design of each dataset (the
  report sets both designs' verdicts side by side when both were run)."""
  ctx = dict.fromkeys(claims.CONTEXT_NECESSARY_OF[d] for d in FIG15 + FIG16)
  return _dataset_grids(tuple(ctx), ("ffnn", "cnn", "vae2"),
                        "000 Fig. 15/16, 24-28 on the context-necessary "
                        "design")


def paper000_seq() -> list[Grid]:
  """The same on each dataset's sequence-necessary design (27 grids)."""
  seq = dict.fromkeys(claims.SEQUENCE_NECESSARY_OF[d] for d in FIG15 + FIG16)
  return _dataset_grids(tuple(seq), ("ffnn", "cnn", "vae2"),
                        "000 Fig. 15/16, 24-28 on the sequence-necessary "
                        "design")


def paper004() -> list[Grid]:
  return _dataset_grids(("spray_load", "spray_load_atl_alt"),
                        ("ffnn", "cnn"), "004 sec. 4.3, Figures 8-9")


def paper001() -> list[Grid]:
  return [Grid(f"{ds}_n{n}", m, f"dataset={ds}", "001 Fig. 7-8",
               (("data.num_train", n), ("data.train_types", ("I", "III")),
                ("data.test_types", ("I", "III"))))
          for ds in ("agreement_fr", "spray_load") for m in ("ffnn", "cnn")
          for n in TRAIN_SIZES]


def battery(datasets, needs_manual_dir=()) -> list[Grid]:
  """The FFNN on every family x language x design but those read from the
  user's files (`needs_manual_dir`: the published release, own data, UD
  Hebrew), which a suite cannot build."""
  return _dataset_grids([d for d in datasets if d not in needs_manual_dir],
                        ("ffnn",), "battery")


# The solvers beyond the papers', then the
# attribute-bottleneck solver, each on the papers', the context-necessary
# and the sequence-necessary design of three families; the sparsified
# two-level VAE is probed for its region map.
NEW_SOLVERS = ("relnet", "cnn_seq", "vae", "vae_1d_2level",
               "two_level_vae_subnets", "attribute_bottleneck")
SOLVER_DATASETS = ("spray_load", "spray_load_ctx", "spray_load_seq",
                   "cos_en", "cos_en_ctx", "cos_en_seq", "agreement_en",
                   "agreement_en_ctx", "agreement_en_seq")


def solvers() -> list[Grid]:
  return [Grid(ds, m, f"dataset={ds}", "solvers beyond the papers'",
               probe=("regions",) if m == "two_level_vae_subnets" else ())
          for ds in SOLVER_DATASETS for m in NEW_SOLVERS]


SUITES = ("paper000", "paper000_ctx", "paper000_seq", "paper004",
          "paper001", "battery", "solvers", "diagnose")


def _suite(name: str, datasets, needs_manual_dir) -> list[Grid]:
  if name == "battery":
    return battery(datasets, needs_manual_dir)
  if name == "diagnose":  # blm_jax/study/diagnose_suite.py: no grids.
    raise SuiteError("--suite=diagnose runs the diagnosis ladder, no grids: "
                     "give it alone, without other suites or grids")
  return {"paper000": paper000, "paper000_ctx": paper000_ctx,
          "paper000_seq": paper000_seq, "paper004": paper004,
          "paper001": paper001, "solvers": solvers}[name]()


def grids(spec: str, datasets, needs_manual_dir=()) -> list[Grid]:
  """The grids of `--suite`: suite names, 'dataset/model' items and
  'suite/model' items (that suite's grids of one model, as the suite runs
  them: 'solvers/vae'), comma-separated ('paper000,paper001' is the whole
  of 000 with 001's training-size curves), in order, a grid named twice
  kept once. `datasets`: the short names data_builders.registry knows;
  `needs_manual_dir`: those of them the battery leaves out."""
  out, seen = [], set()
  suite = lambda name: _suite(name, datasets, needs_manual_dir)
  for item in filter(None, (s.strip() for s in spec.split(","))):
    if item in SUITES:
      found = suite(item)
    elif "/" not in item:
      raise SuiteError(f"--suite: unknown suite {item!r}; known: "
                       f"{', '.join(SUITES)}, or a list of dataset/model "
                       "(e.g. cos_en/ffnn,spray_load/vae2)")
    else:
      ds, model = item.split("/", 1)
      if ds in SUITES:
        found = [g for g in suite(ds) if g.model == model]
        if not found:
          models = dict.fromkeys(g.model for g in suite(ds))
          raise SuiteError(f"--suite: {ds} has no {model!r} grids in "
                           f"{item!r}; its models: {', '.join(models)}")
      elif ds not in datasets:
        raise SuiteError(f"--suite: unknown dataset {ds!r} in {item!r}"
                         + registry.suggestion(ds, datasets))
      else:
        found = [Grid(ds, model, f"dataset={ds}", "listed")]
    for g in found:
      if g.key not in seen:
        seen.add(g.key)
        out.append(g)
  if not out:
    raise SuiteError("--suite: empty")
  return out


def parse_shard(spec: str) -> tuple[int, int]:
  """'i/N' -> (i, N), 0 <= i < N."""
  try:
    i, n = (int(x) for x in spec.split("/"))
  except ValueError:
    raise SuiteError(f"--shard={spec!r}: expected i/N, e.g. 0/4") from None
  if n < 1 or not 0 <= i < n:
    raise SuiteError(f"--shard={spec!r}: needs 0 <= i < N (shards are "
                     f"numbered from 0, as SLURM_ARRAY_TASK_ID with "
                     f"--array=0-{max(n, 1) - 1})")
  return i, n


def shard(all_grids: list[Grid], i: int, n: int) -> list[Grid]:
  """The i-th of n shares of `all_grids`, in their order. The grids of one
  `data_group` stay together, so its data are built and its sentences
  embedded by one shard, not once per shard holding one of its grids (an
  embedding costs as much as a grid's training on a CPU), and no shard
  waits on another's build; each group, in order, goes to the share with
  the fewest grids so far (the lowest index on a tie). Given the whole
  suite it depends on nothing done, so every task of an array deals the
  same."""
  size: dict[str, int] = {}
  for g in all_grids:
    size[g.data_group] = size.get(g.data_group, 0) + 1
  load, owner = [0] * n, {}
  for group, count in size.items():
    owner[group] = min(range(n), key=load.__getitem__)
    load[owner[group]] += count
  return [g for g in all_grids if owner[g.data_group] == i]


@dataclasses.dataclass(frozen=True)
class EncoderSpec:
  name: str
  layer: int | None = None
  pooling: str | None = None

  def apply(self, config) -> None:
    config.encoder.name = self.name
    if self.layer is not None:
      config.encoder.layer = self.layer
    if self.pooling is not None:
      config.encoder.pooling = self.pooling


def parse_encoder(spec: str) -> EncoderSpec:
  """'NAME_OR_FOLDER[,layer=K][,pooling=P]' -> EncoderSpec; the encoder
  must be known here (a registry name whose weights are on disk, or a
  model folder)."""
  name, *opts = [s.strip() for s in spec.split(",")]
  kw = {}
  for o in opts:
    key, _, value = o.partition("=")
    if key in kw:  # Which one was meant: the first, the last?
      raise SuiteError(f"--encoder: {key}= is given twice, {key}="
                       f"{kw[key]} and {o}: give it once")
    if key == "layer":
      try:
        kw["layer"] = int(value)
      except ValueError:
        raise SuiteError(f"--encoder: layer={value!r} is not an "
                         "integer") from None
    elif key == "pooling":
      if value not in encoders.POOLINGS:
        raise SuiteError(f"--encoder: pooling={value!r}; known: "
                         f"{', '.join(encoders.POOLINGS)}")
      kw["pooling"] = value
    else:
      raise SuiteError(f"--encoder: unknown option {o!r} (layer=K, "
                       "pooling=P)")
  if not name:
    raise SuiteError("--encoder: no encoder name or folder")
  try:
    encoders.resolve_model_dir(name)
  except encoders.EncoderUnavailableError as e:
    raise SuiteError(f"--encoder: {e}") from None
  return EncoderSpec(name, **kw)
