"""Results of one run: its metrics, results.json, tables, plots and
context-free baselines (the study over many runs is `blm_jax.study`)."""
