"""The fault campaign: each way a run can be cut, damaged or misused, tried
on a tiny run (seconds each) through the command lines a user types.

  python studies/fault_campaign.py                       # every case
  python studies/fault_campaign.py --cases=sigterm_mid_save,divergence
  python studies/fault_campaign.py --list

Every case ends in one of two expectations: an exact resume (the rerun's
results.json cells and summary and its predictions.npz equal those of an
uninterrupted run of the same config), or one error line naming what and
where (exactly one 'error: ' line, with the expected words, the exit
status expected, no traceback on the console). A case holds when it ends
as expected. Each case records the command, the exit status, the number of
stderr lines, whether 'Traceback' reached the console and whether the run
resumed exactly; the whole campaign is written to
studies/records/fault_campaign.json (table `cases`, rendered in
studies/experiments/2026-11-24-fault-campaign.md); with --cases, the rows of
those cases are replaced and the others kept.

The tiny run: the released file format (60 rows, tests/release_fixtures),
a 2-layer BERT (tests/tiny_checkpoints), FFNN, seed 0, types I and II,
20 epochs with a checkpoint every 2 (two kept). The full-disk case mounts a
48 KiB tmpfs and needs root; without it, it is recorded as skipped.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from blm_jax.base import files  # noqa: E402
from blm_jax.study import records as study_records  # noqa: E402
from tests import release_fixtures, small_disk, tiny_checkpoints  # noqa: E402

RECORD = os.path.join(ROOT, "studies", "records", "fault_campaign.json")
EPOCHS = 20
EXACT = "exact resume"


def error(*words: str, status: int = 1) -> dict:
  """The expectation of a one-line error containing `words`."""
  return {"kind": "error", "words": words, "status": status}


def resume(status_first: int | None = None) -> dict:
  return {"kind": "resume", "status_first": status_first}


class Campaign:
  """The tiny run's files, its uninterrupted reference and the runs."""

  def __init__(self, root: str):
    self.root = root
    self.release = os.path.join(root, "release")
    release_fixtures.write_release(os.path.join(self.release, "all.tsv"),
                                   release_fixtures.release_rows(60))
    self.encoder = tiny_checkpoints.write_bert(os.path.join(root,
                                                            "tiny_bert"))
    self.config = os.path.join(root, "tiny.py")
    self.write_config(self.config, os.path.join(root, "tfds"),
                      os.path.join(root, "cache"))
    self.reference = None

  def write_config(self, path: str, data_dir: str, cache_dir: str,
                   model: str = "ffnn", encoder: str | None = None,
                   release: str | None = None) -> None:
    files.write_text(path, textwrap.dedent(f"""\
        import sys
        sys.path.insert(0, {ROOT!r})
        from configs import {model}


        def get_config(arg=None):
          c = {model}.get_config(None)
          c.data.name = "blm_published/folder"
          c.data.manual_dir = {release or self.release!r}
          c.data.data_dir = {data_dir!r}
          c.data.train_types = c.data.test_types = ("folder",)
          c.encoder.name = {encoder or self.encoder!r}
          c.encoder.cache_dir = {cache_dir!r}
          c.grid.seeds = (0,)
          c.train.epochs = {EPOCHS}
          c.train.checkpoint_every_epochs = 2
          c.train.checkpoint_min_seconds = 0.0
          c.train.keep_checkpoints = 2
          c.train.batch_size = 16
          c.progress = False
          return c
        """))

  # ---- Running ---------------------------------------------------------

  def command(self, work: str, *extra: str, config: str | None = None):
    return [sys.executable, "launch.py", f"--config={config or self.config}",
            f"--workdir={work}", *extra]

  def start(self, argv, env=None) -> subprocess.Popen:
    return subprocess.Popen(
        argv, cwd=ROOT, env=dict(os.environ, JAX_PLATFORMS="cpu",
                                 **(env or {})),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))

  def run(self, argv, timeout=600, env=None) -> dict:
    proc = self.start(argv, env)
    out, err = proc.communicate(timeout=timeout)
    return {"argv": argv, "rc": proc.returncode, "out": out, "err": err}

  def work(self, name: str) -> str:
    return os.path.join(self.root, "work", name)

  def make_reference(self) -> None:
    ref = self.work("reference")
    got = self.run(self.command(ref))
    if got["rc"] != 0:
      raise SystemExit("the uninterrupted reference run failed:\n"
                       + got["err"][-3000:])
    self.reference = outcome(ref)


def outcome(work: str) -> dict | None:
  """What an exact resume must reproduce: results.json's cells and
  summary, and every array of predictions.npz."""
  import numpy as np

  path = os.path.join(work, "results.json")
  if not os.path.exists(path):
    return None
  with open(path) as f:
    results = json.load(f)
  with np.load(os.path.join(work, "predictions.npz")) as z:
    arrays = {k: z[k].tolist() for k in z.files}
  return {"cells": results["cells"], "summary": results["summary"],
          "predictions": arrays}


def wait_for(predicate, proc: subprocess.Popen | None = None,
             timeout: float = 300, every: float = 0.01) -> bool:
  """Polls `predicate` until it holds (True), the process ends or the time
  is up (False)."""
  deadline = time.time() + timeout
  while time.time() < deadline:
    if predicate():
      return True
    if proc is not None and proc.poll() is not None:
      return False
    time.sleep(every)
  return False


def epoch_logged(work: str, epoch: int):
  pattern = re.compile(rf" epoch {epoch} loss ")
  path = os.path.join(work, "log.txt")
  return lambda: os.path.exists(path) and bool(pattern.search(
      open(path).read()))


def saving(work: str):
  """Whether a checkpoint save is under way (orbax's tmp folder exists),
  past the first one (epoch 1)."""
  folder = os.path.join(work, "checkpoints")

  def now():
    try:
      names = os.listdir(folder)
    except OSError:
      return False
    return any("orbax-checkpoint-tmp" in n and not n.startswith("1.")
               for n in names)
  return now


# ---- Judging ---------------------------------------------------------------

def console(got: dict) -> dict:
  err = got["err"]
  return {"rc": got["rc"],
          "stderr_lines": len([l for l in err.splitlines() if l.strip()]),
          "traceback": "Traceback" in err + got["out"]}


def judge_error(got: dict, expect: dict) -> tuple[bool, str]:
  err = got["err"].splitlines()
  lines = [l for l in err if l.startswith("error: ")]
  c = console(got)
  if c["traceback"]:
    return False, "a traceback on the console"
  if got["rc"] != expect["status"]:
    return False, f"exit {got['rc']} (expected {expect['status']})"
  if len(lines) != 1:
    return False, f"{len(lines)} error lines"
  # The error's text: its line and those under it (a list of differences,
  # then what to do).
  text = "\n".join(err[err.index(lines[0]):])
  missing = [w for w in expect["words"] if w not in text]
  if missing:
    return False, f"the error line lacks {missing}: {lines[0][:200]}"
  return True, lines[0][:240]


def judge_resume(campaign: Campaign, work: str, first: dict, rerun: dict,
                 expect: dict, rerun_word: str | None = None
                 ) -> tuple[bool, bool, str]:
  """(held, resumed exactly, what happened)."""
  if console(first)["traceback"] or console(rerun)["traceback"]:
    return False, False, "a traceback on the console"
  if expect.get("status_first") is not None and (
      first["rc"] != expect["status_first"]):
    return False, False, (f"first run exit {first['rc']} (expected "
                          f"{expect['status_first']})")
  if rerun["rc"] != 0:
    return False, False, f"rerun exit {rerun['rc']}: {rerun['err'][-300:]}"
  exact = outcome(work) == campaign.reference
  if not exact:
    return False, False, "the rerun's results differ from the reference"
  if rerun_word and rerun_word not in rerun["err"]:
    return False, exact, f"the rerun does not say {rerun_word!r}"
  if first["rc"] is None:  # Damaged files, no first run to judge.
    return True, exact, "rerun: results equal the reference"
  first_line = (first["err"].strip().splitlines() or [""])[-1]
  return True, exact, (f"first: exit {first['rc']}, '{first_line[:160]}'; "
                       "rerun: results equal the reference")


# ---- Cases -----------------------------------------------------------------

CASES = {}


def case(expected: str):
  def register(fn):
    CASES[fn.__name__] = (fn, expected)
    return fn
  return register


def _interrupt(campaign: Campaign, name: str, when, signum: int,
               status: int | None, rerun_word: str | None = None,
               extra=()):
  """Starts the tiny run, sends `signum` once `when(work)` holds, reruns
  the same command; the rerun must equal the reference."""
  work = campaign.work(name)
  argv = campaign.command(work, *extra)
  proc = campaign.start(argv)
  landed = wait_for(when(work), proc)
  if proc.poll() is None:
    proc.send_signal(signum)
  out, err = proc.communicate(timeout=300)
  first = {"argv": argv, "rc": proc.returncode, "out": out, "err": err}
  rerun = campaign.run(argv)
  held, exact, what = judge_resume(campaign, work, first, rerun,
                                   resume(status), rerun_word)
  if not landed:
    what = "(the signal came after the phase aimed at) " + what
  return {"command": " ".join(argv[1:]) + f"  # {signal.Signals(signum).name}"
          ", then rerun", **console(first), "resumed_exactly": exact,
          "held": held, "got": what}


@case(EXACT)
def kill9_while_building(c: Campaign):
  """SIGKILL during the first dataset build and embedding (own data dir)."""
  cfg = os.path.join(c.root, "tiny_cold.py")
  c.write_config(cfg, os.path.join(c.root, "tfds_cold"),
                 os.path.join(c.root, "cache_cold"))
  work = c.work("kill9_while_building")
  argv = c.command(work, config=cfg)
  proc = c.start(argv)
  landed = wait_for(lambda: os.path.isdir(os.path.join(
      c.root, "tfds_cold", "blm_published")), proc)
  proc.kill()
  out, err = proc.communicate(timeout=60)
  first = {"argv": argv, "rc": proc.returncode, "out": out, "err": err}
  rerun = c.run(argv)
  held, exact, what = judge_resume(c, work, first, rerun, resume(-9))
  return {"command": " ".join(argv[1:]) + "  # SIGKILL, then rerun",
          **console(first), "resumed_exactly": exact, "held": held,
          "got": ("" if landed else "(late) ") + what}


@case(EXACT)
def kill9_mid_training(c):
  return _interrupt(c, "kill9_mid_training", lambda w: epoch_logged(w, 7),
                    signal.SIGKILL, -9, "resumed from epoch")


@case(EXACT)
def kill9_mid_save(c):
  return _interrupt(c, "kill9_mid_save", saving, signal.SIGKILL, -9)


@case(EXACT)
def kill9_before_the_report(c):
  """SIGKILL after the last epoch: evaluating, writing results."""
  return _interrupt(c, "kill9_before_the_report",
                    lambda w: epoch_logged(w, EPOCHS - 1), signal.SIGKILL,
                    None)


@case(EXACT + " (exit 143, one line)")
def sigterm_mid_training(c):
  return _interrupt(c, "sigterm_mid_training", lambda w: epoch_logged(w, 7),
                    signal.SIGTERM, 143, "resumed from epoch")


@case(EXACT + " (exit 130, one line)")
def sigint_mid_training(c):
  return _interrupt(c, "sigint_mid_training", lambda w: epoch_logged(w, 7),
                    signal.SIGINT, 130, "resumed from epoch")


@case(EXACT + " (exit 143, one line)")
def sigterm_mid_save(c):
  return _interrupt(c, "sigterm_mid_save", saving, signal.SIGTERM, 143)


@case(EXACT + " (exit 130, one line)")
def sigint_mid_save(c):
  return _interrupt(c, "sigint_mid_save", saving, signal.SIGINT, 130)


def _killed_run(c: Campaign, name: str, epoch: int = 7) -> tuple[str, list]:
  """A run killed after `epoch`: its workdir and command."""
  work = c.work(name)
  argv = c.command(work)
  proc = c.start(argv)
  wait_for(epoch_logged(work, epoch), proc)
  proc.kill()
  proc.communicate(timeout=60)
  return work, argv


def _steps(work: str) -> list[str]:
  folder = os.path.join(work, "checkpoints")
  return sorted((n for n in os.listdir(folder) if n.isdigit()), key=int)


def _damage(path: str, how: str) -> None:
  """Truncates a file (or every file under a folder) to half its size, or
  flips a byte in the middle of each."""
  paths = [path] if os.path.isfile(path) else [
      os.path.join(d, n) for d, _, names in os.walk(path) for n in names]
  for p in paths:
    size = os.path.getsize(p)
    if how == "truncate":
      os.truncate(p, size // 2)
    elif size:
      with open(p, "r+b") as f:
        f.seek(size // 2)
        b = f.read(1)
        f.seek(size // 2)
        f.write(bytes([b[0] ^ 0xFF]))


def _damaged_checkpoints(c, name, which, how):
  work, argv = _killed_run(c, name)
  steps = _steps(work)
  for s in steps if which == "all" else steps[-1:]:
    _damage(os.path.join(work, "checkpoints", s), how)
  rerun = c.run(argv)
  first = {"rc": None, "err": "", "out": ""}
  held, exact, what = judge_resume(c, work, first, rerun, resume())
  quarantined = len(os.listdir(os.path.join(work, "checkpoints-quarantine"))
                    ) if os.path.isdir(os.path.join(
                        work, "checkpoints-quarantine")) else 0
  notices = [l for l in rerun["err"].splitlines() if "is damaged" in l]
  if held and len(notices) != quarantined:
    held, what = False, (f"{quarantined} steps quarantined, "
                         f"{len(notices)} console notices")
  return {"command": f"kill -9 at epoch 7; {how} {which} of steps {steps}; "
          "rerun " + " ".join(argv[1:]), **console(rerun),
          "resumed_exactly": exact, "held": held,
          "got": f"{what}; {quarantined} quarantined, rerun printed "
                 f"{console(rerun)['stderr_lines']} lines"}


@case(EXACT + " from the older step, one notice")
def truncated_newest_checkpoint(c):
  return _damaged_checkpoints(c, "truncated_newest_checkpoint", "newest",
                              "truncate")


@case(EXACT + " from the older step, one notice")
def flipped_bytes_newest_checkpoint(c):
  return _damaged_checkpoints(c, "flipped_bytes_newest_checkpoint",
                              "newest", "flip")


@case(EXACT + " from epoch 0, one notice per step")
def all_checkpoints_truncated(c):
  return _damaged_checkpoints(c, "all_checkpoints_truncated", "all",
                              "truncate")


def _error_case(c: Campaign, argv, expect: dict, prepare=None,
                env=None) -> dict:
  if prepare is not None:
    prepare()
  got = c.run(argv, env=env)
  held, what = judge_error(got, expect)
  return {"command": " ".join(argv[1:]), **console(got),
          "resumed_exactly": None, "held": held, "got": what}


def _own_copy(c: Campaign, name: str) -> tuple[str, str, str]:
  """A config over a copy of the reference's data dir and cache."""
  data, cache = (os.path.join(c.root, f"{name}_tfds"),
                 os.path.join(c.root, f"{name}_cache"))
  shutil.copytree(os.path.join(c.root, "tfds"), data)
  shutil.copytree(os.path.join(c.root, "cache"), cache)
  cfg = os.path.join(c.root, f"{name}.py")
  c.write_config(cfg, data, cache)
  return cfg, data, cache


@case(EXACT + " (the damaged shard re-embedded)")
def corrupt_embedding_cache_shard(c):
  cfg, _, cache = _own_copy(c, "corrupt_cache")
  shards = [os.path.join(d, n) for d, _, ns in os.walk(cache) for n in ns
            if not n.endswith(".json")]
  for p in shards:
    _damage(p, "flip")
  work = c.work("corrupt_embedding_cache_shard")
  argv = c.command(work, config=cfg)
  got = c.run(argv)
  first = {"rc": None, "err": "", "out": ""}
  held, exact, what = judge_resume(c, work, first, got, resume())
  return {"command": f"flip a byte in each of {len(shards)} cache files; "
          + " ".join(argv[1:]), **console(got), "resumed_exactly": exact,
          "held": held, "got": what}


@case("error naming the record file, with how to rebuild")
def corrupt_array_record_file(c):
  cfg, data, _ = _own_copy(c, "corrupt_records")
  records = sorted(os.path.join(d, n) for d, _, ns in os.walk(data)
                   for n in ns if "train.array_record" in n)
  return _error_case(
      c, c.command(c.work("corrupt_array_record_file"), config=cfg),
      error("damaged record file", records[0], "rebuild it"),
      lambda: _damage(records[0], "truncate"))


@case("error naming the build and the release folder")
def stale_release_build(c):
  cfg, _, _ = _own_copy(c, "stale_build")
  release = os.path.join(c.root, "release_changed")
  release_fixtures.write_release(os.path.join(release, "all.tsv"),
                                 release_fixtures.release_rows(61))
  with open(cfg) as f:
    text = f.read().replace(repr(c.release), repr(release))
  files.write_text(cfg, text)
  return _error_case(c, c.command(c.work("stale_release_build"), config=cfg),
                     error("was built from other release files", release))


@case("error: no space left, naming the folder")
def full_disk(c):
  mount = os.path.join(c.root, "small")
  if not small_disk.mount_tmpfs(mount):
    return {"command": "mount -t tmpfs -o size=48k (needs root)", "rc": None,
            "stderr_lines": None, "traceback": None,
            "resumed_exactly": None, "held": None,
            "got": "skipped: cannot mount a tmpfs here"}
  try:
    work = os.path.join(mount, "work")
    return _error_case(c, c.command(work), error(
        "no space left on the device of", f"{work}/checkpoints",
        "rerun the same command to resume"))
  finally:
    subprocess.run(["umount", mount])


@case("the killed restart leaves no results beside its config")
def restart_killed_midway(c):
  work = c.work("restart_killed_midway")
  first = c.run(c.command(work))
  argv = c.command(work, "--config.train.resume=restart",
                   "--config.data.num_train=40")
  proc = c.start(argv)
  log = os.path.join(work, "log.txt")

  def restarted_epoch_3():  # Logged after the restart moved the run aside.
    text = open(log).read()
    return " epoch 3 loss " in text.partition("train.resume=restart")[2]

  wait_for(restarted_epoch_3, proc)
  proc.kill()
  proc.communicate(timeout=60)
  with open(os.path.join(work, "config.json")) as f:
    num_train = json.load(f)["data"]["num_train"]
  results_left = os.path.exists(os.path.join(work, "results.json"))
  aside = [n for n in os.listdir(work) if n.startswith("previous-")]
  held = (first["rc"] == 0 and num_train == 40 and not results_left
          and len(aside) == 1 and os.path.exists(
              os.path.join(work, aside[0], "results.json")))
  return {"command": "run to the end; " + " ".join(argv[1:])
          + "  # SIGKILL at epoch 3", **console(first),
          "resumed_exactly": None, "held": held,
          "got": f"config.json num_train {num_train}, results.json left "
                 f"beside it: {results_left}, set aside: {aside}"}


@case("the second run refused in one line naming the holder's PID")
def two_runs_one_workdir(c):
  work = c.work("two_runs_one_workdir")
  argv = c.command(work, "--config.train.epochs=100000")
  holder = c.start(argv)
  wait_for(epoch_logged(work, 3), holder)
  try:
    got = c.run(c.command(work))
  finally:
    holder.send_signal(signal.SIGTERM)
    holder.communicate(timeout=120)
  held, what = judge_error(got, error("in use", str(holder.pid)))
  return {"command": " ".join(got["argv"][1:]) + "  # while another runs",
          **console(got), "resumed_exactly": None, "held": held, "got": what}


@case("error naming the workdir and the differing keys")
def other_config_on_a_workdir(c):
  work, _ = _killed_run(c, "other_config_on_a_workdir")
  return _error_case(c, c.command(work, "--config.train.learning_rate=0.002"),
                     error(work, "config.train.learning_rate",
                           "--config.train.resume=restart"))


@case("runs; results.json lists what the forced resume ignored")
def forced_resume_recorded(c):
  work, _ = _killed_run(c, "forced_resume_recorded")
  got = c.run(c.command(work, "--config.train.learning_rate=0.002",
                        "--config.train.resume=force"))
  forced = []
  if os.path.exists(os.path.join(work, "results.json")):
    with open(os.path.join(work, "results.json")) as f:
      forced = json.load(f)["run"].get("resume_forced") or []
  held = (got["rc"] == 0 and not console(got)["traceback"]
          and any("learning_rate" in str(d) for d in forced))
  return {"command": "kill -9 at epoch 7; " + " ".join(got["argv"][1:]),
          **console(got), "resumed_exactly": None, "held": held,
          "got": f"exit {got['rc']}; run.resume_forced: "
                 + "; ".join(str(d) for d in forced)[:160]}


@case("error naming the grid and the differing keys")
def reproduce_reuses_a_cpu_grid(c):
  sys.path.insert(0, ROOT)
  from blm_jax.cli import config_files
  from blm_jax.training import run_identity

  out = os.path.join(c.root, "reproduce")
  work = os.path.join(out, "agreement_en", "ffnn")
  cpu = config_files.load(os.path.join(ROOT, "configs"), "ffnn",
                          "dataset=agreement_en,cpu")
  cpu.data.seed_follows_grid = True
  files.write_json(os.path.join(work, "results.json"),
                   {"run": {"config": run_identity.flatten(cpu.to_dict())}})
  argv = [sys.executable, "-m", "blm_jax.cli.reproduce",
          "--datasets=agreement_en", "--models=ffnn", f"--out={out}"]
  return _error_case(c, argv, error(work, "config.train.epochs"))


def _bad_input(name, expected, extra, *words, config=None):
  @case(expected)
  def run(c):
    return _error_case(c, c.command(c.work(name), *extra,
                                    config=config), error(*words))
  run.__name__ = name
  CASES[name] = CASES.pop("run")
  return run


_bad_input("seeds_with_a_semicolon", "error naming the key",
           ["--config.grid.seeds=[0;1]"], "config.grid.seeds")
_bad_input("channels_with_a_letter", "error naming the key",
           ["--config.model.channels=8,x,8"], "config.model.channels",
           config=os.path.join(ROOT, "configs", "vae2.py"))
_bad_input("unknown_key", "error naming the key and the near miss",
           ["--config.train.epoch=3"], "config.train.epoch",
           "config.train.epochs")
_bad_input("memory_limit_too_small", "error saying how much is needed",
           ["--config.grid.memory_limit_gb=0.000001"], "take",
           "config.grid.memory_limit_gb")


@case("error: --config given twice")
def repeated_config(c):
  argv = c.command(c.work("repeated_config"), f"--config={c.config}")
  return _error_case(c, argv, error("--config is given 2 times"))


@case("error naming the workdir")
def workdir_not_writable(c):
  blocker = os.path.join(c.root, "a_file")
  files.write_text(blocker, "not a folder")
  return _error_case(c, c.command(os.path.join(blocker, "work")),
                     error(blocker))


@case("error naming the missing workdir")
def probe_missing_workdir(c):
  missing = c.work("never_made")
  return _error_case(c, [sys.executable, "-m", "blm_jax.cli.probe",
                         f"--workdir={missing}"], error(missing))


@case("error naming the --out that cannot be written")
def export_bad_out(c):
  blocker = os.path.join(c.root, "export_blocker")
  files.write_text(blocker, "not a folder")
  return _error_case(c, [sys.executable, "-m", "blm_jax.cli.export",
                         "--dataset=blm_published/folder",
                         f"--manual_dir={c.release}",
                         f"--data_dir={os.path.join(c.root, 'tfds')}",
                         f"--out={blocker}/x"], error("--out=", blocker))


def _warning_case(c, name, extra, words, count=1, config=None):
  work = c.work(name)
  got = c.run(c.command(work, *extra, config=config))
  lines = [l for l in got["err"].splitlines() if all(w in l for w in words)]
  held = (got["rc"] == 0 and len(lines) == count
          and not console(got)["traceback"])
  return {"command": " ".join(got["argv"][1:]), **console(got),
          "resumed_exactly": None, "held": held,
          "got": (f"{len(lines)} x '{lines[0][:200]}'" if lines else
                  f"exit {got['rc']}, no warning line with {words}")}


@case("runs, one warning per test type that its F1 means little")
def one_instance_test_set(c):
  return _warning_case(c, "one_instance_test_set",
                       ["--config.data.max_test=1"],
                       ["has 1 instance(s)", "means little"], count=2)


def _vae2(c: Campaign) -> str:
  """The tiny run's config with the two-level VAE (its loss is not bounded
  below by 0 as the FFNN's hinge is: a high learning rate makes it
  explode)."""
  cfg = os.path.join(c.root, "tiny_vae2.py")
  c.write_config(cfg, os.path.join(c.root, "tfds"),
                 os.path.join(c.root, "cache"), model="vae2")
  return cfg


@case("runs, one warning that training diverges")
def divergence(c):
  return _warning_case(c, "divergence",
                       ["--config.train.learning_rate=0.1",
                        "--config.train.epochs=8"], ["training diverges"],
                       config=_vae2(c))


@case("error naming the cell, the epoch and the learning rate")
def non_finite_loss(c):
  return _error_case(c, c.command(c.work("non_finite_loss"),
                                  "--config.train.learning_rate=10",
                                  config=_vae2(c)),
                     error("non-finite loss", "seed=0,train=I",
                           "config.train.learning_rate"))


# ---- Issue 37: workdirs and encoder folders from someone else -------------

def _victim(c: Campaign, name: str) -> str:
  path = os.path.join(c.root, f"{name}_victim.txt")
  files.write_text(path, "precious\n")
  return path


def _link_case(c: Campaign, name: str, link: str) -> dict:
  """A workdir whose `link` is a symbolic link to someone's file: refused,
  naming the link, and the file untouched."""
  work = c.work(name)
  os.makedirs(work, exist_ok=True)
  victim = _victim(c, name)
  os.symlink(victim, os.path.join(work, link))
  row = _error_case(c, c.command(work), error(f"({link} -> {victim})",
                                              "symbolic links"))
  with open(victim) as f:
    intact = f.read() == "precious\n"
  if not intact:
    row["held"], row["got"] = False, "the linked file was written: " + row[
        "got"]
  return row


@case("error naming the .lock link; the file it points to untouched")
def lock_symlink(c):
  return _link_case(c, "lock_symlink", ".lock")


@case("error naming the log.txt link; the file it points to untouched")
def log_symlink(c):
  return _link_case(c, "log_symlink", "log.txt")


@case("error naming the results.json link; the file it points to untouched")
def results_symlink(c):
  return _link_case(c, "results_symlink", "results.json")


def _encoder_copy(c: Campaign, name: str) -> str:
  folder = os.path.join(c.root, name)
  shutil.copytree(c.encoder, folder)
  return folder


def _huge_encoder(c: Campaign) -> str:
  """The tiny BERT's folder with config.json at hidden 4096 x 48 layers
  and a valid safetensors header over a sparse 38.7 GB body."""
  import struct

  folder = os.path.join(c.root, "huge_encoder")
  if os.path.isdir(folder):
    return folder
  folder = _encoder_copy(c, "huge_encoder")
  path = os.path.join(folder, "config.json")
  with open(path) as f:
    cfg = json.load(f)
  cfg.update(hidden_size=4096, num_hidden_layers=48, num_attention_heads=64,
             intermediate_size=16384)
  files.write_json(path, cfg)
  size = 38_700_000_000 // 4 // 4096 * 4096 * 4
  header = json.dumps({"embeddings.word_embeddings.weight": {
      "dtype": "F32", "shape": [size // 4 // 4096, 4096],
      "data_offsets": [0, size]}}).encode()
  with open(os.path.join(folder, "model.safetensors"), "wb") as f:
    f.write(struct.pack("<Q", len(header)) + header)
    f.truncate(8 + len(header) + size)
  return folder


def _with_encoder(c: Campaign, name: str, encoder: str) -> list:
  cfg = os.path.join(c.root, f"{name}.py")
  c.write_config(cfg, os.path.join(c.root, "tfds"),
                 os.path.join(c.root, f"{name}_cache"), encoder=encoder)
  return c.command(c.work(name), config=cfg)


@case("error naming the folder, the size needed and what fits; nothing read")
def huge_encoder_launch(c):
  folder = _huge_encoder(c)
  return _error_case(c, _with_encoder(c, "huge_encoder_launch", folder),
                     error(folder, "its weights need", "nothing was read"))


@case("error naming the folder and the limit variable; nothing read")
def huge_encoder_embed_with_a_limit(c):
  folder = _huge_encoder(c)
  argv = [sys.executable, "-m", "blm_jax.cli.embed", f"--encoder={folder}",
          "--dataset=blm_published/folder", f"--manual_dir={c.release}",
          f"--data_dir={os.path.join(c.root, 'tfds')}",
          f"--cache_dir={os.path.join(c.root, 'huge_cache')}"]
  return _error_case(c, argv, error(folder, "BLM_DEVICE_MEMORY=8000000000",
                                    "nothing was read"),
                     env={"BLM_DEVICE_MEMORY": "8000000000"})


def _damaged_encoder(name, expected, damage, *words):
  @case(expected)
  def run(c):
    folder = _encoder_copy(c, name)
    damage(folder)
    return _error_case(c, _with_encoder(c, name, folder),
                       error(*[w.replace("FOLDER", folder) for w in words]))
  run.__name__ = name
  CASES[name] = CASES.pop("run")
  return run


def _edit_state(change):
  def damage(folder):
    from safetensors.numpy import load_file, save_file
    path = os.path.join(folder, "model.safetensors")
    state = load_file(path)
    change(state)
    save_file(state, path, metadata={"format": "pt"})
  return damage


def _edit_config(**fields):
  def damage(folder):
    path = os.path.join(folder, "config.json")
    with open(path) as f:
      files.write_json(path, {**json.load(f), **fields})
  return damage


def _remove(*names):
  def damage(folder):
    for n in os.listdir(folder):
      if n.startswith(names):
        os.remove(os.path.join(folder, n))
  return damage


def _truncate_weights(folder):
  path = os.path.join(folder, "model.safetensors")
  os.truncate(path, os.path.getsize(path) // 2)


def _nan_weight(state):
  import numpy as np
  w = np.array(state["encoder.layer.0.attention.self.query.weight"])
  w[0, 0] = np.nan
  state["encoder.layer.0.attention.self.query.weight"] = w


_Q = "encoder.layer.0.attention.self.query.weight"
_damaged_encoder("encoder_missing_config", "error naming the folder",
                 _remove("config.json"), "FOLDER: no config.json")
_damaged_encoder("encoder_unknown_model_type", "error naming config.json "
                 "and the supported types", _edit_config(model_type="mamba"),
                 "model_type 'mamba' in FOLDER/config.json", "supported")
_damaged_encoder("encoder_wrong_shape", "error naming the weight and shapes",
                 _edit_state(lambda s: s.update({_Q: s[_Q][:3, :5].copy()})),
                 "FOLDER", "has shape (5, 3)")
_damaged_encoder("encoder_missing_tensor", "error naming the missing weight",
                 _edit_state(lambda s: s.pop(_Q)), "FOLDER",
                 "attention/self/query/kernel")
_damaged_encoder("encoder_truncated_safetensors", "error naming the file",
                 _truncate_weights, "FOLDER/model.safetensors", "truncated")
_damaged_encoder("encoder_nan_weights", "error naming the encoder and the "
                 "weight holding NaN", _edit_state(_nan_weight), "FOLDER",
                 "query/kernel", "NaN")
_damaged_encoder("encoder_missing_tokenizer", "error naming the folder",
                 _remove("tokenizer", "vocab", "special_tokens"), "FOLDER")


@case("error: not on disk and the hub is unreachable, how to fix; one line")
def encoder_unreachable_hub(c):
  argv = _with_encoder(c, "encoder_unreachable_hub",
                       "some-org/some-encoder")
  return _error_case(c, argv, error("some-org/some-encoder", "unreachable",
                                    "--encoder=DIR"),
                     env={"HF_HOME": os.path.join(c.root, "empty_hf"),
                          "HF_ENDPOINT": "http://127.0.0.1:9"})


@case("error naming the dataset and its configs")
def export_path_traversal(c):
  return _error_case(c, [sys.executable, "-m", "blm_jax.cli.export",
                         "--dataset=blm_spray_load/../../evil",
                         f"--out={os.path.join(c.root, 'evil_out')}"],
                     error("--dataset=blm_spray_load/../../evil",
                           "has no config '../../evil'", "ALT-ATL_type_I"))


@case("error listing the valid config names")
def build_agreement_wrong_config(c):
  return _error_case(c, [sys.executable, "-m",
                         "blm_jax.cli.build_agreement",
                         f"--data_dir={os.path.join(c.root, 'agr')}",
                         "en_mian_type_I"],
                     error("has no config 'en_mian_type_I'",
                           "blm_agreement/en_main_type_I"))


@case("error; the data dir it made is removed")
def published_build_fails_leaves_nothing(c):
  data = os.path.join(c.root, "tfds_failing")
  cfg = os.path.join(c.root, "failing_build.py")
  c.write_config(cfg, data, os.path.join(c.root, "cache"),
                 release=os.path.join(c.root, "no_such_release"))
  row = _error_case(c, c.command(c.work("published_build_fails"),
                                 config=cfg), error("no_such_release"))
  if os.path.exists(data):
    left = sorted(os.path.relpath(os.path.join(d, n), data)
                  for d, ds, ns in os.walk(data) for n in ds + ns)
    row["held"], row["got"] = False, f"left behind: {left[:6]}"
  return row


@case("error: no space left, naming the build folder; nothing kept")
def full_disk_dataset_build(c):
  mount = os.path.join(c.root, "small_build")
  if not small_disk.mount_tmpfs(mount, "96k"):
    return {"command": "mount -t tmpfs -o size=96k (needs root)", "rc": None,
            "stderr_lines": None, "traceback": None,
            "resumed_exactly": None, "held": None,
            "got": "skipped: cannot mount a tmpfs here"}
  try:
    release = os.path.join(c.root, "release_400")
    release_fixtures.write_release(os.path.join(release, "all.tsv"),
                                   release_fixtures.release_rows(400))
    cfg = os.path.join(c.root, "full_build.py")
    c.write_config(cfg, os.path.join(mount, "tfds"),
                   os.path.join(c.root, "cache"), release=release)
    row = _error_case(c, c.command(c.work("full_disk_dataset_build"),
                                   config=cfg),
                      error("No space left on device", f"{mount}/tfds",
                            "nothing of it was kept"))
    if os.listdir(mount):
      row["held"], row["got"] = False, f"left: {os.listdir(mount)}"
    return row
  finally:
    subprocess.run(["umount", mount])


@case("both runs end well; the dataset is built once")
def two_builds_of_one_dataset(c):
  cfg = os.path.join(c.root, "two_builds.py")
  c.write_config(cfg, os.path.join(c.root, "tfds_two"),
                 os.path.join(c.root, "cache"))
  procs = [c.start(c.command(c.work(f"two_builds_{k}"), config=cfg))
           for k in range(2)]
  outs = [p.communicate(timeout=600) for p in procs]
  rcs = [p.returncode for p in procs]
  builds = sum(1 for _, err in outs for l in err.splitlines()
               if l.startswith("building dataset"))
  waited = sum(1 for _, err in outs for l in err.splitlines()
               if l.startswith("waiting for another process"))
  tb = any("Traceback" in o + e for o, e in outs)
  return {"command": "two of " + " ".join(c.command("W", config=cfg)[1:])
          + " at once", "rc": max(rcs, key=abs),
          "stderr_lines": max(len(e.splitlines()) for _, e in outs),
          "traceback": tb, "resumed_exactly": None,
          "held": rcs == [0, 0] and builds == 1 and not tb,
          "got": f"exits {rcs}; built {builds} time(s); {waited} waited"}


@case("the rerun resumes with no library traceback on the console")
def reproduce_rerun_after_kill9(c):
  configs = os.path.join(c.root, "reproduce_configs")
  c.write_config(os.path.join(configs, "ffnn.py"), os.path.join(c.root,
                                                                "tfds"),
                 os.path.join(c.root, "cache"))
  # The suite reads its dataset short names from the folder's common.py.
  shutil.copy(os.path.join(ROOT, "configs", "common.py"), configs)
  out = os.path.join(c.root, "reproduce_kill")
  work = os.path.join(out, "agreement_en", "ffnn")
  argv = [sys.executable, "-m", "blm_jax.cli.reproduce",
          "--datasets=agreement_en", "--models=ffnn", f"--out={out}",
          f"--configs_dir={configs}"]
  proc = c.start(argv)
  landed = wait_for(saving(work), proc)
  proc.kill()
  out1, err1 = proc.communicate(timeout=60)
  first = {"argv": argv, "rc": proc.returncode, "out": out1, "err": err1}
  rerun = c.run(argv)
  # The suite's own config may differ from the reference's (its seed
  # handling): the rerun is judged on its console and on finishing.
  held = rerun["rc"] == 0 and not console(rerun)["traceback"]
  exact = outcome(work) == c.reference
  what = (f"first: exit {first['rc']}; rerun: exit {rerun['rc']}, "
          f"traceback: {console(rerun)['traceback']}, results equal the "
          f"reference: {exact}")
  if rerun["rc"] != 0:
    what += "; " + rerun["err"].strip()[-300:]
  return {"command": " ".join(argv[1:]) + "  # SIGKILL mid-save, rerun",
          **console(rerun), "resumed_exactly": exact, "held": held,
          "got": ("" if landed else "(late) ") + what}


_bad_input("hidden_factor_too_wide", "error naming the width key",
           ["--config.model.hidden_factor=2000"], "config.model.hidden_factor"
           "=2000", "the training state does not fit")
_bad_input("batch_size_too_large", "error naming config.train.batch_size",
           ["--config.train.batch_size=2000000",
            "--config.grid.memory_limit_gb=2"], "config.train.batch_size")


def _release_case(name, expected, edit, *words):
  @case(expected)
  def run(c):
    release = os.path.join(c.root, f"{name}_release")
    path = os.path.join(release, "all.tsv")
    rows = release_fixtures.release_rows(60)
    release_fixtures.write_release(path, rows)
    edit(path)
    cfg = os.path.join(c.root, f"{name}.py")
    c.write_config(cfg, os.path.join(c.root, f"{name}_tfds"),
                   os.path.join(c.root, "cache"), release=release)
    return _error_case(c, c.command(c.work(name), config=cfg),
                       error(path, *words))
  run.__name__ = name
  CASES[name] = CASES.pop("run")
  return run


def _long_chunks(path):
  lines = open(path).read().split("\n")
  header = lines[0].split("\t")
  cells = lines[2].split("\t")
  cells[header.index("Sent_chunks_2")] = repr(["x" * 400_000])
  lines[2] = "\t".join(cells)
  files.write_text(path, "\n".join(lines))


def _commas(path):
  files.write_text(path, open(path).read().replace("\t", ","))


_release_case("release_field_too_long", "error naming the file, line and "
              "column: too long", _long_chunks, "line 3",
              "'Sent_chunks_2'", "field too long")
_release_case("release_comma_separated", "error: not tab-separated",
              _commas, "not tab-separated")


@case("a workdir keeps the 3 latest previous-* folders")
def previous_folders_bounded(c):
  work = c.work("previous_folders_bounded")
  got = None
  for k in range(5):
    got = c.run(c.command(work, "--config.train.epochs=2",
                          "--config.train.resume=restart"))
    if got["rc"] != 0:
      break
  aside = sorted(n for n in os.listdir(work) if n.startswith("previous-"))
  said = any("removed the oldest" in l for l in got["err"].splitlines())
  held = got["rc"] == 0 and len(aside) == 3 and said
  return {"command": "5 x " + " ".join(got["argv"][1:]), **console(got),
          "resumed_exactly": None, "held": held,
          "got": f"{len(aside)} previous-* folders left; the last run said "
                 f"so: {said}"}


# ---- Bad input, third pass: bounded reads, hard links, caches, one line ----

def _jsonl_records(n: int = 60) -> list[dict]:
  """The tiny release's rows as own-data JSONL instances."""
  return [{"id": r["ID"], "context": [r[f"Sent_{k}"] for k in (1, 2, 3)],
           "answers": [r[f"Answer_{k}"] for k in (1, 2, 3, 4)], "correct": 0}
          for r in release_fixtures.release_rows(n)]


def _own_jsonl(c: Campaign, name: str, train: bytes | None = None
               ) -> tuple[str, list]:
  """A folder of own JSONL data (train.jsonl replaced by `train` when
  given) and the launch command over it."""
  folder = os.path.join(c.root, f"{name}_jsonl")
  os.makedirs(folder, exist_ok=True)
  rows = [json.dumps(r).encode() + b"\n" for r in _jsonl_records()]
  with open(os.path.join(folder, "train.jsonl"), "wb") as f:
    f.write(b"".join(rows[:45]) if train is None else train)
  with open(os.path.join(folder, "test.jsonl"), "wb") as f:
    f.write(b"".join(rows[45:]))
  argv = c.command(c.work(name), "--config.data.name=blm_jsonl/folder",
                   f"--config.data.manual_dir={folder}",
                   f"--config.data.data_dir={c.root}/{name}_tfds")
  return folder, argv


def _peak_rss(argv: list) -> tuple[list, str]:
  """`argv` under /usr/bin/time writing the peak RSS (KiB) to a file (the
  console is left as it is), and that file; as it is without the tool."""
  if not os.path.exists("/usr/bin/time"):
    return argv, ""
  out = tempfile.mktemp(prefix="rss_")
  return ["/usr/bin/time", "-f", "%M", "-o", out, *argv], out


def _with_rss(c: Campaign, argv: list, expect: dict, limit_kib: int) -> dict:
  timed, rss_file = _peak_rss(argv)
  got = c.run(timed)
  held, what = judge_error(got, expect)
  rss = None
  if rss_file and os.path.exists(rss_file):
    with open(rss_file) as f:
      rss = int(f.read().split()[-1])
    os.remove(rss_file)
    what = f"peak RSS {rss / 1024:.0f} MiB; {what}"
    if rss > limit_kib:
      held = False
  return {"command": " ".join(argv[1:]), **console(got),
          "resumed_exactly": None, "held": held, "got": what}


def _sparse_jsonl(c: Campaign, name: str) -> str:
  folder, _ = _own_jsonl(c, name)
  for split in ("train", "test"):
    with open(os.path.join(folder, f"{split}.jsonl"), "wb") as f:
      f.truncate(8 << 30)  # 8 GiB of NUL bytes: no newline, no disk.
  return folder


@case("error naming train.jsonl, line 1 and the bound; peak RSS < 1 GiB")
def jsonl_8gb_without_newlines_launch(c):
  folder = _sparse_jsonl(c, "jsonl_8gb_launch")
  argv = c.command(c.work("jsonl_8gb_launch"),
                   "--config.data.name=blm_jsonl/folder",
                   f"--config.data.manual_dir={folder}",
                   f"--config.data.data_dir={c.root}/jsonl_8gb_launch_tfds")
  return _with_rss(c, argv, error(f"{folder}/train.jsonl:1: line longer "
                                  "than 1,000,000 bytes"), 1 << 20)


@case("lint: error naming train.jsonl, line 1; exit 2; peak RSS < 1 GiB")
def jsonl_8gb_without_newlines_lint(c):
  folder = _sparse_jsonl(c, "jsonl_8gb_lint")
  argv = [sys.executable, "-m", "blm_jax.cli.lint", "blm_jsonl/folder",
          f"--manual_dir={folder}",
          f"--data_dir={c.root}/jsonl_8gb_lint_tfds"]
  return _with_rss(c, argv, error(f"{folder}/train.jsonl:1: line longer "
                                  "than 1,000,000 bytes", status=2), 1 << 20)


def _jsonl_case(name, expected, train: bytes, *words):
  @case(expected)
  def run(c):
    folder, argv = _own_jsonl(c, name, train)
    return _error_case(c, argv, error(
        *[w.replace("FILE", f"{folder}/train.jsonl") for w in words]))
  run.__name__ = name
  CASES[name] = CASES.pop("run")
  return run


_GOOD = json.dumps(_jsonl_records(1)[0]).encode() + b"\n"
_jsonl_case("jsonl_deeply_nested", "error naming file, line and the depth "
            "bound (no RecursionError)", _GOOD + b"[" * 200_000 + b"\n",
            "FILE:2: JSON nested 200000 deep (at most 8)")
_jsonl_case("jsonl_byte_not_utf8", "error naming file, line and byte",
            _GOOD + _GOOD.replace(b"lamp0", b"lamp\xff", 1).replace(
                b'"0"', b'"x"'), "FILE:2: bytes b'\\xff' at byte",
            "not UTF-8")
_jsonl_case("jsonl_empty_context_sentence", "error naming file, line and "
            "field", _GOOD + json.dumps({
                "context": ["A b.", " "], "answers": ["C.", "D."],
                "correct": 0}).encode() + b"\n",
            "FILE:2: field 'context': sentence 2 is empty")


def _hard_link_case(c: Campaign, name: str, link: str) -> dict:
  """A workdir whose `link` is a hard link to someone's file: refused,
  naming it, and the file unchanged."""
  work = c.work(name)
  os.makedirs(work, exist_ok=True)
  victim = _victim(c, name)
  os.link(victim, os.path.join(work, link))
  row = _error_case(c, c.command(work), error(
      f"holds hard links where a run writes its files ({link}: a hard "
      "link, 2 names for one file)"))
  with open(victim) as f:
    if f.read() != "precious\n":
      row["held"], row["got"] = False, "the linked file was written: " + (
          row["got"])
  return row


@case("error naming the hard-linked .lock; the linked file unchanged")
def lock_hard_link(c):
  return _hard_link_case(c, "lock_hard_link", ".lock")


@case("error naming the hard-linked log.txt; the linked file unchanged")
def log_hard_link(c):
  return _hard_link_case(c, "log_hard_link", "log.txt")


def _own_cache(c: Campaign, name: str) -> tuple[str, str]:
  """A config over copies of the reference's embedding and context-free
  caches (the latter beside the former, as 'auto' puts it); the copy of
  the context-free score file."""
  root = os.path.join(c.root, f"{name}_caches")
  shutil.copytree(os.path.join(c.root, "cache"), os.path.join(root, "emb"))
  shutil.copytree(os.path.join(c.root, "context_free"),
                  os.path.join(root, "context_free"))
  cfg = os.path.join(c.root, f"{name}.py")
  c.write_config(cfg, os.path.join(c.root, "tfds"), os.path.join(root, "emb"))
  (score,) = [os.path.join(root, "context_free", n) for n in os.listdir(
      os.path.join(root, "context_free")) if n.endswith(".json")]
  return cfg, score


def _cache_case(c: Campaign, name: str, change, warning: str) -> dict:
  """A run over a context-free score file changed by `change(path)`:
  ignored with one warning, the scores computed again (the console does
  not say 'from cache', the baseline is the reference's)."""
  cfg, score = _own_cache(c, name)
  victim = change(score)
  work = c.work(name)
  got = c.run(c.command(work, config=cfg))
  warned = [l for l in got["err"].splitlines() if warning in l]
  out = got["out"]
  held = (got["rc"] == 0 and not console(got)["traceback"]
          and len(warned) == 1 and "from cache" not in out
          and "cf 1.000" in out)
  if victim is not None:
    with open(victim, "rb") as f:
      held = held and f.read() == victim_bytes[victim]
  first = next((l for l in out.splitlines() if "cf " in l), "")
  return {"command": " ".join(got["argv"][1:]), **console(got),
          "resumed_exactly": None, "held": held,
          "got": f"exit {got['rc']}; {first[:90]}; {len(warned)} "
                 "warning(s): score file ignored: " + (warned[0].split(
                     "ignored: ", 1)[-1].split("; computing")[0]
                     if warned else "-")}


victim_bytes: dict[str, bytes] = {}


def _scores_edited(path: str) -> dict:
  with open(path) as f:
    stored = json.load(f)
  for row in stored["scores"].values():
    for cell in row.values():
      for k in cell:
        cell[k] = 0.2
  return stored


@case("the edited score file of another user ignored with a warning")
def cache_edited_by_another_user(c):
  def change(path):
    edited = _scores_edited(path)
    files.write_json(path, edited)
    if os.geteuid() == 0:
      os.chown(path, 12345, -1)
    else:
      os.chmod(path, 0o664)
  return _cache_case(c, "cache_edited_by_another_user", change,
                     "owned by another user" if os.geteuid() == 0
                     else "writable by group")


@case("a group-writable score file ignored with a warning")
def cache_group_writable(c):
  def change(path):
    files.write_json(path, _scores_edited(path))
    os.chmod(path, 0o664)
  return _cache_case(c, "cache_group_writable", change,
                     "writable by group (mode 664)")


@case("a hard-linked score file ignored; the linked file unchanged")
def cache_hard_link(c):
  def change(path):
    victim = path + ".victim"
    files.write_json(victim, _scores_edited(path))
    os.chmod(victim, 0o644)
    os.remove(path)
    os.link(victim, path)
    with open(victim, "rb") as f:
      victim_bytes[victim] = f.read()
    return victim
  return _cache_case(c, "cache_hard_link", change, "it is a hard link")


@case("the console says 'from cache' beside baselines read, not computed")
def cache_read_says_so(c):
  cfg, score = _own_cache(c, "cache_read_says_so")
  got = c.run(c.command(c.work("cache_read_says_so"), config=cfg))
  lines = [l for l in got["out"].splitlines() if "cf " in l]
  held = (got["rc"] == 0 and not console(got)["traceback"] and lines
          and "from cache" in lines[0]
          and any(score in l for l in got["out"].splitlines()))
  return {"command": " ".join(got["argv"][1:]), **console(got),
          "resumed_exactly": None, "held": bool(held),
          "got": f"exit {got['rc']}; {lines[0][:160] if lines else '-'}"}


@case("error naming the shard and both keys; one line")
def cache_shard_of_another_key(c):
  cfg, _ = _own_cache(c, "cache_shard_of_another_key")
  emb = os.path.join(c.root, "cache_shard_of_another_key_caches", "emb")
  (main,) = [os.path.join(emb, d) for d in os.listdir(emb)
             if os.path.isdir(os.path.join(emb, d))]
  # A shard of another pooling, moved in.
  other = c.run(c.command(c.work("cache_other_pooling"),
                          "--config.encoder.pooling=first", config=cfg))
  moved = ""
  for d in os.listdir(emb):
    path = os.path.join(emb, d)
    if path != main and os.path.isdir(path):
      moved = next(n for n in sorted(os.listdir(path))
                   if n.startswith("shard-"))
      os.replace(os.path.join(path, moved), os.path.join(main, moved))
  if other["rc"] != 0 or not moved:
    return {"command": "(setup)", **console(other), "resumed_exactly": None,
            "held": False, "got": "no shard of another key was made"}
  return _error_case(c, c.command(c.work("cache_shard_of_another_key"),
                                  config=cfg),
                     error(f"embedding cache file {main}/{moved}",
                           "written for key"))


def _reproduce(c: Campaign, out: str, *extra: str) -> list:
  """The reproduce command over the tiny run's config as the suite's
  ffnn.py (configs/common.py beside it)."""
  configs = os.path.join(c.root, "reproduce_tiny_configs")
  if not os.path.isdir(configs):
    c.write_config(os.path.join(configs, "ffnn.py"),
                   os.path.join(c.root, "tfds"),
                   os.path.join(c.root, "cache"))
    shutil.copy(os.path.join(ROOT, "configs", "common.py"), configs)
  return [sys.executable, "-m", "blm_jax.cli.reproduce",
          "--datasets=agreement_en", "--models=ffnn", f"--out={out}",
          f"--configs_dir={configs}", *extra]


def _reproduce_leaves_nothing(c: Campaign, name: str, encoder: str,
                              *words) -> dict:
  out = os.path.join(c.root, name)
  row = _error_case(c, _reproduce(c, out, f"--encoder={encoder}"),
                    error(*words))
  if os.path.exists(out):
    left = sorted(os.path.relpath(os.path.join(d, n), out)
                  for d, ds, ns in os.walk(out) for n in ds + ns)
    row["held"], row["got"] = False, f"left behind: {left[:6]}; " + (
        row["got"])
  return row


@case("error naming config.json; no empty <out>/<dataset>/ left")
def reproduce_bad_encoder_folder(c):
  folder = _encoder_copy(c, "reproduce_bad_encoder_copy")
  _edit_config(model_type="mamba")(folder)
  return _reproduce_leaves_nothing(c, "reproduce_bad_encoder", folder,
                                   f"{folder}/config.json")


@case("error naming the layer and how many there are; nothing left")
def reproduce_layer_99(c):
  return _reproduce_leaves_nothing(
      c, "reproduce_layer_99", f"{c.encoder},layer=99",
      "layer=99 is out of range; it has 2 layers")


@case("error: layer= given twice")
def reproduce_encoder_key_twice(c):
  return _reproduce_leaves_nothing(
      c, "reproduce_encoder_key_twice", f"{c.encoder},layer=1,layer=2",
      "--encoder: layer= is given twice")


@case("error: --report_only on an --out with no finished grid")
def reproduce_report_only_empty(c):
  out = os.path.join(c.root, "reproduce_report_only")
  os.makedirs(out)
  row = _error_case(c, _reproduce(c, out, "--report_only"),
                    error("--report_only", out, "no finished grid"))
  if os.listdir(out):
    row["held"], row["got"] = False, f"wrote {os.listdir(out)}"
  return row


@case("the second reproduce refused in one line naming the holder's PID")
def reproduce_twice_on_one_out(c):
  out = os.path.join(c.root, "reproduce_twice")
  work = os.path.join(out, "agreement_en", "ffnn")
  holder = c.start(c.command(work, "--config.train.epochs=100000"))
  wait_for(epoch_logged(work, 3), holder)
  try:
    got = c.run(_reproduce(c, out))
  finally:
    holder.send_signal(signal.SIGTERM)
    holder.communicate(timeout=120)
  held, what = judge_error(got, error("in use", str(holder.pid)))
  return {"command": " ".join(got["argv"][1:]) + "  # while a run holds "
          "the grid's workdir", **console(got), "resumed_exactly": None,
          "held": held, "got": what}


@case("error naming the file; nothing unpickled")
def encoder_unpicklable_pytorch_bin(c):
  folder = _encoder_copy(c, "encoder_unpicklable_bin")
  os.remove(os.path.join(folder, "model.safetensors"))
  ran = os.path.join(c.root, "unpickled_and_ran")
  command = f"touch {ran}".encode()
  with open(os.path.join(folder, "pytorch_model.bin"), "wb") as f:
    f.write(b"\x80\x02cos\nsystem\nX" + len(command).to_bytes(4, "little")
            + command + b"\x85R.")
  row = _error_case(c, _with_encoder(c, "encoder_unpicklable_bin", folder),
                    error(f"{folder}/pytorch_model.bin", "nothing in it was "
                          "run"))
  if os.path.exists(ran):
    row["held"], row["got"] = False, "the pickle ran: " + row["got"]
  return row


def _records(*argv: str) -> list:
  return [sys.executable, "-m", "blm_jax.cli.records", *argv]


@case("error naming the record: a JSON list, not a record")
def records_latex_list_record(c):
  path = os.path.join(c.root, "list_record.json")
  files.write_text(path, "[1, 2, 3]")
  return _error_case(c, _records("latex", f"--record={path}"),
                     error(path, "holds a JSON list, not a record"))


@case("error naming the missing workdir")
def records_make_missing_workdir(c):
  missing = c.work("records_never_made")
  return _error_case(c, _records("make", f"--workdir={missing}",
                                 f"--out={c.root}/r.json", "--command=x"),
                     error(missing, "no such folder"))


@case("error naming the truncated results.json")
def records_make_truncated_results(c):
  work = c.work("records_truncated")
  shutil.copytree(c.work("reference"), work)
  path = os.path.join(work, "results.json")
  os.truncate(path, os.path.getsize(path) // 2)
  return _error_case(c, _records("make", f"--workdir={work}",
                                 f"--out={c.root}/r.json", "--command=x"),
                     error(f"{path}: not JSON"))


def _export(c: Campaign, *argv: str) -> list:
  return [sys.executable, "-m", "blm_jax.cli.export", *argv]


@case("error naming the split and the splits there are")
def export_unknown_split(c):
  return _error_case(c, _export(
      c, "--dataset=blm_published/folder", f"--manual_dir={c.release}",
      f"--data_dir={c.root}/tfds", f"--out={c.root}/export_split",
      "--split=nosuch"), error("has no split(s) ['nosuch']", "'train'"))


@case("error: own data needs --manual_dir")
def export_own_data_without_manual_dir(c):
  return _error_case(c, _export(
      c, "--dataset=blm_jsonl/folder", f"--data_dir={c.root}/export_own",
      f"--out={c.root}/export_own_out"), error("blm_jsonl/folder",
                                               "--manual_dir"))


# ---- The record ------------------------------------------------------------

def record(rows: list[dict]) -> dict:
  held = sum(1 for r in rows if r["held"] is True)
  failed = sum(1 for r in rows if r["held"] is False)
  skipped = sum(1 for r in rows if r["held"] is None)
  yes_no = {True: "yes", False: "no", None: "-"}
  return {
      "study": "fault campaign: kills, signals, damaged files, bad inputs "
               "and concurrent runs on a tiny run",
      "date": datetime.date.today().isoformat(),
      "commit": ", ".join(sorted({r["commit"] for r in rows})),
      "command": "python studies/fault_campaign.py",
      "source": "each case's own run in a temporary folder ($TMP), judged "
                "against an uninterrupted run of the same config",
      "config": None,
      "counts": {"cases": len(rows), "held": held, "not_held": failed,
                 "skipped": skipped,
                 "seconds": round(sum(r["seconds"] for r in rows))},
      "cases": rows,
      "tables": {"cases": {
          "columns": ["case", "expected", "got", "exit", "stderr lines",
                      "traceback", "resumed exactly", "held"],
          "rows": [[r["case"], r["expected"],
                    r["got"].replace("|", "/").replace("\n", " ")[:160],
                    "-" if r["rc"] is None else r["rc"],
                    "-" if r["stderr_lines"] is None else r["stderr_lines"],
                    yes_no[r["traceback"]], yes_no[r["resumed_exactly"]],
                    yes_no[r["held"]]] for r in rows]}}}


def main() -> None:
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("--cases", default="", help="comma-separated; default all")
  p.add_argument("--out", default=RECORD, help="the record to write")
  p.add_argument("--list", action="store_true")
  p.add_argument("--keep", action="store_true", help="keep the tmp folder")
  a = p.parse_args()
  if a.list:
    print("\n".join(f"{n}: {e}" for n, (_, e) in CASES.items()))
    return
  names = [n for n in a.cases.split(",") if n] or list(CASES)
  unknown = [n for n in names if n not in CASES]
  if unknown:
    raise SystemExit(f"unknown cases {unknown}; --list lists them")
  root = tempfile.mkdtemp(prefix="fault_campaign_")
  try:
    c = Campaign(root)
    c.make_reference()
    rows = []
    for name in names:
      fn, expected = CASES[name]
      t = time.time()
      row = {"case": name, "expected": expected, **fn(c)}
      row["seconds"] = round(time.time() - t, 1)
      rows.append(row)
      print(f"{'held' if row['held'] else 'NOT HELD' if row['held'] is False else 'skipped'}"
            f"  {name} ({row['seconds']}s): {row['got'][:200]}", flush=True)
  finally:
    if not a.keep:
      shutil.rmtree(root, ignore_errors=True)
    else:
      print(f"kept {root}")
  commit = study_records.head_commit()
  for row in rows:
    row["commit"] = commit
    for k in ("command", "got"):  # The same text whatever the tmp folder.
      row[k] = row[k].replace(root, "$TMP")
  if a.cases and os.path.exists(a.out):
    # Rerun cases replace their rows; the others keep theirs (and the
    # commit they ran at).
    with open(a.out) as f:
      kept = {r["case"]: r for r in json.load(f)["cases"]}
    kept.update({r["case"]: r for r in rows})
    rows = [kept[n] for n in CASES if n in kept]
  rec = record(rows)
  files.write_json(a.out, rec, indent=1)
  n = rec["counts"]
  print(f"{n['held']} of {n['cases']} held, {n['not_held']} not, "
        f"{n['skipped']} skipped; wrote {a.out}")


if __name__ == "__main__":
  main()
