"""Analysis of trained runs: restoring a workdir's cells and probing them
(confusion matrices, latent traversal, projections)."""
