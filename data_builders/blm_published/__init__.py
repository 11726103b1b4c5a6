"""`blm_published`: the officially released BLM files, read from a manual_dir."""
