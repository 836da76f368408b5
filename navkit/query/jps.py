"""Jump Point Search queries: the query side of :mod:`navkit._kernels.jps` (docs/rules.md §3).

JPS runs under A*'s rules (8-connected, the corner rule, the same integer
costs and queue order) on bit-packed rows and columns of the effective
cells, so it returns A*'s cost; only the path may be another of the equally
short ones. The rows are built on first use and follow every occupant
change; a query's obstacle circles are cleared from them for the query and
restored after.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._kernels import geometry as _geo
from .._kernels import jps as _jps
from .._kernels import search as _search
from .._kernels.layouts import BitsArgs, JpsModelArgs, JpsOutArgs
from ..costs import CostModel
from ..results import PathBuffer, PathResult, Status, no_path, path_result
from .astar import STATUS, AStar
from .fastcall import entry_point
from .overlay import Occupancy, Overlay
from .padded import PaddedGrid
from .smoothing import StringPull
from .workspace import Workspace

__all__ = ["JPS", "PathBuffers"]

_GEN_LIMIT = _search.GEN_LIMIT
_FOUND = int(Status.FOUND)


class PathBuffers:
    """Buffers for a path's cells (int32), cell centres and waypoints (float64), ``(cap, 2)`` each.

    Grown on demand (:meth:`grow`); ``version`` counts replacements, so that
    whoever caches them knows when to look again."""

    def __init__(self, cap: int = 1024):
        self.version = 0
        self._alloc(cap)

    def _alloc(self, cap: int) -> None:
        self.cells = np.zeros((cap, 2), dtype=np.int32)
        self.pts = np.zeros((cap, 2), dtype=np.float64)
        self.wpts = np.zeros((cap, 2), dtype=np.float64)

    def grow(self, need: int) -> None:
        """Make room for a chain of ``need`` cells (at least doubling)."""
        self._alloc(max(need, 2 * len(self.cells)))
        self.version += 1


class JPS:
    """Jump Point Search on one padded grid's effective cells.

    Usable (:attr:`usable`) on uniform-cost 8-connected grids whose keys fit
    JPS's 64-bit heap keys (:attr:`fits`). ``budget`` arguments are resolved
    ints; a budget counts jump-point expansions.
    """

    def __init__(self, pg: PaddedGrid, costs: CostModel, eight: bool,
                 occ: Occupancy, overlay: Overlay, ws: Workspace,
                 smooth: StringPull, astar: AStar, bufs: PathBuffers):
        self.pg = pg
        self.costs = costs
        self.occ = occ
        self.overlay = overlay
        self.ws = ws
        self.smoother = smooth
        self.astar = astar
        self.bufs = bufs
        xb, cb = pg.jps_key_bits()
        # plain ints: numba types them as int64 like np.int64, but dispatches faster
        self.model = tuple(JpsModelArgs(card=int(costs.card), diag=int(costs.diag), xb=xb, cb=cb))
        #: JPS's heap keys pack ``(h << cb) | (z << xb | x)``: usable when they fit.
        self.fits = cb <= 31 and pg.heuristic_max(costs) < 1 << (62 - cb)
        self.usable = self.fits and not pg.weighted and eight
        #: Heap room JPS needs beyond one entry per node.
        self.heap_extra = self.heap_room(pg)
        self._bits: tuple[Any, ...] | None = None
        self.nd: NDArray[np.int64] | None = None  # per-node search state, see _kernels.jps
        self.cand: NDArray[np.int64] | None = None
        self._out: tuple[Any, ...] = (None,)  # out_args(), cached
        self._out_ver = -1
        self._call: Any = None  # jps_path's compiled entry for the buffers in _out (fastcall)
        self._cost_call: Any = None  # jps's (the search alone), for cost queries
        self._into: tuple[Any, ...] = (None, None, None)  # into_args(): (cells, nodes, args)
        occ.on_change(self._repack)

    @staticmethod
    def heap_room(pg: PaddedGrid) -> int:
        """Heap entries a JPS search needs beyond one per node (workspaces reserve them)."""
        return int(_jps.heap_reserve(pg.wp, pg.hp))

    # ------------------------------------------------------------------ rows
    @property
    def built(self) -> bool:
        """True once the packed rows exist (the first JPS query builds them)."""
        return self._bits is not None

    def bits(self) -> tuple[Any, ...]:
        """The packed rows and columns (built on first use), with the world
        query's standing overlay released (its cells restored)."""
        bits = self._bits
        if bits is not None:
            if self.overlay.standing[0]:
                self.overlay.release_standing()
            return bits
        pg = self.pg
        nwr = _jps.words_per_line(pg.wp)
        nwc = _jps.words_per_line(pg.hp)
        rows = np.zeros(_jps.bits_size(pg.hp, pg.wp), dtype=np.int64)
        cols = np.zeros(_jps.bits_size(pg.wp, pg.hp), dtype=np.int64)
        _jps.pack(self.occ.cells, pg.wp, pg.hp, rows, nwr, cols, nwc)
        bits = self._bits = tuple(BitsArgs(rows=rows, cols=cols, wp=int(pg.wp),
                                           nwr=int(nwr), nwc=int(nwc)))
        self.overlay.bits = bits
        return bits

    def _repack(self, x0: int, z0: int, x1: int, z1: int) -> None:
        if self._bits is not None:
            _jps.repack_box(self.occ.cells, self.bits(), self.pg.hp, x0, z0, x1, z1)

    def block(self, bits: tuple[Any, ...]) -> int:
        """Clear this query's overlay cells from the rows; returns how many (for :meth:`unblock`).
        Costs time in proportion to the circles' bounding boxes, not the grid."""
        ov = self.overlay
        if ov.mark <= 0 or ov.circles is None:
            return 0
        return int(_jps.overlay_block(bits, ov.marks, np.int32(ov.mark), self.pg.hp,
                                      self.pg.geo, ov.circles, ov.saved))

    def unblock(self, bits: tuple[Any, ...], k: int) -> None:
        if k > 0:
            ov = self.overlay
            _jps.overlay_restore(bits, self.pg.hp, self.pg.geo, ov.circles, ov.saved, k)

    def next_gen(self, count: int = 1) -> int:
        """Start ``count`` searches: allocate the per-node state on first use and
        reserve generations ``gen .. gen + count - 1`` (clearing the state when
        they wrap around); returns ``gen``."""
        counters = self.overlay.counters
        gen = counters.item(0) + 1
        if self.nd is None:
            self.nd = np.zeros(2 * self.pg.n, dtype=np.int64)
            self.cand = np.zeros(3 * self.heap_extra, dtype=np.int64)
            gen = 1
        elif gen + count > _GEN_LIMIT:
            self.nd.fill(0)
            gen = 1
        counters[0] = gen + count - 1
        return gen

    def last_search_state(self, start: tuple[int, int] | None = None
                          ) -> tuple[NDArray[np.int32], NDArray[np.int32]] | None:
        """The jump points of the last JPS search (cell or world query):
        ``(expanded, generated)``, cells ``(k, 2)`` int32 ``(x, z)`` in node
        order; ``expanded`` were closed, ``generated`` pushed and never closed.
        None before the first search. A world query reserves two generations
        (the second for its search toward the nearest cell): the newer one
        whose ``start`` cell (the query's start cell) is closed is reported,
        empty arrays when neither is (no search ran); without ``start``, the
        newer one with any closed node."""
        nd = self.nd
        if nd is None:
            return None
        tags = nd[0::2] >> 32
        top = int(self.overlay.counters[0])
        gens = [g for g in (top, top - 1) if g > 0]
        if start is not None:
            sn = self.pg.node(*start)
            hit = [g for g in gens if tags[sn] == 2 * g + 1]
        else:
            hit = [g for g in gens if bool(np.any(tags == 2 * g + 1))]
        if not hit:
            empty = np.zeros((0, 2), dtype=np.int32)
            return empty, empty.copy()
        gen = hit[0]
        closed = np.flatnonzero(tags == 2 * gen + 1)
        opened = np.flatnonzero(tags == 2 * gen)
        return self.pg.nodes_to_cells(closed), self.pg.nodes_to_cells(opened)

    # --------------------------------------------------------------- queries
    def cell_query(self, s: tuple[int, int], g: tuple[int, int], *, smooth: bool, nearest: bool,
                   budget: int) -> PathResult:
        """The path between cells ``s`` and ``g``.

        ``cells`` is the full cell chain, interpolated between jump points;
        ``expanded``/``generated`` count jump points. With ``nearest``: a found
        goal gives JPS's path; for an unreachable or blocked goal a flood of
        the start's region finds the reachable cell closest to the goal (the
        cell an exhaustive A* picks, docs/rules.md §6) and JPS finds the path
        to it (status NEAREST; the counts add the flooded cells); with a
        budget smaller than the grid, A* answers instead, as its budget
        decides which cells count; a budget run out gives the path to the
        expanded jump point closest to the goal, as A* does.
        """
        pg = self.pg
        return self.node_query(s, g, pg.node(*s), pg.node(*g), smooth=smooth, nearest=nearest,
                               budget=budget)

    def node_query(self, s: tuple[int, int], g: tuple[int, int], sn: int, gn: int, *,
                   smooth: bool, nearest: bool, budget: int) -> PathResult:
        """:meth:`cell_query` with the cells' padded nodes ``sn``, ``gn`` given
        (as :meth:`PaddedGrid.cell_pair` returns them: the hot path)."""
        bits = self._bits
        if bits is None or self.overlay.standing[0]:
            bits = self.bits()
        ws = self.ws
        gen = self.next_gen()  # (first: it allocates self.nd on first use)
        bufs = self.bufs
        out = self._out
        if self._out_ver != bufs.version or out[0] is not ws.path:
            out = self.out_args()
        if self.overlay.mark <= 0:  # no obstacle circles: the common case
            stats = self.astar.stats
            args = (bits, self.model, (self.nd, ws.hf, ws.hk, gen, self.cand),  # workspace
                    sn, gn, budget, bool(nearest), stats, out)
            call = self._call
            if call is None:  # the compiled search for these buffers' types (query.fastcall)
                call = self._call = entry_point(_jps.jps_path, args)
            m = call(*args)
            st = stats.tolist()
            if st[0] == _FOUND and 0 < m <= len(bufs.cells) and not smooth:  # answer(), inline
                pg = self.pg
                return path_result(Status.FOUND, bufs.cells[:m].copy(), None,
                                   st[_search.ST_COST], self.costs.card, st[_search.ST_EXPANDED],
                                   st[_search.ST_GENERATED], s, g, pg.grid.floor_y, pg.geo)
            return self.answer(m, s, g, sn, gn, smooth=smooth, nearest=nearest, budget=budget)
        k = self.block(bits)
        try:
            m = _jps.jps_path(bits, self.model,
                              (self.nd, ws.hf, ws.hk, gen, self.cand),  # a JpsWorkspaceArgs
                              sn, gn, budget, nearest, self.astar.stats, out)
        finally:
            if k:
                self.unblock(bits, k)
        return self.answer(m, s, g, sn, gn, smooth=smooth, nearest=nearest, budget=budget)

    def cost_query(self, s: tuple[int, int], g: tuple[int, int], sn: int, gn: int,
                   budget: int) -> int:
        """``cell_query(s, g, smooth=False, nearest=False, budget=budget).cost_int``
        without a :class:`PathResult` (-1: no path); ``sn``, ``gn``: the cells'
        padded nodes (:meth:`PaddedGrid.cell_pair`)."""
        bits = self._bits
        if bits is None or self.overlay.standing[0]:
            bits = self.bits()
        ws = self.ws
        gen = self.next_gen()
        stats = self.astar.stats
        k = self.block(bits) if self.overlay.mark > 0 else 0
        args = (bits, self.model, (self.nd, ws.hf, ws.hk, gen, self.cand), sn, gn, budget,
                stats)
        call = self._cost_call
        if call is None:  # the search alone: a cost needs no trace of the path
            call = self._cost_call = entry_point(_jps.jps, args)
        try:
            call(*args)
        finally:
            if k:
                self.unblock(bits, k)
        return int(stats[_search.ST_COST]) if stats[0] == _FOUND else -1

    def into_args(self, out: PathBuffer) -> tuple[Any, ...]:
        """The kernels' :class:`~navkit._kernels.layouts.JpsOutArgs` writing
        straight into ``out``'s arrays (cached while they stay the same)."""
        cells, pts = out.buffer_cells, out.buffer_points
        into = self._into
        if into[0] is cells and into[1] is self.ws.path:
            return into[2]
        args = tuple(JpsOutArgs(self.ws.path, cells, pts, self.pg.geo))
        self._into = (cells, self.ws.path, args)
        return args

    def search(self, sn: int, gn: int, budget: int, gen: int, out: tuple[Any, ...]) -> int:
        """One search padded node ``sn`` -> ``gn`` without obstacle circles, its
        path written through ``out`` (a JpsOutArgs, :meth:`out_args` or
        :meth:`into_args`); returns the path length (the status is in ``astar.stats``)."""
        bits = self._bits
        if bits is None or self.overlay.standing[0]:
            bits = self.bits()
        ws = self.ws
        args = (bits, self.model, (self.nd, ws.hf, ws.hk, gen, self.cand), sn, gn, budget,
                False, self.astar.stats, out)
        call = self._call
        if call is None:  # (the same types whichever buffers ``out`` holds)
            call = self._call = entry_point(_jps.jps_path, args)
        return int(call(*args))

    def fill(self, m: int, out: PathBuffer) -> int:
        """Record in ``out`` the answer of a search that left its status in
        ``astar.stats`` and wrote (when they fitted) its ``m`` cells through
        :meth:`into_args`; returns the path length (0: no path)."""
        st = self.astar.stats.tolist()
        if st[0] == _FOUND and 0 < m <= len(out.buffer_cells):  # the common case, inline
            out.n = m
            out.status = Status.FOUND
            out.cost_int = c = st[_search.ST_COST]
            out.cost = c / self.costs.card
            out.expanded = st[_search.ST_EXPANDED]
            out.generated = st[_search.ST_GENERATED]
            return m
        code = STATUS[st[0]]
        if code is not Status.FOUND or m <= 0:
            if code is Status.NO_START or code is Status.NO_GOAL:  # no search ran (the
                return out.set_answer(code, 0, -1, 1, 0, 0)  # counts are the last search's)
            return out.set_answer(code, 0, -1, 1, st[_search.ST_EXPANDED],
                                  st[_search.ST_GENERATED])
        if m > len(out.buffer_cells):  # the kernel wrote no cells: the nodes are in ws.path
            cells, pts = out.arrays(m)
            _jps.nodes_to_cells(self.ws.path, m, self.pg.wp, cells, pts, self.pg.geo)
        return out.set_answer(code, m, st[_search.ST_COST], self.costs.card,
                              st[_search.ST_EXPANDED], st[_search.ST_GENERATED])

    def path_into(self, s: tuple[int, int], g: tuple[int, int], sn: int, gn: int, budget: int,
                  out: PathBuffer) -> int:
        """``cell_query(s, g, smooth=False, nearest=False, budget=budget)`` written
        into ``out`` (no obstacle circles); returns the path length (0: no path).
        ``sn``, ``gn``: the cells' padded nodes (:meth:`PaddedGrid.cell_pair`)."""
        return self.fill(self.search(sn, gn, budget, self.next_gen(), self.into_args(out)), out)

    def kernel_call(self, s: tuple[int, int], g: tuple[int, int], budget: int, gen: int,
                    nearest: bool = False) -> tuple[Any, tuple[Any, ...]]:
        """``(kernel, arguments)`` of the search :meth:`cell_query` runs without
        obstacle circles, in generation ``gen`` (reserve it with :meth:`next_gen`;
        for benchmarks: ``kernel(*arguments)`` is the kernel alone)."""
        ws = self.ws
        pg = self.pg
        return _jps.jps_path, (self.bits(), self.model, (self.nd, ws.hf, ws.hk, gen, self.cand),
                               pg.node(*s), pg.node(*g), budget, nearest, self.astar.stats,
                               self.out_args())

    def out_args(self) -> tuple[Any, ...]:
        """The kernels' :class:`~navkit._kernels.layouts.JpsOutArgs` on the
        current path buffers (cached until :class:`PathBuffers` grow)."""
        self._out_ver = self.bufs.version
        self._out = tuple(JpsOutArgs(self.ws.path, self.bufs.cells, self.bufs.pts, self.pg.geo))
        self._call = None  # derived again for the new buffers
        return self._out

    def answer(self, m: int, s: tuple[int, int], g: tuple[int, int], sn: int, gn: int, *,
               smooth: bool, nearest: bool, budget: int) -> PathResult:
        """The :class:`PathResult` of a JPS-style search that left its status in
        ``astar.stats`` and its ``m`` path nodes in the workspace (online JPS and
        JPS+ share it)."""
        pg = self.pg
        fy = pg.grid.floor_y
        bufs = self.bufs
        st = self.astar.stats.tolist()
        if st[0] == _FOUND and 0 < m <= len(bufs.cells) and not smooth:  # the common case
            return path_result(Status.FOUND, bufs.cells[:m].copy(), None, st[_search.ST_COST],
                               self.costs.card, st[_search.ST_EXPANDED],
                               st[_search.ST_GENERATED], s, g, fy, pg.geo)
        ws = self.ws
        code = STATUS[st[0]]
        if code is Status.NO_START:
            return no_path(code, start_cell=s, floor_y=fy)
        if nearest and code is Status.NO_GOAL:  # a blocked goal: no search ran (the
            # kernel leaves the previous search's counts in ``stats``)
            return self._nearest(s, g, sn, gn, smooth=smooth, budget=budget,
                                 expanded=0, generated=0)
        if nearest and code is Status.UNREACHABLE:
            return self._nearest(s, g, sn, gn, smooth=smooth, budget=budget,
                                 expanded=st[_search.ST_EXPANDED],
                                 generated=st[_search.ST_GENERATED])
        if code is Status.NO_GOAL:
            return no_path(code, start_cell=s, floor_y=fy)
        expanded, generated = st[_search.ST_EXPANDED], st[_search.ST_GENERATED]
        if m == 0:
            return no_path(code, expanded=expanded, generated=generated, start_cell=s, floor_y=fy)
        if m > len(bufs.cells):
            bufs.grow(m)
            _jps.nodes_to_cells(ws.path, m, pg.wp, bufs.cells, bufs.pts, pg.geo)
        if code is Status.FOUND:
            end, cost_int = gn, st[_search.ST_COST]
        else:
            end, cost_int = st[_search.ST_BEST], st[_search.ST_BEST_COST]
        cells = bufs.cells[:m].copy()
        if smooth:
            waypoints = pg.cells_and_centres(self.smoother.pull(ws.path[:m]))[1]
        else:
            waypoints = bufs.pts[:m].copy()
        return path_result(code, cells, waypoints, cost_int, self.costs.card,
                           expanded, generated, s, pg.cell(end), fy)

    def _nearest(self, s: tuple[int, int], g: tuple[int, int], sn: int, gn: int, *,
                 smooth: bool, budget: int, expanded: int, generated: int) -> PathResult:
        """Find-path-to-nearest when JPS found no way to the goal (see :meth:`cell_query`)."""
        pg = self.pg
        if budget < pg.n:  # a budget A* could run out of: A*'s answer
            return self.astar.cell_query(s, g, smooth=smooth, nearest=True,
                                         budget=budget, window=None, hmul=pg.wmin)
        ws = self.ws
        best, flooded = _geo.reachable_nearest(self.occ.cells, self.overlay.args(),
                                               np.int64(pg.wp), np.int64(sn),
                                               np.int64(gn % pg.wp), np.int64(gn // pg.wp),
                                               ws.tag, np.int64(ws.next_gen()), ws.path)
        if best == sn:
            return no_path(Status.UNREACHABLE, expanded=expanded + flooded,
                           generated=generated + flooded, start_cell=s, floor_y=pg.grid.floor_y)
        res = self.cell_query(s, pg.cell(int(best)), smooth=smooth, nearest=False, budget=budget)
        if not len(res.cells):  # pragma: no cover - the flood reached it, so JPS does
            return no_path(Status.NEAREST, start_cell=s, expanded=expanded + flooded + res.expanded,
                           generated=generated + flooded + res.generated, floor_y=pg.grid.floor_y)
        return path_result(Status.NEAREST, res.cells, res.waypoints, res.cost_int, self.costs.card,
                           expanded + flooded + res.expanded, generated + flooded + res.generated,
                           res.start_cell, res.end_cell, res.floor_y)
