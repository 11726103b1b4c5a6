"""BLM-JAX: Blackbird Language Matrices solved from frozen sentence embeddings.

The package is built in layers; each imports only the layers below it (and
`data_builders`, the data side, which imports nothing of `blm_jax`):

  cli/        command lines (python -m blm_jax.cli.<name>); nothing imports them
  study/      the reproduction study over many runs: suites, the papers'
              values and claims, judging them, reports, study records
  analysis/   restoring a trained run from its workdir; probing its cells;
              the diagnosis ladder on one design
  results/    one run's metrics, results.json, tables and plots
  training/   the solver cell, the vmapped grid, its variants, checkpoints,
              run identity, config checks, the trainer
  models/     the solvers (Flax modules) and their losses
  embedding/  sentence embeddings of a table, the on-disk cache, filling it
  encoders/   frozen Flax encoders, their tokenizers and checkpoint readers
  data/       the sentence table, the input pipeline, lint, export, the
              context-free scorers and their cache
  base/       helpers every layer uses (atomic file writes)

Below them, `data_builders` holds the instance schema, the answer labels,
loading a dataset by name, and the TFDS builders of every BLM family.
"""
