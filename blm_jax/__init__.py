"""BLM-JAX: Blackbird Language Matrices with frozen Flax encoders and vmapped solver grids."""
