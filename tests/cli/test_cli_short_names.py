"""lint, export, embed and reproduce take dataset short names (every type,
or `<name>:<type>`) as well as TFDS names; a typo is one line with the
closest names."""

import os
import subprocess
import sys

import pytest
import tensorflow_datasets as tfds
from absl import flags

from blm_jax.cli import embed as embed_cli, export as export_cli
from blm_jax.cli import lint as lint_cli
from blm_jax.data import export
from blm_jax.study import reproduce
from data_builders import registry
from data_builders.common import builder, instances, schema
from tests import ROOT


class ShortNameToyBlm(builder.GeneratedBLMBuilder):
  """Agreement-labelled instances in two lexical types."""

  VERSION = tfds.core.Version("1.0.0")
  BUILDER_CONFIGS = builder.lexical_type_configs("toy", ("I", "II"))

  def generate(self, config):
    t = config.lexical_type
    return [instances.make_instance(
        id=f"{t}-{i:02d}", family="agreement", language="en",
        lexical_type=t, subset="", seed=i, correct_label="Corr",
        context=[schema.Sentence(f"The cat {i} {k} sleeps {t} .")
                 for k in range(3)],
        candidates=[("Corr", schema.Sentence(f"The dog {i} runs {t} .")),
                    ("WNA", schema.Sentence(f"The dog {i} run {t} ."))])
        for i in range(20)]


TOY = registry.DatasetEntry("toy", "short_name_toy_blm/type_{}", "agreement",
                            "paper", "en", types=("I", "II"))


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
  d = str(tmp_path_factory.mktemp("tfds"))
  for config in ShortNameToyBlm.BUILDER_CONFIGS:
    ShortNameToyBlm(config=config.name, data_dir=d,
                    file_format="array_record").download_and_prepare()
  return d


@pytest.fixture
def toy(monkeypatch):
  """The registry with the toy dataset's short name beside the project's."""
  monkeypatch.setattr(registry, "_ENTRIES",
                      {**registry._registry(), "toy": TOY})


@pytest.mark.slow
def test_lint_takes_a_short_name_for_every_type_or_one(data_dir, toy,
                                                       capsys):
  assert lint_cli.main(["toy", f"--data_dir={data_dir}"]) == 0
  out = capsys.readouterr().out
  for t in ("I", "II"):
    assert f"short_name_toy_blm/type_{t}[train]" in out
  assert "total: 40 instances" in out
  assert lint_cli.main(["toy:II", f"--data_dir={data_dir}"]) == 0
  out = capsys.readouterr().out
  assert "type_I[" not in out and "total: 20 instances" in out


def test_lint_of_a_misspelled_name_is_one_line(capsys):
  assert lint_cli.main(["spray_lod"]) == 2
  err = capsys.readouterr().err
  assert err == ("error: no dataset short name 'spray_lod'; did you mean "
                 "'spray_load' or 'spray_load_v0' or 'spray_load_seq'?\n")
  assert lint_cli.main(["blm_spray_lod/ALT-ATL_type_I"]) == 2
  assert "did you mean 'blm_spray_load'?" in capsys.readouterr().err


@pytest.mark.slow
def test_lint_spray_load_from_the_shell_is_not_the_catalogue(tmp_path):
  """The short name launch.py takes: the three types of spray/load (here
  one, misspelled type: one line, not TFDS's catalogue)."""
  proc = subprocess.run(
      [sys.executable, "-m", "blm_jax.cli.lint", "spray_load:IIII",
       f"--data_dir={tmp_path}"], cwd=ROOT, capture_output=True, text=True,
      env=dict(os.environ, JAX_PLATFORMS="cpu"), timeout=300)
  assert proc.returncode == 2
  assert proc.stderr.strip().splitlines() == [
      "error: dataset 'spray_load' has no type 'IIII'; its types: I, II, III"]


def _flags(define, argv):
  fv = flags.FlagValues()
  define(fv)
  fv(["prog", *argv])
  return fv


@pytest.mark.slow
def test_export_writes_each_type_of_a_short_name(data_dir, toy, tmp_path):
  out = tmp_path / "all"
  written = export_cli.run(_flags(export_cli.define_flags, [
      "--dataset=toy", f"--out={out}", f"--data_dir={data_dir}"]))
  assert sorted(written) == sorted(f"type_{t}/{s}" for t in ("I", "II")
                                   for s in ("train", "dev", "test"))
  got = export.read_jsonl(str(out / "type_II" / "test.jsonl"))
  assert got and {x.lexical_type for x in got} == {"II"}
  one = tmp_path / "one"
  written = export_cli.run(_flags(export_cli.define_flags, [
      "--dataset=toy:I", f"--out={one}", f"--data_dir={data_dir}",
      "--split=test"]))
  assert written == {"test": str(one / "test.jsonl")}


def test_export_of_a_misspelled_name_is_one_line(tmp_path):
  with pytest.raises(SystemExit) as e:
    export_cli.run(_flags(export_cli.define_flags, [
        "--dataset=cos_enn", f"--out={tmp_path}"]))
  assert str(e.value).startswith(
      "error: --dataset=cos_enn: no dataset short name 'cos_enn'; did you "
      "mean 'cos_en'")
  assert not os.listdir(tmp_path)


def test_embed_fills_every_type_of_a_short_name(toy, monkeypatch):
  seen = {}

  def fill_cache(datasets, spec, **kw):
    seen["datasets"] = datasets
    raise SystemExit("filled")

  monkeypatch.setattr(embed_cli, "fill_cache", fill_cache)
  with pytest.raises(SystemExit, match="filled"):
    embed_cli.run(_flags(embed_cli.define_flags, ["--dataset=toy"]))
  assert seen["datasets"] == ["short_name_toy_blm/type_I",
                              "short_name_toy_blm/type_II"]
  with pytest.raises(embed_cli.UsageError, match=(
      "--dataset=tyo: no dataset short name 'tyo'; did you mean 'toy'")):
    embed_cli.run(_flags(embed_cli.define_flags, ["--dataset=tyo"]))


def test_reproduce_takes_short_and_tfds_names():
  assert reproduce.short_names(["blm_cos_od/cos_en_type_II", "cos_en",
                                "od_en_ctx"]) == ["cos_en", "od_en_ctx"]
  with pytest.raises(ValueError, match="^--datasets: no dataset short name "
                     "'cos_eng'; did you mean 'cos_en'"):
    reproduce.short_names(["cos_eng"])
  with pytest.raises(ValueError, match=(
      r"--datasets: 'blm_cos_od/cos_en_type_IV' is no type of a dataset "
      r"short name; did you mean 'blm_cos_od/cos_en_type_I'")):
    reproduce.short_names(["blm_cos_od/cos_en_type_IV"])


@pytest.mark.slow
def test_launch_with_a_misspelled_dataset_is_one_line(tmp_path):
  proc = subprocess.run(
      [sys.executable, "launch.py",
       "--config=configs/ffnn.py:dataset=spray_lod,cpu",
       f"--workdir={tmp_path / 'w'}"], cwd=ROOT, capture_output=True,
      text=True, env=dict(os.environ, JAX_PLATFORMS="cpu"), timeout=300)
  assert proc.returncode == 1 and not (tmp_path / "w").exists()
  assert proc.stderr.strip().splitlines() == [
      "error: --config=configs/ffnn.py:dataset=spray_lod,cpu: no dataset "
      "short name 'spray_lod'; did you mean 'spray_load' or 'spray_load_v0' "
      "or 'spray_load_seq'?"]
