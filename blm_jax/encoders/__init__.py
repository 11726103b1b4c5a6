"""Frozen encoders as our own Flax modules, read from Hugging Face folders
(weights, config and tokenizer) without transformers at run time."""
