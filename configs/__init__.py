"""Experiment configs (ml_collections), one file per experiment kind."""
