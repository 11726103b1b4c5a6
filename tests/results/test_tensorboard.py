"""TensorBoard event files per cell, read back record by record: they hold
the run's dev curves and test F1 (the numbers of results.json), and
`config.results.tensorboard=False` writes none; the writer leaves torch
unloaded (tensorboardX would import it, seconds of every run)."""

import importlib.util
import os
import struct
import subprocess
import sys

import pytest

from blm_jax.results.experiment import run_experiment
from tests import ROOT, synthetic


def _scalars(folder) -> dict[str, list[tuple[int, float]]]:
  """{tag: [(step, value)]} of the event files in `folder` (TFRecord
  framing: length, its CRC, the Event proto, its CRC)."""
  event_pb2 = pytest.importorskip("tensorboardX.proto.event_pb2")
  out = {}
  for name in sorted(os.listdir(folder)):
    assert name.startswith("events.out.tfevents."), name
    with open(os.path.join(folder, name), "rb") as f:
      data = f.read()
    pos = 0
    while pos < len(data):
      (n,) = struct.unpack("<Q", data[pos:pos + 8])
      event = event_pb2.Event.FromString(data[pos + 12:pos + 12 + n])
      pos += 12 + n + 4
      for v in event.summary.value:
        out.setdefault(v.tag, []).append((event.step, v.simple_value))
  return out


@pytest.mark.slow
def test_event_files_hold_each_cells_curves(tmp_path):
  data = synthetic.data(n_train=60, n_dev=20, n_test=30)
  work = tmp_path / "w"
  results = run_experiment(synthetic.config("ffnn", epochs=3), str(work),
                           data=data)
  cells = sorted(os.listdir(work / "tensorboard"))
  assert cells == sorted(f"seed={c['seed']},train={c['train_type']}"
                         for c in results["cells"])
  for c in results["cells"]:
    got = _scalars(work / "tensorboard" /
                   f"seed={c['seed']},train={c['train_type']}")
    for key, tag in (("dev_accuracy", "dev/accuracy"),
                     ("dev_loss", "dev/loss")):
      assert [s for s, _ in got[tag]] == [0, 1, 2]
      assert [v for _, v in got[tag]] == pytest.approx(c["history"][key],
                                                       rel=1e-6)
    assert [v for _, v in got["train/loss"]] == pytest.approx(
        c["history"]["train"]["loss"], rel=1e-6)
    for u, m in c["test"].items():
      assert got[f"test/f1_{u}"] == [(2, pytest.approx(m["f1"]))]
  # Reported again (a resumed run): the curves are replaced, not doubled.
  again = run_experiment(synthetic.config("ffnn", epochs=3), str(work),
                         data=data)
  cell = again["cells"][0]
  got = _scalars(work / "tensorboard" /
                 f"seed={cell['seed']},train={cell['train_type']}")
  assert len(got["dev/accuracy"]) == 3
  assert not os.path.exists(work / "tensorboard.partial")


@pytest.mark.slow
def test_opt_out_writes_none(tmp_path):
  config = synthetic.config("ffnn", epochs=1)
  config.results.tensorboard = False
  work = tmp_path / "w"
  run_experiment(config, str(work), data=synthetic.data(n_test=30))
  assert not (work / "tensorboard").exists()


def test_the_writer_leaves_torch_unloaded(tmp_path):
  # A fresh process: this one may have torch already (the parity tests).
  for needed in ("torch", "tensorboardX"):
    if importlib.util.find_spec(needed) is None:
      pytest.skip(f"{needed} is not installed")
  code = ("import sys; from blm_jax.results import tensorboard; "
          "tensorboard._writer(sys.argv[1]).close(); "
          "print('torch' in sys.modules)")
  out = subprocess.run([sys.executable, "-c", code, str(tmp_path)],
                       cwd=ROOT, capture_output=True, text=True, check=True)
  # Neither loaded nor left blocked (a None entry would be `in` too).
  assert out.stdout.split() == ["False"]
