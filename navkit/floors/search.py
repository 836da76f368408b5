"""Searches over a building's floors and links: buffers, link edges, heuristic
(docs/rules.md §16.4-§16.6). Cells are ``(floor, x, z)``; a node is
``(floor * depth + z) * width + x``.

>>> from navkit.floors.building import Building
>>> from navkit.floors.examples import two_floors
>>> s = FloorSearch(Building(two_floors()))
>>> r = s.path((0, 2, 8), (1, 38, 8))
>>> r.status, r.links, r.cells[0].tolist(), r.cells[-1].tolist()
(0, [0], [0, 2, 8], [1, 38, 8])
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from .._kernels import floors as _kf
from ..costs import CostModel, cost_model
from ..errors import QueryError
from .building import Building

__all__ = ["FloorSearch", "CellPath", "link_cost_int"]

#: Useful links up to this many enter the heuristic one by one (else a lower bound).
MAX_HEURISTIC_LINKS = 64


def link_cost_int(cost: float, cell_size: float, card: int) -> int:
    """A link's integer search cost: ``max(1, round(cost / cellSize * card))``
    (round half to even), docs/rules.md §16.4.

    >>> link_cost_int(5.0, 0.5, 10), link_cost_int(0.01, 0.5, 10)
    (100, 1)
    """
    return max(1, int(round(cost / cell_size * card)))


@dataclass
class CellPath:
    """A search's answer over cells: ``status`` (kernel code), ``cells`` int32
    ``(n, 3)`` ``(floor, x, z)``, ``cost_int`` (-1 without a path), ``links``:
    the indices (config order) of the links taken, in order, and ``entered``:
    for each cell, the link that entered it (-1 for a step or the start)."""

    status: int
    cells: NDArray[np.int32] = field(default_factory=lambda: np.zeros((0, 3), np.int32))
    cost_int: int = -1
    expanded: int = 0
    links: list[int] = field(default_factory=list)
    entered: NDArray[np.int32] = field(default_factory=lambda: np.zeros(0, np.int32))


class FloorSearch:
    """A* and Dijkstra over a :class:`Building` for one cost model (thread-safe:
    one search at a time per object)."""

    def __init__(self, building: Building, costs: str | CostModel | tuple[int, int] = "seed"):
        self.building = building
        self.costs = cost_model(costs)
        b = building
        self.width, self.depth = b.width, b.depth
        self.floors = len(b.floor_names)
        self.plane = self.width * self.depth
        n = self.plane * self.floors
        self.nodes = n
        self.node_bits = max(1, int(n - 1).bit_length())
        card = self.costs.card
        # directed link edges, sorted by source node (then config order)
        ends = b.link_end_nodes()
        src, dst, cost, link = [], [], [], []
        for k, lk in enumerate(b.links):
            c = link_cost_int(lk.cost, b.cell_size, card)
            pairs = [(ends[k, 0], ends[k, 1])]
            if lk.bidirectional:
                pairs.append((ends[k, 1], ends[k, 0]))
            for u, v in pairs:
                src.append(u)
                dst.append(v)
                cost.append(c)
                link.append(k)
        order = np.lexsort((np.arange(len(src)), np.array(src, dtype=np.int64))) if src else \
            np.zeros(0, np.int64)
        self.esrc = np.array(src, dtype=np.int64)[order] if src else np.zeros(0, np.int64)
        self.edst = np.array(dst, dtype=np.int64)[order] if src else np.zeros(0, np.int64)
        self.ecost = np.array(cost, dtype=np.int64)[order] if src else np.zeros(0, np.int64)
        self.elink = np.array(link, dtype=np.int64)[order] if src else np.zeros(0, np.int64)
        self.loff = np.zeros(n + 1, dtype=np.int64)
        if len(src):
            np.add.at(self.loff, self.esrc + 1, 1)
            np.cumsum(self.loff, out=self.loff)
        diag = max(self.costs.diag, card)
        self._oct_max = card * max(self.width, self.depth) + (diag - card) * min(self.width,
                                                                                 self.depth)
        self._link_sum = int(self.ecost.sum()) if len(src) else 0
        self.g = np.zeros(n, dtype=np.int64)
        self.parent = np.zeros(n, dtype=np.int64)
        self.via = np.zeros(n, dtype=np.int64)
        self.stamp = np.zeros(n, dtype=np.int32)
        self.hf = np.zeros(n, dtype=np.int64)
        self.hk = np.zeros(n, dtype=np.int64)
        self.pos = np.zeros(n, dtype=np.int64)
        self.out = np.zeros(2, dtype=np.int64)
        self.gen = 0
        self._window = (0, 0, self.width - 1, self.depth - 1)
        self._lock = threading.Lock()
        self._path_nodes = np.zeros(16, dtype=np.int64)
        self._path_via = np.zeros(16, dtype=np.int64)

    def warm(self) -> None:
        """Run the kernels once on this building (a one-cell search and trace), so
        they are loaded or compiled now, not at the first query."""
        free = np.flatnonzero(self.building.stacked()[0] == 1)
        if not len(free):
            return
        cell = tuple(int(v) for v in self.cells_of(free[:1])[0])
        self.path(cell, cell)  # type: ignore[arg-type]

    # -------------------------------------------------------------- helpers
    def node(self, cell: tuple[int, int, int]) -> int:
        f, x, z = cell
        return (f * self.depth + z) * self.width + x

    def cells_of(self, nodes: NDArray[np.int64]) -> NDArray[np.int32]:
        f = nodes // self.plane
        r = nodes - f * self.plane
        z = r // self.width
        x = r - z * self.width
        return np.stack([f, x, z], axis=1).astype(np.int32)

    def _xz(self, node: NDArray[np.int64] | int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        r = np.asarray(node, dtype=np.int64) % self.plane
        return r % self.width, r // self.width

    def _octile(self, a: NDArray[np.int64] | int, b: NDArray[np.int64] | int) -> NDArray[np.int64]:
        ax, az = self._xz(a)
        bx, bz = self._xz(b)
        dx = np.abs(ax - bx)
        dz = np.abs(az - bz)
        hi = np.maximum(dx, dz)
        lo = np.minimum(dx, dz)
        return self.costs.card * hi + (self.costs.diag - self.costs.card) * lo

    def heuristic_terms(self, goal: int, wmin: int
                        ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], int]:
        """``(hx, hz, hoff, hcap)`` for a search to ``goal``: the useful links of
        the relaxed distance (docs/rules.md §16.5) or, past
        :data:`MAX_HEURISTIC_LINKS`, the cap ``min`` link cost."""
        big = np.int64(2**62)
        on = self.building.link_states[self.elink] == 1 if len(self.elink) else \
            np.zeros(0, bool)
        src = self.esrc[on]
        dst = self.edst[on]
        c = self.ecost[on]
        empty = np.zeros(0, np.int64)
        if not len(src):
            return empty, empty, empty, int(big)
        if len(src) > 4 * MAX_HEURISTIC_LINKS:
            return empty, empty, empty, int(c.min())
        w = np.int64(wmin)
        # D[k] = c_k + d'(dst_k): Bellman-Ford over the complete relaxed graph
        d = c + w * self._octile(dst, goal)
        m = c[:, None] + w * self._octile(dst[:, None], src[None, :])  # k then j
        for _ in range(len(src)):
            new = np.minimum(d, (m + d[None, :]).min(axis=1))
            if np.array_equal(new, d):
                break
            d = new
        useful = d < w * self._octile(src, goal)
        if not useful.any():
            return empty, empty, empty, int(big)
        us = src[useful]
        ud = d[useful]
        if len(us) > MAX_HEURISTIC_LINKS:
            return empty, empty, empty, int(c.min())
        x, z = self._xz(us)
        return (np.ascontiguousarray(x, np.int64), np.ascontiguousarray(z, np.int64),
                np.ascontiguousarray(ud, np.int64), int(big))

    def _check_keys(self, wmin: int) -> None:
        """The heuristic fits the queue keys ``(h << node_bits) | node``: ``h`` is
        at most ``2 * wmin * octile span + the links' costs``."""
        if (2 * wmin * self._oct_max + self._link_sum) >= 2 ** (62 - self.node_bits):
            raise QueryError("this building's costs could overflow the search's 64-bit "
                             "queue keys (cells, weights and cost model too large together); "
                             "use the 'seed' cost model or lower terrain weights")

    def _run(self, sources: NDArray[np.int64], source_g: NDArray[np.int64], goal: int,
             budget: int, free: NDArray[np.uint8] | None = None, dijkstra: bool = False
             ) -> tuple[int, int, int]:
        """One kernel search: A* to ``goal`` (Dijkstra with ``dijkstra``: ``h = 0``,
        the same costs), or a field from the sources when ``goal < 0``."""
        fr, weight, wmin = self.building.stacked()
        if free is None:
            free = fr
        if goal >= 0 and not dijkstra:
            self._check_keys(wmin)
            hx, hz, hoff, hcap = self.heuristic_terms(goal, wmin)
            hwmin = wmin
        else:  # no heuristic: wmin 0 makes every octile term 0, and the cap is 0
            hx = hz = hoff = np.zeros(0, np.int64)
            hcap = 0 if goal >= 0 else 2**62
            hwmin = 0 if goal >= 0 else wmin
        lon = (self.building.link_states[self.elink].astype(np.uint8) if len(self.elink)
               else np.zeros(0, np.uint8))
        self.gen += 1
        if self.gen >= 2**31 - 1:
            self.stamp[:] = 0
            self.gen = 1
        status = _kf.floors_search(
            free, weight, self.width, self.depth, self.costs.card, self.costs.diag, hwmin,
            self.loff, self.edst, self.ecost, lon,
            sources, source_g, goal, hx, hz, hoff, np.int64(hcap), budget, self.node_bits,
            *self._window, self.g, self.parent, self.via, self.stamp, self.gen, self.hf, self.hk,
            self.pos,
            self.out)
        return int(status), int(self.out[0]), int(self.out[1])

    def check_cell(self, cell: tuple[int, int, int], name: str) -> int:
        """The node of cell ``(floor, x, z)``; QueryError naming ``name`` when it is
        not a cell of the building."""
        try:
            f, x, z = (int(v) for v in cell)
        except (TypeError, ValueError):
            raise QueryError(f"{name} must be a cell (floor, x, z), got {cell!r}") from None
        if not (0 <= f < self.floors and 0 <= x < self.width and 0 <= z < self.depth):
            raise QueryError(f"{name} {(f, x, z)} lies outside the building's "
                             f"{self.floors} x {self.width} x {self.depth} cells")
        return self.node((f, x, z))

    # -------------------------------------------------------------- queries
    def path(self, start: tuple[int, int, int], goal: tuple[int, int, int], *,
             budget: int | None = None, dijkstra: bool = False,
             free: NDArray[np.uint8] | None = None, keep_goal: bool = False,
             window: tuple[int, int, int, int] | None = None) -> CellPath:
        """The cheapest chain of cells from ``start`` to ``goal`` (``(floor, x, z)``).

        Status codes as :class:`~navkit.results.Status`: FOUND, UNREACHABLE,
        BUDGET_EXHAUSTED, NO_START / NO_GOAL when an end cell is not free.
        ``dijkstra``: no heuristic (the same cost). ``free``: the free cells to
        use instead of the building's (a query's obstacles stamped in).
        ``keep_goal``: search toward a blocked goal anyway (it ends UNREACHABLE
        having expanded the start's whole region: nearest-reachable queries).
        ``window``: an inclusive cell box ``(x0, z0, x1, z1)`` (every floor) outside
        which cells are impassable (docs/rules.md §3.6): WINDOW_EXHAUSTED when
        the search runs dry inside it.
        """
        s = self.check_cell(start, "start")
        t = self.check_cell(goal, "goal")
        fr = self.building.stacked()[0] if free is None else free
        if fr[s] == 0:
            return CellPath(5)
        if fr[t] == 0 and not keep_goal:
            return CellPath(6)
        bud = 0 if budget is None or budget >= 2**62 else int(budget)  # huge: no limit
        whole = (0, 0, self.width - 1, self.depth - 1)
        if window is None:
            win = whole
        else:
            x0, z0, x1, z1 = (int(v) for v in window)
            win = (max(0, x0), max(0, z0), min(self.width - 1, x1), min(self.depth - 1, z1))
        with self._lock:
            self._window = win
            status, expanded, _ = self._run(np.array([s], np.int64), np.zeros(1, np.int64),
                                            t, bud, fr, dijkstra)
            if status != _kf.FOUND:
                return CellPath(status, expanded=expanded)
            done = self.trace(t)
        done.status = status
        done.expanded = expanded
        return done

    def trace(self, node: int) -> CellPath:
        """The last search's optimal chain to ``node`` (reached by it), as a FOUND
        :class:`CellPath` (call under the search that reached it)."""
        nodes, via = self._trace(node)
        links = [int(self.elink[v]) for v in via if v >= 0]
        entered = np.array([-1 if v < 0 else self.elink[v] for v in via], dtype=np.int32)
        return CellPath(0, self.cells_of(nodes), int(self.g[node]), 0, links, entered)

    def _trace(self, t: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        while True:
            n = _kf.trace_path(self.parent, self.via, t, self._path_nodes, self._path_via)
            if n >= 0:
                return self._path_nodes[:n].copy(), self._path_via[:n].copy()
            size = 2 * len(self._path_nodes)
            self._path_nodes = np.zeros(size, np.int64)
            self._path_via = np.zeros(size, np.int64)

    def field(self, sources: list[tuple[int, int, int]], *,
              free: NDArray[np.uint8] | None = None) -> NDArray[np.int64]:
        """Integer cost from the nearest source to every cell, walking away from
        the sources (the cell entered pays), ``(floors, depth, width)``, -1 where
        unreachable."""
        nodes = np.array([self.check_cell(c, "sources") for c in sources], dtype=np.int64)
        fr = self.building.stacked()[0] if free is None else free
        nodes = nodes[fr[nodes] == 1] if len(nodes) else nodes
        out = np.full(self.nodes, -1, dtype=np.int64)
        if not len(nodes):
            return out.reshape(self.floors, self.depth, self.width)
        with self._lock:
            self._window = (0, 0, self.width - 1, self.depth - 1)
            self._run(nodes, np.zeros(len(nodes), np.int64), -1, 0, fr)
            done = self.stamp == -self.gen
            out[done] = self.g[done]
        return out.reshape(self.floors, self.depth, self.width)

