"""The std over seeds in results.json is the sample std (ddof=1)."""

import numpy as np
import pytest

from blm_jax.results import metrics as evaluate
from blm_jax.training.grid import GridSpec


def _cell(seed, f1):
  return {"seed": seed, "train_type": "I",
          "test": {"I": {"f1": f1, "accuracy": f1, "chosen": {"Corr": 1}}}}


def test_std_over_seeds_is_the_sample_std():
  spec = GridSpec(seeds=(0, 1, 2), train_types=("I",))
  out = evaluate.summarize(spec, [_cell(0, 0.5), _cell(1, 0.6),
                                  _cell(2, 0.7)], ("I",))
  assert out["I"]["I"]["f1_std"] == pytest.approx(0.1)  # not 0.0816
  assert out["I"]["I"]["accuracy_std"] == pytest.approx(0.1)
  assert evaluate.sample_std(np.array([0.4])) == 0.0
