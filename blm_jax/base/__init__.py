"""Helpers every layer uses; imports nothing of blm_jax."""
