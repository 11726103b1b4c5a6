"""Ablation of the two-level VAE objective, one change at a time, on DEV only.

  python studies/vae2_ablation.py --out=workdirs/ablation \
      --settings=base,kl_scale,sentence_mean,... [--dataset=spray_load]

The `sent_vae_*` settings ablate the sentence VAE the same way on a chunk
dataset (`--dataset` is then a blm_chunks source, e.g. agreement_en, and the
sizes are the config's 2576:630 of 000 sec. 7):

  python studies/vae2_ablation.py --settings=sent_vae_paper,sent_vae_dot_sum \
      --dataset=spray_load_ALT-ATL

The `ffnn_*` settings give the FFNN the same kind of tuning budget on dev
(hidden size, score, learning rate, answer loss), one change at a time from
`ffnn` (configs/ffnn.py):

  python studies/vae2_ablation.py --settings=ffnn,ffnn_hidden_1,...

The solvers added later (relnet, cnn_seq, vae, vae_1d_2level,
two_level_vae_subnets, attribute_bottleneck) get the same kind of budget, `<solver>` and
`<solver>_<change>` (`--settings=relnet,relnet_lr_3e-3,...`, or the whole
budget, default first: `--budget=relnet`).

Each setting is `configs/vae2.py` (or `configs/ffnn.py` for `ffnn*`) at
paper scale (2000 sampled per type, 20% dev, 120 epochs) with ONE change
from `base` (or `ffnn`), trained for one seed over the three train types
(`--seeds=0,1,2` trains each setting once per seed, into `<name>-seed<N>`
beside seed 0's `<name>`, and adds a table of each seed's mean dev
accuracy at the epoch each setting selects (the model it would deliver)
and each setting's difference to the first one, seed by seed;
with `--top=2` the later seeds train only the default and the two best
settings of the first seed, the FFNN's protocol in
studies/experiments/2026-11-24-dev-tuning-budget.md).
Every row reports the same statistics of each cell's dev history, whatever
epoch the setting itself selects: the best dev accuracy and its epoch, the
lowest dev loss and its epoch, and the dev accuracy at the last epoch (test
figures are never read here: settings are chosen on dev). Finished
settings are skipped, so a killed ablation resumes; with `--record` the
record is rewritten after every run (`complete: false` until the last)
and keeps what each run's results depend on, so a later session whose
workdirs are gone reuses the rows whose config and data builders are
unchanged and trains the rest.
"""

from __future__ import annotations

import datetime
import json
import os
import sys

from absl import app, flags

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from blm_jax.base import files  # noqa: E402
from blm_jax.study import records as study_records  # noqa: E402
from blm_jax.study import markdown_table  # noqa: E402
from blm_jax.training import run_identity  # noqa: E402
from configs import (attribute_bottleneck, cnn_seq, ffnn,  # noqa: E402
                     relnet, sent_vae, two_level_vae_subnets, vae, vae2,
                     vae_1d_2level)

_SV_DOT_SUM = {"train.score": "dot", "loss.answer_reduction": "sum"}
_SV_NORMALIZED_SUM = {"train.score": "normalized",
                      "loss.answer_reduction": "sum"}

# name -> (config module, variant arg, {key: value} changes to `base`).
# `base` is the project's vae2 before this ablation: cosine scores, maxM at
# both levels, every weight 1, sentence terms summed (eq. 6), MLP task level.
SETTINGS = {
    "ffnn": (ffnn, "", {}),
    # The FFNN's own budget: one change from `ffnn` each.
    "ffnn_hidden_1": (ffnn, "", {"model.hidden_factor": 1.0}),
    "ffnn_hidden_2": (ffnn, "", {"model.hidden_factor": 2.0}),
    "ffnn_hidden_6": (ffnn, "", {"model.hidden_factor": 6.0}),
    "ffnn_cosine": (ffnn, "", {"train.score": "cosine"}),
    "ffnn_normalized": (ffnn, "", {"train.score": "normalized"}),
    "ffnn_lr_3e-4": (ffnn, "", {"train.learning_rate": 3e-4}),
    "ffnn_lr_3e-3": (ffnn, "", {"train.learning_rate": 3e-3}),
    "ffnn_lr_1e-4": (ffnn, "", {"train.learning_rate": 1e-4}),
    "ffnn_maxm": (ffnn, "", {"loss.answer_reduction": "mean"}),
    "ffnn_select_loss": (ffnn, "", {"train.select_by": "loss"}),
    "base": (vae2, "paper", {}),
    "kl_scale": (vae2, "paper", {"loss.kl_scale": "latent_over_dim"}),
    "sentence_mean": (vae2, "paper", {"loss.sentence_reduction": "mean"}),
    "no_kl": (vae2, "paper", {"loss.task_kl": 0.0, "loss.sentence_kl": 0.0}),
    "no_sentence_margin": (vae2, "paper", {"loss.sentence_margin": 0.0}),
    "dot": (vae2, "paper", {"train.score": "dot"}),
    "sum_hinge": (vae2, "paper", {"loss.answer_reduction": "sum"}),
    "conv_task": (vae2, "paper", {"model.task_level": "conv"}),
    "select_loss": (vae2, "paper", {"train.select_by": "loss"}),
    "reference": (vae2, "reference", {}),
    "kl_scale+sentence_mean": (vae2, "paper", {
        "loss.kl_scale": "latent_over_dim",
        "loss.sentence_reduction": "mean"}),
    # The fixes that the one-change rows point at, together.
    "kl_scale+dot+sum": (vae2, "paper", {
        "loss.kl_scale": "latent_over_dim", "train.score": "dot",
        "loss.answer_reduction": "sum"}),
    "default": (vae2, "", {}),
    # The sentence VAE on chunk data (configs/sent_vae.py), each setting
    # spelled out in full: `sent_vae_dot_sum` was the default before this
    # ablation, `sent_vae_normalized_mean_hinge` is the default it chose.
    "sent_vae_paper": (sent_vae, "paper", {}),
    "sent_vae_reference": (sent_vae, "reference", {}),
    "sent_vae_dot_sum": (sent_vae, "", _SV_DOT_SUM),
    "sent_vae_select_loss": (sent_vae, "", {**_SV_DOT_SUM,
                                            "train.select_by": "loss"}),
    "sent_vae_maxm": (sent_vae, "", {**_SV_DOT_SUM,
                                     "loss.answer_reduction": "mean"}),
    "sent_vae_no_kl": (sent_vae, "", {**_SV_DOT_SUM, "loss.sentence_kl": 0.0}),
    "sent_vae_normalized": (sent_vae, "", {**_SV_NORMALIZED_SUM,
                                           "train.predict_score": "cosine"}),
    "sent_vae_normalized_only": (sent_vae, "", _SV_NORMALIZED_SUM),
    "sent_vae_normalized_mean_hinge": (sent_vae, "", {
        **_SV_NORMALIZED_SUM, "loss.answer_reduction": "mean_hinge"}),
    "sent_vae_normalized_latent10": (sent_vae, "", {**_SV_NORMALIZED_SUM,
                                                    "model.latent": 10}),
    "sent_vae_normalized_no_kl": (sent_vae, "", {**_SV_NORMALIZED_SUM,
                                                 "loss.sentence_kl": 0.0}),
}


def _solver_budget() -> dict[str, dict]:
  """The same kind of dev budget for each solver added after the FFNN's
  (issue 36): its default, the learning rate either side, its own sizes
  one at a time, and (where their code has one) the authors' training loop.
  Per solver, its settings in that order, named `<solver>` and
  `<solver>_<change>`."""
  lr = {"lr_3e-4": {"train.learning_rate": 3e-4},
        "lr_3e-3": {"train.learning_rate": 3e-3}}
  own = {
      relnet: {"panel_64": {"model.panel_dim": 64},
               "panel_256": {"model.panel_dim": 256},
               "g_512": {"model.g_hidden": (512, 512, 512)},
               "f_512": {"model.f_hidden": (512, 512)}},
      cnn_seq: {"channels_half": {"model.channels": (2, 4, 8)},
                "channels_double": {"model.channels": (8, 16, 32)}},
      vae: {"latent_10": {"model.latent": 10},
            "hidden_64": {"model.hidden_channels": 64},
            "no_kl": {"loss.task_kl": 0.0}},
      vae_1d_2level: {"latent_10": {"model.latent": 10},
                      "task_latent_10": {"model.task_latent": 10},
                      "no_sentence_margin": {"loss.sentence_margin": 0.0}},
      two_level_vae_subnets: {
          "latent_10": {"model.latent": 10},
          "task_latent_10": {"model.task_latent": 10},
          "no_sentence_margin": {"loss.sentence_margin": 0.0}},
      attribute_bottleneck: {
          "slots_4": {"model.slots": 4},
          "slots_16": {"model.slots": 16},
          "slot_size_4": {"model.slot_size": 4},
          "slot_size_16": {"model.slot_size": 16},
          "gumbel": {"model.relaxation": "gumbel"}},
  }
  out = {}
  for module, changes in own.items():
    name = module.__name__.rsplit(".", 1)[-1]
    budget = out[name] = {name: (module, "", {})}
    for change, keys in {**lr, **changes}.items():
      budget[f"{name}_{change}"] = (module, "", keys)
    # relnet and attribute_bottleneck are ours: no authors' training loop.
    if module not in (relnet, attribute_bottleneck):
      budget[f"{name}_reference"] = (module, "reference", {})
  return out


_BUDGETS = _solver_budget()
# A tuning record is tens of kB; anything past this is not one.
MAX_RECORD_BYTES = 16 << 20
# solver -> its settings, the default first (`--budget=<solver>`).
SOLVER_BUDGETS = {solver: list(budget) for solver, budget in _BUDGETS.items()}
for _budget in _BUDGETS.values():
  SETTINGS.update(_budget)

_OUT = flags.DEFINE_string("out", "workdirs/ablation", "Root of the runs.")
_SETTINGS = flags.DEFINE_list("settings", ["base", "kl_scale"],
                              f"Any of {sorted(SETTINGS)}.")
_BUDGET = flags.DEFINE_enum("budget", None, sorted(SOLVER_BUDGETS),
                            "A solver's whole dev budget, its default first "
                            "(instead of --settings).")
_DATASET = flags.DEFINE_string("dataset", "spray_load", "A dataset short "
                               "name (data_builders/registry.py).")
_EPOCHS = flags.DEFINE_integer("epochs", 120, "Epochs (paper: 120).")
_NUM_TRAIN = flags.DEFINE_integer("num_train", 2000,
                                  "Sampled per train type (paper: 2000).")
_SEEDS = flags.DEFINE_list("seeds", ["0"], "Grid seeds; each trains "
                           "every setting once (a one-seed grid).")
_TOP = flags.DEFINE_integer("top", 0, "With several seeds: every setting "
                            "on the first, then on the others the default and "
                            "the TOP best of the first (mean dev accuracy at "
                            "the selected epoch; the FFNN's protocol). 0: "
                            "every setting on every seed.")
_RECORD = flags.DEFINE_string("record", "", "Also write the study's record "
                               "here (studies/records/<name>.json: its tables "
                               "`ablation` and, with seeds, `seeds`).")
_RESUME = flags.DEFINE_enum("resume", "auto", ["auto", "force", "restart"],
                            "config.train.resume of every run.")


def config_for(name: str, dataset: str, seed: int = 0):
  module, variant, changes = SETTINGS[name]
  key = "source" if module is sent_vae else "dataset"
  arg = ",".join(filter(None, [f"{key}={dataset}", variant]))
  c = module.get_config(arg)
  for key, value in changes.items():
    section, field = key.split(".")
    c[section][field] = value
  c.train.epochs = _EPOCHS.value
  if module is not sent_vae:  # chunk data keeps 000 sec. 7's sizes
    c.data.num_train = _NUM_TRAIN.value
  c.grid.seeds = (seed,)
  c.train.resume = _RESUME.value
  c.progress = False
  return c


def dev_row(results: dict) -> dict:
  """Per train type, the same statistics of every setting's dev history
  (epochs count from 1): best accuracy and its epoch, lowest loss and its
  epoch, the last epoch's accuracy; and the accuracy at the epoch the
  setting itself selects (`selected`: its best accuracy, or for one that
  selects by dev loss the accuracy there), which settings are chosen by."""
  row = {}
  for cell in results["cells"]:
    acc, loss = cell["history"]["dev_accuracy"], cell["history"]["dev_loss"]
    best = max(range(len(acc)), key=acc.__getitem__)
    low = min(range(len(loss)), key=loss.__getitem__)
    row[cell["train_type"]] = {"best": acc[best], "epoch": best + 1,
                               "loss": loss[low], "loss_epoch": low + 1,
                               "last": acc[-1],
                               "selected": cell["best_dev_accuracy"],
                               "selected_epoch": cell["best_epoch"] + 1}
  return row


def seed_table(by_seed: dict[int, dict], names: list[str]) -> dict:
  """Per setting: each seed's mean over train types of the dev accuracy at
  the selected epoch, their mean, and the difference to `names[0]` seed by
  seed (a choice between settings is only as sure as those differences
  agree). A setting that selects by dev loss is scored at that epoch, not
  at its best accuracy, which it would not deliver."""
  def score(seed, name):
    cells = by_seed[seed][name].values()
    return sum(c["selected"] for c in cells) / len(cells)

  seeds = sorted(by_seed)
  rows = []
  for name in names:
    own = [score(s, name) for s in seeds]
    diff = [score(s, name) - score(s, names[0]) for s in seeds]
    rows.append([name, " / ".join(f"{x:.3f}" for x in own),
                 f"{sum(own) / len(own):.3f}",
                 " / ".join(f"{x:+.3f}" for x in diff),
                 f"{sum(diff) / len(diff):+.3f}"])
  seed_names = " / ".join(str(s) for s in seeds)
  return {"columns": ["setting",
                      f"mean dev acc at the selected epoch, seeds {seed_names}",
                      "mean", f"minus {names[0]}, seeds {seed_names}",
                      "mean difference"], "rows": rows,
          "chosen": chosen(by_seed, names, score)}


def top_settings(rows: dict, names: list[str], k: int) -> list[str]:
  """The default (`names[0]`) and the k settings of the rest with the
  highest mean over train types of the dev accuracy at the selected epoch
  in `rows` (one seed's), in that order: those the other seeds train."""
  def score(name):
    return sum(c["selected"] for c in rows[name].values()) / len(rows[name])
  return [names[0]] + sorted(names[1:], key=score, reverse=True)[:k]


def chosen(by_seed: dict[int, dict], names: list[str], score) -> str:
  """The rule every model's tuning follows (2026-11-24-dev-tuning-budget):
  a setting replaces the default (`names[0]`) only when dev prefers it in
  every seed; of those, the largest mean gain. With one seed nothing is
  chosen: one seed cannot separate settings."""
  seeds = sorted(by_seed)
  if len(seeds) < 2:
    return names[0]
  gains = {n: [score(s, n) - score(s, names[0]) for s in seeds]
           for n in names[1:]}
  passing = {n: sum(g) / len(g) for n, g in gains.items()
             if all(x > 0 for x in g)}
  return max(passing, key=passing.get) if passing else names[0]


def study_record(ablation: dict, dataset: str, command: str, commit: str,
                 source: str, runs: dict | None = None) -> dict:
  """A tuning budget's committed record: its dev rows and seed table as
  `records tables` renders them (`table=ablation`, `table=seeds`), the
  setting dev chose, where they came from, and `runs` (per seed and
  setting, what a later session needs to reuse a row: `run_entry`).
  `complete` is false while seeds or settings are still to train, and
  nothing is chosen then."""
  tables = {"ablation": {"columns": ablation["columns"],
                         "rows": ablation["rows"]}}
  if "seeds" in ablation:
    tables["seeds"] = {k: ablation["seeds"][k] for k in ("columns", "rows")}
  complete = ablation.get("complete", True)
  return {"study": f"dev tuning budget on {dataset}, paper scale",
          "date": datetime.datetime.now(datetime.timezone.utc).date()
          .isoformat(),
          "commit": commit, "command": command, "source": source,
          "dataset": dataset, "complete": complete,
          "chosen": ablation.get("seeds", {}).get("chosen"),
          "dev": ablation["dev"],
          "dev_by_seed": ablation.get("dev_by_seed", {}), "tables": tables,
          "runs": runs or {}}


def summary(by_seed: dict[int, dict], seeds: list[int], settings: list[str],
            later: list[str]) -> dict:
  """The study so far: the first seed's dev rows as a table, and once
  every seed of `seeds` has every setting it trains (`settings` on the
  first, `later` on the others), the seed table and the choice."""
  rows = by_seed[seeds[0]]
  order = ["I", "II", "III", "chunks"]
  types = sorted({t for r in rows.values() for t in r}, key=order.index)
  columns = ["setting"] + [
      f"dev {t}→{t}: best acc (epoch) / lowest loss (epoch) / last acc"
      for t in types]
  table = [[name] + [
      f"{row[t]['best']:.3f} ({row[t]['epoch']}) / {row[t]['loss']:.3f} "
      f"({row[t]['loss_epoch']}) / {row[t]['last']:.3f}" for t in types]
           for name, row in rows.items()]
  complete = set(rows) == set(settings) and all(
      set(later) <= set(by_seed.get(s, ())) for s in seeds[1:])
  out = {"columns": columns, "rows": table, "dev": rows,
         "complete": complete}
  if len(seeds) > 1:
    out["dev_by_seed"] = {str(k): v for k, v in by_seed.items()}
    if complete:
      out["seeds"] = seed_table(by_seed, list(later))
  return out


def run_entry(results: dict) -> dict:
  """What a record keeps of a finished run so that a later session, with
  no workdir, can reuse its dev row: the config keys its results depend on
  and the builder versions of its data (a fake run without them: {})."""
  run = results.get("run", {}).get("config")
  if run is None:
    return {}
  return {"config": run_identity.result_keys(run),
          "builder_versions": results.get("data", {}).get("builder_versions")}


def recorded_runs(path: str) -> dict:
  """{(seed, name): (dev row, run entry)} of the record at `path` that an
  earlier, unfinished session of this budget wrote; {} without one. The
  committed record is what outlives a session's workdirs."""
  if not os.path.lexists(path):
    return {}
  try:
    record = json.loads(files.read_bounded(path, MAX_RECORD_BYTES))
    return {(int(seed), name): (row, record["runs"][seed][name])
            for seed, rows in record["dev_by_seed"].items()
            for name, row in rows.items()
            if record.get("runs", {}).get(seed, {}).get(name)}
  except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
    raise app.UsageError(f"--record={path}: not a tuning record this script "
                         f"wrote ({type(e).__name__}: {e})") from None


def reuse_problem(entry: dict, config) -> list[str]:
  """Why a recorded run cannot stand for a run of `config` ([] if it can):
  a config key its results depend on, or its data's builder version (a
  run that recorded none differs in every builder)."""
  from blm_jax.study import grid_reuse

  saved = {"data": {"builder_versions": entry.get("builder_versions") or {}}}
  return (run_identity.reuse_differences(entry["config"], config)
          + grid_reuse.builder_changes(saved, config))


def main(argv):
  del argv
  from blm_jax.results.experiment import run_experiment

  if _BUDGET.value and flags.FLAGS["settings"].present:
    raise app.UsageError("--budget and --settings both name the settings: "
                         "give one")
  settings = (SOLVER_BUDGETS[_BUDGET.value] if _BUDGET.value
              else _SETTINGS.value)
  unknown = [s for s in settings if s not in SETTINGS]
  if unknown:
    raise app.UsageError(f"unknown settings {unknown}; known: "
                         f"{sorted(SETTINGS)}")
  seeds = [int(x) for x in _SEEDS.value]
  recorded = recorded_runs(_RECORD.value) if _RECORD.value else {}
  by_seed, runs = {}, {}
  command = "python " + " ".join(sys.argv)
  root = os.path.join(_OUT.value, _DATASET.value)
  source = (f"results.json of each setting and seed under {root} "
            "(dev figures only)")
  later = settings  # what the seeds after the first train
  for i, seed in enumerate(seeds):
    if i == 1 and _TOP.value:
      later = top_settings(by_seed[seeds[0]], settings, _TOP.value)
      print(f"== seeds {seeds[1:]}: {later}", flush=True)
    for name in later if i else settings:
      workdir = os.path.join(root, name if seed == 0 else f"{name}-seed{seed}")
      path = os.path.join(workdir, "results.json")
      row, entry = recorded.get((seed, name), (None, None))
      if os.path.exists(path):  # the workdir's own run comes first
        row = None
      elif row is not None and (problem := reuse_problem(
          entry, config_for(name, _DATASET.value, seed))):
        print(f"== {name}, seed {seed}: the record's run differs "
              f"({'; '.join(problem)}): training again", flush=True)
        row = None
      if row is None:
        if not os.path.exists(path):
          print(f"== {name}, seed {seed}: training in {workdir}", flush=True)
          try:  # a bad --dataset: one line, when a run first needs it
            config = config_for(name, _DATASET.value, seed)
          except ValueError as e:
            sys.exit(f"error: --dataset: {e}")
          run_experiment(config, workdir)
        with open(path) as f:
          results = json.load(f)
        row, entry = dev_row(results), run_entry(results)
      else:
        print(f"== {name}, seed {seed}: from {_RECORD.value}", flush=True)
      by_seed.setdefault(seed, {})[name] = row
      runs.setdefault(str(seed), {})[name] = entry
      print(f"== {name}, seed {seed}: {row}", flush=True)
      if _RECORD.value:  # after every run: a killed session loses none
        files.write_json(_RECORD.value, study_record(
            summary(by_seed, seeds, settings, later), _DATASET.value, command,
            study_records.head_commit(), source, runs), indent=1)
  record = summary(by_seed, seeds, settings, later)
  lines = markdown_table.lines(record["columns"], record["rows"])
  print("\n".join(lines))
  os.makedirs(root, exist_ok=True)  # none when every row came from --record
  files.write_text(os.path.join(root, "ablation.md"), "\n".join(lines) + "\n")
  if "seeds" in record:
    print(record["seeds"])
    print(f"== dev chooses {record['seeds']['chosen']} (better than "
          f"{later[0]} in every seed, or it)")
  files.write_json(os.path.join(root, "ablation.json"), record, indent=1,
                   sort_keys=False)
  if _RECORD.value:
    print(f"wrote {_RECORD.value}")


if __name__ == "__main__":
  app.run(main)
