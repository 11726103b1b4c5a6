"""Data: from BLM instances to the index arrays the solvers read, plus the
checks and exports that read instances (lint, answers-only scores, export)."""
