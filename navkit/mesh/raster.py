"""A mesh's free space as a walkable grid: the outer raster (docs/rules.md §15.6).

A cell is free when its closed square meets the free space (touching counts; the
square is grown by ``1e-6 * cell`` against rounding). Every point of a mesh path
lies in the closure of the free space, so every cell a step along it crosses is
free: a simulation's movement guard, which checks steps against this grid, never
rejects a step of a mesh path as a wall. Every point of an accepted step lies in
a free cell, hence within ``cell * sqrt(2)`` of the free space.

The grid covers the mesh's bounds (its level's grid, the grid it came from, else
its polygons' box) snapped outward to whole cells, plus one free margin cell on
each side (an outer raster reaches one cell past the free space).
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from numpy.typing import NDArray

from ..grid import NavGrid

__all__ = ["outer_raster", "MeshRaster"]

#: Relative growth of a cell's square in the raster test (absorbs rounding in the guard's DDA).
_GROW = 1e-6


def outer_raster(space: shapely.Geometry, min_x: float, min_z: float, width: int, depth: int,
                 cell_size: float, out: NDArray[np.bool_] | None = None,
                 window: tuple[int, int, int, int] | None = None) -> NDArray[np.bool_]:
    """Cells whose closed square (grown by ``1e-6 * cell_size``) meets ``space``.

    Returns a bool ``(depth, width)`` array indexed ``[z, x]`` (written into
    ``out`` when given). ``window = (x0, x1, z0, z1)`` (half-open cell ranges)
    recomputes only those cells of ``out``.

    >>> sq = shapely.box(0.5, 0.5, 1.5, 1.0)
    >>> outer_raster(sq, 0.0, 0.0, 3, 2, 1.0).astype(int).tolist()
    [[1, 1, 0], [1, 1, 0]]
    """
    if out is None:
        out = np.zeros((depth, width), dtype=bool)
    x0, x1, z0, z1 = (0, width, 0, depth) if window is None else window
    x0, z0 = max(0, x0), max(0, z0)
    x1, z1 = min(width, x1), min(depth, z1)
    if x1 <= x0 or z1 <= z0:
        return out
    g = _GROW * cell_size
    xs = min_x + np.arange(x0, x1, dtype=np.float64) * cell_size
    zs = min_z + np.arange(z0, z1, dtype=np.float64) * cell_size
    bx, bz = np.meshgrid(xs, zs)
    boxes = shapely.box(bx - g, bz - g, bx + cell_size + g, bz + cell_size + g)
    shapely.prepare(space)
    out[z0:z1, x0:x1] = shapely.intersects(space, boxes)
    return out


class MeshRaster:
    """The outer raster of a changing free space at one cell size, updated where
    the space changed (the bounding box of the symmetric difference, two cells
    grown) instead of redrawn."""

    def __init__(self, bounds: tuple[float, float, float, float], cell_size: float,
                 floor_y: float, agent_radius: float, name: str):
        wc = float(cell_size)
        self.cell_size = wc
        self.min_x = math.floor(bounds[0] / wc) * wc - wc
        self.min_z = math.floor(bounds[1] / wc) * wc - wc
        self.width = int(math.ceil((bounds[2] - self.min_x) / wc)) + 1
        self.depth = int(math.ceil((bounds[3] - self.min_z) / wc)) + 1
        self._meta = (float(floor_y), float(agent_radius), name)
        self._walk: NDArray[np.bool_] | None = None
        self._space: shapely.Geometry | None = None
        self._grid: NavGrid | None = None

    def grid(self, space: shapely.Geometry) -> NavGrid:
        """The raster of ``space`` as a NavGrid (the same object while ``space`` is)."""
        if self._grid is not None and space is self._space:
            return self._grid
        w, d, wc = self.width, self.depth, self.cell_size
        old = self._space
        if self._walk is None or old is None:
            walk = outer_raster(space, self.min_x, self.min_z, w, d, wc)
        else:
            walk = self._walk.copy()
            diff = shapely.symmetric_difference(old, space)
            if not diff.is_empty:
                x0, z0, x1, z1 = diff.bounds
                win = (int(math.floor((x0 - self.min_x) / wc)) - 2,
                       int(math.floor((x1 - self.min_x) / wc)) + 3,
                       int(math.floor((z0 - self.min_z) / wc)) - 2,
                       int(math.floor((z1 - self.min_z) / wc)) + 3)
                outer_raster(space, self.min_x, self.min_z, w, d, wc, out=walk, window=win)
        self._walk = walk
        self._space = space
        fy, ar, name = self._meta
        self._grid = NavGrid(walk, cell_size=wc, min_x=self.min_x, min_z=self.min_z,
                             floor_y=fy, agent_radius=ar, name=name)
        return self._grid
