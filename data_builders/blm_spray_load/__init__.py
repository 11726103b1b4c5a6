"""`blm_spray_load`: the English spray/load alternation BLM (000 sec. 3.2.1,
4.1; 004), generated from the curated lexicon in `lexicon/`."""
