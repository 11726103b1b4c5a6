"""The report's lines that set our grids beside 000: Table 5's rows and
each dataset section's "what differs" line."""

from blm_jax.study import paper_comparison


def test_table5_rows_follow_the_papers_order_and_add_sources_it_lacks():
  def run(f1):
    return {"sent_vae": {"summary": {"c": {"c": {"f1_mean": f1,
                                                 "f1_std": 0.01}}},
                         "grid": {"seeds": [0, 1, 2]},
                         "config": {"encoder": "minilm"}}}

  section = paper_comparison.table5({"chunks_zz_new": run(0.5),
                                     "chunks_od_it": run(0.7),
                                     "chunks_cos_en": run(0.6),
                                     "spray_load": {"ffnn": {}}})
  lines = section.lines()
  rows = [x for x in lines if x.startswith("| ") and "---" not in x][1:]
  assert rows == ["| CoS En | 0.909 (0.015) | 0.600 (0.010) | 3 |",
                  "| OD It | 0.975 (0.004) | 0.700 (0.010) | 3 |",
                  "| zz_new | – | 0.500 (0.010) | 3 |"]
  assert section.table()["rows"][0] == ["CoS En", "0.909 (0.015)",
                                        "0.600 (0.010)", "3"]
  assert "the encoder (minilm here" in lines[-2]
  assert paper_comparison.table5({"spray_load": {"ffnn": {}}}) is None


def test_what_differs_names_the_encoder_runs_sample_and_cnn():
  run = lambda seeds, sample: {"grid": {"seeds": list(range(seeds))},
                               "data": {"sample_seed": sample},
                               "config": {"encoder": "minilm"}}
  line = paper_comparison.what_differs(
      "cos_en", {"ffnn": run(5, "the grid seed"),
                 "cnn": run(5, "the grid seed")})
  assert line.startswith(
      "What differs from 000: the encoder (minilm here; 000 sec. 6.1: "
      "\"averaged token embeddings\" of Electra and OpenAI-GPT); the runs "
      "(5 seeds here, each drawing its own train/dev sample; 000 sec. 6.2: "
      "\"average F1 scores [...] over three runs\")")
  assert "000 prints no CNN heatmap" in line
  alone = paper_comparison.what_differs("cos_en", {"vae2": run(3, "data.seed")})
  assert "(3 seeds here, one train/dev sample;" in alone
  assert "CNN" not in alone


def test_text_bounds_skip_a_grid_without_the_hardest_cell():
  """The bound is on the FFNN's I->III cell: a spray/load grid trained or
  tested on fewer types has no row (it raised KeyError 'III')."""
  def run(summary):
    return {"spray_load": {"ffnn": {"summary": summary,
                                    "config": {"encoder": "minilm"}}}}

  assert paper_comparison.text_bounds(run({"I": {"I": {}}})) is None
  section = paper_comparison.text_bounds(run(
      {"I": {"III": {"f1_mean": 0.812, "f1_std": 0.02}}}))
  rows = [r[-1] for r in section.table()["rows"]]
  assert rows == ["0.812 ± 0.020", "0.812 ± 0.020"]
