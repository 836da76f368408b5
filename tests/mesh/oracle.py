"""A slow, independent reference for shortest paths in a polygonal free space.

The Euclidean shortest path inside a closed polygonal region bends only at
the region's ring vertices, so Dijkstra over the *visibility graph* of those
vertices plus the two end points gives its exact length.

Tolerance: a segment is *visible* when ``space.buffer(TOL)`` covers it
(``TOL = 1e-9`` m). The slack admits segments that run along a wall or through
a point where the free space touches itself (closed-set semantics) despite
rounding in shapely's predicates; it would also let a path cross an obstacle
thinner than ``2 * TOL``, which the tests never build.

>>> import shapely
>>> space = shapely.box(0, 0, 10, 10).difference(shapely.box(4, -1, 6, 8))
>>> round(visibility_length(space, (1, 1), (9, 1)), 6)
17.231546
>>> segment_inside(space, [(1, 1), (4, 8), (6, 8), (9, 1)], 1e-7)
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import shapely
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra

__all__ = ["TOL", "VisibilityOracle", "visibility_length", "segment_inside"]

#: Visibility slack, metres (see the module docstring).
TOL = 1e-9

Point = Sequence[float]


def _ring_vertices(space: shapely.Geometry) -> np.ndarray:
    """Every ring vertex of ``space``, ``(n, 2)``, duplicates removed."""
    pts = []
    for poly in getattr(space, "geoms", [space]):
        if not isinstance(poly, shapely.Polygon) or poly.is_empty:
            continue
        for ring in [poly.exterior, *poly.interiors]:
            pts.append(np.asarray(ring.coords)[:-1, :2])
    if not pts:
        return np.zeros((0, 2))
    return np.unique(np.concatenate(pts), axis=0)


class VisibilityOracle:
    """The visibility graph of ``space``'s ring vertices, built once; :meth:`length`
    adds the two query points. ``space`` is a shapely (multi)polygon, metres."""

    def __init__(self, space: shapely.Geometry, tol: float = TOL) -> None:
        self.space = space
        self.covered = space.buffer(tol)
        shapely.prepare(self.covered)
        self.verts = _ring_vertices(space)
        n = len(self.verts)
        i, j = np.triu_indices(n, 1)
        lines = shapely.linestrings(np.stack([self.verts[i], self.verts[j]], axis=1))
        ok = shapely.covers(self.covered, lines)
        self._i = i[ok]
        self._j = j[ok]
        self._w = np.hypot(*(self.verts[self._i] - self.verts[self._j]).T)

    def visible(self, a: Point, b: Point) -> bool:
        """True when the segment ``a``-``b`` lies in the (slightly grown) free space."""
        if a[0] == b[0] and a[1] == b[1]:
            return bool(self.covered.covers(shapely.Point(a[0], a[1])))
        return bool(self.covered.covers(shapely.LineString([a, b])))

    def length(self, a: Point, b: Point) -> float:
        """Shortest path length from ``a`` to ``b`` inside the space; ``inf`` when
        either point is outside it or no path joins them."""
        if not (self.visible(a, a) and self.visible(b, b)):
            return math.inf
        if self.visible(a, b):
            return math.hypot(b[0] - a[0], b[1] - a[1])
        n = len(self.verts)
        ends = np.array([a, b], dtype=np.float64)
        rows = [self._i]
        cols = [self._j]
        wts = [self._w]
        for k, p in enumerate(ends):
            lines = shapely.linestrings(np.stack([np.broadcast_to(p, self.verts.shape),
                                                  self.verts], axis=1))
            d = np.hypot(*(self.verts - p).T)
            ok = shapely.covers(self.covered, lines) | (d == 0)
            idx = np.nonzero(ok)[0]
            rows.append(np.full(len(idx), n + k))
            cols.append(idx)
            wts.append(np.maximum(d[idx], 1e-300))  # csgraph drops explicit zeros
        g = coo_matrix((np.concatenate(wts), (np.concatenate(rows), np.concatenate(cols))),
                       shape=(n + 2, n + 2)).tocsr()
        dist = dijkstra(g, directed=False, indices=n)
        return float(dist[n + 1])


def visibility_length(space: shapely.Geometry, a: Point, b: Point) -> float:
    """Euclidean shortest path length from ``a`` to ``b`` inside the closed free
    space ``space`` (a shapely polygon or multipolygon), metres; ``inf`` when
    unreachable. Builds the visibility graph each call: for many queries on one
    space use :class:`VisibilityOracle`."""
    return VisibilityOracle(space).length(a, b)


def segment_inside(space: shapely.Geometry, path_xy: Sequence[Point] | np.ndarray,
                   tol: float) -> bool:
    """True when every segment of the polyline ``path_xy`` ``(m, 2)`` lies in
    ``space`` grown by ``tol`` metres (a single point: the point does)."""
    pts = np.asarray(path_xy, dtype=np.float64).reshape(-1, 2)
    grown = space.buffer(tol)
    if len(pts) == 0:
        return False
    if len(pts) == 1:
        return bool(grown.covers(shapely.Point(pts[0])))
    segs = shapely.linestrings(np.stack([pts[:-1], pts[1:]], axis=1))
    return bool(np.all(shapely.covers(grown, segs)))
