"""Cross-floor routes through link ends (docs/rules.md §16.9): the fast path.

A path across floors is a chain of single-floor paths joined by links, so its
cheapest cost is the shortest route through a small graph whose nodes are the
start, the goal and every link's two end cells: within a floor an edge costs
the exact single-floor distance (from distance fields of each link end, one
per floor version), a link edge its integer cost (§16.3). Dijkstra on that
graph picks the links; each floor's piece is then one ordinary single-floor
query (A*, JPS, JPS+ on that floor's :class:`~navkit.query.pathfinder.Pathfinder`),
so a cross-floor query costs about the single-floor queries it is made of.

The costs equal the layered search's (:class:`~navkit.floors.search.FloorSearch`);
the cells may differ between equally cheap paths, as JPS's may from A*'s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._kernels import floors as _kf
from ..query.flow import FlowField
from ..query.pathfinder import Pathfinder
from ..results import PathBuffer
from .building import Building
from .search import CellPath, FloorSearch

__all__ = ["PortalRouter", "MAX_PORTAL_LINKS", "MAX_FIELD_CELLS"]

#: More directed links than this: the layered search answers instead.
MAX_PORTAL_LINKS = 128
#: More field entries than this (link ends x floor cells, twice when weighted):
#: the layered search answers instead (8 bytes each).
MAX_FIELD_CELLS = 1 << 25


class _FloorFields:
    """One floor's fields: for each link end cell on it, the cost of walking
    away from it (``away``) and to it (``toward``), int64 ``(ends, depth,
    width)``, -1 where unreachable; ``index`` maps an end's node to its row."""

    def __init__(self, grid_id: int, index: dict[int, int], away: NDArray[np.int64],
                 toward: NDArray[np.int64]):
        self.grid_id = grid_id
        self.index = index
        self.away = away
        self.toward = toward


class PortalRouter:
    """Routes across floors through link ends (see the module docs)."""

    def __init__(self, building: Building, search: FloorSearch,
                 pathfinder: Callable[[int], Pathfinder]):
        self.building = building
        self.search = search
        self.pathfinder = pathfinder
        self._fields: dict[int, _FloorFields] = {}
        s = search
        ends = building.link_end_nodes()
        self._floor_ends: dict[int, list[int]] = {}
        for node in sorted({int(v) for v in ends.ravel()}):
            self._floor_ends.setdefault(node // s.plane, []).append(node)
        weighted = any(building.grid(f).weights is not None
                       for f in range(len(building.floor_names)))
        total = sum(len(v) for v in self._floor_ends.values()) * s.plane * (2 if weighted else 1)
        self.usable = len(s.esrc) <= MAX_PORTAL_LINKS and total <= MAX_FIELD_CELLS
        e = len(s.esrc)
        self._sf = (s.esrc // s.plane).astype(np.int64)
        self._df = (s.edst // s.plane).astype(np.int64)
        r = s.esrc % s.plane
        self._sx, self._sz = r % s.width, r // s.width
        r = s.edst % s.plane
        self._dx, self._dz = r % s.width, r // s.width
        self._w_key: Any = None
        self._bufs: list[PathBuffer] = []
        self._on_key: Any = None
        self._on = np.zeros(e, bool)
        self._t0 = np.zeros(e, np.int64)
        self._tg = np.zeros(e, np.int64)
        nf = len(building.floor_names)
        self._by_src_floor = [np.flatnonzero(self._sf == f) for f in range(nf)]
        self._by_dst_floor = [np.flatnonzero(self._df == f) for f in range(nf)]
        # each link end's row in its floor's fields (the rows are fixed: sorted end nodes)
        rows = {n: i for f, nodes in self._floor_ends.items() for i, n in enumerate(nodes)}
        self._src_row = np.array([rows[int(v)] for v in s.esrc], np.int64)
        self._dst_row = np.array([rows[int(v)] for v in s.edst], np.int64)
        self._w = np.zeros((e, e), np.int64)
        self._dist = np.zeros(e, np.int64)
        self._prev = np.zeros(e, np.int64)
        self._done = np.zeros(e, np.uint8)

    # ------------------------------------------------------------- fields
    def _floor(self, f: int) -> _FloorFields:
        grid = self.building.grid(f)
        got = self._fields.get(f)
        if got is not None and got.grid_id == id(grid):
            return got
        pf = self.pathfinder(f)
        s = self.search
        nodes = self._floor_ends.get(f, [])
        index = {n: i for i, n in enumerate(nodes)}
        away = np.full((len(nodes), s.depth, s.width), -1, np.int64)
        toward = away if grid.weights is None else away.copy()
        flow = FlowField(pf) if grid.weights is not None else None
        for i, node in enumerate(nodes):
            r = node - f * s.plane
            cell = (r % s.width, r // s.width)
            if not grid.walkable[cell[1], cell[0]]:
                continue  # a closed door over a link end: the link is unusable
            away[i] = pf.distance_field_int([cell])
            if flow is not None:  # unweighted: the same both ways (§3.1, §3.2)
                flow.build([cell])
                toward[i] = flow.cost_int
        fields = _FloorFields(id(grid), index, away, toward)
        self._fields[f] = fields
        return fields

    def _matrix(self, key: int) -> NDArray[np.int64]:
        """``w[j, k]``: from link ``j``'s far end to link ``k``'s far end (walk to
        its source on that floor, take it), -1 where impossible; ``key``: the
        building's version (every door, obstacle and link switch bumps it)."""
        b = self.building
        s = self.search
        if key == self._w_key:
            return self._w
        on = b.link_states[s.elink] == 1
        free = b.stacked()[0]
        w = self._w
        w[:] = -1
        for j in range(len(s.esrc)):
            f = int(self._df[j])
            fields = self._floor(f)
            row = fields.index[int(s.edst[j])]
            same = np.flatnonzero((self._sf == f) & on & (free[s.edst] == 1))
            if not len(same):
                continue
            c = fields.away[row, self._sz[same], self._sx[same]]
            ok = c >= 0
            w[j, same[ok]] = c[ok] + s.ecost[same[ok]]
        self._w_key = key
        return w

    # ---------------------------------------------------------------- route
    def _usable_links(self, key: int) -> NDArray[np.bool_]:
        """Per directed link: switched on and its far end free (cached per version)."""
        b = self.building
        if self._on_key != key:
            s = self.search
            self._on = (b.link_states[s.elink] == 1) & (b.stacked()[0][s.edst] == 1)
            self._on_key = key
        return self._on

    def route(self, start: tuple[int, int, int], goal: tuple[int, int, int],
              algorithm: str) -> CellPath:
        """The cheapest path between two free cells ``(floor, x, z)``: FOUND or
        UNREACHABLE (the caller has checked both cells are free)."""
        s = self.search
        fs, fg = start[0], goal[0]
        version = self.building.version
        w = self._matrix(version)
        t0 = self._t0
        tg = self._tg
        t0.fill(-1)
        tg.fill(-1)
        if len(t0):
            on = self._usable_links(version)
            ks = self._by_src_floor[fs]
            ks = ks[on[ks]]
            if len(ks):
                c = self._floor(fs).toward[self._src_row[ks], start[2], start[1]]
                t0[ks] = np.where(c >= 0, c + s.ecost[ks], -1)
            kg = self._by_dst_floor[fg]
            if len(kg):
                tg[kg] = self._floor(fg).away[self._dst_row[kg], goal[2], goal[1]]
        direct_res: Any = None
        direct = -1
        if fs == fg:
            direct_res = self.pathfinder(fs).find_path_cells(
                start[1:], goal[1:], algorithm=algorithm)  # type: ignore[arg-type]
            if direct_res.status == 0:
                direct = int(direct_res.cost_int)
        last = int(_kf.portal_route(t0, w, tg, np.int64(direct), self._dist, self._prev,
                                    self._done))
        if last == -2:
            return CellPath(1)
        if last == -1:
            return self._pieces([(fs, start[1:], goal[1:], direct_res)], [], direct, algorithm)
        total = int(self._dist[last] + tg[last])
        order = [last]
        while self._prev[order[-1]] >= 0:
            order.append(int(self._prev[order[-1]]))
        order.reverse()
        pieces = []
        here = start[1:]
        for k in order:
            pieces.append((int(self._sf[k]), here, (int(self._sx[k]), int(self._sz[k])), None))
            here = (int(self._dx[k]), int(self._dz[k]))
        pieces.append((fg, here, goal[1:], None))
        return self._pieces(pieces, order, total, algorithm)

    def _pieces(self, pieces: list[Any], links: list[int], total: int,
                algorithm: str = "auto") -> CellPath:
        """Search each floor's piece (reusable buffers, no result objects) and join them."""
        s = self.search
        bufs = self._bufs
        while len(bufs) < len(pieces):
            bufs.append(PathBuffer())
        got = []
        expanded = 0
        n = 0
        pfs: dict[int, Pathfinder] = {}
        for j, (f, a, b_, res) in enumerate(pieces):
            if res is None:
                pf = pfs.get(f)
                if pf is None:
                    pf = pfs[f] = self.pathfinder(f)
                buf = bufs[j]
                m = pf.find_path_into(a, b_, buf, algorithm=algorithm)  # type: ignore[arg-type]
                expanded += buf.expanded
                c = buf.cells
            else:
                m = len(res.cells)
                expanded += res.expanded
                c = res.cells
            if m == 0:
                raise AssertionError(f"a floor piece {a} -> {b_} on floor {f} has no path")
            got.append((f, c))
            n += m
        cells = np.empty((n, 3), np.int32)
        entered = np.full(n, -1, np.int32)
        i = 0
        for j, (f, c) in enumerate(got):
            m = len(c)
            cells[i:i + m, 0] = f
            cells[i:i + m, 1:] = c
            if j > 0:
                entered[i] = s.elink[links[j - 1]]
            i += m
        return CellPath(0, cells, int(total), expanded, [int(s.elink[k]) for k in links],
                        entered)
