"""Many A* queries on one grid, spread over threads.

The multi-query kernel (:func:`~navkit._kernels.search.astar_seq_kernel`)
runs without the GIL, so a small thread pool gives each core a share: thread
``t`` answers queries ``t, t + nthreads, ...`` with its own row of every
workspace array. Every query runs the same search as a single query, so
answers are identical to single queries whatever the thread count. (Threads
rather than ``prange``: a ``parallel=True`` kernel took three times as long
to compile, and the work here needs no more than one kernel call per thread.)
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numba
import numpy as np

from .search import FOUND, STATS_SIZE, astar_seq_kernel, trace

_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=max(1, numba.config.NUMBA_NUM_THREADS),
                                       thread_name_prefix="navkit-batch")
        return _POOL


def batch_kernel(weighted: bool, use_marks: bool, window: bool, eight: bool,
                 level: bool | None = None) -> Callable[..., int]:
    """``run(grid, overlay, model, limits, wsa, gens, queue, starts, goals, out_stats, paths, path_len)``.

    Answers ``starts[i] -> goals[i]`` (padded nodes). ``wsa = (g, parent,
    tag, pos, hf, hk, rf, rk, ht)`` with one row per thread; ``gens`` holds
    each thread's last generation (advanced here; the caller reserves room);
    ``queue = (offsets, ring_bits, moves)`` for the level queue (``level``, default
    without terrain weights; see :func:`~navkit._kernels.search.astar_kernel`).
    ``out_stats`` has shape ``(n, STATS_SIZE)``; rows with status ``RETRY``
    must be repeated on the heap. When ``paths`` has one row per thread and
    ``len(starts) <= nthreads``, thread ``t`` writes its query's path into
    ``paths[t]`` and the length into ``path_len[t]`` (0 without a path).
    """
    seq = astar_seq_kernel(weighted, use_marks, window, eight, level)

    def run(grid: Any, overlay: Any, model: Any, limits: Any, wsa: Any, gens: Any, queue: Any, starts: Any,
            goals: Any, out_stats: Any, paths: Any, path_len: Any) -> int:
        g2, parent2, tag2, pos2, hf2, hk2, rf2, rk2, ht2 = wsa
        offsets, ring_bits, moves = queue
        nthreads = g2.shape[0]
        n = starts.shape[0]
        want_paths = paths.shape[0] == nthreads and n <= nthreads

        def work(t: int) -> None:
            st = np.ascontiguousarray(starts[t::nthreads])
            gl = np.ascontiguousarray(goals[t::nthreads])
            rows = np.zeros((st.shape[0], STATS_SIZE), dtype=np.int64)
            ws = (g2[t], parent2[t], tag2[t], pos2[t], hf2[t], hk2[t], np.int64(gens[t] + 1))
            rings = (rf2[t], rk2[t], ht2[t], offsets, np.int64(ring_bits), moves)
            seq(grid, overlay, model, limits, ws, rings, st, gl, rows, np.zeros(STATS_SIZE, dtype=np.int64))
            gens[t] += st.shape[0]
            out_stats[t::nthreads] = rows
            if want_paths and st.shape[0]:
                found = rows[0, 0] == FOUND
                path_len[t] = trace(parent2[t], tag2[t], grid[2], st[0], gl[0], paths[t]) if found else 0

        busy = min(nthreads, n)
        if busy <= 1:
            for t in range(nthreads):
                work(t)
        else:
            for f in [_pool().submit(work, t) for t in range(nthreads)]:
                f.result()
        return n

    return run
