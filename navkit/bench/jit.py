"""JIT start-up figures: the first use of navkit in a new process.

Each figure comes from a fresh Python process that imports navkit, answers a
first and a second query on a 64 x 64 grid and a first batch: (a) *cold*,
with an empty ``NUMBA_CACHE_DIR`` (the kernels compile), (b) *warm*, the
second of two runs sharing the normal cache (the kernels load).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any

__all__ = ["jit_figures", "TARGET_FIRST_CALL_S", "JIT_SCRIPT"]

#: First query after import with a warm JIT cache, seconds.
TARGET_FIRST_CALL_S = 2.0

#: What each new process runs; it prints one ``NAVKIT_JIT {json}`` line.
JIT_SCRIPT = r"""
import json, time
t0 = time.perf_counter()
import navkit
t1 = time.perf_counter()
import numpy as np
walk = np.ones((64, 64), dtype=bool)
walk[8:56, 32] = False
pf = navkit.Pathfinder(navkit.NavGrid(walk), costs="exact")
t2 = time.perf_counter()
r = pf.find_path_cells((2, 32), (60, 32))
t3 = time.perf_counter()
pf.find_path_cells((0, 0), (63, 63))
t4 = time.perf_counter()
b = pf.find_paths_cells(np.array([[2, 32]]), np.array([[60, 32]]))
t5 = time.perf_counter()
print("NAVKIT_JIT " + json.dumps({
    "import_s": t1 - t0, "first_query_s": t3 - t2, "second_query_s": t4 - t3,
    "first_batch_s": t5 - t4, "found": r.found,
}))
"""


def _jit_run(env: dict[str, str], timeout: float) -> dict[str, Any]:
    """Run :data:`JIT_SCRIPT` in a new process with ``env``; its figures, or ``{"error": ...}``."""
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, "-c", JIT_SCRIPT], env=env, capture_output=True, text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    wall = time.perf_counter() - t0
    for line in proc.stdout.splitlines():
        if line.startswith("NAVKIT_JIT "):
            out: dict[str, Any] = json.loads(line[len("NAVKIT_JIT ") :])
            out["process_wall_s"] = wall
            return out
    tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
    return {"error": f"exit {proc.returncode}: {' | '.join(tail)}"}


def jit_figures(timeout: float = 600.0) -> dict[str, Any]:
    """(a) cold compile into a fresh NUMBA_CACHE_DIR; (b) warm cache, second of two runs."""
    base = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="navkit-jit-") as tmp:
        cold_env = dict(base, NUMBA_CACHE_DIR=tmp)
        cold = _jit_run(cold_env, timeout)
    warm_env = dict(base)
    warm_first = _jit_run(warm_env, timeout)
    warm = _jit_run(warm_env, timeout)
    first = warm.get("first_query_s")
    return {
        "cold": cold,
        "warm": warm,
        "warm_first_run": warm_first,
        "target_first_call_s": TARGET_FIRST_CALL_S,
        "warm_first_call_pass": None if first is None else bool(first <= TARGET_FIRST_CALL_S),
        "numba_cache_dir": base.get("NUMBA_CACHE_DIR",
                                    "(default: __pycache__ next to the kernels)"),
    }

