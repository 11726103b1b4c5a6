"""Data: from BLM instances to the index arrays the solvers read, plus the
checks and exports that read instances (lint, the design analyzer, export)
and the context-free scorers (`context_free/`)."""
