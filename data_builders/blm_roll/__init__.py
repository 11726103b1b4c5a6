"""The `blm_roll` TFDS builder: English Roll-verb causative BLMs."""
