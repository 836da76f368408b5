"""Many A* queries on one grid, spread over threads with ``prange``.

Each thread owns one row of every workspace array, so threads never share
state; query ``i`` is answered by thread ``i % nthreads``. Every query runs the
same :func:`~navkit._kernels.search.astar` as a single query, so answers are
identical to single queries whatever the thread count.
"""

from __future__ import annotations

import numba
import numpy as np

from .._numba_config import njit
from .search import ST_COST, STATS_SIZE, astar, trace

NO_START = 5
NO_GOAL = 6


@njit(parallel=True)
def astar_many(grid, overlay, model, limits, wsa, gens, starts, goals, out_stats, paths, path_len):  # type: ignore[no-untyped-def]
    """Answer queries ``starts[i] -> goals[i]`` (padded nodes).

    ``wsa = (g, parent, tag, hf, hg, hn)`` with one row per thread; ``gens``
    holds each thread's current generation (advanced here). ``out_stats``
    has shape ``(n, STATS_SIZE)``. When ``paths`` has one row per thread and
    ``len(starts) <= nthreads``, thread ``t`` writes its path into ``paths[t]``
    and its length into ``path_len[t]``.
    """
    g2, parent2, tag2, hf2, hg2, hn2 = wsa
    cells = grid[0]
    nthreads = g2.shape[0]
    n = starts.shape[0]
    want_paths = paths.shape[0] == nthreads and n <= nthreads
    for t in numba.prange(nthreads):
        stats = np.zeros(STATS_SIZE, dtype=np.int64)
        for i in range(t, n, nthreads):
            s = starts[i]
            gl = goals[i]
            if cells[s] == 0:
                out_stats[i, 0] = NO_START
                out_stats[i, ST_COST] = -1
                continue
            if cells[gl] == 0:
                out_stats[i, 0] = NO_GOAL
                out_stats[i, ST_COST] = -1
                continue
            gens[t] += 1
            ws = (g2[t], parent2[t], tag2[t], hf2[t], hg2[t], hn2[t], gens[t])
            astar(grid, overlay, model, limits, ws, s, gl, stats)
            for k in range(STATS_SIZE):
                out_stats[i, k] = stats[k]
            if want_paths:
                if stats[0] == 0:
                    path_len[t] = trace(parent2[t], s, gl, paths[t])
                else:
                    path_len[t] = 0
    return n
