"""The gold-attribute ceiling: the attribute-relations reference model and
the gold_attributes control's table."""

import random

import jax.numpy as jnp
import ml_collections
import numpy as np
import pytest

from blm_jax.data import input_pipeline
from blm_jax.models import attribute_relations as ar
from blm_jax.results import gold_ceiling
from blm_jax.training import variants
from data_builders.blm_spray_load import sequence
from data_builders.common.schema import BLMInstance, Sentence


def test_relation_features_by_hand():
  # One instance, 2 context positions, 1 attribute; candidate 0 equals the
  # first position, candidate 1 is absent.
  ctx = jnp.array([[[0], [1]]])
  ans = jnp.array([[[0], [-1]]])
  f = ar.relation_features(ctx, jnp.array([[True, True]]), ans)
  assert f.shape == (1, 2, 1, ar.num_features(2))
  # Pairs (0,1), (0,2), (1,2), then presence of positions 0, 1, 2.
  np.testing.assert_array_equal(f[0, 0, 0], [0, 1, 0, 1, 1, 1])
  np.testing.assert_array_equal(f[0, 1, 0], [0, 0, 0, 1, 1, 0])
  # A masked context position counts as absent.
  f = ar.relation_features(ctx, jnp.array([[True, False]]), ans)
  np.testing.assert_array_equal(f[0, 0, 0], [0, 1, 0, 1, 0, 1])


def _seq_instances(n, seed):
  """spray/load _seq instances whose texts are unique per instance and
  whose patterns are the generator's."""
  rng = random.Random(seed)
  out = []
  for i in range(n):
    rule = sequence.draw_rule(rng)
    base = (rng.choice(sequence.ALTERNANTS), rng.choice(sequence.POLARITIES))
    context, answers = sequence.seq_patterns(rule, base)
    labels = list(answers)
    rng.shuffle(labels)
    sent = lambda j, p: Sentence(f"{seed}-{i}-{j}", str(p))
    out.append(BLMInstance(
        id=f"{seed}-{i}", family=sequence.SEQ_FAMILY, language="en",
        lexical_type="I", subset="seq",
        context=tuple(sent(j, p) for j, p in enumerate(context)),
        answers=tuple(sent(100 + j, answers[lab])
                      for j, lab in enumerate(labels)),
        correct=labels.index("CORRECT"), labels=tuple(labels)))
  return out


def _data(name="blm_spray_load/seq_type_{}", n_train=200):
  parts = {("I", "train"): _seq_instances(n_train, 0),
           ("I", "dev"): _seq_instances(20, 1),
           ("I", "test"): _seq_instances(150, 2)}
  return input_pipeline.from_parts(
      parts, lambda s: np.zeros((len(s), 32), np.float32), name=name)


@pytest.mark.slow
def test_reference_model_solves_spray_load_seq_from_gold_attributes():
  data = _data()
  out = gold_ceiling.gold_ceiling(
      data, (0,), ("I",), ("I",),
      settings=ar.Settings(hidden=32, steps=300, learning_rate=1e-2))
  assert out["attributes"] == ["alternant", "form", "polarity", "violation"]
  assert out["reference"]["I"]["I"]["f1_mean"] >= 0.9
  assert "solver" not in out
  line, = gold_ceiling.lines(out)
  assert line.startswith("gold ceiling train I: test I reference ")


def test_shuffled_attributes_leave_the_reference_model_near_chance():
  data = _data()
  params = gold_ceiling.fit(data.train["I"], 0,
                            ar.Settings(hidden=32, steps=300,
                                        learning_rate=1e-2))
  codes = data.table.attributes.copy()
  rng = np.random.default_rng(0)
  codes = codes[rng.permutation(len(codes))]
  assert gold_ceiling.accuracy(params, data.test["I"], codes) < 0.5


def test_without_attributes_the_ceiling_says_which_rungs_are_skipped():
  data = _data(name="blm_jsonl/mine")
  with pytest.raises(ValueError, match=r"^gold-attribute ceiling and "
                     r"encoder probes skipped: its family declares no "
                     r"attribute schema"):
    gold_ceiling.gold_ceiling(data, (0,), ("I",), ("I",))


def test_gold_attributes_control_table():
  data = _data(n_train=20)
  sources = variants.with_gold_attributes(
      ("gold_attributes",), "x", data, variants.Sources({}))
  gold = sources.tables["gold_attributes"]
  assert gold.shape == data.embeddings.shape
  # Each sentence: one value per attribute present, zero padding after.
  have = (data.table.attributes >= 0).sum(1)
  np.testing.assert_array_equal(gold.sum(1), have)
  assert not gold[:, sum(data.table.attribute_sizes):].any()
  assert variants.source_of("gold_attributes") == "gold_attributes"
  no_attr = _data(name="blm_jsonl/mine", n_train=20)
  with pytest.raises(ValueError, match=r"config.controls=gold_attributes: "
                     r"'x' has no attributes: its family declares no"):
    variants.with_gold_attributes(
        ("gold_attributes",), "x", no_attr, variants.Sources({}))
  narrow = input_pipeline.from_parts(
      {("I", s): _seq_instances(5, i) for i, s in enumerate(
          ("train", "dev", "test"))},
      lambda s: np.zeros((len(s), 4), np.float32),
      name="blm_spray_load/seq_type_{}")
  with pytest.raises(ValueError, match=r"the 17 one-hot attribute values do "
                     r"not fit the embedding width 4"):
    variants.with_gold_attributes(
        ("gold_attributes",), "x", narrow, variants.Sources({}))


def test_report_skips_the_ceiling_in_one_line_without_attributes():
  import logging
  import types

  from blm_jax.results import report, tables

  data = _data(name="blm_jsonl/mine", n_train=20)
  config = ml_collections.ConfigDict({"results": {"gold_ceiling": True}})
  outcome = types.SimpleNamespace(data=data)
  got = report._gold_ceiling(config, outcome, {}, logging.getLogger("t"))
  assert got == {"skipped": gold_ceiling.missing_line(data.table)}
  assert gold_ceiling.lines(got) == [got["skipped"]]
  rows = tables.cell_rows({"grid": {"seeds": [0]}, "gold_ceiling": got,
                           "summary": {"I": {"I": {"f1_mean": 0.5,
                                                   "f1_std": 0.0}}}})
  assert rows[0].gold_reference_f1 is None
  config.results.gold_ceiling = False
  assert report._gold_ceiling(config, outcome, {}, None) is None


@pytest.mark.slow
def test_grid_with_gold_attributes_control_reports_the_ceiling(tmp_path):
  import json

  from blm_jax.results.experiment import run_experiment
  from tests import synthetic

  # Embeddings that carry nothing: the real cells sit near chance, the
  # solver on one-hot attributes and the reference model do not.
  parts = {("I", "train"): _seq_instances(120, 0),
           ("I", "dev"): _seq_instances(20, 1),
           ("I", "test"): _seq_instances(60, 2)}
  rng = np.random.default_rng(0)
  data = input_pipeline.from_parts(
      parts, lambda s: rng.normal(size=(len(s), 32)).astype(np.float32),
      name="blm_spray_load/seq_type_{}")
  c = synthetic.config("ffnn", epochs=30, seeds=(0,), types=("I",))
  c.data.name = "blm_spray_load/seq_type_{}"
  c.data.num_answers = 0
  c.controls = "gold_attributes"
  c.results.context_free = False
  run_experiment(c, str(tmp_path), data=data)
  saved = json.loads((tmp_path / "results.json").read_text())
  gold = saved["gold_ceiling"]
  assert gold["attributes"] == ["alternant", "form", "polarity", "violation"]
  solver = gold["solver"]["I"]["I"]["f1_mean"]
  assert solver == saved["controls"]["gold_attributes"]["summary"]["I"]["I"][
      "f1_mean"]
  assert solver > saved["summary"]["I"]["I"]["f1_mean"] + 0.2
  assert gold["reference"]["I"]["I"]["f1_mean"] > 0.8
  row = (tmp_path / "results.csv").read_text().splitlines()[1].split(",")
  assert float(row[-1]) == round(solver, 4)


def _successor_table(n: int, seed: int):
  """One attribute of 5 values in a fixed order; context a, a, a+1; the
  answer a+2, a value no context position has, among all 5 values, so
  equality relations tie it with the other unseen values."""
  from blm_jax.data.sentence_table import SentenceTable

  rng = np.random.default_rng(seed)
  a = rng.integers(0, 5, n)
  context = np.stack([a, a, (a + 1) % 5], 1).astype(np.int32)
  answers = np.stack([rng.permutation(5) for _ in range(n)]).astype(np.int32)
  correct = np.argmax(answers == ((a + 2) % 5)[:, None], 1).astype(np.int32)
  return SentenceTable(
      sentences=tuple(map(str, range(5))), patterns=tuple(map(str, range(5))),
      context=context, context_mask=np.ones((n, 3), bool), answers=answers,
      answer_mask=np.ones((n, 5), bool), correct=correct,
      labels=np.zeros((n, 5), np.int32), label_names=("x",),
      instance_ids=tuple(map(str, range(n))),
      attributes=np.arange(5, dtype=np.int32)[:, None],
      attribute_names=("form",), attribute_sizes=(5,), attributes_missing="")


def test_value_heads_say_which_unseen_value_comes_next():
  train, test = _successor_table(60, 0), _successor_table(40, 1)
  # Equalities alone cannot: the three values no context position has
  # (the correct one among them) get the same relation features.
  ctx, ans = gold_ceiling.codes(test)
  f = np.asarray(ar.relation_features(
      jnp.asarray(ctx), jnp.asarray(test.context_mask), jnp.asarray(ans)))
  for n in range(test.num_instances):
    unseen = [k for k in range(5) if ans[n, k, 0] not in ctx[n, :, 0]]
    assert len(unseen) == 3 and test.correct[n] in unseen
    assert (f[n, unseen] == f[n, unseen[0]]).all()
  params = gold_ceiling.fit(
      train, 0, ar.Settings(hidden=16, steps=150, learning_rate=1e-2))
  assert gold_ceiling.accuracy(params, test) == 1.0
