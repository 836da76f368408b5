"""A mesh from a :class:`~navkit.grid.NavGrid`: the union of its walkable cells.

Cell ``(x, z)`` is the closed square ``[min_x + x cs, min_x + (x + 1) cs] x
[min_z + z cs, min_z + (z + 1) cs]`` (``cs = grid.cell_size``); the mesh's
vertices are cell corners where the outline turns (collinear runs merged).

**Corner rule.** Two walkable cells that touch only at a corner are not
connected, as on the grid (a diagonal step needs both side cells free): the
outline turns at such a corner so that the two cells stay apart, and the mesh
has no portal of zero width there (its polygons meet at a vertex only).

>>> import numpy as np
>>> from navkit.grid import NavGrid
>>> g = NavGrid(np.array([[1, 0], [0, 1]], bool), cell_size=2.0)
>>> mesh, space = mesh_from_grid(g)
>>> mesh.n_polygons, int((mesh.poly_adj >= 0).sum()), space.area
(2, 0, 8.0)
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import shapely
from numpy.typing import NDArray

from .._kernels import mesh_build as _mk
from ..errors import ConfigError, QueryError
from ..grid import NavGrid
from .arrays import MeshArrays, from_csr
from .build import triangles_of
from .merge import merge_convex

__all__ = ["mesh_from_grid", "grid_rings", "LAST_TIMES"]

#: Seconds spent in each step of the last :func:`mesh_from_grid` call
#: (``trace``, ``polygons``, ``triangulate``, ``arrays``, ``merge``).
LAST_TIMES: dict[str, float] = {}


def grid_rings(walkable: NDArray[np.bool_]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Outlines of the walkable cells of a ``(D, W)`` array on the corner lattice.

    Returns ``(ring_start (R + 1,), points (n, 2))``: ring ``i`` is
    ``points[ring_start[i]:ring_start[i + 1]]``, integer corner ``(x, z)``
    pairs where the outline turns; outer rings counter-clockwise, holes
    clockwise, walkable cells on the left (see the module's corner rule).
    """
    d, w = walkable.shape
    walk = np.zeros((d + 2, w + 2), dtype=np.uint8)
    walk[1:-1, 1:-1] = walkable
    n_bottom = int(np.count_nonzero(walk[1:, :] > walk[:-1, :]))
    n_edges = 2 * int(np.count_nonzero(walk[:, 1:] != walk[:, :-1])) + 2 * n_bottom
    ring_start = np.zeros(n_bottom + 2, dtype=np.int64)
    pts = np.empty((max(n_edges, 4), 2), dtype=np.int64)
    used = np.empty((d + 1, w + 1, 4), dtype=np.uint8)
    nr = int(_mk.trace_rings(walk, ring_start, pts, used))
    if nr < 0:  # pragma: no cover - the buffers are sized for every boundary edge
        raise RuntimeError("grid_rings: buffer too small")
    return ring_start[:nr + 1].copy(), pts[:int(ring_start[nr])].copy()


def mesh_from_grid(grid: NavGrid) -> tuple[MeshArrays, shapely.Geometry]:
    """The mesh of ``grid``'s walkable cells and the (multi)polygon it tiles, metres.

    Traces the outlines (a kernel), builds shapely polygons with holes,
    triangulates them (constrained Delaunay) and merges the triangles into
    convex polygons. Raises :class:`~navkit.errors.ConfigError` when no cell
    is walkable. Times of each step are kept in :data:`LAST_TIMES`.
    """
    t0 = time.perf_counter()
    walkable = np.asarray(grid.walkable, dtype=bool)
    if not walkable.any():
        raise ConfigError("the grid has no walkable cell: the free space is empty",
                          field="walkable")
    ring_start, pts = grid_rings(walkable)
    t1 = time.perf_counter()
    rs = ring_start
    n_ring = len(rs) - 1
    x = pts[:, 0].astype(np.float64)
    z = pts[:, 1].astype(np.float64)
    nxt = np.arange(1, len(pts) + 1)
    nxt[rs[1:] - 1] = rs[:-1]
    area2 = np.add.reduceat(x * z[nxt] - x[nxt] * z, rs[:-1])  # exact: small integers
    # the walkable cell left of each ring's first edge names its 4-connected component
    from scipy import ndimage

    labels, _ = ndimage.label(walkable)  # 4-connectivity: the corner rule
    p0 = pts[rs[:-1]]
    p1 = pts[rs[:-1] + 1]
    dx = np.sign(p1[:, 0] - p0[:, 0])
    dz = np.sign(p1[:, 1] - p0[:, 1])
    # the edge p0 -> p0 + (dx, dz): the cell on its left
    cx = np.where(dx > 0, p0[:, 0], np.where(dx < 0, p0[:, 0] - 1, np.where(dz > 0, p0[:, 0] - 1,
                                                                             p0[:, 0])))
    cz = np.where(dz > 0, p0[:, 1], np.where(dz < 0, p0[:, 1] - 1, np.where(dx > 0, p0[:, 1],
                                                                             p0[:, 1] - 1)))
    comp = labels[cz, cx]
    outer = area2 > 0
    # each component: its outer ring first, then its holes
    order = np.lexsort((np.arange(n_ring), ~outer, comp))
    cs = float(grid.cell_size)
    wx = grid.min_x + x * cs
    wz = grid.min_z + z * cs
    lens = np.diff(rs)
    # closed rings for shapely: repeat each ring's first point
    ring_ids = np.repeat(np.arange(n_ring), lens + 1)
    idx = _closed_index(rs)
    coords = np.stack([wx[idx], wz[idx]], axis=1)
    rings = shapely.linearrings(coords, indices=ring_ids)
    rings_sorted = rings[order]
    _, poly_index = np.unique(comp[order], return_inverse=True)
    polys = shapely.polygons(rings_sorted, indices=poly_index)
    space: Any = shapely.MultiPolygon(list(polys)) if len(polys) > 1 else polys[0]
    t2 = time.perf_counter()
    try:
        verts, tri = triangles_of(space)
        t3 = time.perf_counter()
        mesh = from_csr(verts, np.arange(len(tri) + 1, dtype=np.int64) * 3, tri.ravel())
    except (shapely.errors.GEOSException, QueryError) as exc:
        raise ConfigError(f"the grid's outline cannot be triangulated at this precision "
                          f"({exc}); move the grid's origin closer to 0 or use larger cells",
                          field="min_x") from None
    t4 = time.perf_counter()
    mesh = merge_convex(mesh)
    t5 = time.perf_counter()
    LAST_TIMES.clear()
    LAST_TIMES.update(trace=t1 - t0, polygons=t2 - t1, triangulate=t3 - t2, arrays=t4 - t3,
                      merge=t5 - t4)
    return mesh, space


def _closed_index(rs: NDArray[np.int64]) -> NDArray[np.int64]:
    """Indices into the ring points that close every ring (first point repeated)."""
    lens = np.diff(rs)
    total = int(lens.sum()) + len(lens)
    out = np.arange(total, dtype=np.int64)
    ring = np.repeat(np.arange(len(lens)), lens + 1)
    local = out - np.repeat(rs[:-1] + np.arange(len(lens)), lens + 1)
    local = np.where(local == np.repeat(lens, lens + 1), 0, local)
    return rs[:-1][ring] + local
