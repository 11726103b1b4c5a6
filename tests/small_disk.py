"""A real full disk for tests and the fault campaign: a small tmpfs (needs
root; callers skip when it cannot be mounted)."""

from __future__ import annotations

import os
import subprocess


def mount_tmpfs(where, size: str = "48k") -> bool:
  """Mounts a tmpfs of `size` at `where` (made if missing); False when it
  cannot be mounted here. Unmount with `umount <where>`."""
  os.makedirs(where, exist_ok=True)
  try:
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}",
                           "tmpfs", str(where)], capture_output=True)
  except OSError:
    return False
  return proc.returncode == 0
