"""HPA* across floors: one :class:`~navkit.query.hpa.HPAStar` per floor, joined
at the links in one abstract graph (docs/floors.md section 5, docs/rules.md §16.13).

The abstract graph is every floor's HPA* graph (its transition nodes and edges),
plus every link end as a node of its floor, plus the enabled links as edges at
their integer cost (:func:`~navkit.floors.search.link_cost_int`). A link end is
joined to the abstract nodes of its cluster (both ways) and to the other link
ends of the same floor and cluster, as HPA* joins a query's endpoints; HPAStar
has no public way to insert a node, so these costs come from A* windowed to the
cluster box (the in-cluster costs HPA*'s own cluster Dijkstras give: tested).
A query joins its start and goal the same way (and, on one floor, HPA*'s own
path between them is a direct candidate), runs Dijkstra on the joined graph,
and refines each floor's piece, from one link end (or the start)
to the next (or the goal), by that floor's HPA* query.

Exact: every step is legal, every floor change is an enabled link taken in an
allowed direction, ``cost_int`` is the price of the returned cells, and a path
is found exactly when one exists. Not exact: the path may cost more than the
cheapest one (measure it with :func:`measure`).

>>> from navkit.floors.building import Building
>>> from navkit.floors.examples import two_floors
>>> r = FloorHPA(Building(two_floors()), cluster_size=8).find_path_cells((0, 2, 8), (1, 38, 8))
>>> r.status.name, r.link_names, r.cells[0].tolist(), r.cells[-1].tolist()
('FOUND', ['stairs'], [0, 2, 8], [1, 38, 8])
"""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from ..costs import CostModel, cost_model
from ..errors import QueryError
from ..grid import NavGrid
from ..query.hpa import DEFAULT_CLUSTER_SIZE, HPAStar
from ..query.pathfinder import Pathfinder
from ..results import Status
from .building import Building
from .floormap import FloorMap, FloorPathResult, LinkStep
from .search import CellPath, link_cost_int

__all__ = ["FloorHPA", "measure"]

#: Abstract edge weights are ``cost * _K + 1`` (a zero-cost edge stays an edge;
#: among equal costs the route with fewer abstract edges wins).
_K = 1 << 20


class _Floor:
    """One floor's HPA*, its windowed A*, its abstract nodes and edges (local ids)."""

    def __init__(self, grid: NavGrid, costs: CostModel, cluster_size: int,
                 old: _Floor | None):
        self.grid = grid
        if old is None:
            self.hpa = HPAStar(grid, costs=costs, cluster_size=cluster_size)
        else:
            self.hpa = old.hpa
            self.hpa.update(grid)
        self.pf = Pathfinder(grid, costs=costs)
        self.C = cluster_size
        self.weighted = grid.weights is not None
        self.nodes = self.hpa.abstract_nodes().astype(np.int64)  # (n, 2) x, z
        ga = self.hpa.graph_arrays()
        off, to, cost = ga["adj_off"], ga["adj_to"], ga["adj_cost"]
        n = len(self.nodes)
        src = np.repeat(np.arange(n, dtype=np.int64), np.diff(off))
        keep = cost >= 0
        self.esrc, self.edst, self.ecost = src[keep], to[keep].astype(np.int64), \
            cost[keep].astype(np.int64)
        #: Link ends' joins and in-cluster costs, kept while this grid lasts.
        self.memo: dict[Any, Any] = {}
        self.by_cluster: dict[tuple[int, int], NDArray[np.int64]] = {}
        if n:
            key = (self.nodes[:, 0] // self.C) * 1_000_000 + self.nodes[:, 1] // self.C
            for k in np.unique(key):
                idx = np.flatnonzero(key == k)
                self.by_cluster[(int(k) // 1_000_000, int(k) % 1_000_000)] = idx

    def cluster(self, x: int, z: int) -> tuple[int, int]:
        return x // self.C, z // self.C

    def box(self, x: int, z: int) -> tuple[int, int, int, int]:
        cx, cz = self.cluster(x, z)
        C = self.C
        return (cx * C, cz * C, min(self.grid.width - 1, cx * C + C - 1),
                min(self.grid.depth - 1, cz * C + C - 1))

    def cost_in_cluster(self, a: tuple[int, int], b: tuple[int, int]) -> int:
        """Integer cost of the cheapest path ``a -> b`` inside ``a``'s cluster box; -1 if none."""
        if a == b:
            return 0
        r = self.pf.find_path_cells(a, b, window=self.box(*a), algorithm="astar")
        return int(r.cost_int) if r.status == Status.FOUND else -1

    def join(self, p: tuple[int, int], outbound: bool = True, inbound: bool = True
             ) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """Edges ``p -> node`` (when ``outbound``) and ``node -> p`` (when
        ``inbound``) to the abstract nodes of ``p``'s cluster: ``(local node, cost)``."""
        out: list[tuple[int, int]] = []
        inn: list[tuple[int, int]] = []
        for v in self.by_cluster.get(self.cluster(*p), np.zeros(0, np.int64)):
            q = (int(self.nodes[v, 0]), int(self.nodes[v, 1]))
            c = self.cost_in_cluster(p, q) if outbound or not self.weighted else \
                self.cost_in_cluster(q, p)
            if c < 0:  # (reachability inside the box is symmetric)
                continue
            if outbound:
                out.append((int(v), c))
            if inbound:
                inn.append((int(v), self.cost_in_cluster(q, p) if self.weighted and outbound
                            else c))
        return out, inn


class FloorHPA:
    """Approximate hierarchical routes across floors (docs/rules.md §16.13).

    ``costs``: the grid cost model (``"seed"``, ``"exact"`` or ``(card, diag)``);
    ``cluster_size``: HPA*'s cluster edge in cells on every floor (2 .. 256).
    Each floor's HPA* is built on first use and updated when that floor's grid
    changes (doors, obstacles); links switched on or off take effect at the
    next query. Thread-safe: one query at a time per object.
    """

    def __init__(self, building: Building, costs: Any = "seed",
                 cluster_size: int = DEFAULT_CLUSTER_SIZE):
        if not isinstance(building, Building):
            raise QueryError(f"expected a Building, got {type(building).__name__}")
        self.building = building
        self.costs = cost_model(costs)
        self.cluster_size = cluster_size
        if len(building.floor_names):
            HPAStar(NavGrid(np.ones((2, 2), bool)), cluster_size=cluster_size)  # (checks it)
        self._floors: list[_Floor | None] = [None] * len(building.floor_names)
        self._static: tuple[Any, ...] | None = None
        self._fm: FloorMap | None = None
        self._lock = threading.RLock()
        ends = building.link_end_nodes()
        plane = building.width * building.depth
        self._end_cells = [(int(n // plane), int(n % plane % building.width),
                            int(n % plane // building.width)) for n in ends.reshape(-1)]
        card = self.costs.card
        self._link_cost = [link_cost_int(lk.cost, building.cell_size, card)
                           for lk in building.links]

    # ------------------------------------------------------------ the graph
    def floor(self, f: int) -> _Floor:
        """Floor ``f``'s HPA* data, built or updated to its current grid."""
        g = self.building.grid(f)
        cur = self._floors[f]
        if cur is None or cur.grid is not g:
            cur = _Floor(g, self.costs, self.cluster_size, cur)
            self._floors[f] = cur
        return cur

    def hpa(self, f: int) -> HPAStar:
        """Floor ``f``'s :class:`~navkit.query.hpa.HPAStar`."""
        return self.floor(f).hpa

    def _graph(self) -> tuple[Any, ...]:
        """``(offsets, src, dst, cost, n, link_edges)``: the joined abstract graph
        without a query's endpoints (cached until a floor or link changes)."""
        F = len(self.building.floor_names)
        fls = [self.floor(f) for f in range(F)]
        key = (tuple(id(fl.grid) for fl in fls), self.building.link_states.tobytes())
        st = self._static
        if st is not None and st[0] == key and all(a is b for a, b in zip(st[1], fls,
                                                                           strict=True)):
            return st[2]
        off = np.zeros(F + 1, np.int64)
        off[1:] = np.cumsum([len(fl.nodes) for fl in fls])
        n_ab = int(off[-1])
        src = [fl.esrc + off[f] for f, fl in enumerate(fls)]
        dst = [fl.edst + off[f] for f, fl in enumerate(fls)]
        cost = [fl.ecost for fl in fls]
        extra: list[tuple[int, int, int]] = []
        ends = self._end_cells
        for e, (f, x, z) in enumerate(ends):
            fl = fls[f]
            if ("join", x, z) not in fl.memo:
                fl.memo[("join", x, z)] = fl.join((x, z))
            out, inn = fl.memo[("join", x, z)]
            extra += [(n_ab + e, int(off[f]) + v, c) for v, c in out]
            extra += [(int(off[f]) + v, n_ab + e, c) for v, c in inn]
            for e2, (f2, x2, z2) in enumerate(ends):
                if e2 != e and f2 == f and fl.cluster(x, z) == fl.cluster(x2, z2):
                    mk = ("pair", x, z, x2, z2)
                    if mk not in fl.memo:
                        fl.memo[mk] = fl.cost_in_cluster((x, z), (x2, z2))
                    c = fl.memo[mk]
                    if c >= 0:
                        extra.append((n_ab + e, n_ab + e2, c))
        links: dict[tuple[int, int], tuple[int, int]] = {}
        on = self.building.link_states
        for k, lk in enumerate(self.building.links):
            if not on[k]:
                continue
            pairs = [(2 * k, 2 * k + 1)] + ([(2 * k + 1, 2 * k)] if lk.bidirectional else [])
            for a, b in pairs:
                u, v = n_ab + a, n_ab + b
                extra.append((u, v, self._link_cost[k]))
                if (u, v) not in links or links[(u, v)][0] > self._link_cost[k]:
                    links[(u, v)] = (self._link_cost[k], k)
        if extra:
            ex = np.array(extra, dtype=np.int64)
            src.append(ex[:, 0])
            dst.append(ex[:, 1])
            cost.append(ex[:, 2])
        n = n_ab + len(ends)
        # one CSR matrix, parallel edges merged to the cheapest (csr_matrix would add
        # them up), with one more row for a query's start
        sa = np.concatenate(src) if src else np.zeros(0, np.int64)
        da = np.concatenate(dst) if dst else np.zeros(0, np.int64)
        w = (np.concatenate(cost) if cost else np.zeros(0, np.int64)) * _K + 1
        order = np.lexsort((w, da, sa))
        sa, da, w = sa[order], da[order], w[order]
        first = np.ones(len(sa), bool)
        first[1:] = (sa[1:] != sa[:-1]) | (da[1:] != da[:-1])
        sa, da, w = sa[first], da[first], w[first]
        indptr = np.zeros(n + 1, np.int64)
        np.add.at(indptr, sa + 1, 1)
        np.cumsum(indptr, out=indptr)
        graph = (off, indptr, da, w.astype(np.float64), n, links)
        self._static = (key, fls, graph)
        return graph

    def _endpoint(self, p: tuple[int, int, int], pid: int, off: NDArray[np.int64], n_ab: int,
                  outbound: bool) -> list[tuple[int, int, int]]:
        """A query endpoint's edges (``outbound``: from it, else into it)."""
        f, x, z = p
        fl = self.floor(f)
        out, inn = fl.join((x, z), outbound, not outbound)
        edges: list[tuple[int, int, int]] = []
        for v, c in (out if outbound else inn):
            u = int(off[f]) + v
            edges.append((pid, u, c) if outbound else (u, pid, c))
        for e, (f2, x2, z2) in enumerate(self._end_cells):
            if f2 == f and fl.cluster(x, z) == fl.cluster(x2, z2):
                c = fl.cost_in_cluster((x, z), (x2, z2)) if outbound else \
                    fl.cost_in_cluster((x2, z2), (x, z))
                if c >= 0:
                    edges.append((pid, n_ab + e, c) if outbound else (n_ab + e, pid, c))
        return edges

    # -------------------------------------------------------------- queries
    def _check(self, cell: Any, name: str) -> tuple[int, int, int]:
        b = self.building
        try:
            f, x, z = (int(v) for v in cell)
        except (TypeError, ValueError):
            raise QueryError(f"{name} must be a cell (floor, x, z), got {cell!r}") from None
        if not (0 <= f < len(b.floor_names) and 0 <= x < b.width and 0 <= z < b.depth):
            raise QueryError(f"{name} {(f, x, z)} lies outside the building's "
                             f"{len(b.floor_names)} x {b.width} x {b.depth} cells")
        return f, x, z

    def route(self, start: tuple[int, int, int], goal: tuple[int, int, int]) -> CellPath:
        """The HPA* answer between two cells ``(floor, x, z)`` as a
        :class:`~navkit.floors.search.CellPath` (``expanded``: abstract nodes reached)."""
        s = self._check(start, "start")
        t = self._check(goal, "goal")
        with self._lock:
            return self._route(s, t)

    def _route(self, s: tuple[int, int, int], t: tuple[int, int, int]) -> CellPath:
        fs, ft = self.floor(s[0]), self.floor(t[0])
        if not fs.grid.walkable[s[2], s[1]]:
            return CellPath(int(Status.NO_START))
        if not ft.grid.walkable[t[2], t[1]]:
            return CellPath(int(Status.NO_GOAL))
        if s == t:
            return CellPath(int(Status.FOUND), np.array([s], np.int32), 0, 0, [],
                            np.full(1, -1, np.int32))
        off, indptr, indices, data, n, links = self._graph()
        n_ab = int(off[-1])
        S = n  # the start: one more row; the goal is joined after the search
        out = self._endpoint(s, S, off, n_ab, True)
        inn = self._endpoint(t, -1, off, n_ab, False)
        ip = np.append(indptr, indptr[-1] + len(out))
        ind = np.concatenate([indices, np.array([e[1] for e in out], np.int64)])
        dat = np.concatenate([data, np.array([e[2] * _K + 1 for e in out], np.float64)])
        m = csr_matrix((dat, ind, ip), shape=(n + 1, n + 1))
        cand = np.inf  # one floor: HPA*'s own path is a candidate (and a bound)
        if s[0] == t[0]:
            r = fs.hpa.find_path_cells(s[1:], t[1:], smooth=False)
            if r.status == Status.FOUND:
                cand = float(int(r.cost_int) * _K + 1)
        # Dijkstra up to a limit: the distances within it are exact, so the best way
        # into the goal is the cheapest once it lies within the limit; the limit
        # starts at the candidate or a guess and grows (the last try has none)
        dx, dz = abs(s[1] - t[1]), abs(s[2] - t[2])
        guess = (self.costs.card * max(dx, dz) + (self.costs.diag - self.costs.card)
                 * min(dx, dz) + (min(self._link_cost) if self._link_cost else 0)) * _K
        limit = cand if np.isfinite(cand) else 1.5 * guess + _K
        for tries in range(5):
            lim = np.inf if tries == 4 else limit
            dist, pred = dijkstra(m, directed=True, indices=S, return_predecessors=True,
                                  limit=lim)
            best, last = cand, S
            for u, _, c in inn:
                d = dist[u] + c * _K + 1
                if d < best:
                    best, last = d, u
            if best <= lim:
                break
            limit *= 4
        reached = int(np.count_nonzero(np.isfinite(dist)))
        if not np.isfinite(best):
            return CellPath(int(Status.UNREACHABLE), expanded=reached)
        ids = [last]
        while ids[-1] != S:
            ids.append(int(pred[ids[-1]]))
        ids.reverse()
        # the floor pieces: (first cell, last cell), cut at each link taken
        pieces: list[list[tuple[int, int, int]]] = [[s, s]]
        taken: list[int] = []
        for u, v in zip(ids[:-1], ids[1:], strict=True):
            lk = links.get((u, v))
            if lk is not None and dist[v] - dist[u] == lk[0] * _K + 1:
                taken.append(lk[1])
                pieces[-1][1] = self._end_cells[u - n_ab]
                pieces.append([self._end_cells[v - n_ab]] * 2)
        pieces[-1][1] = t
        return self._refine(pieces, taken, reached)

    def _refine(self, pieces: list[list[tuple[int, int, int]]], taken: list[int],
                reached: int) -> CellPath:
        """Cells of each floor piece by its floor's HPA*, joined at the links ``taken``."""
        cells: list[NDArray[np.int32]] = []
        entered: list[NDArray[np.int32]] = []
        total = 0
        for j, (a, b) in enumerate(pieces):
            f = a[0]
            if a == b:
                xz = np.array([a[1:]], np.int32)
            else:
                r = self.floor(f).hpa.find_path_cells(a[1:], b[1:], smooth=False)
                if r.status != Status.FOUND:  # (the abstract graph joined them: never)
                    raise QueryError(f"HPA* found no path from {a} to {b} on floor {f}")
                xz = np.asarray(r.cells, np.int32)
                total += int(r.cost_int)
            block = np.empty((len(xz), 3), np.int32)
            block[:, 0] = f
            block[:, 1:] = xz
            ent = np.full(len(xz), -1, np.int32)
            if j:
                ent[0] = taken[j - 1]
                total += self._link_cost[taken[j - 1]]
            cells.append(block)
            entered.append(ent)
        return CellPath(int(Status.FOUND), np.concatenate(cells), total, reached, list(taken),
                        np.concatenate(entered))

    def _map(self) -> FloorMap:
        """A FloorMap of the same building and costs: its snapping and its results."""
        if self._fm is None:
            self._fm = FloorMap(self.building, (self.costs.card, self.costs.diag), warm=False)
        return self._fm

    def find_path_cells(self, start: tuple[int, int, int], goal: tuple[int, int, int]
                        ) -> FloorPathResult:
        """The HPA* path between two cells ``(floor, x, z)`` (no snapping: a
        blocked end gives ``NO_START`` / ``NO_GOAL``); waypoints are the cell centres."""
        res = self.route(start, goal)
        status = Status(res.status)
        if not len(res.cells):
            return FloorPathResult(status, expanded=res.expanded)
        b = self.building
        g0 = b.grid(0)
        cells = res.cells
        way = np.empty((len(cells), 2), np.float64)
        way[:, 0] = g0.min_x + (cells[:, 1] + 0.5) * g0.cell_size
        way[:, 1] = g0.min_z + (cells[:, 2] + 0.5) * g0.cell_size
        floors = cells[:, 0].astype(np.int32)
        cuts = np.flatnonzero(res.entered >= 0)
        links = b.links
        steps = [LinkStep(links[int(res.entered[c])].name, links[int(res.entered[c])].kind,
                          int(res.entered[c]), int(c) - 1) for c in cuts]
        ys = b.floor_ys
        out = FloorPathResult(status, waypoints=way, floors=floors, cells=cells, links=steps,
                              cost=res.cost_int / self.costs.card, cost_int=res.cost_int,
                              expanded=res.expanded, floor_y=float(ys[floors[0]]),
                              link_length=float(sum(links[st.index].cost for st in steps)))
        out.__dict__["_heights"] = ys[floors].astype(np.float64)
        return out

    def find_path(self, start: ArrayLike, goal: ArrayLike, *, start_floor: Any = None,
                  goal_floor: Any = None, smooth: bool = True) -> FloorPathResult:
        """The HPA* path between two world points ``(x, z)`` or ``(x, y, z)``,
        metres: both snap as on :meth:`FloorMap.place
        <navkit.floors.floormap.FloorMap.place>` (``start_floor`` / ``goal_floor``
        override the height rule), and the waypoints follow the rules of
        :meth:`FloorMap.find_path <navkit.floors.floormap.FloorMap.find_path>`
        (this loads a :class:`FloorMap` of the building for the snapping and the
        waypoints: its search buffers take about 60 bytes per cell of the building)."""
        fm = self._map()
        sp = fm.place(start, floor=start_floor)
        if sp is None or sp.cell is None:
            return fm.no_path_result(Status.NO_START, "start", fm.floor_of(start, start_floor),
                          _xz(start))
        gp = fm.place(goal, floor=goal_floor)
        if gp is None or gp.cell is None:
            return fm.no_path_result(Status.NO_GOAL, "goal", fm.floor_of(goal, goal_floor),
                          _xz(goal))
        res = self.route((sp.floor, *sp.cell), (gp.floor, *gp.cell))
        return fm.result_of(res, _xz(start), _xz(goal), True, smooth)


def _xz(point: ArrayLike) -> tuple[float, float]:
    """``(x, z)`` of a world point ``(x, z)`` or ``(x, y, z)``."""
    from ..contract import world_point_y

    x, _, z = world_point_y(point, "point")
    return float(x), float(z)


def measure(building: Building, queries: int = 50, *, cluster_size: int = DEFAULT_CLUSTER_SIZE,
            costs: Any = "seed", seed: int = 0) -> dict[str, float]:
    """HPA* across floors against :class:`FloorMap` (exact) on ``queries`` random
    pairs of walkable cells (random floors) that have a path: mean and max
    suboptimality (HPA* cost / optimum - 1), mean milliseconds per query of
    each (after one warm-up query each), the build time of the floors' HPA*
    (``build_ms``) and of FloorMap's first query (``floormap_first_ms``, its link
    ends' distance fields)."""
    rng = np.random.default_rng(seed)
    fm = FloorMap(building, costs)
    t0 = time.perf_counter()
    hpa = FloorHPA(building, costs, cluster_size)
    for f in range(len(building.floor_names)):
        hpa.floor(f)
    hpa._graph()
    build_ms = (time.perf_counter() - t0) * 1e3
    free = np.flatnonzero(building.stacked()[0] == 1)
    plane = building.width * building.depth

    def cell(n: int) -> tuple[int, int, int]:
        return (n // plane, n % plane % building.width, n % plane // building.width)

    pairs: list[tuple[tuple[int, int, int], tuple[int, int, int]]] = []
    while len(pairs) < queries:
        a, b = (cell(int(v)) for v in rng.choice(free, 2))
        pairs.append((a, b))
    t = time.perf_counter()
    fm.find_path_cells(*pairs[0])  # (the first query computes the link ends' fields)
    first_ms = (time.perf_counter() - t) * 1e3
    hpa.find_path_cells(*pairs[0])
    t_fm = t_h = 0.0
    ratios = []
    for a, b in pairs:
        t = time.perf_counter()
        ex = fm.find_path_cells(a, b)
        t_fm += time.perf_counter() - t
        t = time.perf_counter()
        hp = hpa.find_path_cells(a, b)
        t_h += time.perf_counter() - t
        if ex.status == Status.FOUND and ex.cost_int > 0:
            ratios.append(hp.cost_int / ex.cost_int - 1.0)
    r = np.array(ratios) if ratios else np.zeros(1)
    return {"queries": float(len(pairs)), "found": float(len(ratios)),
            "mean_subopt": float(r.mean()), "max_subopt": float(r.max()),
            "hpa_ms": 1e3 * t_h / len(pairs), "floormap_ms": 1e3 * t_fm / len(pairs),
            "build_ms": build_ms, "floormap_first_ms": first_ms}
