"""Detour-style paths on a mesh: A* over polygons, then the simple stupid funnel.

Fast and valid (every segment lies in the mesh) but not optimal: the A*
measures a polygon by the midpoint of the portal it was entered through, so
its corridor need not hold the shortest path. The baseline the exact search
is measured against.

>>> import numpy as np
>>> from navkit.mesh.arrays import from_polygons
>>> m = from_polygons(np.array([[0, 0], [2, 0], [2, 1], [0, 1], [1, 0], [1, 1]], float),
...                   [[0, 4, 5, 3], [4, 1, 2, 5]])
>>> out = FunnelSearch(m).find(0.5, 0.5, 0, 1.5, 0.25, 1)
>>> out.status, out.waypoints.tolist(), round(out.length, 6)
(0, [[0.5, 0.5], [1.5, 0.25]], 1.030776)
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from .._kernels import mesh_funnel as _kf
from .._kernels import mesh_geom as _kg
from ..errors import QueryError
from .arrays import MeshArrays
from .outcome import SearchOutcome

__all__ = ["FunnelSearch"]


class FunnelSearch:
    """A* over the polygons of ``arrays`` plus the funnel; owns its workspace
    (``O(P)`` buffers and a heap that grows on demand). Not thread-safe: one
    query at a time per instance."""

    def __init__(self, arrays: MeshArrays) -> None:
        self.arrays = arrays
        n = arrays.n_polygons
        self._args = arrays.args()
        self._seen = np.zeros(n, dtype=np.int64)
        self._closed = np.zeros(n, dtype=np.int64)
        self._g = np.zeros(n, dtype=np.float64)
        self._f = np.zeros(n, dtype=np.float64)
        self._px = np.zeros(n, dtype=np.float64)
        self._pz = np.zeros(n, dtype=np.float64)
        self._parent = np.zeros(n, dtype=np.int32)
        self._pedge = np.zeros(n, dtype=np.int32)
        cap = max(64, int(arrays.poly_verts.shape[0]) + 16)
        self._hf = np.zeros(cap, dtype=np.float64)
        self._hk = np.zeros(cap, dtype=np.int64)
        self._corridor = np.zeros(n, dtype=np.int32)
        self._portals = np.zeros((n + 1, 4), dtype=np.float64)
        self._out = np.zeros((n + 2, 2), dtype=np.float64)
        self._scr = np.zeros(_kg.SCRATCH, dtype=np.float64)
        self._stamp = 0

    def searched_polygons(self) -> NDArray[np.int32]:
        """The polygons the last query closed (expanded), sorted (int32)."""
        if self._stamp == 0:
            return np.zeros(0, dtype=np.int32)
        return np.flatnonzero(self._closed == self._stamp).astype(np.int32)

    def _check_poly(self, name: str, poly: int, x: float, z: float) -> int:
        p = int(poly)
        if p < 0 or p >= self.arrays.n_polygons:
            raise QueryError(f"{name}: must be in [0, {self.arrays.n_polygons}), got {p}")
        a = self.arrays
        if not _kg.poly_contains(a.vertices, a.poly_start, a.poly_verts, p, x, z, self._scr):
            raise QueryError(f"{name}: polygon {p} does not hold the point ({x!r}, {z!r})")
        return p

    def find(self, sx: float, sz: float, start_poly: int, gx: float, gz: float, goal_poly: int,
             max_nodes: int = 1_000_000) -> SearchOutcome:
        """A path from ``(sx, sz)`` in ``start_poly`` to ``(gx, gz)`` in ``goal_poly`` (metres).

        ``max_nodes`` (>= 1) caps the polygons expanded. Returns a
        :class:`SearchOutcome`: status 0 with the waypoints (start, corners,
        goal), 1 when the goal's region differs from the start's or no
        corridor exists, 2 when the budget ran out.
        """
        sx, sz, gx, gz = float(sx), float(sz), float(gx), float(gz)
        for name, v in (("sx", sx), ("sz", sz), ("gx", gx), ("gz", gz)):
            if not math.isfinite(v):
                raise QueryError(f"{name}: must be finite, got {v!r}")
        sp = self._check_poly("start_poly", start_poly, sx, sz)
        gp = self._check_poly("goal_poly", goal_poly, gx, gz)
        if isinstance(max_nodes, bool) or int(max_nodes) != max_nodes or max_nodes < 1:
            raise QueryError(f"max_nodes: must be an integer >= 1, got {max_nodes!r}")
        empty = np.empty((0, 2), dtype=np.float64)
        if self.arrays.poly_region[sp] != self.arrays.poly_region[gp]:
            return SearchOutcome(1, empty, math.inf, 0, 0)
        while True:
            self._stamp += 1
            ws = (self._seen, self._closed, self._g, self._f, self._px, self._pz, self._parent,
                  self._pedge, self._hf, self._hk, self._corridor, self._portals, self._out)
            st, n, expanded, generated = _kf.funnel_search(
                self._args, sx, sz, sp, gx, gz, gp, int(max_nodes), self._stamp, ws, self._scr)
            if st != _kf.HEAP_FULL:
                break
            cap = 2 * self._hf.shape[0]
            self._hf = np.zeros(cap, dtype=np.float64)
            self._hk = np.zeros(cap, dtype=np.int64)
        if st != _kf.FOUND:
            return SearchOutcome(int(st), empty, math.inf, int(expanded), int(generated))
        pts = self._out[:n].copy()
        length = float(np.sum(np.hypot(*np.diff(pts, axis=0).T))) if n > 1 else 0.0
        return SearchOutcome(0, pts, length, int(expanded), int(generated))
