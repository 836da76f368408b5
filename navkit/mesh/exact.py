"""Exact any-angle shortest paths on a mesh: Polyanya (:mod:`navkit._kernels.polyanya`).

:class:`ExactSearch` owns the search's workspace (node pool, heap, per-vertex
best ``g``, polygon stamps, waypoint buffer) and reuses it across queries: one
instance must not run two queries at once (use one per thread). It also keeps
the mesh's dead trees (pockets behind one edge, never searched unless they
hold the goal: :func:`navkit._kernels.polyanya.dead_trees`).

>>> import numpy as np
>>> from navkit.mesh.arrays import from_polygons
>>> m = from_polygons(np.array([[0, 0], [2, 0], [2, 1], [0, 1], [1, 0], [1, 1]], float),
...                   [[0, 4, 5, 3], [4, 1, 2, 5]])
>>> out = ExactSearch(m).find(0.5, 0.5, 0, 1.5, 0.5, 1)
>>> out.status, out.waypoints.tolist(), out.length
(0, [[0.5, 0.5], [1.5, 0.5]], 1.0)
"""

from __future__ import annotations

import math
import operator
import threading
import weakref
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._kernels import polyanya as _k
from ..errors import ConfigError, QueryError
from .arrays import MeshArrays
from .outcome import SearchOutcome

__all__ = ["ExactSearch"]

#: Most nodes the pool grows to; a query that needs more ends with status 2.
MAX_POOL = 1 << 24

_EMPTY = np.zeros((0, 2), dtype=np.float64)


#: Per-mesh data every search of a mesh reads (read-only), built once per mesh:
#: a batch's per-thread searches share it.
_PREPARED: weakref.WeakKeyDictionary[MeshArrays, tuple[NDArray[Any], ...]] = \
    weakref.WeakKeyDictionary()
_PREPARED_LOCK = threading.Lock()


def _prepared(arrays: MeshArrays) -> tuple[NDArray[Any], ...]:
    """``(twin, vgaps, region, tparent, edead)`` of ``arrays`` (see :func:`_k.search`)."""
    with _PREPARED_LOCK:
        prep = _PREPARED.get(arrays)
    if prep is not None:
        return prep
    twin = _twins(arrays)
    nv = arrays.n_vertices
    gap_owner = np.repeat(np.arange(nv), np.diff(arrays.vert_start))
    vgaps = np.bincount(gap_owner[arrays.vert_polys < 0], minlength=nv).astype(np.int32)
    region = _touch_regions(arrays)
    n_poly = arrays.n_polygons
    tparent = np.empty(n_poly, dtype=np.int32)
    edead = np.empty(len(arrays.poly_verts), dtype=np.uint8)
    _k.dead_trees(arrays.poly_start, arrays.poly_verts, arrays.poly_adj, vgaps, tparent, edead,
                  np.empty(n_poly, dtype=np.int32), np.empty(n_poly, dtype=np.int32))
    prep = (twin, vgaps, region, tparent, edead)
    with _PREPARED_LOCK:
        _PREPARED[arrays] = prep
    return prep


def _twins(arrays: MeshArrays) -> NDArray[np.int32]:
    """For each edge (``poly_verts`` index), the same edge's index inside the polygon across it."""
    ps = arrays.poly_start.astype(np.int64)
    pv = arrays.poly_verts.astype(np.int64)
    e = len(pv)
    nxt = np.arange(1, e + 1, dtype=np.int64)
    nxt[ps[1:] - 1] = ps[:-1]
    nv = max(arrays.n_vertices, 1)
    key = pv * nv + pv[nxt]
    rev = pv[nxt] * nv + pv
    order = np.argsort(key, kind="stable")
    pos = np.minimum(np.searchsorted(key[order], rev), e - 1)
    hit = (key[order][pos] == rev) & (arrays.poly_adj >= 0)
    return np.where(hit, order[pos], -1).astype(np.int32)


def _touch_regions(arrays: MeshArrays) -> NDArray[np.int32]:
    """Connected components of polygons that share an edge or a vertex (a path in
    the closed free space may pass where two polygons touch at a point)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n_poly = arrays.n_polygons
    owner = np.repeat(np.arange(n_poly), np.diff(arrays.poly_start))
    verts = arrays.poly_verts.astype(np.int64)
    g = coo_matrix((np.ones(len(verts)), (owner, verts)),
                   shape=(n_poly, arrays.n_vertices)).tocsr()
    both = (g @ g.T).tocoo()
    _, labels = connected_components(both, directed=False)
    return labels.astype(np.int32)


def _index(value: Any, name: str) -> int:
    if type(value) is int:  # the common case
        return value
    if isinstance(value, bool):
        raise QueryError(f"{name}: expected an integer, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise QueryError(f"{name}: expected an integer, got {type(value).__name__}") from None


def _coord(value: Any, name: str) -> float:
    if type(value) is float and -1e15 <= value <= 1e15:  # the common case (NaN fails it)
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise QueryError(f"{name}: expected a number, got {type(value).__name__}")
    v = float(value)
    if not math.isfinite(v) or abs(v) > 1e15:
        raise QueryError(f"{name}: expected a finite coordinate within +-1e15 m, got {v!r}")
    return v


class ExactSearch:
    """Euclidean shortest paths between located points of one mesh (Polyanya).

    ``initial_nodes`` sizes the node pool and heap (grown by doubling, up to
    ``MAX_POOL``, whenever a query fills them: the query then runs again).
    """

    def __init__(self, arrays: MeshArrays, *, initial_nodes: int = 4096) -> None:
        if not isinstance(arrays, MeshArrays):
            raise ConfigError(f"expected MeshArrays, got {type(arrays).__name__}", field="arrays")
        n0 = _index(initial_nodes, "initial_nodes") if not isinstance(initial_nodes, bool) else -1
        if n0 < 16 or n0 > MAX_POOL:
            raise ConfigError(f"initial_nodes must be an integer in [16, {MAX_POOL}], got "
                              f"{initial_nodes!r}", field="initial_nodes")
        self.arrays = arrays
        self._mesh = arrays.args()
        nv = arrays.n_vertices
        prep = _prepared(arrays)
        self._twin, self._vgaps, self._region, self._tparent, self._edead = prep
        self._best_g = np.zeros(nv, dtype=np.float64)
        self._g_stamp = np.zeros(nv, dtype=np.int64)
        self._smark = np.zeros(arrays.n_polygons, dtype=np.int64)
        self._gmark = np.zeros(arrays.n_polygons, dtype=np.int64)
        self._amark = np.zeros(arrays.n_polygons, dtype=np.int64)
        self._counts = np.zeros(4, dtype=np.int64)
        self._stamp = 0
        self._alloc(n0, nv + 4)

    def _alloc(self, nodes: int, out_rows: int) -> None:
        self._nf = np.zeros((nodes, _k.N_FLOAT), dtype=np.float64)
        self._ni = np.zeros((nodes, 5), dtype=np.int32)
        self._hf = np.zeros(nodes, dtype=np.float64)
        self._hk = np.zeros(nodes, dtype=np.int64)
        self._out = np.zeros((out_rows, 2), dtype=np.float64)

    def searched_polygons(self) -> NDArray[np.int32]:
        """The polygons the last query's search nodes entered, sorted (int32):
        each node is an interval on the edge into one of them."""
        n = int(self._counts[_k.C_GENERATED])
        polys = self._ni[:n, _k.I_POLY]
        return np.unique(polys[(polys >= 0) & (polys < self.arrays.n_polygons)]).astype(np.int32)

    @property
    def capacity(self) -> int:
        """Nodes the pool holds now."""
        return int(self._nf.shape[0])

    def find(self, sx: float, sz: float, start_poly: int, gx: float, gz: float,
             goal_poly: int, max_nodes: int = 1_000_000) -> SearchOutcome:
        """The shortest path from ``(sx, sz)`` in polygon ``start_poly`` to ``(gx, gz)``
        in ``goal_poly``, metres.

        Either point may lie on an edge or a vertex of its polygon (within
        ``ON_TOL`` of the polygon's extent); every polygon whose closure holds
        the goal is accepted. ``status``: 0 found, 1 unreachable, 2 when
        ``max_nodes`` expansions were used up. Waypoints: the start, each
        turning vertex, the goal; consecutive duplicates are dropped, except
        that start == goal gives the two identical points ``[start, goal]``
        (length 0). ``length`` is the sum of the segment lengths. Raises
        :class:`~navkit.errors.QueryError` on a bad argument or a point that
        is not in its polygon.
        """
        sx = _coord(sx, "sx")
        sz = _coord(sz, "sz")
        gx = _coord(gx, "gx")
        gz = _coord(gz, "gz")
        n_poly = self.arrays.n_polygons
        sp = _index(start_poly, "start_poly")
        gp = _index(goal_poly, "goal_poly")
        if not 0 <= sp < n_poly:
            raise QueryError(f"start_poly: {sp} is not a polygon index in [0, {n_poly})")
        if not 0 <= gp < n_poly:
            raise QueryError(f"goal_poly: {gp} is not a polygon index in [0, {n_poly})")
        budget = _index(max_nodes, "max_nodes")
        if budget < 0:
            raise QueryError(f"max_nodes: expected >= 0, got {budget}")
        if self._region[sp] != self._region[gp]:
            # still say so when a point is not in its polygon
            return self._run(sx, sz, sp, gx, gz, gp, 0, unreachable=True)
        return self._run(sx, sz, sp, gx, gz, gp, budget, unreachable=False)

    def _run(self, sx: float, sz: float, sp: int, gx: float, gz: float, gp: int,
             budget: int, *, unreachable: bool) -> SearchOutcome:
        while True:
            self._stamp += 1
            status = _k.search(self._mesh, self._twin, self._vgaps, self._tparent, self._edead,
                               self._nf, self._ni, self._hf, self._hk, self._best_g,
                               self._g_stamp, self._smark, self._gmark, self._amark,
                               self._stamp, sx, sz, sp, gx, gz, gp, budget, self._out,
                               self._counts)
            c = self._counts
            if status == _k.BAD_START:
                raise QueryError(f"start: ({sx!r}, {sz!r}) is not inside polygon {sp}")
            if status == _k.BAD_GOAL:
                raise QueryError(f"goal: ({gx!r}, {gz!r}) is not inside polygon {gp}")
            if unreachable and status != _k.FOUND:
                return SearchOutcome(1, _EMPTY.copy(), math.inf, 0, 0)
            if status == _k.GROW:
                nodes = self.capacity
                if nodes >= MAX_POOL:
                    return SearchOutcome(2, _EMPTY.copy(), math.inf, int(c[0]), int(c[1]))
                self._alloc(min(2 * nodes, MAX_POOL), 2 * self._out.shape[0])
                continue
            if status != _k.FOUND:
                return SearchOutcome(int(status), _EMPTY.copy(), math.inf, int(c[0]), int(c[1]))
            m = int(c[_k.C_WAYPOINTS])
            wp = self._out[:m].copy()
            length = 0.0
            pts = wp.tolist()  # plain floats: a tenth of the cost of numpy scalars
            for k in range(m - 1):
                (ax, az), (bx, bz) = pts[k], pts[k + 1]
                length += math.hypot(bx - ax, bz - az)
            return SearchOutcome(0, wp, length, int(c[0]), int(c[1]))
