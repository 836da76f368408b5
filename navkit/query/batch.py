"""Many cell queries on one grid, spread over threads (:func:`navkit.query.fanout.fan_out`).

Thread ``t`` answers queries ``t, t + nthreads, ...`` with its own row of
every workspace array, and every query runs the very search a single query
runs, so the answers are identical to single queries whatever the thread
count. A batch is cut into calls of at most :attr:`Batches.per_thread`
queries per thread, so no thread's generation counter passes its limit
inside a kernel call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._kernels import jps as _jps
from .._kernels import jps_plus as _jp
from .._kernels import search as _search
from .._kernels.layouts import JpsWorkspaceArgs, RingArgs, WorkspaceArgs
from ..results import BatchResult, Status
from .astar import AStar
from .cells import CellQueries
from .fanout import fan_out
from .jps import JPS
from .padded import PaddedGrid
from .workspace import Workspace

__all__ = ["Batches"]

_GEN_LIMIT = _search.GEN_LIMIT
_NO_PATHS = np.zeros((0, 1), dtype=np.int32)
_NO_LEN = np.zeros(1, dtype=np.int64)
_NO_CELLS = np.zeros((0, 2), dtype=np.int32)
_NO_PTS = np.zeros((0, 2), dtype=np.float64)

#: ``search(starts, goals, stats, paths, path_len)`` for one call's queries.
Search = Callable[[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int32],
                   NDArray[np.int64]], None]


class Batches:
    """Batch queries for one query object (A* / Dijkstra / JPS / JPS+), with their
    per-thread workspaces. ``cells`` (the Pathfinder's dispatch) holds the JPS+
    tables a ``"jps+"`` batch runs on (online JPS while occupants or obstacle
    circles change cells, as single queries do)."""

    def __init__(self, pg: PaddedGrid, astar: AStar, jps: JPS, cells: CellQueries | None = None):
        self.pg = pg
        self.astar = astar
        self.jps = jps
        self.cells = cells
        #: The per-thread workspace rows (built on first use; tests may set smaller rings).
        self.ws: Workspace | None = None
        self.jps_state: tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]] | None = None
        #: Most queries one thread runs in one kernel call (a generation each).
        self.per_thread = _GEN_LIMIT // 2

    def workspace(self, nthreads: int) -> Workspace:
        """The per-thread workspace rows, grown to ``nthreads`` rows (rings as
        long as the single one's)."""
        ws = self.ws
        if ws is None or ws.g.shape[0] < nthreads:
            ws = self.ws = Workspace(self.pg.n, rows=nthreads, heap_extra=self.jps.heap_extra,
                                      ring_bits=self.astar.ws.ring_bits)
        return ws

    def run(self, sn: NDArray[np.int64], gn: NDArray[np.int64], *, return_paths: bool, budget: int,
            nthreads: int, algorithm: str) -> BatchResult:
        """Answer padded ``sn[i] -> gn[i]`` with ``algorithm`` (``"astar"``,
        ``"dijkstra"``, ``"jps"``, ``"jps+"``)."""
        n = len(sn)
        ws = self.workspace(nthreads)
        hmul = 0 if algorithm == "dijkstra" else self.pg.wmin
        stats = np.zeros((n, _search.STATS_SIZE), dtype=np.int64)
        paths: list[NDArray[np.int32]] = [_NO_CELLS] * n
        if algorithm in ("jps", "jps+"):
            plus = None
            if algorithm == "jps+" and self.cells is not None:
                jp = self.cells.jps_plus_engine()
                if jp.static and self.jps.overlay.mark <= 0:
                    plus = jp.table_args()
                else:
                    jp.fallbacks += n
            search = self._jps_search(nthreads, ws, budget, plus)
        else:
            search = self._astar_search(nthreads, ws, budget, hmul)
        self._solve(search, ws, nthreads, sn, gn, np.arange(n),
                    stats, paths if return_paths else None)
        retry = np.flatnonzero(stats[:, _search.ST_STATUS] == _search.RETRY)
        # a ring of the level queue filled: again on longer rings
        while len(retry) and ws.grow_rings():
            self._solve(search, ws, nthreads, sn, gn, retry, stats, paths if return_paths else None)
            retry = np.flatnonzero(stats[:, _search.ST_STATUS] == _search.RETRY)
        for i in retry.tolist():
            # the rings are as long as they get: the single query on the heap
            s, g = int(sn[i]), int(gn[i])
            stats[i] = self.astar.run(s, g, budget, None, hmul, level_queue=False)
            if return_paths and stats[i, _search.ST_STATUS] == _search.FOUND:
                paths[i] = self.pg.nodes_to_cells(self.astar.trace(s, g))
        return self._result(stats, paths if return_paths else None)

    def _solve(self, search: Search, ws: Workspace, nthreads: int, sn: NDArray[np.int64],
               gn: NDArray[np.int64], idx: NDArray[np.intp], stats: NDArray[np.int64],
               paths: list[NDArray[np.int32]] | None) -> None:
        """Queries ``idx`` into ``stats`` (and ``paths``)."""
        out = np.zeros((len(idx), _search.STATS_SIZE), dtype=np.int64)
        if paths is None:
            step = nthreads * self.per_thread
            for lo in range(0, len(idx), step):
                part = idx[lo:lo + step]
                ws.reserve_gens(len(part) // nthreads + 1)
                search(sn[part], gn[part], out[lo:lo + len(part)], _NO_PATHS, _NO_LEN)
        else:
            rows = ws.path[:nthreads]
            plen = np.zeros(nthreads, dtype=np.int64)
            for lo in range(0, len(idx), nthreads):
                part = idx[lo:lo + nthreads]
                ws.reserve_gens(1)
                search(sn[part], gn[part], out[lo:lo + len(part)], rows, plen)
                for t, i in enumerate(part.tolist()):
                    paths[i] = self.pg.nodes_to_cells(rows[t, : plen[t]])
        stats[idx] = out

    def _astar_search(self, nthreads: int, ws: Workspace, budget: int, hmul: int) -> Search:
        a = self.astar
        weighted = self.pg.weighted
        level = not weighted and (hmul == 0 or a.level_ok)
        seq = _search.astar_seq_kernel(weighted, a.overlay.mark > 0, False, level)
        grid, ovl, model, lim = (a.grid_args(), a.overlay.args(), a.model_args(hmul),
                                 a.limit_args(budget, None))
        offsets, wp = a.stream_offsets(hmul), np.int64(self.pg.wp)
        moves = a.occ.moves

        def search(starts: Any, goals: Any, out_stats: Any, paths: Any, path_len: Any) -> None:
            # read now: grow_rings replaces the rings
            g2, parent2, tag2, pos2, hf2, hk2 = ws.g, ws.parent, ws.tag, ws.pos, ws.hf, ws.hk
            rf2, rk2, ht2, gens, rbits = ws.rf, ws.rk, ws.ht, ws.gens, np.int64(ws.ring_bits)
            n = starts.shape[0]
            want_paths = paths.shape[0] == nthreads and n <= nthreads

            def work(t: int) -> None:
                st = np.ascontiguousarray(starts[t::nthreads])
                gl = np.ascontiguousarray(goals[t::nthreads])
                rows = np.zeros((st.shape[0], _search.STATS_SIZE), dtype=np.int64)
                wst = WorkspaceArgs(g2[t], parent2[t], tag2[t], pos2[t],
                                    hf2[t], hk2[t], np.int64(gens[t] + 1))
                rings = RingArgs(rf2[t], rk2[t], ht2[t], offsets, rbits, moves)
                seq(grid, ovl, model, lim, tuple(wst), tuple(rings), st, gl, rows,
                    np.zeros(_search.STATS_SIZE, dtype=np.int64))
                gens[t] += st.shape[0]
                out_stats[t::nthreads] = rows
                if want_paths and st.shape[0]:
                    found = rows[0, _search.ST_STATUS] == _search.FOUND
                    path_len[t] = (_search.trace(parent2[t], tag2[t], wp, st[0], gl[0], paths[t])
                                   if found else 0)

            fan_out(nthreads, n, work)

        return search

    def _jps_search(self, nthreads: int, ws: Workspace, budget: int,
                    plus: tuple[Any, ...] | None = None) -> Search:
        """Online JPS, or with ``plus`` (:meth:`JPSPlus.table_args`) JPS+ on its tables."""
        j = self.jps
        size = 2 * self.pg.n
        state = self.jps_state
        if state is None or state[0].shape[0] < nthreads:
            state = self.jps_state = (np.zeros((nthreads, size), dtype=np.int64),
                                       np.zeros(nthreads, dtype=np.int64),
                                       np.zeros((nthreads, 3 * j.heap_extra), dtype=np.int64))
        nd2, gens2, cand2 = state[0][:nthreads], state[1][:nthreads], state[2][:nthreads]
        hf2, hk2 = ws.hf[:nthreads], ws.hk[:nthreads]
        bits = j.bits()
        model, wp, xb = j.model, bits[2], j.model[2]

        def search(starts: Any, goals: Any, out_stats: Any, paths: Any, path_len: Any) -> None:
            n = starts.shape[0]
            if int(gens2.max()) + n // nthreads + 1 >= _GEN_LIMIT:
                nd2.fill(0)
                gens2.fill(0)
            want_paths = paths.shape[0] == nthreads and n <= nthreads

            def work(t: int) -> None:
                st = np.ascontiguousarray(starts[t::nthreads])
                gl = np.ascontiguousarray(goals[t::nthreads])
                rows = np.zeros((st.shape[0], _search.STATS_SIZE), dtype=np.int64)
                wst = JpsWorkspaceArgs(nd2[t], hf2[t], hk2[t], int(gens2[t]) + 1, cand2[t])
                if plus is None:
                    _jps.jps_seq(bits, model, tuple(wst), st, gl, budget, rows)
                else:
                    _jp.jps_plus_seq(*plus, model, tuple(wst), st, gl, budget, rows)
                gens2[t] += st.shape[0]
                out_stats[t::nthreads] = rows
                if want_paths and st.shape[0]:
                    found = rows[0, _search.ST_STATUS] == _search.FOUND
                    path_len[t] = (_jps.jps_trace(nd2[t], wp, xb, st[0], gl[0], paths[t],
                                                  _NO_CELLS, _NO_PTS)
                                   if found else 0)

            k = j.block(bits)
            try:
                fan_out(nthreads, n, work)
            finally:
                j.unblock(bits, k)

        return search

    def _result(self, stats: NDArray[np.int64],
                paths: list[NDArray[np.int32]] | None) -> BatchResult:
        status = stats[:, _search.ST_STATUS].astype(np.uint8)
        cost_int = np.where(status == Status.FOUND, stats[:, _search.ST_COST], -1)
        cost = np.where(cost_int >= 0, cost_int / self.astar.costs.card, np.inf)
        offsets = cells = None
        if paths is not None:
            lengths = np.array([len(p) for p in paths], dtype=np.int64)
            offsets = np.zeros(len(paths) + 1, dtype=np.int64)
            np.cumsum(lengths, out=offsets[1:])
            cells = np.concatenate(paths) if paths else np.zeros((0, 2), np.int32)
        return BatchResult(status=status, cost=cost, cost_int=cost_int,
                           expanded=stats[:, _search.ST_EXPANDED].copy(),
                           generated=stats[:, _search.ST_GENERATED].copy(),
                           path_offsets=offsets, path_cells=cells)
