"""`blm_sequence_of_tense`: Italian hypotheticals (000 sec. 3.2.5),
generated from the adjective lexicon in `lexicon/`; its morphology and
realiser are shared with `blm_mixture`."""
