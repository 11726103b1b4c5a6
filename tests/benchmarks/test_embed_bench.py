"""benchmarks/embed_bench.py --stages: the warm end-to-end time split
against the forward pass, on a tiny BERT."""
import importlib
import os
import sys

import numpy as np
import pytest

from blm_jax.embedding import embed
from blm_jax.encoders import encoder as encoders
from tests import ROOT, tiny_checkpoints

sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
embed_bench = importlib.import_module("embed_bench")


@pytest.mark.slow
def test_stages_add_up_to_the_run_and_name_its_shapes(tmp_path, capsys):
  bert = encoders.load_encoder(tiny_checkpoints.write_bert(str(tmp_path)))
  rng = np.random.default_rng(0)
  texts = [" ".join(rng.choice(tiny_checkpoints.WORDS,
                               size=rng.integers(2, 12))) + " ."
           for _ in range(24)]
  table = embed_bench.stage_split(bert, texts, 8, 1, cold_s=30.0, cold_n=24)
  lengths = [len(x) for x in bert.tokenize(texts, 64)]
  import jax
  assert [tuple(x) for x in table["compiled_shapes"]] == sorted(
      set(embed.batch_shapes(lengths, 8, jax.local_devices())))
  seconds = table["seconds"]
  for clock in ("wall", "cpu"):
    parts = sum(v[clock] for k, v in seconds.items() if k != "end_to_end")
    assert parts == pytest.approx(seconds["end_to_end"][clock])
    assert seconds["tokenize"][clock] > 0 < seconds["cache_writes"][clock]
  assert table["ratio_wall"] == pytest.approx(
      seconds["forward_own_lengths"]["wall"] / seconds["end_to_end"]["wall"])
  assert table["sentences"] == 24 and 0 <= table["padding"] < 1
  out = capsys.readouterr().out
  assert "forward-only at the sentences' own lengths" in out
