"""Training: one solver cell, the grid that vmaps it over seeds x train
types (and variants), checkpoints, run identity and config checks, and the
trainer that runs the epochs."""
