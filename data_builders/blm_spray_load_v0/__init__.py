"""`blm_spray_load_v0`: the earlier English spray/load BLM (BLM-s/lE v0, 003
sec. 4.2), generated from the `blm_spray_load` lexicon."""
