"""The `blm_cos_od` TFDS builder: change-of-state and object-drop BLMs."""
