"""The `blm_chunks` TFDS builder: sentence-level chunk data (000 sec. 7)."""
