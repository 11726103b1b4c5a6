"""Control baselines and the layer sweep: cells of the same grid that read
another view of the data (answer-only, shuffled context, random encoder,
another layer), and what they report."""

import json
import os

import jax
import numpy as np
import pytest

from blm_jax.data import input_pipeline
from blm_jax.data.sentence_table import build_sentence_table
from blm_jax.results.experiment import run_experiment
from blm_jax.training import config_check
from blm_jax.training import run_identity
from blm_jax.training import trainer as train
from blm_jax.training import variants
from blm_jax.training.solver import SplitIndex
from data_builders.common import schema
from tests import synthetic

DIM = 8
N_ANSWERS = 4


def _cue_instances(n, split, seed, cue):
  """Random contexts and candidates, no relation between them; with `cue`,
  the correct candidate's embedding carries a constant offset."""
  rng = np.random.default_rng(seed)
  out, vectors = [], {}
  for i in range(n):
    key = f"{split}-{seed}-{i}"
    ctx = [schema.Sentence(f"{key} c{j}", f"P{j}") for j in range(4)]
    answers = [schema.Sentence(f"{key} a{j}", lab)
               for j, lab in enumerate(synthetic.LABELS)]
    for s in ctx + answers:
      vectors[s.text] = rng.normal(size=DIM)
    if cue:
      vectors[answers[0].text] += 1.0
    order = rng.permutation(N_ANSWERS)
    out.append(schema.BLMInstance(
        id=key, family="toy", language="en", lexical_type="I",
        subset="toy", context=tuple(ctx),
        answers=tuple(answers[k] for k in order),
        correct=int(np.argmax(order == 0)),
        labels=tuple(synthetic.LABELS[k] for k in order)))
  return out, vectors


def _cue_data(cue):
  parts, vectors = {}, {}
  for k, (split, n) in enumerate((("train", 200), ("dev", 40),
                                  ("test", 300))):
    parts["I", split], v = _cue_instances(n, split, 10 * k + cue, cue)
    vectors.update(v)
  return input_pipeline.from_parts(
      parts, lambda sents: np.stack([vectors[x] for x in sents]))


def _config(controls="", epochs=12, seeds=(0, 1)):
  c = synthetic.config("ffnn", epochs=epochs, seeds=seeds, types=("I",))
  c.controls = controls
  c.train.score = "dot"
  return c


def _trained_accuracy(config, data, sources=None):
  """{variant: mean test accuracy over its cells}, and the grid/state."""
  grid = train.build_grid(config, data, sources=sources)
  state = grid.init()
  for e in range(config.train.epochs):
    state, _ = grid.run_epoch(state, e)
  pred = grid.predict(state.params, grid.test["I"])["pred"]
  hits = pred == data.test["I"].correct[None]
  acc = {v: float(hits[list(grid.spec.variant_cells(v))].mean())
         for v in grid.spec.variants}
  return acc, grid, state


@pytest.mark.slow
def test_answer_only_is_chance_without_cue_and_above_with_planted_cue():
  chance = 1 / N_ANSWERS
  plain, _, _ = _trained_accuracy(_config("answer_only"), _cue_data(False))
  cued, _, _ = _trained_accuracy(_config("answer_only"), _cue_data(True))
  # 2 seeds x 300 test instances: chance +- 0.07 is over 3 standard errors.
  assert abs(plain["answer_only"] - chance) < 0.07, plain
  # The offset alone identifies the answer: the context-free solver finds it.
  assert cued["answer_only"] > 0.6, cued


@pytest.mark.slow
def test_real_cells_are_unchanged_by_the_controls_beside_them():
  data = synthetic.data(n_train=60, n_dev=20, n_test=20, types=("I",))
  rng = np.random.default_rng(0)
  sources = variants.Sources({"random_encoder": rng.normal(
      size=data.embeddings.shape).astype(np.float32)})
  with_controls, grid, state = _trained_accuracy(
      _config("answer_only,shuffled_context,random_encoder", epochs=2),
      data, sources)
  alone, grid0, state0 = _trained_accuracy(_config(epochs=2), data)
  assert grid.spec.variants == ("", "answer_only", "shuffled_context",
                                "random_encoder")
  assert grid.num_cells == 4 * grid0.num_cells
  real = list(grid.spec.variant_cells(""))
  jax.tree.map(lambda a, b: np.testing.assert_allclose(
      np.asarray(a)[real], np.asarray(b)[:len(real)], atol=2e-5),
               state.params, state0.params)
  assert with_controls[""] == alone[""]
  # The controls did train on something else: other parameters.
  k = jax.tree.leaves(state.params)[0]
  assert not np.allclose(np.asarray(k)[0], np.asarray(k)[len(real)])


def _mixed_table():
  four, _ = synthetic.instances(6, "I", 0, num_context=4)
  three, _ = synthetic.instances(6, "II", 1, num_context=3)
  return build_sentence_table(four + three)


def test_shuffled_context_is_a_per_instance_deterministic_permutation():
  table = _mixed_table()
  perm = variants.context_permutations(table)
  assert perm.shape == table.context.shape
  for row, mask in zip(perm, table.context_mask):
    real = np.flatnonzero(mask)
    assert sorted(row[real]) == list(real)  # a permutation of real slots
    np.testing.assert_array_equal(row[~mask], np.flatnonzero(~mask))
  # Seeded by the instance id: the same wherever the instance sits.
  np.testing.assert_array_equal(variants.context_permutations(table), perm)
  rev = table.select(np.arange(table.num_instances)[::-1])
  np.testing.assert_array_equal(variants.context_permutations(rev),
                                perm[::-1])
  # Per instance, not one permutation for all.
  assert len({tuple(r) for r in perm}) > 3
  # The cell's view reads the permuted context; a real cell's view reads
  # the indices unchanged; the answer-only view reads the zero row.
  split = SplitIndex.from_table(table).replace(context_perm=perm)
  _, views = variants.stack_sources(
      np.zeros((len(table.sentences), 2), np.float32), {},
      ("", "answer_only", "shuffled_context"))
  shuffled = variants.apply_view(split, views["shuffled_context"])
  np.testing.assert_array_equal(
      shuffled.context, np.take_along_axis(table.context, perm, 1))
  np.testing.assert_array_equal(shuffled.answers, table.answers)
  same = variants.apply_view(split, views[""])
  np.testing.assert_array_equal(same.context, table.context)
  zero = variants.apply_view(split, views["answer_only"])
  assert (np.asarray(zero.context) == len(table.sentences)).all()


def test_bad_control_or_layer_sweep_fails_naming_key_and_choices():
  c = _config("answer_only,shufled_context")
  c.encoder.layer_sweep = "0,x"
  with pytest.raises(config_check.ConfigError) as e:
    config_check.validate(c)
  msg = str(e.value)
  assert ("config.controls='answer_only,shufled_context': 'shufled_context' "
          "is not a control") in msg
  assert "answer_only, shuffled_context, random_encoder" in msg
  assert "config.encoder.layer_sweep='0,x'" in msg
  with pytest.raises(ValueError, match=r"layer\(s\) \[9\] out of range"):
    variants.parse_layer_sweep("0,9", num_layers=6)
  assert variants.parse_layer_sweep("all", 2) == (0, 1, 2)
  assert variants.parse_layer_sweep("0,-1", 6) == (0, 6)


def test_changed_controls_refuse_resume_but_old_runs_still_match():
  data = synthetic.data(n_train=10, n_dev=4, n_test=4)
  c = synthetic.config()
  old = synthetic.config()
  del old["controls"]  # a config saved before the key existed
  del old.encoder["layer_sweep"]
  assert run_identity.differences(run_identity.fingerprint(old, data),
                                  run_identity.fingerprint(c, data)) == []
  c2 = synthetic.config()
  c2.controls = "answer_only"
  diffs = run_identity.differences(run_identity.fingerprint(c, data),
                                   run_identity.fingerprint(c2, data))
  assert diffs == ["config.controls: '<absent>' -> 'answer_only'"]


@pytest.mark.slow
def test_results_report_controls_selectivity_and_layer_sweep(tmp_path):
  data = synthetic.data(n_train=40, n_dev=10, n_test=20, types=("I", "II"))
  rng = np.random.default_rng(0)
  tables = {f"layer={k}": rng.normal(size=data.embeddings.shape).astype(
      np.float32) for k in (0, 1)}
  seen = []

  def sources_fn(encoder, controls, sentences):
    seen.append(len(sentences))
    return variants.Sources(tables, sweep_layers=(0, 1, 2), main_layer=2)

  c = synthetic.config("ffnn", epochs=2, seeds=(0, 1))
  c.controls = "answer_only"
  c.encoder.layer_sweep = "all"
  out = run_experiment(c, str(tmp_path), data=data, sources_fn=sources_fn)
  assert seen == [len(data.table.sentences)]
  with open(tmp_path / "results.json") as f:
    saved = json.load(f)
  assert saved["controls"].keys() == {"answer_only"}
  ctl = saved["controls"]["answer_only"]
  for t in ("I", "II"):
    for u in ("I", "II"):
      assert ctl["selectivity"][t][u] == pytest.approx(
          saved["summary"][t][u]["f1_mean"] - ctl["summary"][t][u]["f1_mean"])
  assert len(ctl["cells"]) == 4 and all(
      x["variant"] == "answer_only" for x in ctl["cells"])
  assert len(saved["cells"]) == 4 and "variant" not in saved["cells"][0]
  sweep = saved["layer_sweep"]
  assert sweep["layers"] == [0, 1, 2] and sweep["main_layer"] == 2
  # The config layer is the real cells; the others their own cells.
  assert sweep["summary"]["2"] == saved["summary"]
  assert sweep["f1_mean"]["I"]["II"][2] == saved["summary"]["I"]["II"][
      "f1_mean"]
  assert out["layer_sweep"]["f1_mean"] == sweep["f1_mean"]
  for png in ("heatmap.png", "layers.png", "errors.png"):
    assert os.path.getsize(tmp_path / png) > 10_000
