"""Sentence embeddings: each distinct sentence embedded once, data-parallel,
and cached on disk under a key of the encoder and its settings."""
