"""Run a snippet twice, with and without the JIT (``NUMBA_DISABLE_JIT=1``),
and check both runs print the same: the kernels as plain Python agree with
the compiled ones, and coverage and tracebacks reach them."""

from __future__ import annotations

import os
import subprocess
import sys


def assert_same_without_jit(code: str, timeout: float = 300) -> None:
    """``code`` runs (exit 0) in two fresh interpreters, plain and compiled, with the
    same stdout."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    slow = subprocess.run([sys.executable, "-c", code], env=env,
                          capture_output=True, text=True, timeout=timeout)
    assert slow.returncode == 0, slow.stderr
    fast = subprocess.run([sys.executable, "-c", code],
                          capture_output=True, text=True, timeout=timeout)
    assert fast.returncode == 0, fast.stderr
    assert slow.stdout == fast.stdout
