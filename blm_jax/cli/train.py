"""Trains a BLM solver grid from a config file (`blm train`; `python
launch.py` is the same command).

  blm train --config=configs/vae2.py --workdir=workdirs/vae2
  blm train --config=configs/ffnn.py:dataset=agreement_fr,cpu \
      --config.grid.seeds=0,1,2,3,4 --config.train.epochs=60 --workdir=...

`configs/<name>.py` is read from the working directory when it is there,
else from the installed package's configs folder, so the command runs from
any folder; a config file that is in neither is named with its near misses.

Every config field can be overridden with --config.<key>=<value>; a key that
does not exist is reported with the list of valid keys. The whole config is
checked (blm_jax.training.config_check) before any data is built. The console shows
the progress bar and the results; absl/orbax/TFDS INFO lines are hidden
unless --verbosity=0 (or higher) is given.

Several processes (one per host, or per GPU), one grid: add --distributed
to the same command on every process; see docs/how-to/run-on-several-hosts.md.

  python launch.py --config=... --workdir=... --distributed \
      --coordinator_address=10.0.0.1:8476 --num_processes=2 --process_id=0
"""

import difflib
import errno
import importlib.util
import logging
import os
import re
import signal
import sys

from absl import app, flags
from absl import logging as absl_logging
from ml_collections import config_flags

from blm_jax.base.stage_clock import stages_line
from blm_jax.cli import errors, usage
from blm_jax.cli.errors import error_line  # noqa: F401 (launch.error_line)
from blm_jax.training import progress
# The modules that load jax and the training stack (the config checks, the
# compile cache, the multi-process runtime, the experiment, its tables) are
# imported inside main(), after the flags are parsed, so --help stays fast.

_CONFIG = config_flags.DEFINE_config_file(
    "config", None, "Experiment config file (configs/<name>.py[:variant]).",
    lock_config=True)
_WORKDIR = flags.DEFINE_string("workdir", None, "Where the run writes.")
_DISTRIBUTED = flags.DEFINE_bool(
    "distributed", False,
    "Join a multi-process run (jax.distributed) before anything else; the "
    "three flags below, or their environment variables, or else the "
    "cluster's auto-detection (SLURM, Open MPI, cloud TPU) say how.")
_COORDINATOR = flags.DEFINE_string(
    "coordinator_address", None,
    "With --distributed: host:port of process 0 (env "
    "JAX_COORDINATOR_ADDRESS).")
_NUM_PROCESSES = flags.DEFINE_integer(
    "num_processes", None,
    "With --distributed: how many processes (env JAX_NUM_PROCESSES).")
_PROCESS_ID = flags.DEFINE_integer(
    "process_id", None,
    "With --distributed: this process's id, 0..num_processes-1; 0 hosts "
    "the coordinator and writes the results (env JAX_PROCESS_ID).")
_INIT_TIMEOUT = flags.DEFINE_integer(
    "distributed_init_timeout", 300,
    "With --distributed: seconds to wait for the coordinator and the other "
    "processes to join.")
_HEARTBEAT_TIMEOUT = flags.DEFINE_integer(
    "distributed_heartbeat_timeout", 100,
    "With --distributed: seconds after which a silent process counts as "
    "dead and the others stop with an error.")
flags.mark_flags_as_required(["config", "workdir"])


def _flat_keys(cfg, prefix="config."):
  for k, v in cfg.items():
    if hasattr(v, "items"):
      yield from _flat_keys(v, f"{prefix}{k}.")
    else:
      yield f"{prefix}{k}"


def _load_config_file(spec: str):
  """get_config() of 'path.py[:arg]', for listing its keys."""
  path, _, arg = spec.partition(":")
  module_spec = importlib.util.spec_from_file_location("_blm_config", path)
  module = importlib.util.module_from_spec(module_spec)
  module_spec.loader.exec_module(module)
  return module.get_config(arg or None)


def unknown_key_line(key: str, valid: list[str]) -> str:
  """One line: the key, its near misses, and the keys of its section (or
  the sections, where the section is unknown too)."""
  close = difflib.get_close_matches(key, valid, 3)
  hint = (" (did you mean " + " or ".join(map(repr, close)) + "?)"
          if close else "")
  section = key.rpartition(".")[0]
  siblings = [v.rpartition(".")[2] for v in valid
              if v.rpartition(".")[0] == section]
  if siblings:
    return (f"error: unknown config key {key!r}{hint}; {section} has: "
            + ", ".join(siblings))
  sections = sorted({v.rpartition(".")[0] for v in valid})
  return (f"error: unknown config key {key!r}{hint}; the sections are: "
          + ", ".join(sections))


# The configs folder of the installed package (beside blm_jax, whether the
# install is editable or not).
PACKAGE_CONFIGS = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
        __file__)))), "configs")


def config_files(configs_dir: str = PACKAGE_CONFIGS) -> list[str]:
  """'configs/<name>.py' of every experiment config in `configs_dir`."""
  if not os.path.isdir(configs_dir):
    return []
  return sorted(f"configs/{f}" for f in os.listdir(configs_dir)
                if f.endswith(".py") and f not in ("__init__.py",
                                                   "common.py"))


def resolve_config(spec: str, configs_dir: str = PACKAGE_CONFIGS) -> str:
  """'path.py[:variant]' with the path made one that exists: as given, or
  'configs/<name>.py' from the installed package; otherwise exits with one
  line naming the near misses and the config files there are."""
  path, colon, arg = spec.partition(":")
  if os.path.isfile(path):
    return spec
  installed = os.path.join(configs_dir, os.path.basename(path))
  if os.path.dirname(os.path.normpath(path)) in ("configs", "") and (
      os.path.isfile(installed) and os.path.basename(path) not in (
          "__init__.py", "common.py")):
    return installed + colon + arg
  known = config_files(configs_dir)
  close = difflib.get_close_matches(
      f"configs/{os.path.basename(path)}", known, 3, 0.6)
  hint = (" (did you mean " + " or ".join(close) + "?)") if close else ""
  sys.exit(f"error: --config={path}: no such config file{hint}; the config "
           f"files are: {', '.join(known)}")


def parse_flags(argv):
  """absl parsing, with a clear message for misspelled config keys."""
  given = [a for a in argv[1:] if a.startswith("--config=")]
  if len(given) > 1:
    sys.exit(f"error: --config is given {len(given)} times ("
             + ", ".join(given) + "); give one config file and override "
             "its keys with --config.<key>=<value>")
  argv = [f"--config={resolve_config(a.split('=', 1)[1])}"
          if a.startswith("--config=") else a for a in argv]
  try:
    return flags.FLAGS(argv)
  except (AttributeError, KeyError, flags.Error) as e:
    if "Error whilst parsing config file" in str(e):
      # config_flags wraps the config file's own error in a traceback: keep
      # its last line (e.g. a bad variant from configs/common.parse_arg).
      last = re.findall(r"^\w*Error: (.+)$", str(e), re.M)
      spec = next((a.split("=", 1)[1] for a in reversed(argv[1:])
                   if a.startswith("--config=")), "")
      sys.exit(f"error: --config={spec}: " + (last[-1] if last else str(e)))
    specs = [a.split("=", 1)[1] for a in argv[1:] if a.startswith("--config=")]
    overrides = [a.split("=")[0][2:] for a in argv[1:]
                 if a.startswith("--config.")]
    try:
      valid = sorted(_flat_keys(_load_config_file(specs[-1])))
    except Exception:  # The config file itself is the problem.
      sys.exit(f"error: {e}")
    unknown = [k for k in overrides if k not in valid]
    if not unknown:
      sys.exit(f"error: {e}")
    sys.exit("\n".join(unknown_key_line(k, valid) for k in unknown))


REPORT_NOTICE = ("trained; evaluating and writing the report (context-free "
                 "baselines, metrics, figures)")


class Console(progress.Progress):
  """The trainer's events on the terminal, and what a Ctrl-C message needs.

  Resume news is printed when it happens; `epochs_done` and `epochs_saved`
  count completed epochs (the trainer's events give 0-based indices).
  """

  def __init__(self):
    self.started = False  # The workdir is made and the epochs run.
    self.epochs_done = 0
    self.epochs_saved = None  # None: no checkpoint holds this run yet.
    self.epochs = None  # The run's epochs, once training starts.

  def on_resume(self, epoch):
    self.epochs_done = self.epochs_saved = epoch + 1
    print(f"resumed from epoch {epoch + 1}", file=sys.stderr, flush=True)

  def on_train_start(self, first_epoch, epochs):
    self.started = True
    self.epochs = epochs
    if first_epoch >= epochs:
      print("already trained: evaluating only", file=sys.stderr, flush=True)

  def on_epoch_end(self, epoch, measurements):
    self.epochs_done = epoch + 1
    if self.epochs_done == self.epochs and sys.stderr.isatty():
      # Tens of seconds follow with nothing else on a terminal (logs and
      # pipes get only the lines a run's outcome needs).
      print(REPORT_NOTICE, file=sys.stderr, flush=True)

  def on_checkpoint(self, epoch):
    self.epochs_saved = epoch + 1

  def on_notice(self, message):
    print(message, file=sys.stderr, flush=True)


class Terminated(KeyboardInterrupt):
  """SIGTERM (a batch scheduler's stop, e.g. on preemption), handled as a
  Ctrl-C: a save in progress is finished first (checkpoints.save)."""
  exit_status = 128 + signal.SIGTERM


def _on_sigterm(signum, frame):
  del signum, frame
  raise Terminated()


def _not_interrupt(record: logging.LogRecord) -> bool:
  """Drops library reports of a Ctrl-C (orbax logs it with a traceback)."""
  return not (record.exc_info and record.exc_info[0] is not None
              and issubclass(record.exc_info[0], KeyboardInterrupt))


def _quiet_logs() -> None:
  """Hide INFO lines of absl users (orbax, TFDS) unless --verbosity is set."""
  for handler in logging.getLogger().handlers:
    handler.addFilter(_not_interrupt)
  if not flags.FLAGS["verbosity"].present:
    absl_logging.set_verbosity(absl_logging.WARNING)
    for name in ("absl", "jax", "orbax", "tensorflow_datasets"):
      logging.getLogger(name).setLevel(logging.WARNING)
    import tensorflow_datasets as tfds

    tfds.disable_progress_bar()  # Dataset generation bars; ours stay.


def interrupted_message(workdir: str, console: Console,
                        what: str = "interrupted") -> str:
  """What a Ctrl-C (or, `what`='terminated (SIGTERM)', a SIGTERM) leaves
  behind and how to go on from it."""
  if not console.started:
    # The trainer makes the workdir once the data is loaded and embedded.
    where = (f"; {workdir} was not made" if not os.path.exists(workdir)
             else "")
    return (f"{what} before training started (while loading or "
            f"embedding the data{where}); rerun the same command: the "
            "embedding shards already written are reused")
  done, saved = console.epochs_done, console.epochs_saved
  if saved is None:
    return (f"{what} after epoch {done}; no checkpoint was written yet, "
            "so rerunning the same command starts from the beginning")
  return (f"{what} after epoch {done}; rerun the same command to resume "
          f"from epoch {saved}")


def start_distributed(distributed) -> None:
  """Joins the multi-process run the flags (or environment) describe."""
  try:
    distributed.initialize(distributed.Settings.resolve(
        _COORDINATOR.value, _NUM_PROCESSES.value, _PROCESS_ID.value,
        init_timeout_s=_INIT_TIMEOUT.value,
        heartbeat_timeout_s=_HEARTBEAT_TIMEOUT.value))
  except distributed.DistributedError as e:
    sys.exit(f"error: {e}")


def main(argv):
  del argv
  _quiet_logs()
  from blm_jax.training import config_check

  config, workdir = _CONFIG.value, _WORKDIR.value
  try:  # Before anything heavy, and before the workdir exists.
    config_check.validate(config)
    config_check.check_dataset_names(config)
  except config_check.ConfigError as e:
    sys.exit(f"error: {e}")

  import jax  # Imported after flag parsing so --help stays fast.

  from blm_jax.base import compile_cache
  compile_cache.enable()

  from blm_jax.training import distributed

  if _DISTRIBUTED.value or any(f.value is not None for f in (
      _COORDINATOR, _NUM_PROCESSES, _PROCESS_ID)):
    start_distributed(distributed)
  from blm_jax.results import experiment

  console = Console()
  signal.signal(signal.SIGTERM, _on_sigterm)
  try:
    results = experiment.run_experiment(config, workdir, progress=console)
  except KeyboardInterrupt as e:
    # The shells' convention: 128 + the signal's number.
    term = isinstance(e, Terminated)
    message = interrupted_message(
        workdir, console, "terminated (SIGTERM)" if term else "interrupted")
    distributed.exit_on_error(e, message)
    print(message, file=sys.stderr, flush=True)
    sys.exit(128 + (signal.SIGTERM if term else signal.SIGINT))
  except Exception as e:
    distributed.exit_on_error(e, error_line(e))
    line = error_line(e)
    if line is None:
      raise
    errors.exit_with(line)
  if results is None:  # Another process of a multi-process run.
    print(f"process {jax.process_index()}: trained; process 0 writes "
          f"{workdir}/results.json")
    return
  from blm_jax.results import tables
  for line in tables.console_lines(
      tables.cell_rows(results),
      results["run"].get("context_free_from_cache", "")):
    print(line)
  if "skipped" in results.get("gold_ceiling", {}):
    print(results["gold_ceiling"]["skipped"])
  for name, c in results.get("controls", {}).items():
    for t, row in c["selectivity"].items():
      print(f"control {name}, train {t}: " + "  ".join(
          f"test {u} F1 {c['summary'][t][u]['f1_mean']:.3f} selectivity "
          f"{v:+.3f}" for u, v in row.items()))
  sweep = results.get("layer_sweep")
  if sweep:
    for t, row in sweep["f1_mean"].items():
      for u, f1 in row.items():
        print(f"layer sweep, train {t} test {u}: F1 by layer "
              f"{sweep['layers']}: " + " ".join(f"{x:.3f}" for x in f1))
  print(f"wrote {workdir}/results.json, results.csv, heatmap.png, errors.png"
        + (", layers.png" if sweep else ""))
  print(stages_line(results.get("stage_seconds", {})))


def run() -> None:
  """The command line: flags parsed (config keys checked), then `main`."""
  usage.run(main, flags_parser=parse_flags)


if __name__ == "__main__":
  run()
