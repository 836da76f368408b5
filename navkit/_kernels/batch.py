"""Many A* queries on one grid, spread over threads with ``prange``.

Each thread owns one row of every workspace array, so threads never share
state; query ``i`` is answered by thread ``i % nthreads``. Every query runs the
same A* kernel as a single query, so answers are identical to single queries
whatever the thread count.
"""

from __future__ import annotations

import numba
import numpy as np

from .._numba_config import njit
from .search import ST_COST, STATS_SIZE, astar_body, trace, variant_name

NO_START = 5
NO_GOAL = 6


def _make_batch(weighted: bool, use_marks: bool, win: bool, eight: bool):  # type: ignore[no-untyped-def]
    def astar_many(grid, overlay, model, limits, wsa, gens, starts, goals, out_stats, paths, path_len):  # type: ignore[no-untyped-def]
        g2, parent2, tag2, hf2, hk2 = wsa
        cells = grid[0]
        marks, mark = overlay
        nthreads = g2.shape[0]
        n = starts.shape[0]
        want_paths = paths.shape[0] == nthreads and n <= nthreads
        for t in numba.prange(nthreads):
            stats = np.zeros(STATS_SIZE, dtype=np.int64)
            for i in range(t, n, nthreads):
                s = starts[i]
                gl = goals[i]
                s_blocked = cells[s] == 0 or (use_marks and marks[s] == mark)
                g_blocked = cells[gl] == 0 or (use_marks and marks[gl] == mark)
                if s_blocked or g_blocked:
                    out_stats[i, 0] = NO_START if s_blocked else NO_GOAL
                    out_stats[i, ST_COST] = -1
                    if want_paths:
                        path_len[t] = 0
                    continue
                gens[t] += 1
                ws = (g2[t], parent2[t], tag2[t], hf2[t], hk2[t], gens[t])
                astar_body(grid, overlay, model, limits, ws, s, gl, stats, weighted, use_marks, win, eight)
                for k in range(STATS_SIZE):
                    out_stats[i, k] = stats[k]
                if want_paths:
                    if stats[0] == 0:
                        path_len[t] = trace(parent2[t], s, gl, paths[t])
                    else:
                        path_len[t] = 0
        return n

    # a unique name per variant keeps numba's symbols and cache files apart
    astar_many.__name__ = astar_many.__qualname__ = "astar_many_" + variant_name(weighted, use_marks, win, eight)
    return njit(parallel=True)(astar_many)


_BATCH: dict[tuple[bool, bool, bool, bool], object] = {}


def batch_kernel(weighted: bool, use_marks: bool, window: bool, eight: bool):  # type: ignore[no-untyped-def]
    """``astar_many(grid, overlay, model, limits, wsa, gens, starts, goals, out_stats, paths, path_len)``.

    Answers ``starts[i] -> goals[i]`` (padded nodes). ``wsa = (g, parent,
    tag, hf, hk)`` with one row per thread; ``gens`` holds each
    thread's generation (advanced here). ``out_stats`` has shape
    ``(n, STATS_SIZE)``. When ``paths`` has one row per thread and
    ``len(starts) <= nthreads``, thread ``t`` writes its path into
    ``paths[t]`` and the length into ``path_len[t]``.
    """
    key = (bool(weighted), bool(use_marks), bool(window), bool(eight))
    kernel = _BATCH.get(key)
    if kernel is None:
        kernel = _BATCH[key] = _make_batch(*key)
    return kernel
