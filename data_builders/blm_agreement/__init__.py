"""Subject-verb agreement BLMs (BLM-Agr) in English, French, Italian, Romanian."""
