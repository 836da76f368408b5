"""Exact any-angle paths across a building's floors on navigation meshes
(docs/rules.md §16).

A path on meshes is a sequence of within-floor straight-segment paths joined
by links; its length is the Euclidean length within floors plus the costs
(metres) of the links taken, and the answer is the shortest such path. Link
ends are the only places to change floor; a link switched off, or one-way
and walked backwards, is not used.

Method: Dijkstra over a small *portal graph* whose nodes are the start, the
goal and the link ends. Two nodes on one floor are joined by their exact
within-floor shortest distance (a :class:`~navkit.mesh.NavMesh` query), a
link by its cost. The end-to-end distances of each floor are computed once
per floor version and closed over the links (all pairs, cached per floor
versions and link states); a query then only needs start-to-end and
end-to-goal distances, which it evaluates lazily in best-first order with
the straight-line distance as their lower bound, so it runs few mesh
searches (often one per floor it visits).

>>> from navkit.floors.building import Building
>>> from navkit.floors.examples import two_floors
>>> fm = FloorMesh(Building(two_floors()))
>>> r = fm.find_path((2, 8), (18, 8), start_floor=0, goal_floor=1)
>>> r.status.name, r.links, r.floors.tolist()
('FOUND', [0], [0, 0, 1, 1])
>>> round(r.length, 6) == round(((8 ** 2 + 4 ** 2) ** 0.5 + (4 ** 2 + 3.5 ** 2) ** 0.5
...                               + (4 ** 2 + 4 ** 2) ** 0.5), 6)
True
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import shortest_path

from ..contract import Place, RaycastHit, world_point
from ..errors import ConfigError, QueryError, shown
from ..mesh.build import DEFAULT_CHORD_ERROR
from ..mesh.exact import ExactSearch
from ..mesh.funnel import FunnelSearch
from ..mesh.navmesh import DEFAULT_SNAP_RADIUS, NavMesh
from ..results import Status
from .building import Building

__all__ = ["FloorMesh", "FloorMeshPath", "ALGORITHMS"]

#: ``find_path`` algorithms (``"auto"`` is ``"exact"``).
ALGORITHMS = ("exact", "funnel")

_INF = math.inf
#: Search nodes a single within-floor search may expand (as NavMesh's largest budget).
_BUDGET = 1 << 30
_EMPTY2 = np.zeros((0, 2), dtype=np.float64)


@dataclass
class FloorMeshPath:
    """A path across floors on meshes.

    ``status``: FOUND, UNREACHABLE, NO_START or NO_GOAL. ``waypoints``
    ``(m, 2)`` world ``(x, z)`` metres; ``floors`` ``(m,)`` the floor index of
    each waypoint (at a link both ends appear: the from end on its floor, then
    the to end on the other); ``entered`` ``(m,)`` the link that entered each
    waypoint (-1 for a walk or the start); ``links`` the indices (config
    order) of the links taken, in order; ``length`` metres (within-floor
    Euclidean length plus the links' costs, ``inf`` without a path);
    ``heights`` ``(m,)`` each waypoint's floor ``floorY``, metres;
    ``searches`` the mesh searches this query ran (cached tables not counted).
    """

    status: Status
    waypoints: NDArray[np.float64] = field(default_factory=lambda: _EMPTY2.copy())
    floors: NDArray[np.int32] = field(default_factory=lambda: np.zeros(0, np.int32))
    entered: NDArray[np.int32] = field(default_factory=lambda: np.zeros(0, np.int32))
    links: list[int] = field(default_factory=list)
    length: float = _INF
    heights: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0, np.float64))
    algorithm: str = "exact"
    searches: int = 0

    @property
    def has_path(self) -> bool:
        """True when there are waypoints to follow."""
        return len(self.waypoints) > 0

    def __bool__(self) -> bool:
        return self.has_path

    @property
    def floors_visited(self) -> int:
        """How many distinct floors the path walks on."""
        return len(set(self.floors.tolist()))

    @property
    def reason(self) -> str:
        """Why the query ended so, in words (the status's meaning)."""
        from ..results import PathResult

        return PathResult(self.status).reason

    def points3d(self) -> NDArray[np.float64]:
        """Waypoints as ``(m, 3)`` world ``(x, y, z)`` (``y``: each floor's height)."""
        w = self.waypoints
        return np.column_stack([w[:, 0], self.heights, w[:, 1]]) if len(w) else \
            np.zeros((0, 3), np.float64)


@dataclass
class _Floor:
    """One floor's mesh at one level version, its link ends and end-to-end tables."""

    version: int
    mesh: NavMesh
    ends: list[int]  # global end ids (2k: link k's from end, 2k+1: its to end)
    points: list[tuple[float, float]]  # where each end lies on the mesh (nan: off it)
    polygons: list[int]  # each end's polygon (-1: off the mesh)
    regions: list[int]  # each end's region (-1: off the mesh)
    local: dict[int, int] = field(default_factory=dict)  # global end id -> index here
    # region -> (global end ids, their points) of the ends in it
    by_region: dict[int, tuple[NDArray[np.int64], list[tuple[float, float]]]] = \
        field(default_factory=dict)
    searches: dict[str, ExactSearch | FunnelSearch] = field(default_factory=dict)
    # per algorithm: (distance matrix (n, n), waypoints per ordered pair (i, j))
    tables: dict[str, tuple[NDArray[np.float64], dict[tuple[int, int], NDArray[np.float64]]]] = \
        field(default_factory=dict)

    def search(self, algorithm: str) -> ExactSearch | FunnelSearch:
        s = self.searches.get(algorithm)
        if s is None:
            arrays = self.mesh.arrays
            s = self.searches[algorithm] = (ExactSearch(arrays) if algorithm == "exact"
                                            else FunnelSearch(arrays))
        return s


@dataclass
class _Closure:
    """All-pairs shortest distances between link ends, with the node before the
    last of each path and what a hop is (a link index, or -1 for a walk)."""

    dist: NDArray[np.float64]  # (E, E)
    pred: NDArray[np.int64]  # (E, E): the node before j on a shortest i -> j path (-9999: none)
    hop: NDArray[np.int64]  # (E, E): link index of the direct edge i -> j, or -1 (a walk)
    # the usable link edges u -> v: (u, v, cost)
    edges: tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]
    # whether within-floor distances form a metric (exact), so that on one floor
    # only paths that take a link need to be candidates
    via_links: bool
    # (start floor, start region, goal floor, goal region) -> distances from the
    # start floor's ends to the goal floor's ends, as lists; for one floor (exact
    # paths) over paths that take a link, with the link edge each takes
    blocks: dict[tuple[int, int, int, int], tuple[list[list[float]], list[list[int]] | None]] = \
        field(default_factory=dict)

    def chain(self, a: int, b: int) -> list[int]:
        """The ends on a shortest path from end ``a`` to end ``b``, in order."""
        out = [b]
        pred = self.pred
        while out[-1] != a:
            out.append(int(pred[a, out[-1]]))
        out.reverse()
        return out

    def block(self, key: tuple[int, int, int, int], ea: NDArray[np.int64],
              eb: NDArray[np.int64]) -> tuple[list[list[float]], list[list[int]] | None]:
        """Distances from ends ``ea`` to ends ``eb`` (cached by ``key``). Where
        both lie on one floor (``key[0] == key[2]``) only paths that take a link
        count (a path that stays on the floor is never shorter than the
        start-goal walk it would replace, exact distances being a metric); the
        second list then gives the link edge (index into :attr:`edges`) each takes."""
        got = self.blocks.get(key)
        if got is not None:
            return got
        if key[0] != key[2] or not self.via_links:
            got = (self.dist[ea][:, eb].tolist(), None)
        else:
            u, v, c = self.edges
            na, nb = len(ea), len(eb)
            mid = np.full((na, nb), _INF)
            via = np.full((na, nb), -1, dtype=np.int64)
            if len(u):
                to_u = self.dist[ea][:, u]  # (na, m)
                from_v = self.dist[v][:, eb] + c[:, None]  # (m, nb)
                for i in range(na):
                    tot = to_u[i][:, None] + from_v
                    k = tot.argmin(axis=0)
                    mid[i] = tot[k, np.arange(nb)]
                    via[i] = k
            got = (mid.tolist(), via.tolist())
        self.blocks[key] = got
        return got


class FloorMesh:
    """A building's floors as navigation meshes joined by its links.

    One :class:`~navkit.mesh.NavMesh` per floor
    (``NavMesh.from_level(building.levels[f].config)``), rebuilt when that
    floor's level changes (doors, obstacles); links switched on or off in the
    building take effect at the next query. Edit floors through the building,
    not through :meth:`mesh`. A link end off its floor's mesh is used where it
    snaps (as a query's start would; beyond the snap radius the link is not
    usable). Thread-safe (one query at a time).

    Parameters
    ----------
    building : Building
        The floors and links.
    weights : str
        ``"raise"`` (default) refuses an available area with a weight other
        than 1 (ConfigError naming ``floors[f].areas[i].weight``); ``"ignore"``
        treats weights as 1.
    snap_radius, chord_error : float
        Passed to each floor's mesh (metres).
    """

    def __init__(self, building: Building, *, weights: str = "raise",
                 snap_radius: float = DEFAULT_SNAP_RADIUS,
                 chord_error: float = DEFAULT_CHORD_ERROR):
        if not isinstance(building, Building):
            raise ConfigError(f"expected a Building, got {type(building).__name__}",
                              field="building")
        if weights not in ("raise", "ignore"):
            raise ConfigError(f"expected 'raise' or 'ignore', got {shown(weights)}",
                              field="weights")
        self.building = building
        self._weights = weights
        self._snap_radius = snap_radius
        self._chord_error = chord_error
        self.lock = threading.RLock()
        links = building.links
        self._n_floors = len(building.floor_names)
        self._ys = [float(f.floor_y) for f in building.config.floors]
        self._end_floor = [e.floor for lk in links for e in (lk.start, lk.end)]
        self._end_point = [tuple(map(float, e.point)) for lk in links for e in (lk.start, lk.end)]
        self._floor_ends: list[list[int]] = [[] for _ in range(self._n_floors)]
        for e, f in enumerate(self._end_floor):
            self._floor_ends[f].append(e)
        self._floors: list[_Floor | None] = [None] * self._n_floors
        self._closures: dict[str, tuple[Any, _Closure]] = {}
        # build every floor's mesh now, so a bad floor fails here
        for f in range(self._n_floors):
            self._floor(f)

    # ------------------------------------------------------------ floors
    def mesh(self, floor: Any) -> NavMesh:
        """Floor ``floor``'s current mesh (index or name)."""
        with self.lock:
            return self._floor(self._floor_arg(floor, "floor")).mesh

    def _floor(self, f: int) -> _Floor:
        level = self.building.levels[f]
        fl = self._floors[f]
        if fl is not None and fl.version == level.version:
            return fl
        try:
            mesh = NavMesh.from_level(level.config, weights=self._weights,
                                      snap_radius=self._snap_radius,
                                      chord_error=self._chord_error)
        except ConfigError as err:
            fld = f"floors[{f}]" if err.field is None else f"floors[{f}].{err.field}"
            raise ConfigError(err.reason, field=fld, path=err.path) from None
        ends = self._floor_ends[f]
        points: list[tuple[float, float]] = []
        polygons: list[int] = []
        regions: list[int] = []
        for e in ends:
            p = mesh.place(self._end_point[e])
            if p is None:
                points.append((math.nan, math.nan))
                polygons.append(-1)
                regions.append(-1)
            else:
                points.append((float(p.point[0]), float(p.point[1])))
                polygons.append(int(p.polygon))
                regions.append(int(p.region))
        fl = _Floor(level.version, mesh, list(ends), points, polygons, regions,
                    {e: i for i, e in enumerate(ends)})
        for r in sorted(set(regions) - {-1}):
            idx = [i for i, q in enumerate(regions) if q == r]
            fl.by_region[r] = (np.array([ends[i] for i in idx], dtype=np.int64),
                               [points[i] for i in idx])
        self._floors[f] = fl
        return fl

    def _table(self, f: int, algorithm: str
               ) -> tuple[NDArray[np.float64], dict[tuple[int, int], NDArray[np.float64]]]:
        """Floor ``f``'s end-to-end distances and paths (cached per floor version)."""
        fl = self._floor(f)
        t = fl.tables.get(algorithm)
        if t is not None:
            return t
        n = len(fl.ends)
        dist = np.full((n, n), _INF)
        paths: dict[tuple[int, int], NDArray[np.float64]] = {}
        pairs = []
        for i in range(n):
            if fl.regions[i] < 0:
                continue
            dist[i, i] = 0.0
            paths[(i, i)] = np.array([fl.points[i]], dtype=np.float64)
            for j in range(n):
                if j == i or fl.regions[j] != fl.regions[i]:
                    continue
                if algorithm == "exact" and j < i:
                    continue  # the exact distance is symmetric: mirrored below
                pairs.append((i, j))
        search = fl.search(algorithm)
        for i, j in pairs:
            (sx, sz), (gx, gz) = fl.points[i], fl.points[j]
            out = search.find(sx, sz, fl.polygons[i], gx, gz, fl.polygons[j], _BUDGET)
            if out.status != 0:
                continue
            dist[i, j] = out.length
            paths[(i, j)] = out.waypoints
            if algorithm == "exact":
                dist[j, i] = out.length
                paths[(j, i)] = out.waypoints[::-1].copy()
        t = (dist, paths)
        fl.tables[algorithm] = t
        return t

    def prepare(self, algorithm: str = "exact") -> None:
        """Build every floor's mesh and end-to-end table and their closure now
        (the first query does it otherwise)."""
        with self.lock:
            self._closure(self._algorithm(algorithm))

    def _closure(self, algorithm: str) -> _Closure:
        """Shortest distances between all link ends over the whole building,
        cached per floor versions, link states and algorithm."""
        b = self.building
        key = b.version  # a sum of change counters that only grow: any change moves it
        hit = self._closures.get(algorithm)
        if hit is not None and hit[0] == key:
            return hit[1]
        for f in range(self._n_floors):
            self._floor(f)
        ne = len(self._end_floor)
        w = np.full((ne, ne), _INF)
        hop = np.full((ne, ne), -1, dtype=np.int64)
        for f in range(self._n_floors):
            ends = self._floor_ends[f]
            if not ends:
                continue
            dist, _ = self._table(f, algorithm)
            idx = np.array(ends, dtype=np.int64)
            w[np.ix_(idx, idx)] = dist
        on = b.link_states
        for k, lk in enumerate(b.links):
            if not on[k]:
                continue
            a, c = 2 * k, 2 * k + 1
            fa, fc = self._floor(lk.start.floor), self._floor(lk.end.floor)
            if fa.regions[fa.local[a]] < 0 or fc.regions[fc.local[c]] < 0:
                continue  # an end off its floor's mesh: the link cannot be reached
            pairs = [(a, c)] + ([(c, a)] if lk.bidirectional else [])
            for u, v in pairs:
                if lk.cost < w[u, v]:
                    w[u, v] = lk.cost
                    hop[u, v] = k
        # all pairs by Dijkstra (scipy); csgraph drops explicit zeros, so a walk of
        # length 0 between two ends at one point enters as 1e-300 m (cleared below)
        off = np.isfinite(w)
        np.fill_diagonal(off, False)
        rows, cols = np.nonzero(off)
        graph = csr_matrix((np.maximum(w[rows, cols], 1e-300), (rows, cols)), shape=(ne, ne))
        dist, pred = shortest_path(graph, method="D", directed=True, return_predecessors=True)
        dist[dist < 1e-200] = 0.0
        eu, ev = np.nonzero(hop >= 0)
        edges = (eu.astype(np.int64), ev.astype(np.int64), w[eu, ev])
        cl = _Closure(dist, pred.astype(np.int64), hop, edges, algorithm == "exact")
        self._closures[algorithm] = (key, cl)
        return cl

    # ------------------------------------------------------------ validation
    def _floor_arg(self, floor: Any, name: str) -> int:
        if type(floor) is int and 0 <= floor < self._n_floors:
            return floor
        try:
            return self.building.floor_index(floor, name)
        except ConfigError as e:
            raise QueryError(f"{name}: {e.reason}") from None

    @staticmethod
    def _algorithm(algorithm: Any) -> str:
        if algorithm == "auto":
            return "exact"
        if not isinstance(algorithm, str) or algorithm not in ALGORITHMS:
            raise QueryError(f"algorithm must be one of auto, {', '.join(ALGORITHMS)}, "
                             f"got {shown(algorithm)}")
        return algorithm

    # ------------------------------------------------------------ point queries
    def place(self, point: ArrayLike, floor: Any) -> Place | None:
        """Where a query from ``point`` (x, z) on ``floor`` starts (the floor's
        :meth:`NavMesh.place`): a :class:`~navkit.contract.Place` with the
        floor's ``floorY`` as ``y``, or None beyond the snap radius."""
        return self.mesh(floor).place(point)

    def is_walkable(self, point: ArrayLike, floor: Any) -> bool:
        """True when ``point`` (x, z) lies on ``floor``'s mesh."""
        return self.mesh(floor).is_walkable(point)

    def raycast(self, a: ArrayLike, b: ArrayLike, floor: Any) -> RaycastHit:
        """The first wall of ``floor`` the segment ``a -> b`` meets (``a`` on its mesh)."""
        return self.mesh(floor).raycast(a, b)

    def nearest_point(self, point: ArrayLike, floor: Any,
                      radius: float | None = None) -> tuple[float, float] | None:
        """The nearest point of ``floor``'s mesh to ``point`` within ``radius``
        metres (default: the snap radius), or None."""
        return self.mesh(floor).nearest_point(point, radius)

    # ------------------------------------------------------------ paths
    def find_path(self, start: ArrayLike, goal: ArrayLike, *, start_floor: Any,
                  goal_floor: Any, algorithm: str = "exact") -> FloorMeshPath:
        """The shortest path from ``start`` on ``start_floor`` to ``goal`` on
        ``goal_floor`` (world ``(x, z)`` metres; floors by index or name).

        ``algorithm="exact"`` (``"auto"``) joins exact within-floor paths
        (Polyanya): the optimum of docs/rules.md §16. ``"funnel"`` uses each
        floor's funnel paths instead (never shorter). Off-mesh points snap as
        on one mesh (``NO_START`` / ``NO_GOAL`` beyond the snap radius).
        """
        s_xy = world_point(start, "start")
        g_xy = world_point(goal, "goal")
        fs = self._floor_arg(start_floor, "start_floor")
        fg = self._floor_arg(goal_floor, "goal_floor")
        alg = self._algorithm(algorithm)
        with self.lock:
            return self._find(s_xy, g_xy, fs, fg, alg)

    def _find(self, s_xy: tuple[float, float], g_xy: tuple[float, float], fs: int, fg: int,
              alg: str) -> FloorMeshPath:
        cl = self._closure(alg)  # also brings every floor up to date
        fls = self._floors[fs]
        flg = self._floors[fg]
        assert fls is not None and flg is not None
        ps = fls.mesh.place(s_xy)
        if ps is None:
            return FloorMeshPath(Status.NO_START, algorithm=alg)
        pg = flg.mesh.place(g_xy)
        if pg is None:
            return FloorMeshPath(Status.NO_GOAL, algorithm=alg)
        (sx, sz), sp, sr = ps.point, ps.polygon, ps.region
        (gx, gz), gp, gr = pg.point, pg.polygon, pg.region
        search_s = fls.search(alg)
        search_g = flg.search(alg)
        searches = 0

        # candidates: a first end a on the start floor, a last end b on the goal
        # floor (in the start's / goal's region); key = lower bound of
        # d(start, a) + closure(a, b) + d(b, goal), exact once both are known (on
        # one floor with exact paths, closure(a, b) over paths that take a link:
        # the direct walk stands for the others)
        ca = fls.by_region.get(sr)
        cb = flg.by_region.get(gr)
        mid: list[list[float]] = []
        via: list[list[int]] | None = None
        lb_s: list[float] = []
        lb_g: list[float] = []
        if ca is not None and cb is not None:
            mid, via = cl.block((fs, sr, fg, gr), ca[0], cb[0])
            lb_s = [math.hypot(x - sx, z - sz) for x, z in ca[1]]
            lb_g = [math.hypot(x - gx, z - gz) for x, z in cb[1]]
        known_s = [False] * len(lb_s)
        known_g = [False] * len(lb_g)
        path_s: dict[int, NDArray[np.float64]] = {}
        path_g: dict[int, NDArray[np.float64]] = {}
        direct = math.hypot(gx - sx, gz - sz) if fs == fg and sr == gr else _INF
        direct_out: Any = None
        while True:
            best, i, j = _INF, -1, -1
            for ii, ls in enumerate(lb_s):
                if ls >= best:
                    continue
                row = mid[ii]
                for jj, lg in enumerate(lb_g):
                    v = ls + row[jj] + lg
                    if v < best:
                        best, i, j = v, ii, jj
            if direct <= best:
                if direct == _INF:
                    return FloorMeshPath(Status.UNREACHABLE, algorithm=alg, searches=searches)
                if direct_out is not None:
                    return self._direct(direct_out, fs, alg, searches)
                direct_out = search_s.find(sx, sz, sp, gx, gz, gp, _BUDGET)
                searches += 1
                direct = direct_out.length if direct_out.status == 0 else _INF
                continue
            assert ca is not None and cb is not None
            if not known_s[i]:
                k = fls.local[int(ca[0][i])]
                px, pz = ca[1][i]
                out = search_s.find(sx, sz, sp, px, pz, fls.polygons[k], _BUDGET)
                searches += 1
                known_s[i] = True
                lb_s[i] = out.length if out.status == 0 else _INF
                path_s[i] = out.waypoints
                continue
            if not known_g[j]:
                k = flg.local[int(cb[0][j])]
                px, pz = cb[1][j]
                out = search_g.find(px, pz, flg.polygons[k], gx, gz, gp, _BUDGET)
                searches += 1
                known_g[j] = True
                lb_g[j] = out.length if out.status == 0 else _INF
                path_g[j] = out.waypoints
                continue
            a, b = int(ca[0][i]), int(cb[0][j])
            if via is None:
                chain = cl.chain(a, b)
            else:
                k = via[i][j]
                chain = cl.chain(a, int(cl.edges[0][k])) + cl.chain(int(cl.edges[1][k]), b)
            return self._assemble(cl, alg, fs, fg, chain, path_s[i], lb_s[i], path_g[j],
                                  lb_g[j], best, searches)

    def _direct(self, out: Any, f: int, alg: str, searches: int) -> FloorMeshPath:
        wp = out.waypoints
        m = len(wp)
        return FloorMeshPath(Status.FOUND, wp, np.full(m, f, np.int32),
                             np.full(m, -1, np.int32), [], float(out.length),
                             np.full(m, self._ys[f]), alg, searches)

    def _assemble(self, cl: _Closure, alg: str, fs: int, fg: int, chain: list[int],
                  first: NDArray[np.float64], first_len: float, last: NDArray[np.float64],
                  last_len: float, length: float, searches: int) -> FloorMeshPath:
        pts: list[list[float]] = []
        fls: list[int] = []
        ent: list[int] = []

        def walk(wp: NDArray[np.float64], f: int, length: float) -> None:
            seq = wp[:1].tolist() if length == 0.0 else wp.tolist()  # length 0: one point
            if fls and fls[-1] == f and pts[-1] == seq[0]:
                del seq[0]
            pts.extend(seq)
            fls.extend([f] * len(seq))
            ent.extend([-1] * len(seq))

        walk(first, fs, first_len)
        links: list[int] = []
        hop, dist = cl.hop, cl.dist
        for cur, n in zip(chain[:-1], chain[1:], strict=True):
            k = int(hop[cur, n])
            f = self._end_floor[n]
            fl = self._floors[f]
            assert fl is not None
            if k >= 0:
                links.append(k)
                pts.append(list(fl.points[fl.local[n]]))
                fls.append(f)
                ent.append(k)
            else:
                _, paths = self._table(f, alg)
                walk(paths[(fl.local[cur], fl.local[n])], f, float(dist[cur, n]))
        walk(last, fg, last_len)
        ys = self._ys
        return FloorMeshPath(Status.FOUND, np.array(pts, dtype=np.float64).reshape(-1, 2),
                             np.array(fls, dtype=np.int32), np.array(ent, dtype=np.int32),
                             links, float(length),
                             np.array([ys[f] for f in fls], dtype=np.float64), alg, searches)

    def __repr__(self) -> str:
        return (f"FloorMesh({self._n_floors} floors, {len(self.building.links)} links, "
                f"version {self.building.version})")
