"""The one neighbour index on the Python side: its buffers and its geometry.

The kernel is :mod:`navkit._kernels.spatial_hash` (a counting sort of points
into a uniform grid, slot order inside a cell, and the radius, k-nearest and
cell-box queries over it); its arrays are one
:class:`~navkit._kernels.layouts.IndexArgs`. :class:`navkit.crowd.SpatialHash`
and the crowd tick fit the grid to their points' box; the character
simulation's movement guard and ORCA lay it over the map
(:func:`map_index`), so a step never leaves it by more than a cell.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._kernels.layouts import IndexArgs

__all__ = ["map_index", "index_buffers", "empty_index"]


def map_index(reach: float, min_x: float, min_z: float, ex: float, ez: float,
              n: int) -> tuple[Any, ...]:
    """Buffers of an index of up to ``n`` points over the map box
    ``[min_x, min_x + ex] x [min_z, min_z + ez]`` (m), as a plain
    :class:`~navkit._kernels.layouts.IndexArgs` tuple.

    Cells are ``reach`` m (at least 1 mm, widened by a relative 1e-9 so that
    two points ``reach`` apart are never two cells apart), doubled until the
    grid has at most ``max(8 n, 65536)`` cells. Points outside the box are
    clamped into its border cells."""
    h = max(reach, 1e-3) * (1.0 + 1e-9) + 1e-9
    limit = max(8 * n, 1 << 16)
    while True:
        gw = int(ex // h) + 1
        gd = int(ez // h) + 1
        if gw * gd <= limit:
            break
        h *= 2.0
    ix = index_buffers(n, gw * gd)
    ix.geom[:] = (min_x, min_z, h, min_x + ex, min_z + ez)
    ix.dims[:] = (gw, gd)
    return tuple(ix)


def index_buffers(n: int, cells: int) -> IndexArgs:
    """Zeroed buffers of an index of up to ``n`` points and ``cells`` cells
    (its geometry to set: :func:`~navkit._kernels.spatial_hash.fit` or the caller)."""
    return IndexArgs(
        geom=np.zeros(5, dtype=np.float64), dims=np.zeros(2, dtype=np.int64),
        cell_start=np.zeros(cells + 1, dtype=np.int32),
        order=np.zeros(n, dtype=np.int32), slot=np.zeros(n, dtype=np.int32),
        spos=np.zeros((n, 2), dtype=np.float64), cellid=np.zeros(n, dtype=np.int32))


def empty_index() -> tuple[Any, ...]:
    """An index of no points (one cell): a placeholder of the right types."""
    return map_index(1.0, 0.0, 0.0, 0.0, 0.0, 0)
