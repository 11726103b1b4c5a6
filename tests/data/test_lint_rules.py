"""lint --design on a TFDS name: the rules (context pattern sequences) of
its whole train and test splits and the share of test rules unseen in
training, printed once after the splits' reports."""

from blm_jax.cli import lint as lint_cli
from blm_jax.data import design
from tests.results.test_gold_ceiling import _seq_instances


def _patch(monkeypatch, parts):
  monkeypatch.setattr(lint_cli, "_sources", lambda target, *_: iter(
      [(f"{target}[{split}]", xs) for split, xs in parts.items()]))
  monkeypatch.setattr(lint_cli, "targets_of", lambda target: [target])
  monkeypatch.setattr(lint_cli, "context_necessary", lambda *_: False)


def test_design_prints_the_rules_of_train_and_test(monkeypatch, capsys):
  # Under 40 instances a split's analysis is not fitted (too few): fast.
  train, test = _seq_instances(30, 0), _seq_instances(20, 2)
  # Two test instances with a training instance's rule: not all unseen.
  test = test[:18] + train[:2]
  _patch(monkeypatch, {"train": train, "test": test})
  lint_cli.main(["blm_spray_load/seq_rules_type_I", "--design"])
  out = capsys.readouterr().out
  expected = design.rule_coverage(train, test)
  assert 0 < expected.unseen_rules < 1
  assert ("blm_spray_load/seq_rules_type_I (train and test splits)\n"
          + expected.format()) in out
  # The whole splits are counted, not the --sample drawn for the analysis.
  lint_cli.main(["blm_spray_load/seq_rules_type_I", "--design",
                 "--sample=10"])
  assert expected.format() in capsys.readouterr().out


def test_no_rules_line_without_design_or_without_both_splits(monkeypatch,
                                                             capsys):
  train, test = _seq_instances(30, 0), _seq_instances(10, 2)
  _patch(monkeypatch, {"train": train, "test": test})
  lint_cli.main(["blm_spray_load/seq_rules_type_I"])
  assert "(train and test splits)" not in capsys.readouterr().out
  _patch(monkeypatch, {"train": train})
  lint_cli.main(["blm_spray_load/seq_rules_type_I", "--design"])
  assert "(train and test splits)" not in capsys.readouterr().out
