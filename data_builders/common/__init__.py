"""Shared machinery of the generated BLM families: template engine, answer
shuffling, deterministic splits and the generated-builder base class."""
