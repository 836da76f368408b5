"""Point queries of the navigation contract on a grid (docs/rules.md §15).

:class:`GridPoints` answers :meth:`~navkit.contract.Navigator.place`,
``is_walkable``, ``raycast`` and ``nearest_point`` for a
:class:`~navkit.query.pathfinder.Pathfinder` (and the objects built on one:
``NavMap``, ``HPAStar``). A point's cell is ``floor((p - min) / cell_size)``;
the cells a query sees are the Pathfinder's: its edited grid and its occupants.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._kernels import geometry as _geo
from .._kernels import raycast as _ray
from .._kernels import sim as _sim
from ..contract import Place, RaycastHit
from ..errors import QueryError, shown
from .overlay import Occupancy, Overlay
from .padded import PaddedGrid
from .world import WorldQueries

__all__ = ["GridPoints", "snap_rings"]


def snap_rings(radius: float, cell_size: float) -> int:
    """Square rings of cells within ``radius`` metres (docs/rules.md §4.1).

    >>> snap_rings(8.0, 0.4), snap_rings(0.0, 1.0)
    (20, 0)
    """
    rings = radius / cell_size + 1e-9
    return int(math.floor(rings)) if rings < 1 << 30 else 1 << 30


class GridPoints:
    """The contract's point queries on one padded grid (see the module docstring)."""

    def __init__(self, pg: PaddedGrid, occ: Occupancy, overlay: Overlay, world: WorldQueries,
                 diagonal: str, edits: Any):
        self.pg = pg
        self.occ = occ
        self.overlay = overlay
        self.world = world
        #: Regions are 4-connected components, exact for every mode but ``"always"``
        #: (a diagonal step between two blocked side cells joins two of them).
        self.regions_exact = diagonal != "always"
        self._edits = edits  # (its ``version`` counts the cell edits)
        self._labels: NDArray[np.int32] | None = None
        self._labels_version = -1
        self._ray = np.zeros(3, dtype=np.float64)

    # ------------------------------------------------------------- regions
    def region(self, cell: tuple[int, int]) -> int:
        """The connected region of walkable cell ``cell`` on the edited grid (no
        occupants): 4-connected component labels (docs/rules.md §8.4), -1 where
        the diagonal mode makes them inexact."""
        if not self.regions_exact:
            return -1
        v = int(self._edits.version)
        if self._labels is None or self._labels_version != v:
            walk = np.ascontiguousarray(self.pg.unpad(self.pg.cells), dtype=np.uint8)
            labels = np.empty(walk.shape, dtype=np.int32)
            _sim.label_components(walk, labels)
            self._labels, self._labels_version = labels, v
        return int(self._labels[cell[1], cell[0]])

    # --------------------------------------------------------------- points
    def own_cell(self, p: tuple[float, float]) -> tuple[int, int] | None:
        """The cell holding world point ``p``, None outside the grid."""
        cx, cz = self.world.cell_of(p)
        g = self.pg.grid
        return (cx, cz) if 0 <= cx < g.width and 0 <= cz < g.depth else None

    def free(self, cell: tuple[int, int]) -> bool:
        """Cell ``cell`` (inside the grid) is walkable with the occupants and the overlay."""
        node = self.pg.node(*cell)
        ov = self.overlay
        return bool(self.occ.cells[node] != 0 and (ov.mark == 0 or ov.marks[node] != ov.mark))

    def is_walkable(self, p: tuple[float, float]) -> bool:
        """True when ``p``'s own cell is inside the grid and walkable (occupants count)."""
        c = self.own_cell(p)
        return c is not None and self.free(c)

    def place(self, p: tuple[float, float]) -> Place | None:
        """Where a query from ``p`` starts: the snap cell (docs/rules.md §4.1) and
        ``p`` itself when it lies in that cell, else the cell's centre."""
        cell = self.world.snap(*p)
        if cell is None:
            return None
        pt = p if self.own_cell(p) == cell else self.pg.grid.cell_center(*cell)
        return Place((float(pt[0]), float(pt[1])), region=self.region(cell), cell=cell,
                     y=float(self.pg.grid.floor_y))

    def nearest_point(self, p: tuple[float, float], radius: float) -> tuple[float, float] | None:
        """``p`` when its cell is walkable, else the centre of the nearest walkable
        cell within ``radius`` metres (the snap rule's rings and order), or None."""
        g = self.pg.grid
        cx, cz = self.world.cell_of(p)
        if 0 <= cx < g.width and 0 <= cz < g.depth and self.free((cx, cz)):
            return p
        node = _geo.snap_cell(self.occ.cells, self.overlay.args(), np.int64(self.pg.wp),
                              np.int64(self.pg.hp), np.int64(snap_rings(radius, g.cell_size)),
                              np.int64(cx), np.int64(cz))
        if node < 0:
            return None
        c = g.cell_center(*self.pg.cell(int(node)))
        return (float(c[0]), float(c[1]))

    def raycast(self, a: tuple[float, float], b: tuple[float, float]) -> RaycastHit:
        """The first blocked cell the segment ``a -> b`` enters (docs/rules.md §15.5);
        the caller turns the overlay off (a ray sees the occupants, not a query's circles)."""
        if not self.is_walkable(a):
            raise QueryError(f"a = {shown(a)} is not on a walkable cell")
        g = self.pg.grid
        out = self._ray
        hit = _ray.grid_raycast(self.occ.cells, np.int64(self.pg.wp), np.int64(self.pg.hp),
                                float(g.min_x), float(g.min_z), float(g.cell_size),
                                float(a[0]), float(a[1]), float(b[0]), float(b[1]), out)
        f = float(out[0])
        pt = (a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1])) if hit else (b[0], b[1])
        cell = (int(out[1]) - 1, int(out[2]) - 1)
        return RaycastHit(bool(hit), f, (float(pt[0]), float(pt[1])), -1, cell)
