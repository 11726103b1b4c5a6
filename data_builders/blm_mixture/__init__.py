"""`blm_mixture`: the Italian Mixture BLM (000 appendix 11.1), generated
from `blm_sequence_of_tense`'s adjectives and the incidental clauses in
`lexicon/`."""
