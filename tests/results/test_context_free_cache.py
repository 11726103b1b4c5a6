"""The context-free score cache: computed once per data, any change misses,
files from others are ignored with a warning and overwritten, the gain is
always the caller's."""

import dataclasses
import importlib
import json
import logging
import os
import pathlib

import numpy as np
import pytest

from blm_jax.data.context_free import cache as cfc
from blm_jax.results import context_free
from tests import synthetic

TYPES = ("I", "II")
SETTINGS = context_free.MLPSettings(hidden=8, steps=20)


def _summary(f1):
  return {t: {u: {"f1_mean": f1} for u in TYPES} for t in TYPES}


@pytest.fixture(scope="module")
def data():
  return synthetic.data(n_train=40, n_dev=4, n_test=30)


@pytest.fixture
def calls(monkeypatch):
  """The real scorers, counted."""
  made = []
  real = context_free.baseline_scores

  def counted(*args, **kwargs):
    made.append(1)
    return real(*args, **kwargs)

  monkeypatch.setattr(context_free, "baseline_scores", counted)
  return made


@pytest.fixture
def fake(monkeypatch):
  """Scorers replaced by a fixed answer (the cache's logic only), counted."""
  made = []

  def scores(data, train_types, test_types, settings):
    made.append(1)
    return {t: {u: {b: 0.25 for b in context_free.BASELINES}
                for u in test_types} for t in train_types}

  monkeypatch.setattr(context_free, "baseline_scores", scores)
  return made


def _run(data, folder, f1=0.5, settings=SETTINGS, lines=None, **kw):
  return context_free.context_free(
      data, _summary(f1), TYPES, TYPES, settings, cache_dir=str(folder),
      log=(lines if lines is not None else []).append, **kw)


def _entry(data, folder, settings=SETTINGS):
  return context_free.cache_entry(data, TYPES, TYPES, settings, str(folder))


def test_a_second_call_reads_the_scores_and_adds_its_own_gain(
    data, calls, tmp_path):
  first = _run(data, tmp_path, f1=0.5)
  lines = []
  second = _run(data, tmp_path, f1=0.9, lines=lines)
  assert len(calls) == 1
  (path,) = tmp_path.iterdir()
  assert lines == [f"context-free baselines read from the cache: {path}"]
  for t in TYPES:
    for u in TYPES:
      a, b = first[t][u], second[t][u]
      assert {k: a[k] for k in context_free.BASELINES} == {
          k: b[k] for k in context_free.BASELINES}
      assert a["best"] == b["best"]
      assert a["context_gain"] == pytest.approx(0.5 - a["best"])
      assert b["context_gain"] == pytest.approx(0.9 - b["best"])
  # The numbers are those computed without a cache.
  assert second == context_free.with_gain(
      context_free.baseline_scores(data, TYPES, TYPES, SETTINGS),
      _summary(0.9))


def _changed_test_table(d):
  t = d.test["II"]
  return dataclasses.replace(d, test={**d.test, "II": dataclasses.replace(
      t, correct=np.roll(t.correct, 1))})


def _changed_train_table(d):
  return dataclasses.replace(d, train={**d.train, "I": d.train["I"].select(
      np.arange(d.train["I"].num_instances - 1))})


def _changed_embeddings(d):
  emb = d.embeddings.copy()
  emb[3, 0] += 1e-6
  return dataclasses.replace(d, embeddings=emb)


def _changed_sentences(d):
  table = dataclasses.replace(
      d.table, sentences=d.table.sentences[:-1] + ("another",))
  return dataclasses.replace(d, table=table)


@pytest.mark.parametrize("change", [
    _changed_test_table, _changed_train_table, _changed_embeddings,
    _changed_sentences])
def test_other_data_misses(data, fake, tmp_path, change):
  _run(data, tmp_path)
  _run(change(data), tmp_path)
  assert len(fake) == 2 and len(list(tmp_path.iterdir())) == 2
  _run(data, tmp_path)
  assert len(fake) == 2


def test_other_settings_or_types_miss(data, fake, tmp_path):
  _run(data, tmp_path)
  _run(data, tmp_path, settings=dataclasses.replace(SETTINGS, steps=21))
  context_free.context_free(data, _summary(0.5), ("I",), TYPES, SETTINGS,
                            cache_dir=str(tmp_path), log=[].append)
  assert len(fake) == 3 and len(list(tmp_path.iterdir())) == 3


def test_a_change_to_a_scorer_source_misses(data, tmp_path, monkeypatch):
  module = tmp_path / "cf_cache_probe_scorer.py"
  module.write_text("X = 1\n")
  monkeypatch.syspath_prepend(str(tmp_path))
  importlib.invalidate_caches()
  monkeypatch.setattr(cfc, "SOURCES", cfc.SOURCES + (module.stem,))
  before = _entry(data, tmp_path)[1]
  module.write_text("X = 2\n")
  assert _entry(data, tmp_path)[1] != before
  monkeypatch.setattr(cfc, "SOURCES", cfc.SOURCES[:-1])
  assert set(cfc.cache_key(data.embeddings, (), {}, {}, {}, "")[
      "sources"]) == {"blm_jax.results.context_free", "blm_jax.models.losses",
                      *(f"blm_jax.data.context_free.{m}" for m in (
                          "scorers", "set_scorer", "set_features",
                          "answers_only", "stacked_logit"))}


def _foreign(data, path):
  key = _entry(data, path.parent)[0]
  key["settings"]["steps"] += 1
  path.write_text(json.dumps({"key": key, "scores": {}}))


def _symlink(data, path):
  target = path.parent / "target.json"
  target.write_text("kept")
  path.symlink_to(target)


BAD_FILES = {
    "not JSON": lambda d, p: p.write_bytes(b"\x00\xffnot json"),
    "another structure": lambda d, p: p.write_text('{"a": 1}'),
    "too large": lambda d, p: p.write_text(
        " " * cfc.MAX_BYTES + '{"key": {}, "scores": {}}'),
    "another key": _foreign,
    "not accuracies": None,  # Filled in below: the right key, bad scores.
    "a link": _symlink,
    "a hard link": lambda d, p: (p.write_text("{}"), os.chmod(p, 0o644),
                                 os.link(p, p.parent / "other.json")),
    "group-writable": lambda d, p: (_bad_scores(d, p), os.chmod(p, 0o664)),
    "others-writable": lambda d, p: (_bad_scores(d, p), os.chmod(p, 0o646)),
    "nested deep": lambda d, p: p.write_text("[" * 100_000 + "]" * 100_000),
}


def _bad_scores(data, path):
  scores = {t: {u: {b: 7.0 for b in context_free.BASELINES}
                for u in TYPES} for t in TYPES}
  path.write_text(json.dumps({"key": _entry(data, path.parent)[0],
                              "scores": scores}))


BAD_FILES["not accuracies"] = _bad_scores
WHY = {"not JSON": "cannot be read", "another structure":
       "not a context-free score file", "too large": "larger than 1,048,576 bytes",
       "a hard link": "hard link (2 names", "group-writable":
       "writable by group (mode 664)", "others-writable":
       "writable by others (mode 646)", "nested deep":
       "JSON nested 100000 deep",
       "another key": "another key", "not accuracies": "not an accuracy",
       "a link": "symbolic link"}


@pytest.mark.parametrize("bad", list(BAD_FILES))
def test_a_bad_cache_file_is_ignored_with_a_warning_and_overwritten(
    data, fake, tmp_path, caplog, bad):
  folder = tmp_path / "cache"
  folder.mkdir()
  path = _entry(data, folder)[1]
  BAD_FILES[bad](data, pathlib.Path(path))
  before = len(fake)
  lines = []
  with caplog.at_level(logging.WARNING):
    got = _run(data, folder, lines=lines)
  assert len(fake) == before + 1
  message = (f"context-free score cache file {path} ignored: ")
  assert len(lines) == 1 and lines[0].startswith(message), lines
  assert WHY[bad] in lines[0]
  assert lines[0] in caplog.text
  assert not os.path.islink(path)
  stored = json.loads(pathlib.Path(path).read_text())
  assert stored["scores"]["I"]["II"] == {
      b: got["I"]["II"][b] for b in context_free.BASELINES}
  if bad == "a link":
    assert (folder / "target.json").read_text() == "kept"
  _run(data, folder)
  assert len(fake) == before + 1


def test_no_cache_computes_every_time(data, fake, tmp_path, monkeypatch):
  monkeypatch.chdir(tmp_path)
  for _ in range(2):
    _run(data, "")
  assert len(fake) == 2 and not list(tmp_path.iterdir())


def test_an_unwritable_folder_costs_a_warning_not_the_scores(
    data, fake, tmp_path):
  blocker = tmp_path / "file"
  blocker.write_text("")
  lines = []
  got = _run(data, blocker / "cache", lines=lines)
  assert got["I"]["I"]["best"] == 0.25
  assert len(lines) == 1 and lines[0].startswith(
      f"context-free scores not cached in {blocker / 'cache'}: ")


def test_the_config_key_names_the_folder_and_leaves_the_identity():
  from blm_jax.results import report
  from blm_jax.training import config_check, run_identity

  cfg = synthetic.config("ffnn")
  assert cfg.results.context_free_cache == "auto"
  cfg.encoder.cache_dir = "/somewhere/embeddings"
  assert report.context_free_cache_dir(cfg) == "/somewhere/context_free"
  cfg.results.context_free_cache = ""
  assert report.context_free_cache_dir(cfg) == ""
  cfg.results.context_free_cache = "/x/cf"
  assert report.context_free_cache_dir(cfg) == "/x/cf"
  cfg.results = {**cfg.results.to_dict(), "context_free_cache": 0}
  assert ("config.results.context_free_cache=0: expected a folder, 'auto' "
          "or '' (no cache)") in config_check.problems(cfg)
  # A grid saved before these keys existed is still resumed and reused.
  cfg = synthetic.config("ffnn")
  saved = run_identity.flatten(cfg.to_dict())
  for key in ("results.context_free_cache", "results.figure_formats"):
    del saved[key]
  assert run_identity.reuse_differences(saved, cfg) == []
  other = cfg.copy_and_resolve_references()
  other.results.context_free_cache = ""
  assert run_identity.differences(
      {"config": run_identity.identity_keys(saved)},
      {"config": run_identity.identity_keys(
          run_identity.flatten(other.to_dict()))}) == []


def test_a_grid_that_finds_another_computing_waits_and_reads_its_scores(
    data, fake, tmp_path):
  """Two grids of one dataset at once (a job array): the second waits for
  the first's lock, then reads the file it stored instead of computing."""
  import fcntl
  import threading

  key, path = _entry(data, tmp_path)
  lock = path[:-len(".json")] + ".lock"
  fd = os.open(lock, os.O_RDWR | os.O_CREAT)
  fcntl.flock(fd, fcntl.LOCK_EX)
  os.write(fd, b"process 1234 on elsewhere")
  lines, got = [], {}
  waiter = threading.Thread(target=lambda: got.update(
      scores=_run(data, tmp_path, lines=lines)))
  waiter.start()
  waiter.join(timeout=2)
  assert waiter.is_alive() and not fake  # waiting, not computing
  assert lines == [f"waiting for process 1234 on elsewhere, which is "
                   f"computing these context-free baselines ({lock})"]
  stored = {t: {u: {b: 0.75 for b in context_free.BASELINES} for u in TYPES}
            for t in TYPES}
  assert cfc.store(path, key, stored) == ""
  os.close(fd)  # the first grid is done
  waiter.join(timeout=30)
  assert not waiter.is_alive() and not fake
  assert got["scores"]["I"]["II"]["best"] == 0.75
  assert lines[-1] == f"context-free baselines read from the cache: {path}"
  # The holder removes its lock file: the folder holds the scores only.
  _run(data, tmp_path / "alone")
  assert [p.name for p in (tmp_path / "alone").iterdir()] == [
      os.path.basename(path)]


def test_read_from_names_the_file_only_when_the_scores_were_read(
    data, fake, tmp_path):
  computed, read = [], []
  _run(data, tmp_path, read_from=computed)
  _run(data, tmp_path, read_from=read)
  assert computed == [] and read == [_entry(data, tmp_path)[1]]


@pytest.mark.skipif(os.geteuid() != 0, reason="chown needs root")
def test_a_file_of_another_user_is_ignored_though_its_scores_are_valid(
    data, fake, tmp_path):
  _run(data, tmp_path)
  path = _entry(data, tmp_path)[1]
  os.chown(path, 12345, -1)
  lines, read = [], []
  _run(data, tmp_path, lines=lines, read_from=read)
  assert len(fake) == 2 and read == []
  assert "owned by another user (uid 12345)" in lines[0]
  assert os.stat(path).st_uid == 0  # Rewritten by this user.


def test_the_console_says_from_cache_beside_a_baseline_read():
  from blm_jax.results import tables

  row = tables.CellRow(**{**{f: None for f in tables.CellRow.__dataclass_fields__},
                          "train": "I", "test": "I", "f1_mean": 0.9,
                          "f1_std": 0.0, "n_seeds": 1,
                          "best_context_free": 0.2,
                          "best_context_free_scorer": "word_logit",
                          "context_gain": 0.7})
  assert "(cf 0.200 word_logit, gain +0.700)" in tables.console_lines(
      [row])[0]
  read = tables.console_lines([row], "/c/x.json")
  assert "(cf 0.200 word_logit from cache, gain +0.700)" in read[0]
  assert read[1].endswith("; cf read from the cache file /c/x.json")
