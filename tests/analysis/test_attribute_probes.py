"""Encoder probes tied to the design: frames, probes, compounding,
probe-then-solve."""

import numpy as np
import pytest

from blm_jax.analysis import attribute_probes as ap
from blm_jax.data.sentence_table import build_sentence_table
from blm_jax.models import attribute_relations as ar
from data_builders.common import attributes
from data_builders.common.schema import BLMInstance, Sentence
from tests.results.test_gold_ceiling import _data


def _inst(i, texts):
  s = [Sentence(t, "") for t in texts]
  return BLMInstance(id=str(i), family="toy", language="en", lexical_type="I",
                     subset="", context=tuple(s[:1]), answers=tuple(s[1:]),
                     correct=0, labels=("Corr", "W"))


def test_frames_are_instances_connected_by_shared_sentences():
  table = build_sentence_table([_inst(0, "abc"), _inst(1, "dbe"),
                                _inst(2, "xyz"), _inst(3, "zuv")])
  f = ap.frames(table)
  assert f[0] == f[1] and f[2] == f[3] and f[0] != f[2]
  held = ap.held_out_frames(f, 0.5, 0)
  assert held.sum() == 2 and held[0] == held[1]
  train, test = ap.sentence_split(table, held)
  assert not (train & test).any() and (train | test).all()
  with pytest.raises(ValueError, match="at least two lexical frames"):
    ap.held_out_frames(np.zeros(4, int), 0.2, 0)


def _embeddings(table, hidden_attribute, rng):
  """Sentence vectors: each attribute's one-hot through a random map, plus
  noise, except `hidden_attribute`, which they do not carry."""
  codes = table.attributes.copy()
  codes[:, table.attribute_names.index(hidden_attribute)] = -1
  one_hot = attributes.one_hot(codes, table.attribute_sizes)
  proj = rng.normal(size=(one_hot.shape[1], 24))
  return one_hot @ proj + 0.1 * rng.normal(size=(len(codes), 24))


@pytest.mark.slow
def test_probes_find_what_the_vectors_carry_and_what_it_costs():
  data = _data(n_train=200)
  table = data.table
  rng = np.random.default_rng(0)
  layers = {"good": _embeddings(table, "violation", rng),
            "no_polarity": _embeddings(table, "polarity", rng)}
  out = ap.diagnose_layers(
      layers, table, ap.ProbeSettings(steps=200),
      ar.Settings(hidden=32, steps=300, learning_rate=1e-2))
  assert out["frames"]["held_out"] >= 1
  good, bad = out["layers"]["good"]["linear"], out["layers"]["no_polarity"][
      "linear"]
  assert good["accuracy"]["polarity"] > 0.95
  assert bad["accuracy"]["polarity"] < 0.75
  assert bad["accuracy"]["alternant"] > 0.95
  assert bad["compounding"] < good["compounding"] + 1e-9
  pts = bad["probe_then_solve"]
  assert pts["gold"] > 0.85
  assert pts["only polarity"] < pts["gold"] - 0.2
  assert pts["only alternant"] == pytest.approx(pts["gold"], abs=0.05)
  assert ap.weakest_attribute(out, "no_polarity")[0] == "polarity"
  text = ap.markdown(out, "toy")
  assert ("| layer | alternant | form | polarity | violation | compounding "
          "| probe-then-solve | only alternant |") in text
  assert text.count("| no_polarity |") == 2


def test_without_attributes_probes_say_which_rungs_are_skipped():
  data = _data(name="blm_jsonl/mine", n_train=20)
  with pytest.raises(ValueError, match="encoder probes skipped: its family "
                     "declares no attribute schema"):
    ap.diagnose_layers({"x": data.embeddings}, data.table)


def test_ladder_figure(tmp_path):
  from blm_jax.analysis import probe_figures

  row = lambda a: {"accuracy": {"n1": a, "subject": 1.0}, "compounding": a,
                   "probe_then_solve": {"probed": a, "gold": 1.0}}
  result = {"attributes": ["n1", "subject"],
            "layers": {f"layer={k}": {"linear": row(0.5 + k / 10),
                                      "mlp": row(0.6 + k / 10)}
                       for k in range(3)}}
  path = tmp_path / "ladder.png"
  probe_figures.plot_attribute_ladder(result, str(path), "t", chance=0.05)
  assert path.stat().st_size > 0
