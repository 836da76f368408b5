"""A* and Dijkstra on a padded grid: the query side of :mod:`navkit._kernels.search`
(docs/rules.md §3).

On uniform-cost grids A* runs on the *level queue* (one FIFO ring per ``f``
step); a search that fills a ring reruns on rings four times longer, and at
their longest on the indexed heap, which weighted grids always use. Both
queues expand the same nodes in the same order. The options of docs/rules.md
§3.9 (:mod:`navkit.query.options`) travel as scalars in the model group: a
diagonal mode runs on either queue (the level queue reads it from the move
masks), another heuristic or a greedy weight runs on the heap.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._kernels import jps as _jps
from .._kernels import search as _search
from .._kernels.layouts import GridArgs, LimitArgs, ModelArgs
from ..costs import CostModel
from ..results import PathBuffer, PathResult, Status, no_path, path_result
from .fastcall import entry_point
from .options import SearchOptions, search_options
from .overlay import Occupancy, Overlay
from .padded import PaddedGrid
from .smoothing import StringPull
from .workspace import Workspace

__all__ = ["AStar", "STATUS"]

#: Status by kernel code.
STATUS = tuple(Status(i) for i in range(len(Status)))
_FOUND = int(Status.FOUND)


class AStar:
    """A* / Dijkstra runs on one workspace, and the cell queries they answer.

    ``budget`` arguments are resolved ints (the query object's default applied).
    """

    def __init__(self, pg: PaddedGrid, costs: CostModel, eight: bool, occ: Occupancy,
                 overlay: Overlay, ws: Workspace, smooth: StringPull,
                 options: SearchOptions | None = None):
        self.pg = pg
        self.costs = costs
        self.eight = eight
        #: Diagonal mode, heuristic and greedy weight (docs/rules.md §3.9).
        self.options = options if options is not None else search_options(
            8 if eight else 4, None, None, 1.0, costs)
        #: Whether the level queue may run A* (octile, weight 1; Dijkstra always may).
        self.level_ok = self.options.plain
        self.occ = occ
        self.overlay = overlay
        self.ws = ws
        self.smoother = smooth
        #: The last search's statistics (``ST_*`` of :mod:`navkit._kernels.search`).
        self.stats = np.zeros(_search.STATS_SIZE, dtype=np.int64)
        self._offsets: dict[int, NDArray[np.int64]] = {}
        self._grid_t: tuple[Any, ...] | None = None
        self._model_t: dict[int, tuple[Any, ...]] = {}
        self._limits_t: tuple[int, tuple[Any, ...]] = (-1, ())
        self._rings_t: dict[tuple[int, int], tuple[Any, ...]] = {}
        # plain_args(): (hmul, budget, rings version, grid group, kernel, args, rings)
        self._plain: tuple[Any, ...] = (None,) * 7
        self._call: Any = None  # the plain search's compiled entry for the arguments of _plain
        self._call_for: Any = None
        self._trace_call: Any = None  # path_into()'s trace_cells entry

    # ------------------------------------------------------------- arguments
    # The kernels' argument groups (navkit._kernels.layouts), built through
    # their NamedTuples and cached as plain tuples: their arrays are updated
    # in place, never replaced (the rings excepted, keyed by their length),
    # until reset_args().
    def reset_args(self) -> None:
        """Forget the cached argument groups (the grid's weights array was
        replaced: a cell edit made the grid weighted); the next search builds
        them again, with the level-queue offsets and rings."""
        self._grid_t = None
        self._offsets = {}
        self._rings_t = {}

    def grid_args(self) -> tuple[Any, ...]:
        if self._grid_t is None:
            pg = self.pg
            self._grid_t = tuple(GridArgs(cells=self.occ.cells, weights=pg.weights,
                                          wp=np.int64(pg.wp), weighted=pg.weighted,
                                          nbits=np.int64(pg.nbits)))
        return self._grid_t

    def model_args(self, hmul: int) -> tuple[Any, ...]:
        t = self._model_t.get(hmul)
        if t is None:
            c, o = self.costs, self.options
            t = self._model_t[hmul] = tuple(ModelArgs(
                card=np.int64(c.card), diag=np.int64(c.diag), eight=self.eight,
                hmul=np.int64(hmul), dmode=np.int64(o.dmode), hkind=np.int64(o.hkind),
                hw=np.int64(o.hw), hs=np.float64(o.hs)))
        return t

    def limit_args(self, budget: int, window: Sequence[int] | None) -> tuple[Any, ...]:
        if window is None:
            if self._limits_t[0] != budget:
                none = np.int64(-1)
                self._limits_t = (budget,
                                  tuple(LimitArgs(np.int64(budget), none, none, none, none)))
            return self._limits_t[1]
        x0, z0, x1, z1 = self.pg.window(window)
        return tuple(LimitArgs(np.int64(budget), np.int64(x0),
                               np.int64(z0), np.int64(x1), np.int64(z1)))

    def workspace_args(self, gen: int) -> tuple[Any, ...]:
        """The workspace group for a search of generation ``gen``."""
        return self.ws.args(gen)

    def stream_offsets(self, hmul: int) -> NDArray[np.int64]:
        """The level queue's ``f`` steps for A* (``hmul`` > 0) or Dijkstra (0);
        unused by the heap."""
        offs = self._offsets.get(hmul)
        if offs is None:
            if not self.pg.weighted and (hmul == 0 or self.level_ok):
                offs = _search.stream_offsets(self.costs.card, self.costs.diag, self.eight, hmul)
            else:
                offs = np.full(_search.NSTREAMS, -1, dtype=np.int64)
            offs = self._offsets[hmul] = offs
        return offs

    def ring_args(self, hmul: int) -> tuple[Any, ...]:
        key = (hmul, self.ws.rings_version)
        t = self._rings_t.get(key)
        if t is None:
            t = self._rings_t[key] = self.ws.ring_args(self.stream_offsets(hmul), self.occ.moves)
        return t

    def plain_args(self, hmul: int, budget: int) -> tuple[Any, tuple[Any, ...], tuple[Any, ...]]:
        """``(kernel, (grid, overlay, model, limits), rings)`` of a search without
        obstacle circles or window (cached: the hot path builds nothing)."""
        p = self._plain
        if (p[0] == hmul and p[1] == budget and p[2] == self.ws.rings_version
                and p[3] is self._grid_t and p[3] is not None):
            return p[4], p[5], p[6]
        weighted = self.pg.weighted
        level = not weighted and (hmul == 0 or self.level_ok)
        kernel = _search.astar_kernel(weighted, False, False, level)
        args = (self.grid_args(), (self.overlay.marks, np.int32(0)),
                self.model_args(hmul), self.limit_args(budget, None))
        rings = self.ring_args(hmul)
        self._plain = (hmul, budget, self.ws.rings_version, args[0], kernel, args, rings)
        return kernel, args, rings

    def kernel_call(self, s: tuple[int, int], g: tuple[int, int], budget: int, hmul: int,
                    gen: int) -> tuple[Any, tuple[Any, ...]]:
        """``(kernel, arguments)`` of the search a cell query ``s`` -> ``g`` without
        obstacle circles or window runs, in generation ``gen`` (for benchmarks:
        ``kernel(*arguments)`` is the kernel alone)."""
        kernel, args, rings = self.plain_args(hmul, budget)
        pg = self.pg
        return kernel, (*args, self.ws.args(gen), rings, pg.node(*s), pg.node(*g), self.stats)

    # ------------------------------------------------------------------ runs
    def run(self, s: int, g: int, budget: int, window: Sequence[int] | None, hmul: int,
            level_queue: bool = True) -> NDArray[np.int64]:
        """Search padded node ``s`` -> ``g``; returns :attr:`stats`.

        ``level_queue=False`` runs on the heap directly (what a search whose
        rings are as long as they get falls back to)."""
        use_marks = self.overlay.mark > 0
        ws = self.ws
        status = None
        if not use_marks and window is None and level_queue:  # the common case, cached
            kernel, args, rings = self.plain_args(hmul, budget)
            full = (*args, ws.args(ws.next_gen()), rings, int(s), int(g), self.stats)
            plain = self._plain
            if self._call_for is not plain:  # the compiled search for these arguments' types
                self._call = entry_point(kernel, full)  # (query.fastcall)
                self._call_for = plain
            status = self._call(*full)
            if status != _search.RETRY:
                return self.stats
        weighted = self.pg.weighted
        args = (self.grid_args(), self.overlay.args(),
                self.model_args(hmul), self.limit_args(budget, window))
        level = level_queue and not weighted and (hmul == 0 or self.level_ok)
        kernel = _search.astar_kernel(weighted, use_marks, window is not None, level)
        if status is None:  # (else the cached call above ran this kernel and filled a ring)
            status = kernel(*args, self.workspace_args(ws.next_gen()),
                            self.ring_args(hmul), np.int64(s), np.int64(g), self.stats)
        while status == _search.RETRY and ws.grow_rings():  # a ring filled: again on longer rings
            status = kernel(*args, self.workspace_args(ws.next_gen()),
                            self.ring_args(hmul), np.int64(s), np.int64(g), self.stats)
        if status == _search.RETRY:  # a ring at its longest filled: the same search on the heap
            kernel = _search.astar_kernel(weighted, use_marks, window is not None, False)
            kernel(*args, self.workspace_args(ws.next_gen()),
                   self.ring_args(hmul), np.int64(s), np.int64(g), self.stats)
        return self.stats

    def trace(self, s: int, end: int) -> NDArray[np.int32]:
        """The padded nodes from ``s`` to ``end`` of the last search (a view of the workspace)."""
        ws = self.ws
        n = _search.trace(ws.parent, ws.tag, np.int64(self.pg.wp),
                          np.int64(s), np.int64(end), ws.path)
        return ws.path[:n]

    def free(self, cell: tuple[int, int]) -> bool:
        """True when ``cell`` is in the grid, walkable, unoccupied and not under
        this query's overlay."""
        return self.occ.free(cell) and not self.overlay.blocks(self.pg.node(*cell))

    # ------------------------------------------------------------- answers
    def _answer(self, code: Status, s: tuple[int, int], sn: int, end: int, cost_int: int,
                smooth: bool, expanded: int, generated: int) -> PathResult:
        pg = self.pg
        nodes = self.trace(sn, end)
        cells, waypoints = pg.cells_and_centres(nodes)
        if smooth:
            waypoints = pg.cells_and_centres(self.smoother.pull(nodes))[1]
        return path_result(code, cells, waypoints, cost_int, self.costs.card,
                           expanded, generated, s, pg.cell(end), pg.grid.floor_y)

    def cell_query(self, s: tuple[int, int], g: tuple[int, int], *, smooth: bool, nearest: bool,
                   budget: int, window: Sequence[int] | None, hmul: int) -> PathResult:
        """The path between cells ``s`` and ``g`` (A* with ``hmul`` = the
        smallest weight, Dijkstra with 0)."""
        pg = self.pg
        return self.node_query(s, g, pg.node(*s), pg.node(*g), smooth=smooth, nearest=nearest,
                               budget=budget, window=window, hmul=hmul)

    def node_query(self, s: tuple[int, int], g: tuple[int, int], sn: int, gn: int, *,
                   smooth: bool, nearest: bool, budget: int, window: Sequence[int] | None,
                   hmul: int) -> PathResult:
        """:meth:`cell_query` with the cells' padded nodes ``sn``, ``gn`` given
        (as :meth:`PaddedGrid.cell_pair` returns them: the hot path)."""
        pg = self.pg
        fy = pg.grid.floor_y
        wp = pg.wp
        cells = self.occ.cells
        w, d = pg.width, pg.depth
        if self.overlay.mark <= 0:  # free(), inline: no obstacle circles
            if not (0 <= s[0] < w and 0 <= s[1] < d and cells[sn]):
                return no_path(Status.NO_START, start_cell=s, floor_y=fy)
            if not nearest and not (0 <= g[0] < w and 0 <= g[1] < d and cells[gn]):
                return no_path(Status.NO_GOAL, start_cell=s, floor_y=fy)
        else:
            if not self.free(s):
                return no_path(Status.NO_START, start_cell=s, floor_y=fy)
            if not self.free(g) and not nearest:
                return no_path(Status.NO_GOAL, start_cell=s, floor_y=fy)
        st = self.run(sn, gn, budget, window, hmul).tolist()
        code = STATUS[st[_search.ST_STATUS]]
        expanded, generated = st[_search.ST_EXPANDED], st[_search.ST_GENERATED]
        if code is Status.FOUND and not smooth:  # the common case
            ws = self.ws
            n = _search.trace(ws.parent, ws.tag, wp, sn, gn, ws.path)
            cells_, pts = pg.cells_and_centres(ws.path[:n])
            return path_result(code, cells_, pts, st[_search.ST_COST], self.costs.card,
                               expanded, generated, s, g, fy)
        if code == Status.FOUND:
            end, cost_int = gn, st[_search.ST_COST]
        elif nearest and st[_search.ST_BEST] != sn:
            end, cost_int = st[_search.ST_BEST], st[_search.ST_BEST_COST]
            if code == Status.UNREACHABLE or code == Status.WINDOW_EXHAUSTED:
                code = Status.NEAREST
        else:
            return no_path(code, expanded=expanded, generated=generated, start_cell=s, floor_y=fy)
        return self._answer(code, s, sn, end, cost_int, smooth, expanded, generated)

    def cost_query(self, s: tuple[int, int], g: tuple[int, int], sn: int, gn: int, budget: int,
                   hmul: int) -> int:
        """``cell_query(s, g, smooth=False, nearest=False, budget=budget,
        window=None, hmul=hmul).cost_int`` without tracing the path (-1: no path);
        ``sn``, ``gn``: the cells' padded nodes (:meth:`PaddedGrid.cell_pair`)."""
        if self.overlay.mark > 0:
            if not (self.free(s) and self.free(g)):
                return -1
        else:
            pg = self.pg
            if not (0 <= s[0] < pg.width and 0 <= s[1] < pg.depth
                    and 0 <= g[0] < pg.width and 0 <= g[1] < pg.depth):
                return -1
        cells = self.occ.cells
        if not (cells[sn] and cells[gn]):
            return -1
        st = self.run(sn, gn, budget, None, hmul)
        return int(st[_search.ST_COST]) if st[_search.ST_STATUS] == _FOUND else -1

    def path_into(self, s: tuple[int, int], g: tuple[int, int], sn: int, gn: int, budget: int,
                  hmul: int, out: PathBuffer) -> int:
        """``cell_query(s, g, smooth=False, nearest=False, budget=budget,
        window=None, hmul=hmul)`` written into ``out``
        (:meth:`navkit.Pathfinder.find_path_into`); returns the path length (0: no path).
        ``sn``, ``gn``: the cells' padded nodes (:meth:`PaddedGrid.cell_pair`)."""
        pg = self.pg
        wp = pg.wp
        cells = self.occ.cells
        if self.overlay.mark > 0:
            if not self.free(s):
                return out.set_answer(Status.NO_START, 0, -1, 1, 0, 0)
            if not self.free(g):
                return out.set_answer(Status.NO_GOAL, 0, -1, 1, 0, 0)
        elif not cells[sn]:
            return out.set_answer(Status.NO_START, 0, -1, 1, 0, 0)
        elif not cells[gn]:
            return out.set_answer(Status.NO_GOAL, 0, -1, 1, 0, 0)
        ws = self.ws
        if self.overlay.mark <= 0:  # run()'s cached case, inline (the hot path)
            kernel, pargs, rings = self.plain_args(hmul, budget)
            full = (*pargs, ws.args(ws.next_gen()), rings, sn, gn, self.stats)
            if self._call_for is not self._plain:
                self._call = entry_point(kernel, full)
                self._call_for = self._plain
            if self._call(*full) == _search.RETRY:  # a ring filled: run() grows them
                self.run(sn, gn, budget, None, hmul)
        else:
            self.run(sn, gn, budget, None, hmul)
        st = self.stats.tolist()
        code = STATUS[st[_search.ST_STATUS]]
        if code is not Status.FOUND:
            return out.set_answer(code, 0, -1, 1, st[_search.ST_EXPANDED],
                                  st[_search.ST_GENERATED])
        cells_, pts = out.buffer_cells, out.buffer_points  # path and cells: one kernel
        args = (ws.parent, ws.tag, wp, sn, gn, ws.path, cells_, pts, pg.geo)
        call = self._trace_call
        if call is None:  # the compiled entry: the same argument types on every call
            call = self._trace_call = entry_point(_jps.trace_cells, args)
        n = call(*args)
        if n > len(cells_):  # they did not: grow the buffer; the nodes are in ws.path
            cells_, pts = out.arrays(n)
            _jps.nodes_to_cells(ws.path, n, wp, cells_, pts, pg.geo)
        out.n = n  # out.set_answer(), inline (the hot path)
        out.status = code
        out.cost_int = c = st[_search.ST_COST]
        out.cost = c / self.costs.card
        out.expanded = st[_search.ST_EXPANDED]
        out.generated = st[_search.ST_GENERATED]
        return n

    def border_goal_query(self, s: tuple[int, int], g: tuple[int, int], *, smooth: bool,
                          budget: int, window: Sequence[int] | None) -> PathResult:
        """Find-path-to-nearest toward a goal cell ``g`` outside the grid (docs/rules.md §6).

        Searches toward the grid cell nearest to it (a padding node, never
        passable), then picks among the expanded cells the one closest to the
        true goal cell (squared cell distance, ties to the lower index)."""
        pg = self.pg
        fy = pg.grid.floor_y
        if not self.free(s):
            return no_path(Status.NO_START, start_cell=s, floor_y=fy)
        sn = pg.node(*s)
        clamped = (min(max(g[0], -1), pg.width), min(max(g[1], -1), pg.depth))
        st = self.run(sn, pg.node(*clamped), budget, window, pg.wmin)
        code = STATUS[int(st[_search.ST_STATUS])]
        expanded, generated = int(st[_search.ST_EXPANDED]), int(st[_search.ST_GENERATED])
        closed = self.ws.closed_nodes()
        cz = closed // pg.wp - 1
        cx = closed % pg.wp - 1
        d2 = (cx - g[0]) ** 2 + (cz - g[1]) ** 2
        best = int(closed[np.lexsort((closed, d2))[0]])
        if best == sn:
            return no_path(code, expanded=expanded, generated=generated, start_cell=s, floor_y=fy)
        if code in (Status.UNREACHABLE, Status.WINDOW_EXHAUSTED):
            code = Status.NEAREST
        return self._answer(code, s, sn, best, int(self.ws.g[best]), smooth, expanded, generated)

    def distance_field(self, sources: NDArray[np.int64]) -> NDArray[np.int64]:
        """Integer cost from the nearest of padded ``sources`` to every node (-1:
        unreachable), shape (n,)."""
        dist = np.empty(self.pg.n, dtype=np.int64)
        _search.distance_field(self.grid_args(), self.overlay.args(), self.model_args(0),
                               self.workspace_args(self.ws.next_gen()), sources, dist)
        return dist
