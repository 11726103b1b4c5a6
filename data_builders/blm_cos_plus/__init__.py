"""The `blm_cos_plus` TFDS builder: COS+ change-of-state food BLMs."""
