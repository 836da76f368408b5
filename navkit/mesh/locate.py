"""Point queries on a mesh: which polygon holds a point, the nearest point, raycasts.

The functions take a :class:`~navkit.mesh.arrays.MeshArrays` and finite
coordinates in metres (the caller checks finiteness); arrays are checked
here. Polygons are closed: a point on an edge or vertex belongs to every
polygon that touches it, and ties go to the lowest polygon index. Every
decision uses exact orientation predicates.

>>> import numpy as np
>>> from navkit.mesh.arrays import from_polygons
>>> m = from_polygons(np.array([[0, 0], [2, 0], [2, 1], [0, 1], [1, 0], [1, 1]], float),
...                   [[0, 4, 5, 3], [4, 1, 2, 5]])
>>> locate(m, 1.0, 0.5), locate(m, 1.5, 0.5), locate(m, 3.0, 0.5)
(0, 1, -1)
>>> raycast(m, 0.5, 0.5, -1, 3.0, 0.5)
(True, 0.6, 2.0, 0.5, 1)
"""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._kernels import mesh_geom as _k
from ..errors import QueryError
from .arrays import MeshArrays

__all__ = ["locate", "locate_many", "nearest_point", "nearest_point_in_region", "raycast",
           "is_walkable"]


_LOCAL = threading.local()


def _scratch() -> NDArray[np.float64]:
    """This thread's scratch buffer of the exact orientation fallback (reused, not
    allocated per query; one per thread since the kernels run without the GIL)."""
    buf = getattr(_LOCAL, "buf", None)
    if buf is None:
        buf = _LOCAL.buf = np.empty(_k.SCRATCH, dtype=np.float64)
    return buf


def locate(arrays: MeshArrays, x: float, z: float) -> int:
    """The lowest-index polygon whose closure holds ``(x, z)`` (metres), or -1."""
    return int(_k.locate_point(arrays.args(), float(x), float(z), _scratch()))


def locate_many(arrays: MeshArrays, xz: Any) -> NDArray[np.int32]:
    """:func:`locate` for each row of ``xz`` ``(n, 2)`` metres: int32 ``(n,)``."""
    pts = np.ascontiguousarray(xz, dtype=np.float64)
    if pts.ndim != 2 or pts.shape[1] != 2:
        raise QueryError(f"xz: expected an (n, 2) array, got shape {pts.shape}")
    out = np.empty(pts.shape[0], dtype=np.int32)
    _k.locate_batch(arrays.args(), pts, out, _scratch())
    return out


def is_walkable(arrays: MeshArrays, x: float, z: float) -> bool:
    """True when ``(x, z)`` lies on the mesh (:func:`locate` >= 0)."""
    return locate(arrays, x, z) >= 0


def nearest_point(arrays: MeshArrays, x: float, z: float,
                  max_dist: float = math.inf) -> tuple[int, float, float]:
    """The mesh's nearest point to ``(x, z)`` within ``max_dist`` metres.

    Returns ``(polygon, px, pz)`` (ties to the lowest polygon; the point itself
    when it is on the mesh), or ``(-1, nan, nan)`` when nothing is that close.
    """
    md = float(max_dist)
    if not md >= 0.0:
        raise QueryError(f"max_dist: must be >= 0, got {max_dist!r}")
    p, qx, qz = _k.nearest_kernel(arrays.args(), float(x), float(z), md, _scratch())
    return int(p), float(qx), float(qz)


def nearest_point_in_region(arrays: MeshArrays, x: float, z: float,
                            region: int) -> tuple[int, float, float]:
    """:func:`nearest_point` among the polygons with ``poly_region == region``
    (no distance limit): ``(polygon, px, pz)``, or ``(-1, nan, nan)`` when the
    region has no polygon."""
    p, qx, qz = _k.nearest_in_region_kernel(arrays.args(), arrays.poly_region, int(region),
                                            float(x), float(z), _scratch())
    return int(p), float(qx), float(qz)


def raycast(arrays: MeshArrays, ax: float, az: float, start_poly: int, bx: float,
            bz: float) -> tuple[bool, float, float, float, int]:
    """Walk the segment a -> b (metres) over the mesh from ``start_poly``.

    ``start_poly`` is a polygon holding a, or -1 to locate it. Returns
    ``(hit, fraction, hit_x, hit_z, polygon)``: without a hit
    ``(False, 1.0, bx, bz, polygon holding b)``; with one, the fraction in
    [0, 1] of the segment travelled before it would leave the mesh's closure,
    the point where it does and the last polygon. Sliding along a wall or
    passing through a vertex is no hit. A start off the mesh is a hit at 0
    with polygon -1. Raises :class:`~navkit.errors.QueryError` when
    ``start_poly`` is out of range or does not hold a.
    """
    sp = int(start_poly)
    if sp < -1 or sp >= arrays.n_polygons:
        raise QueryError(f"start_poly: must be -1 or in [0, {arrays.n_polygons}), got {sp}")
    st, poly, t, hx, hz = _k.raycast_kernel(arrays.args(), float(ax), float(az), sp, float(bx),
                                            float(bz), _scratch())
    if st == _k.RAY_BAD_START:
        raise QueryError(f"start_poly: polygon {sp} does not hold the start point "
                         f"({ax!r}, {az!r})")
    return st != _k.RAY_CLEAR, float(t), float(hx), float(hz), int(poly)
