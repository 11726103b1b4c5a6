"""The `blm_caus_he` TFDS builder: Hebrew binyanim (CausH) BLMs."""
