"""The synthetic CausH BLMs need their context: every answer set holds one
form of each binyan and the correct binyan cycles over the four, so the
answers alone stay at chance (README, "Context-free scores"). A small build
is held to chance + 0.05 on the word logit and odd-one-in."""

import collections

import pytest

from blm_jax.data.context_free import answers_only
from data_builders.blm_caus_he import generate, morph

CHANCE = 0.25
MARGIN = 0.05


@pytest.fixture(scope="module")
def synthetic():
  return generate.synthetic(num_instances=1600)


@pytest.mark.slow
def test_answers_alone_stay_at_chance(synthetic):
  assert {len(x.answers) for x in synthetic} == {4}
  s = answers_only.score(synthetic)
  assert s.logit <= CHANCE + MARGIN and s.odd_one_in <= CHANCE + MARGIN, s


def test_target_binyan_balanced(synthetic):
  targets = collections.Counter(x.subset for x in synthetic)
  assert set(targets) == set(morph.BINYANIM)
  assert max(targets.values()) - min(targets.values()) <= 1


def test_scorer_sees_a_fixed_target(synthetic):
  """Within one target binyan the same scorer finds the answer far above
  chance (its binyan's morphology), so the pooled score above is the
  design's, not a blind scorer's (0.39 with folds grouped by answer set
  and correct answer, `answers_only.group_folds`)."""
  paal = [x for x in synthetic if x.subset == "PAAL"]
  assert answers_only.score(paal).logit > CHANCE + 0.10


def test_lint_pools_the_target_binyans(synthetic):
  """`lint --answers_only` scores caus_he over the pooled population: its
  subset (the target binyan) is given only by the context, so per subset
  the cue check would be a false alarm."""
  from blm_jax.data import lint

  report = lint.lint(synthetic[:800], answers_only=True)
  assert report.counts["answers_only_cue"] == 0, report.format()
  assert list(report.cue_scores) == ["caus_he/he/MaxLex/4 answers"]
