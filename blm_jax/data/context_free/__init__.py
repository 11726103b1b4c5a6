"""The context-free scorers: what a BLM's answers give without its context.

A BLM result means something only if the context was needed. These
modules score candidates that never see the context:

  answers_only   word uni/bigram conditional logit, odd-one-in, folds
                 (`lint --answers_only`, the design analyzer)
  set_features   each candidate described relative to its answer set
  set_scorer     the set logit and boosted trees on those features
  stacked_logit  several conditional logits fitted in one jitted vmap
  scorers        each scorer per (train type, test type) of a grid
  cache          their scores, content-keyed on disk, shared by the grids
                 of one dataset

The candidate-only MLP trains with the solvers' max-margin loss
(`models.losses`, a layer above this one), so it and the assembly of all
five scores into a run's results.json live in `blm_jax.results.context_free`.
"""
