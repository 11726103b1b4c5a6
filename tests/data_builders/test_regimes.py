"""The generalisation regimes of the `_seq` designs (DESIGN.md: as PGM, a
neutral split, held-out rules, an extrapolation): each built small, its
splits hold the neutral config's instances, a held-out-rules test split
shares no context pattern sequence with train or dev, the extrapolation's
test alone shows the held-out period; the design analyzer's rule counts;
the registry's names."""

import collections
import dataclasses
import itertools
import random

import pytest
import tensorflow_datasets as tfds

from blm_jax.data import design
from data_builders import registry
from data_builders.blm_agreement import blm_agreement_dataset_builder as agr
from data_builders.blm_cos_od import blm_cos_od_dataset_builder as cos_od
from data_builders.blm_cos_od import seq as cos_seq
from data_builders.blm_cos_od import templates as cos_templates
from data_builders.blm_spray_load import blm_spray_load_dataset_builder as sl
from data_builders.blm_spray_load import sequence
from data_builders.common import builder, schema, splits

# (builder module, regime config, its neutral config (None: not the same
# instances), size override): a few hundred instances each; CoS/OD at 2000
# so that its 1600 rules recur and a split that ignored them would put some
# in two splits.
SMALL = {
    "spray_load_seq_rules": (sl, "seq_rules_type_III", "seq_type_III",
                             dict(type_iii_size=300)),
    "cos_en_seq_rules": (cos_od, "cos_en_seq_rules_type_I", None,
                         dict(num_instances=2000)),
    "od_it_seq_rules": (cos_od, "od_it_seq_rules_type_II", None,
                        dict(num_instances=2000)),
    "agreement_en_seq_rules": (agr, "en_seq_rules_type_I", "en_seq_type_I",
                               dict(per_clause=150)),
    "agreement_ro_seq_rules": (agr, "ro_seq_rules_type_III",
                               "ro_seq_type_III", dict(per_clause=150)),
}
RULES_NAMES = ["spray_load_seq_rules"] + [
    f"{f}_{lang}_seq_rules" for f in ("cos", "od") for lang in ("en", "it")] + [
        f"agreement_{lang}_seq_rules" for lang in ("en", "fr", "it", "ro")]


def build_small(module, config_name, tmp_path, **overrides):
  """split -> instances of `config_name` with `overrides`, built into
  tmp_path under its own name (TFDS refuses a changed config of the same
  name)."""
  cfg = {c.name: c for c in module.Builder.BUILDER_CONFIGS}[config_name]
  small = dataclasses.replace(cfg, name=f"{config_name}_small", **overrides)
  b = module.Builder(config=small, data_dir=str(tmp_path))
  b.download_and_prepare()
  out = {}
  for split in b.info.splits:
    source = b.as_data_source(split=split)
    out[split] = [schema.BLMInstance.from_example(r) for r in
                  source.__getitems__(list(range(len(source))))]
  return out


def rules_of(xs):
  return {splits.rule_key(x) for x in xs}


@pytest.mark.slow
@pytest.mark.parametrize("short", sorted(SMALL))
def test_held_out_rules_test_split_shares_no_rule(short, tmp_path):
  module, name, neutral_name, size = SMALL[short]
  assert registry.tfds_name(short, name.rsplit("_", 1)[1]) == (
      f"{module.Builder.name}/{name}")
  built = build_small(module, name, tmp_path / "rules", **size)
  assert set(built) == {"train", "dev", "test"}
  assert len(built["test"]) >= 20
  if neutral_name:  # The same instances, split otherwise.
    neutral = build_small(module, neutral_name, tmp_path / "neutral", **size)
    ids = lambda parts: sorted(x.id for xs in parts.values() for x in xs)
    assert ids(built) == ids(neutral)
  seen = rules_of(built["train"]) | rules_of(built["dev"])
  assert not seen & rules_of(built["test"])
  assert not rules_of(built["train"]) & rules_of(built["dev"])
  coverage = design.rule_coverage(built["train"], built["test"])
  assert coverage.unseen_rules == coverage.unseen_instances == 1.0
  if module is cos_od:  # The wide family: 1600 rules, recurring here.
    assert coverage.n_rules > 336 and len(rules_of(
        x for xs in built.values() for x in xs)) < 2000


def _cells_family(wide):
  return [cos_templates.seq_cells(r) for r in cos_templates.seq_rules(wide)]


def test_the_wide_cos_od_family_keeps_the_seq_design():
  """1600 rules, the neutral family's 336 among them; the seven cells
  decide the eighth, no position or pair does more than 0.6 (exact over the
  rules, drawn equally often), every answer cell as often."""
  cells = _cells_family(True)
  assert len(cells) == len(set(cells)) == 1600
  assert set(_cells_family(False)) < set(cells)
  by_prefix = collections.defaultdict(set)
  for c in cells:
    by_prefix[c[:-1]].add(c[-1])
  assert all(len(v) == 1 for v in by_prefix.values())
  assert set(collections.Counter(c[-1] for c in cells).values()) == {200}

  def majority(pos):
    groups = collections.defaultdict(collections.Counter)
    for c in cells:
      groups[tuple(c[p] for p in pos)][c[-1]] += 1
    return sum(g.most_common(1)[0][1] for g in groups.values()) / len(cells)

  assert max(majority((p,)) for p in range(7)) < 0.4
  assert max(majority(pq) for pq in itertools.combinations(range(7), 2)) < (
      design.SINGLE_POSITION_BOUND)
  assert len(cos_seq.rule_order(True)) == 1600


def test_every_seq_family_has_its_held_out_rules_regime():
  by = {e.short_name: e for e in registry.entries()}
  assert {n for n in by if n.endswith("_seq_rules")} == set(RULES_NAMES)
  for n in RULES_NAMES:
    e = by[n]
    assert e.design == "seq_rules"
    assert e.paper_designs == by[n[:-len("_rules")]].paper_designs
    for t in e.types:
      config = {c.name: c for c in tfds.builder_cls(
          e.package).BUILDER_CONFIGS}[e.tfds_name(t).split("/")[1]]
      assert config.regime == "rules" and config.sequence_necessary
  assert registry.tfds_name("agreement_fr_seq_rules", "II") == (
      "blm_agreement/fr_seq_rules_type_II")
  assert registry.lookup("spray_load_seq_extrap").design == "seq_extrap"
  # The regimes are not the `seq` design the claims set beside the papers'.
  assert registry.pairs("seq")["cos_en"] == "cos_en_seq"


@pytest.mark.slow
def test_extrapolation_test_alone_shows_the_held_out_period(tmp_path):
  built = build_small(sl, "seq_extrap_type_III", tmp_path,
                      type_iii_size=300)
  blocks = {split: {sequence.alternant_block(sequence.instance_cells(x))
                    for x in xs} for split, xs in built.items()}
  assert blocks["test"] == {sequence.EXTRAP_BLOCK}
  assert blocks["train"] == blocks["dev"] == set(sequence.BLOCKS) - {
      sequence.EXTRAP_BLOCK}
  # The seq config's instances: a quarter of the rules have block 4.
  n = sum(map(len, built.values()))
  assert n == 300 and 0.15 < len(built["test"]) / n < 0.35
  assert design.rule_coverage(built["train"], built["test"]).unseen_rules == 1


def test_alternant_block_is_read_back_from_the_cells():
  rng = random.Random(0)
  for _ in range(2000):
    rule = sequence.draw_rule(rng)
    assert sequence.alternant_block(rule.cells()) == rule.block


def test_an_unknown_pattern_is_named():
  x = schema.BLMInstance(
      "I/1", "spray_load_seq", "en", "I", "seq",
      tuple(schema.Sentence("a", "NP V") for _ in range(7)),
      (schema.Sentence("b", "NP V"),), 0, ("CORRECT",))
  with pytest.raises(ValueError, match="instance 'I/1': pattern 'NP V' is "
                     "no spray/load cell"):
    sequence.instance_cells(x)


def _toy(id_, rule, patterns=True):
  """An instance whose context patterns spell `rule` (one letter per
  sentence)."""
  ctx = tuple(schema.Sentence(f"{id_} {i}", c if patterns else "")
              for i, c in enumerate(rule))
  return schema.BLMInstance(id_, "toy", "en", "I", "seq", ctx,
                            (schema.Sentence(f"{id_} a", "x"),
                             schema.Sentence(f"{id_} b", "y")), 0,
                            ("CORRECT", "WRONG"))


def test_rule_coverage_counts_a_toy_dataset():
  train = [_toy("1", "AB"), _toy("2", "AB"), _toy("3", "BA"), _toy("4", "AA")]
  test = [_toy("5", "AB"), _toy("6", "BB"), _toy("7", "BB"), _toy("8", "AB"),
          _toy("9", "BC")]
  c = design.rule_coverage(train, test)
  assert (c.n_rules, c.n_train_rules, c.n_test_rules) == (5, 3, 3)
  assert c.unseen_rules == pytest.approx(2 / 3)
  assert c.unseen_instances == pytest.approx(3 / 5)
  assert c.as_dict()["unseen_rules"] == 0.6667
  assert "5 distinct context pattern sequences (3 in train, 3 in test); " \
         "test rules unseen in train: 0.667 (0.600 of test instances)" in (
             c.format())
  assert design.rule_coverage(train, [_toy("9", "AB", patterns=False)]) is None
  with pytest.raises(ValueError, match="rule coverage needs both splits: 4 "
                     "train and 0 test instance"):
    design.rule_coverage(train, [])


def test_design_analysis_records_the_rule_counts(tmp_path, monkeypatch,
                                                capsys):
  import json

  from studies import design_analysis
  from data_builders.common import loading
  toy = {"train": [_toy("1", "AB"), _toy("2", "BA")],
         "test": [_toy("3", "AB"), _toy("4", "BB")]}
  monkeypatch.setattr(loading, "load_instances",
                      lambda name, split, data_dir=None: toy[split])
  out = tmp_path / "design.json"
  design_analysis.main(["--names=cos_en_seq_rules", "--types=I",
                        "--rules_only", f"--out={out}"])
  record = json.loads(out.read_text())
  key = "blm_cos_od/cos_en_seq_rules_type_I"
  assert record["rules"][key]["unseen_rules"] == 0.5
  assert record["tables"]["rules"]["rows"] == [[key, 3, 2, 2, "0.500",
                                               "0.500"]]
  assert record["analyses"] == {}  # --rules_only fits nothing
  # A config without a test split: said in one line, the others go on.
  toy.pop("test")
  monkeypatch.setattr(
      loading, "load_instances", lambda name, split, data_dir=None:
      toy[split] if split in toy else (_ for _ in ()).throw(
          ValueError(f"dataset {name!r} has no split {split!r}")))
  design_analysis.main(["--names=cos_en_seq_rules,od_en_seq_rules",
                        "--types=I", "--rules_only", "--redo", f"--out={out}"])
  lines = capsys.readouterr().out.splitlines()
  assert ("blm_cos_od/cos_en_seq_rules_type_I: rules not counted: dataset "
          "'blm_cos_od/cos_en_seq_rules_type_I' has no split 'test'") in lines
  assert "blm_cos_od/od_en_seq_rules_type_I: rules not counted" in lines[-1]
  assert key in json.loads(out.read_text())["rules"]  # kept from before


@pytest.mark.slow
@pytest.mark.parametrize("regime, message", [
    ("shuffled", "blm_cos_od/cos_en_seq_type_I_bad: unknown regime "
     "'shuffled'; known: '', 'rules', 'extrap'"),
    ("extrap", "blm_cos_od/cos_en_seq_type_I_bad: regime 'extrap' but the "
     "builder marks no extrapolated instances"),
])
def test_a_bad_regime_is_one_line(regime, message, tmp_path):
  cfg = {c.name: c for c in cos_od.Builder.BUILDER_CONFIGS}[
      "cos_en_seq_type_I"]
  bad = dataclasses.replace(cfg, name="cos_en_seq_type_I_bad",
                            num_instances=40, regime=regime)
  b = cos_od.Builder(config=bad, data_dir=str(tmp_path))
  with pytest.raises(ValueError) as e:
    b.download_and_prepare()
  assert message in str(e.value) and "\n" not in str(e.value)
  assert not list(tmp_path.rglob("*.array_record*"))
  assert "extrap" in builder.REGIMES


def test_held_out_needs_both_sides():
  with pytest.raises(ValueError, match="the extrapolation split holds 0 test "
                     "and 3 training item"):
    splits.held_out(["a", "b", "c"], 0, lambda s: False, lambda s: s)
  parts = splits.held_out(list("abcdefghij"), 0, lambda s: s in "ab",
                          lambda s: s)
  assert parts["test"] == ["a", "b"]
  assert sorted(parts["train"] + parts["dev"]) == list("cdefghij")
  assert len(parts["dev"]) == 2  # 0.18 / 0.90 of the eight
