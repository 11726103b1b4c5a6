"""The reproduce command's suites: --suite, --shard, --encoder, the plan,
and the merge of shards (tiny configs on the synthetic data)."""

import json
import os
import subprocess
import sys
import types

import pytest

from blm_jax.cli import config_files
from blm_jax.study import reproduce
from blm_jax.results.experiment import run_experiment
from blm_jax.study import grid_reuse, suites

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
TOY = '''
from tests import synthetic
DATASETS = {"cos_en": "", "od_en": ""}

def get_config(arg=None):
  c = synthetic.config("ffnn", epochs=2, seeds=(0, 1),
                       types=("I", "II", "III"))
  c.data.name = "synthetic_" + (arg or "").split(",")[0]
  c.encoder.cache_dir = %r
  return c
'''


def _configs(tmp_path):
  """A configs folder: common.py knows cos_en and od_en; ffnn.py is the
  synthetic FFNN (2 epochs)."""
  d = tmp_path / "configs"
  d.mkdir(exist_ok=True)
  (d / "ffnn.py").write_text(TOY % str(tmp_path / "cache"))
  (d / "common.py").write_text(TOY % str(tmp_path / "cache"))
  return str(d)


def _opts(configs_dir, out, **kw):
  base = dict(suite="cos_en/ffnn,od_en/ffnn", datasets=[], models=[],
              encoder="", encoder_batch_size=None, shard="", grids=[],
              out=str(out),
              variant="",
              seeds=["0", "1"], configs_dir=configs_dir,
              seed_follows_grid=False, report_only=False, plan_only=False)
  base.update(kw)
  return types.SimpleNamespace(**base)


def _select(opts):
  """reproduce.select as the command line calls it (its configs_dir's
  config files)."""
  return reproduce.select(opts, config_files.loader(opts.configs_dir))


def _synthetic_run(embed=False):
  from tests import synthetic

  def run(config, workdir):
    data = synthetic.data(n_train=60, n_dev=20, n_test=40,
                          types=("I", "II", "III"))
    if embed:  # the grid's own encoder embeds the synthetic sentences
      from blm_jax.data import input_pipeline
      from blm_jax.embedding import sources as embedding_sources
      from blm_jax.embedding.spec import EncoderSettings
      parts = {(t, s): synthetic.instances(n, t, k)[0]
               for k, t in enumerate(("I", "II", "III"))
               for s, n in (("train", 60), ("dev", 20), ("test", 40))}
      data = input_pipeline.from_parts(
          parts,
          embedding_sources.embed_fn(EncoderSettings(**config.encoder)))
    run_experiment(config, workdir, data=data)
  return run


def _suite(opts, report_only=False, run=None):
  grids, options = _select(opts)
  entries = reproduce.entries_of(grids, options, opts.out)
  return reproduce.run_suite(entries, opts.out, "cmd", report_only,
                             run_fn=run or _synthetic_run(),
                             echo=lambda _: None,
                             write_report=not reproduce.part_of_suite(opts))


@pytest.mark.slow
def test_two_shards_merged_equal_the_unsharded_report(tmp_path):
  configs = _configs(tmp_path)
  whole = _suite(_opts(configs, tmp_path / "whole"))
  for i, grid in enumerate(("cos_en", "od_en")):
    assert _suite(_opts(configs, tmp_path / "sharded",
                        shard=f"{i}/2")) is None  # the merge reports
    assert (tmp_path / "sharded" / grid / "ffnn" / "results.json").exists()
    assert not (tmp_path / "sharded" / "report.json").exists()
  merged = _suite(_opts(configs, tmp_path / "sharded"), report_only=True)
  assert merged["summaries"] == whole["summaries"]
  assert merged["seed_f1"] == whole["seed_f1"]
  strip = lambda v: {k: x for k, x in v.items() if k != "command"}
  assert [strip(v) for v in merged["claims"]] == [
      strip(v) for v in whole["claims"]]
  assert merged["missing"] == []
  html = (tmp_path / "sharded" / "report.html").read_text()
  assert html.count("data:image/png;base64,") == 4  # 2 grids x 2 figures
  md = (tmp_path / "sharded" / "report.md").read_text()
  # The paper's Table 4 sizes beside ours (the toy test sets: 40).
  assert "| cos_en | 300 / 40 | 300 / 40 | 300 / 40 |" in md
  # The battery table: one row per FFNN grid, three formats.
  csv = (tmp_path / "sharded" / "battery.csv").read_text().splitlines()
  assert csv[0].startswith("dataset,encoder,diagonal F1,off-diagonal F1")
  assert [r.split(",")[0] for r in csv[1:]] == ["cos_en", "od_en"]
  tex = (tmp_path / "sharded" / "battery.tex").read_text()
  assert "cos\\_en &" in tex and tex.rstrip().endswith("\\end{tabular}")


@pytest.mark.slow
def test_grids_runs_those_grids_of_the_suite_with_its_settings(tmp_path):
  # 000 Table 5's chunk grids: their source argument and probe come from
  # the suite, which a bare dataset/model item would not know.
  opts = _opts(_configs(tmp_path), tmp_path / "o", suite="paper000",
               grids=["chunks_od_it/sent_vae", "cos_en/cnn"])
  grids, _ = _select(opts)
  assert [(g.key, g.arg) for g in grids] == [
      ("cos_en/cnn", "dataset=cos_en"), ("chunks_od_it/sent_vae",
                                         "source=od_it")]
  assert grids[1].probe == suites.PROBING
  # With --shard, the shard's grids among them (the two are dealt apart).
  opts.shard = "1/2"
  assert [g.key for g in _select(opts)[0]] == [
      "chunks_od_it/sent_vae"]
  # Like a shard, a --grids run writes no report (a merge does).
  assert reproduce.part_of_suite(opts) == "shard 1/2"
  configs = _configs(tmp_path)
  opts = _opts(configs, tmp_path / "g", grids=["od_en/ffnn"])
  assert reproduce.part_of_suite(opts) == "--grids"
  assert reproduce.part_of_suite(_opts(configs, tmp_path / "g")) == ""
  assert _suite(opts) is None
  assert (tmp_path / "g" / "od_en" / "ffnn" / "results.json").exists()
  assert not (tmp_path / "g" / "cos_en").exists()


def test_each_dataset_says_what_each_of_its_grids_stands_for():
  shows = reproduce.shows_by_dataset(suites.paper000())
  assert shows["cos_en"] == ("000 Fig. 15, 17-19; Table 4 (ffnn, cnn); "
                             "000 Fig. 24-28 (vae2)")
  assert shows["chunks_od_it"] == "000 Table 5, Fig. 20-22 (sent_vae)"


@pytest.mark.slow
def test_the_plan_says_what_is_done_and_how_long_the_rest_takes(tmp_path):
  configs = _configs(tmp_path)
  _suite(_opts(configs, tmp_path / "o", shard="0/2"))
  grids, options = _select(_opts(configs, tmp_path / "o"))
  entries = reproduce.entries_of(grids, options, str(tmp_path / "o"))
  lines = reproduce.plan_lines(entries, reproduce.measured(
      e[3] for e in entries))
  assert lines[0].startswith("plan: 2 grids, 1 done, 1 to run: about ")
  assert lines[0].endswith(" one grid after another at the throughput "
                           "measured here (shards run at once, each on its "
                           "own device, divide it)")
  assert "cos_en/ffnn" in lines[1] and " done " in lines[1]
  assert "od_en/ffnn" in lines[2] and "to run, about" in lines[2]
  # The other shard's plan is timed from the first shard's grid.
  out = subprocess.run(
      [sys.executable, "-m", "blm_jax.cli.reproduce",
       "--suite=cos_en/ffnn,od_en/ffnn", "--shard=1/2", "--plan_only",
       "--seeds=0,1", "--noseed_follows_grid", f"--configs_dir={configs}",
       f"--out={tmp_path / 'o'}"], cwd=ROOT, capture_output=True, text=True)
  assert out.returncode == 0, out.stderr[-1500:]
  plan = out.stdout.splitlines()
  assert plan[0].startswith("plan: 1 grids, 0 done, 1 to run: about ")
  assert "od_en/ffnn" in plan[1] and "to run, about" in plan[1]
  # Nothing measured yet: the time is unknown, and says why.
  fresh = reproduce.entries_of(grids, options, str(tmp_path / "fresh"))
  assert ("no ffnn grid has been measured on cpu"
          in reproduce.plan_lines(fresh, [])[1])
  # ... unless a committed record of the platform measured one: an
  # accelerator's record times the plan for an accelerator only.
  kept = json.loads((tmp_path / "o" / "cos_en" / "ffnn" /
                     "results.json").read_text())
  assert kept["stage_seconds"]["training"] > 0
  kept["throughput"]["devices"] = ["cuda:0"]
  (tmp_path / "timings" / "s" / "cos_en").mkdir(parents=True)
  (tmp_path / "timings" / "s" / "cos_en" / "ffnn.json").write_text(
      json.dumps(kept))
  for platform, want in (("accelerator", "to run, about "),
                         ("cpu", "time unknown")):
    out = subprocess.run(
        [sys.executable, "-m", "blm_jax.cli.reproduce",
         "--suite=cos_en/ffnn,od_en/ffnn", "--plan_only", "--seeds=0,1",
         "--noseed_follows_grid", f"--configs_dir={configs}",
         f"--timings={tmp_path / 'timings'}", f"--plan_platform={platform}",
         f"--out={tmp_path / 'fresh'}"], cwd=ROOT, capture_output=True,
        text=True)
    assert out.returncode == 0, out.stderr[-1500:]
    plan = out.stdout.splitlines()
    assert want in plan[1] and want in plan[2], plan
    if platform == "accelerator":
      assert "0 grid(s) measured here and 1 committed record(s)" in plan[0]
      assert "(this dataset)" in plan[1] and "median of 1" in plan[2]
  # Every grid done: the committed records are not read at all.
  out = subprocess.run(
      [sys.executable, "-m", "blm_jax.cli.reproduce",
       "--suite=cos_en/ffnn", "--plan_only", "--seeds=0,1",
       "--noseed_follows_grid", f"--configs_dir={configs}",
       f"--timings={tmp_path / 'timings'}", "--plan_platform=accelerator",
       f"--out={tmp_path / 'o'}"], cwd=ROOT, capture_output=True, text=True)
  assert out.returncode == 0, out.stderr[-1500:]
  assert out.stdout.startswith("plan: 1 grids, 1 done, 0 to run"), out.stdout
  assert "committed record" not in out.stdout.splitlines()[0]


@pytest.mark.slow
def test_encoder_folder_checkpoint(tmp_path):
  from tests import tiny_checkpoints

  folder = tiny_checkpoints.write_bert(str(tmp_path / "tiny_bert"))
  configs = _configs(tmp_path)
  opts = _opts(configs, tmp_path / "o", suite="cos_en/ffnn",
               encoder=f"{folder},layer=1,pooling=first")
  record = _suite(opts, run=_synthetic_run(embed=True))
  results = json.loads((tmp_path / "o" / "cos_en" / "ffnn" /
                        "results.json").read_text())
  assert results["config"]["encoder"] == folder
  assert results["data"]["embed_dim"] == 32  # the tiny BERT's width
  run = results["run"]["config"]
  assert run["encoder.layer"] == 1 and run["encoder.pooling"] == "first"
  assert "cos_en" in record["summaries"]


@pytest.mark.parametrize("flag,message", [
    (dict(suite="paper999"), "--suite: unknown suite 'paper999'"),
    (dict(suite="paper000,papr001"), "--suite: unknown suite 'papr001'"),
    (dict(suite=" , "), "--suite: empty"),
    (dict(suite="nope/ffnn"), "--suite: unknown dataset 'nope'"),
    (dict(suite="solvers/ffnn"), "--suite: solvers has no 'ffnn' grids in "
     "'solvers/ffnn'; its models: relnet, cnn_seq, vae, vae_1d_2level, "
     "two_level_vae_subnets, attribute_bottleneck"),
    (dict(shard="3/2"), "--shard='3/2': needs 0 <= i < N"),
    (dict(shard="x"), "--shard='x': expected i/N"),
    (dict(encoder="/no/such/folder"), "--encoder: encoder folder"),
    (dict(encoder="minilm,pooling=avg"), "--encoder: pooling='avg'"),
    (dict(encoder="minilm,layer=1,layer=2"), "--encoder: layer= is given "
     "twice, layer=1 and layer=2: give it once"),
    (dict(encoder="minilm,pooling=mean,pooling=first"), "--encoder: "
     "pooling= is given twice"),
    (dict(encoder_batch_size=-1), "--encoder_batch_size=-1: expected 0"),
    (dict(grids=["od_en/ffnn", "cos_en/cnn"]), "--grids: cos_en/cnn: not a "
     "grid of --suite=cos_en/ffnn,od_en/ffnn (dataset/model"),
    (dict(grids=["cos_en/ffnn"], report_only=True), "--report_only reads "
     "every grid of the suite: drop --grids"),
])
def test_bad_input_is_one_error(tmp_path, flag, message):
  with pytest.raises(suites.SuiteError, match=message.replace(
      "(", r"\(").replace("[", r"\[")):
    _select(_opts(_configs(tmp_path), tmp_path / "o", **flag))


@pytest.mark.slow
def test_the_encoder_batch_size_reaches_every_grid_and_not_its_identity(
    tmp_path):
  """--encoder_batch_size (a GPU embeds far more than the configs' 128 at
  once) sets every grid's config.encoder.batch_size, and a grid trained at
  another size is reused: the size changes how fast, not what."""
  configs = _configs(tmp_path)
  _suite(_opts(configs, tmp_path / "o", suite="cos_en/ffnn"))
  grids, options = _select(_opts(
      configs, tmp_path / "o", suite="cos_en/ffnn", encoder_batch_size=0))
  (grid, config, _, done), = reproduce.entries_of(grids, options,
                                                  str(tmp_path / "o"))
  assert config.encoder.batch_size == 0 and done is not None
  grids, options = _select(_opts(configs, tmp_path / "o"))
  assert all(reproduce.grid_config(g, options).encoder.batch_size != 0
             for g in grids)


@pytest.mark.slow
def test_shards_run_with_other_flags_do_not_merge(tmp_path):
  """A shard trained with other seeds: the merge names the key, writes
  nothing."""
  configs = _configs(tmp_path)
  _suite(_opts(configs, tmp_path / "o", shard="0/2", seeds=["0"]))
  with pytest.raises(suites.SuiteError, match="grid.seeds"):
    reproduce.entries_of(*_select(_opts(configs, tmp_path / "o")),
                         str(tmp_path / "o"))
  assert not (tmp_path / "o" / "report.md").exists()


@pytest.mark.slow
def test_cli_error_line(tmp_path):
  out = tmp_path / "o"
  r = subprocess.run(
      [sys.executable, "-m", "blm_jax.cli.reproduce", "--suite=paper000",
       "--shard=3/2", f"--out={out}"], cwd=ROOT, capture_output=True,
      text=True)
  assert r.returncode == 1
  assert r.stderr.strip().splitlines() == [
      "error: --shard='3/2': needs 0 <= i < N (shards are numbered from 0, "
      "as SLURM_ARRAY_TASK_ID with --array=0-1)"]
  assert not out.exists()


@pytest.mark.slow
def test_a_grid_that_fails_leaves_no_empty_folder_it_made(tmp_path):
  """A bad encoder (or layer) fails inside the grid's run: the folders the
  suite made for it are removed, an --out that was there is kept."""
  from blm_jax.encoders import encoder as encoders

  configs = _configs(tmp_path)

  def fails(config, workdir):
    os.makedirs(workdir)  # as the trainer does before it fails
    raise encoders.EncoderSettingError("layer=99 is out of range")

  with pytest.raises(encoders.EncoderSettingError):
    _suite(_opts(configs, tmp_path / "new", suite="cos_en/ffnn"), run=fails)
  assert not (tmp_path / "new").exists()
  (tmp_path / "kept").mkdir()
  with pytest.raises(encoders.EncoderSettingError):
    _suite(_opts(configs, tmp_path / "kept", suite="cos_en/ffnn"), run=fails)
  assert os.listdir(tmp_path / "kept") == []


@pytest.mark.slow
def test_cli_report_only_on_an_out_without_grids_is_refused(tmp_path):
  out = tmp_path / "o"
  out.mkdir()
  r = subprocess.run(
      [sys.executable, "-m", "blm_jax.cli.reproduce", "--datasets=cos_en",
       "--models=ffnn", f"--out={out}", "--report_only"], cwd=ROOT,
      capture_output=True, text=True)
  assert r.returncode == 1 and r.stdout == ""
  assert r.stderr.strip().splitlines() == [
      f"error: --report_only: {out} holds no finished grid of this suite "
      "(run it without --report_only first, or check --out)"]
  assert os.listdir(out) == []


def test_suites_cover_the_papers():
  g = suites.paper000()
  keys = {x.key for x in g}
  for ds in suites.FIG15 + suites.FIG16:
    assert {f"{ds}/ffnn", f"{ds}/cnn", f"{ds}/vae2"} <= keys
  assert "chunks_cos_en/sent_vae" in keys
  # Figures 20-22: every chunk grid, and only those, is probed.
  assert {x.key for x in g if x.probe} == {
      f"chunks_{s}/sent_vae" for s in suites.TABLE5}
  assert len(g) == len(keys) == 40
  assert {x.key for x in suites.paper004()} == {
      "spray_load/ffnn", "spray_load/cnn", "spray_load_atl_alt/ffnn",
      "spray_load_atl_alt/cnn"}
  ctx = {x.key for x in suites.paper000_ctx()}
  assert {"spray_load_ctx/cnn", "agreement_ro_ctx/vae2"} <= ctx
  assert len(ctx) == 3 * 9  # the two spray/load groups share one design
  seq = {x.key for x in suites.paper000_seq()}
  assert {"spray_load_seq/cnn", "agreement_ro_seq/vae2"} <= seq
  assert len(seq) == 3 * 9
  new = suites.solvers()
  assert len(new) == 6 * 9 == len({x.key for x in new})
  assert {"agreement_en_seq/relnet", "cos_en_ctx/cnn_seq",
          "spray_load/vae", "agreement_en_seq/attribute_bottleneck",
          "spray_load/attribute_bottleneck"} <= {x.key for x in new}
  # The sparsified model, and only it, is probed for its region map.
  assert {x.model for x in new if x.probe == ("regions",)} == {
      "two_level_vae_subnets"}
  assert all(x.probe in ((), ("regions",)) for x in new)
  everything = suites.battery(("cos_en", "published_spray_load", "roll"),
                              ("published_spray_load",))
  assert [x.key for x in everything] == ["cos_en/ffnn", "roll/ffnn"]
  # Suites and grids join in order, a grid named twice kept once: the
  # whole paper is paper000 then 001's curves; paper004 adds nothing.
  whole = suites.grids("paper000, paper001,paper004,cos_en/ffnn,od_en/relnet",
                       ("cos_en", "od_en"))
  assert [x.key for x in whole] == (
      [x.key for x in g] + [x.key for x in suites.paper001()]
      + ["od_en/relnet"])
  assert whole[0] == g[0] and whole[-1].shows == "listed"
  # 'suite/model': that suite's grids of one model as the suite runs them
  # (the sparsified VAE keeps its probe), in the suite's order.
  subnets = suites.grids("solvers/two_level_vae_subnets,solvers/vae", ())
  assert [x.key for x in subnets] == (
      [f"{d}/two_level_vae_subnets" for d in suites.SOLVER_DATASETS]
      + [f"{d}/vae" for d in suites.SOLVER_DATASETS])
  assert subnets[0] in new and subnets[0].probe == ("regions",)
  # Shards partition the suite, a dataset's grids in one shard (built and
  # embedded once), balanced by grid count, each in the suite's order; a
  # chunk grid goes with the dataset its source is, 001's training-size
  # grids with theirs.
  whole = g + suites.paper001()
  parts = [suites.shard(whole, i, 3) for i in range(3)]
  assert sorted(x.key for p in parts for x in p) == sorted(
      x.key for x in whole)
  owners = {x.data_group: {i for i, p in enumerate(parts) for y in p
                           if y.data_group == x.data_group} for x in whole}
  assert all(len(o) == 1 for o in owners.values())
  assert len(owners) == len(suites.FIG15 + suites.FIG16)
  shard_of = {x.key: i for i, p in enumerate(parts) for x in p}
  assert (shard_of["chunks_spray_load_ATL-ALT/sent_vae"]
          == shard_of["spray_load_atl_alt/ffnn"]
          != shard_of["chunks_spray_load_ALT-ATL/sent_vae"]
          == shard_of["spray_load_n250/cnn"] == shard_of["spray_load/vae2"])
  biggest = max(sum(y.data_group == x.data_group for y in whole)
                for x in whole)
  assert biggest > 1
  sizes = [len(p) for p in parts]
  assert max(sizes) - min(sizes) <= biggest
  for p in parts:
    assert p == [x for x in whole if x in p]


def test_each_chunk_grid_is_grouped_with_the_dataset_its_source_is():
  """CHUNK_SOURCE_DATASETS names, for each Table 5 source, the dataset of
  data_builders.registry whose type-I config the chunk builder reads."""
  from configs import common
  from data_builders.blm_chunks import blm_chunks_dataset_builder as chunks
  for x in suites.paper000():
    if x.model == "sent_vae":
      source = x.arg.partition("=")[2]
      assert (common.DATASETS[x.data_group].format("I")
              == chunks.SOURCES[source][0]), x


def chunk_grid():
  """(synthetic chunk data, a 2-epoch sent_vae config, the probed grid of
  000's chunks_cos_en): a grid the suite probes."""
  from tests import synthetic

  d = synthetic.chunk_data()
  config = synthetic.config("sent_vae", epochs=2, seeds=(0, 1),
                            types=("chunks",))
  config.data.name = "blm_chunks/cos_en"
  grid = suites.Grid("chunks_cos_en", "sent_vae", "source=cos_en",
                     "000 Table 5, Fig. 20-22", probe=suites.PROBING)
  return d, config, grid


def test_the_battery_runs_every_dataset_a_suite_can_build():
  # The datasets read from the user's files (the published release, own
  # data, the UD Hebrew treebank) are declared so by their builder
  # packages and left out; every other dataset is in the battery.
  from data_builders import registry

  datasets, needs = reproduce.known_datasets()
  reads_files = {d for d, name in registry.templates().items()
                 if name.split("/")[0] in ("blm_published", "blm_jsonl")
                 or "/natural_" in name}
  assert set(needs) == reads_files and len(reads_files) == 7
  battery = suites.grids("battery", datasets, needs)
  assert {g.name for g in battery} == set(datasets) - reads_files
  assert {g.model for g in battery} == {"ffnn"}


@pytest.mark.slow
def test_chunk_grids_are_probed_once_and_reported_beside_000_sec_7(
    tmp_path):
  """000 Figures 20-22: the suite probes a trained chunk grid, the report
  sets the probe's numbers beside the paper's words with the figures
  inline, and a second pass (a resumed run or the shards' merge) reads
  the probe instead of redoing it."""
  from blm_jax.analysis import probing
  from blm_jax.study import paper_comparison

  d, config, grid = chunk_grid()
  out = tmp_path / "o"
  workdir = str(out / grid.name / grid.model)
  probed = []

  def probe_fn(w, analyses):
    probed.append(w)
    probing.analyze(w, analyses, data=d)

  def suite(report_only):
    entries = [(grid, config, workdir, grid_reuse.finished(workdir))]
    return reproduce.run_suite(
        entries, str(out), "cmd", report_only,
        run_fn=lambda c, w: run_experiment(c, w, data=d),
        echo=lambda _: None, probe_fn=probe_fn)

  record = suite(False)
  assert probed == [workdir]
  probe = json.loads((out / grid.name / "sent_vae" / "probe" /
                      "probe.json").read_text())
  ours = record["probing"]["chunks_cos_en"]
  assert ours == paper_comparison.probe_summary(probe)
  conf = probe["confusion"]["chunks"]["train_types"]["chunks"]
  assert ours["diagonal"] == pytest.approx(conf["diagonal_fraction"])
  assert ours["patterns"] == 4 and ours["units"] == 5
  cells = probe["traversal"]["train_types"]["chunks"]["cells"].values()
  assert ours["largest_drop"] == pytest.approx(sum(
      c["base_accuracy"] - min(u["min_accuracy"] for u in c["units"])
      for c in cells) / 2)
  md = (out / "report.md").read_text()
  section = md[md.index("## 000 Figures 20-22"):]
  assert ('"shows that all patterns are detected with high accuracy" '
          "(000 sec. 7, Figure 20 (top), line 613)") in section
  row = next(x for x in section.splitlines() if x.startswith("| CoS En"))
  assert row.startswith(f"| CoS En | 4 | {ours['diagonal']:.3f} | ")
  # The dataset's section says how it differs from what 000 shows.
  assert ("What differs from 000: the encoder (minilm here; 000 sec. 7: "
          "averaged Electra token embeddings, as 32x24 arrays); the runs (2 "
          "seeds here, one train/dev sample; 000 sec. 7: \"average F1 "
          "score over three runs\")") in md
  # The record keeps the report's tables: the doc renders them from it.
  from blm_jax.study import records
  rec = records.record_from_report(str(out), "cmd", "abc")
  assert rec["probing"] == record["probing"]
  assert set(rec["tables"]) >= {"claims", "designs", "table5", "probing"}
  assert records.render(rec, {"table": "probing"}).splitlines()[2] == row
  t5 = next(x for x in md.splitlines() if x.startswith("| CoS En | 0.909"))
  assert records.render(rec, {"table": "table5"}).splitlines()[2] == t5
  html = (out / "report.html").read_text()
  # heatmap and errors, then the probe's confusion, traversal, projection
  assert html.count("data:image/png;base64,") == 5
  assert "000 Figures 20-22" in html
  # A second pass reuses the probe; the merge without one names it.
  assert suite(True)["probing"] == record["probing"] and probed == [workdir]
  os.remove(os.path.join(workdir, "probe", "probe.json"))
  merged = suite(True)
  assert probed == [workdir] and merged["probing"] == {}
  assert merged["missing"] == ["chunks_cos_en/sent_vae (its probe)"]


def rebuild_since(path, monkeypatch) -> dict:
  """Stamps the finished grid's results (or kept record) at `path` as
  trained on builder blm_x/type_I 1.1.0 while that builder is at 1.2.0
  now; returns the stamped results."""
  results = json.loads(path.read_text())
  results["data"]["builder_versions"] = {"blm_x/type_I": "1.1.0"}
  path.write_text(json.dumps(results))
  monkeypatch.setattr(grid_reuse.input_pipeline, "builder_versions",
                      lambda data_cfg: {"blm_x/type_I": "1.2.0"})
  return results


@pytest.mark.slow
def test_a_grid_of_data_rebuilt_since_is_not_reused(tmp_path, monkeypatch):
  """A finished grid records its datasets' builder versions; after a
  builder's version changes (its data would differ) the suite refuses to
  reuse the grid, naming the versions. A grid from before the record is
  reused with a warning."""
  opts = _opts(_configs(tmp_path), tmp_path / "o", suite="cos_en/ffnn")
  _suite(opts)
  path = tmp_path / "o" / "cos_en" / "ffnn" / "results.json"
  assert json.loads(path.read_text())["data"]["builder_versions"] == {}
  results = rebuild_since(path, monkeypatch)  # synthetic: no builder
  with pytest.raises(suites.SuiteError, match=r"differs in: data "
                     r"blm_x/type_I: builder 1\.1\.0 -> 1\.2\.0"):
    reproduce.entries_of(*_select(opts), str(tmp_path / "o"))
  del results["data"]["builder_versions"]
  path.write_text(json.dumps(results))
  warned = []
  entries = reproduce.entries_of(*_select(opts),
                                 str(tmp_path / "o"), warn=warned.append)
  assert entries[0][3] is not None
  assert len(warned) == 1
  assert "before grids recorded their data's builder versions" in warned[0]


def test_builder_versions_are_the_builders_of_each_type():
  from blm_jax.data import input_pipeline
  from configs import ffnn
  from data_builders.blm_agreement import blm_agreement_dataset_builder as b

  config = ffnn.get_config("dataset=agreement_en_seq")
  # (Each `_seq` config carries its own version, not the builder's.)
  assert input_pipeline.builder_versions(config.data) == {
      f"blm_agreement/en_seq_type_{t}": str(b.seq_config("en", t).version)
      for t in ("I", "II", "III")}
  assert str(b.seq_config("en", "I").version) != str(b.Builder.VERSION)
  config.data.name = "no_such_builder/{}"
  assert input_pipeline.builder_versions(config.data) == {}


@pytest.mark.slow
def test_a_suite_of_several_models_reports_every_solver_across_the_datasets(
    tmp_path):
  # Two models on two datasets: one row per dataset and model, in the
  # record's `solvers` table and the report, each as its grid's summary.
  from blm_jax.study import battery

  configs = _configs(tmp_path)
  (tmp_path / "configs" / "relnet.py").write_text(
      (tmp_path / "configs" / "ffnn.py").read_text().replace(
          'synthetic.config("ffnn"', 'synthetic.config("relnet"'))
  record = _suite(_opts(configs, tmp_path / "o", suite="cos_en/ffnn,"
                        "cos_en/relnet,od_en/ffnn,od_en/relnet"))
  table = record["tables"]["solvers"]
  assert table["columns"] == list(battery.SOLVER_COLUMNS)
  assert [r[:2] for r in table["rows"]] == [
      ["cos_en", "ffnn"], ["cos_en", "relnet"], ["od_en", "ffnn"],
      ["od_en", "relnet"]]
  results = json.loads((tmp_path / "o" / "od_en" / "relnet" /
                        "results.json").read_text())
  s = results["summary"]
  diag = sum(s[t][t]["f1_mean"] for t in s) / len(s)
  assert table["rows"][3][3] == f"{diag:.3f}"
  md = (tmp_path / "o" / "report.md").read_text()
  assert "## Every solver across the datasets" in md
  # Per dataset, the better of the two against the other, with its
  # interval and verdicts.
  contrasts = record["tables"]["solver_contrasts"]["rows"]
  assert [r[0] for r in contrasts] == ["cos_en", "od_en"]
  assert all({r[1], r[2]} == {"ffnn", "relnet"} and r[4].startswith("[")
             for r in contrasts)
  assert "## The best solver against each other one" in md
