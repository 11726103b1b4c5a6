"""The test suite: one folder per package layer (tests/README.md), the
helpers several folders share at this level."""

import os

# The repository root, for tests that run its commands or read its files.
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
