"""Command lines, one module each: python -m blm_jax.cli.<name> --help."""
