"""Centralized planning for a :class:`~navkit.sim.Location` (seed 000 §5, §6, §9).

Every plan is one :meth:`~navkit.query.pathfinder.Pathfinder.find_path` query with
``nearest=True`` against a snapshot of obstacle characters taken from the
location's arrays in slot (= stable-ID) order. A character is an obstacle for
a request when it is not the requester, is alive and enabled, and did not move
during the previous tick - unless it is the blocker promoted for this request
(a retry after a blocked stop), which is an obstacle even if it moved. Its
circle radius is its ``collisionRadius`` (``navigationAvoidanceRadius``)
inflated by the map's ``agentRadius`` and half a cell diagonal. There is no
fallback without obstacles: an unreachable or occupied destination resolves
to the nearest reachable cell.

:class:`MapView` is the thin adapter between the simulation and its
:class:`~navkit.query.navmap.NavMap` (built from a level, a level config or a grid
when the caller passes one of those; built without a path cache, so every
plan is a fresh query from the character's exact position).
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._kernels import sim as _k
from ..errors import ConfigError
from ..grid import NavGrid
from ..level import LevelConfig, NavLevel
from ..query.navmap import NavMap
from ..query.pathfinder import Pathfinder
from ..results import PathResult

__all__ = ["MapView", "as_map_view", "obstacle_snapshot"]


class MapView:
    """The simulation's window on a navigation map (a :class:`~navkit.query.navmap.NavMap`).

    Wraps the map's path queries and edits, and keeps what the movement
    kernel needs for the current map version: the padded static walkable
    array and the connected-component labels of the static grid.
    """

    def __init__(self, source: Any, *, path: str | Path | None = None):
        if isinstance(source, NavMap):
            self.nav = source
        elif isinstance(source, dict):
            self.nav = NavMap(NavLevel(source), cache_size=0)
        elif isinstance(source, (NavLevel, LevelConfig, NavGrid)):
            self.nav = NavMap(source, cache_size=0)
        else:
            raise ConfigError(
                f"expected a NavMap, NavLevel, NavGrid, LevelConfig or level dict, got {type(source).__name__}",
                field="navigation",
            )
        #: File the map was read from (a static grid file), for saving scenes.
        self.path = None if path is None else Path(path)
        self._built_version = -1
        self._cells: NDArray[np.uint8] | None = None
        self._labels: NDArray[np.int32] | None = None

    # ------------------------------------------------------------ the map
    @property
    def version(self) -> int:
        """Change counter of the map (area toggles, obstacle polygons)."""
        return int(self.nav.version)

    @property
    def grid(self) -> NavGrid:
        """The current static grid."""
        return self.nav.grid

    @property
    def level(self) -> NavLevel | None:
        """The polygon level, or None for a plain grid."""
        return self.nav.level

    @property
    def cell_size(self) -> float:
        return float(self.nav.cell_size)

    @property
    def agent_radius(self) -> float:
        return float(self.nav.agent_radius)

    def obstacle_radius(self, collision_radius: ArrayLike) -> NDArray[np.float64]:
        """Seed 000 §6: collision radius + map agent radius + half a cell diagonal
        (the formula of :meth:`NavMap.obstacle_radius`, over arrays)."""
        r = np.asarray(collision_radius, dtype=np.float64)
        return r + self.agent_radius + self.cell_size * math.sqrt(2.0) / 2.0

    def set_area_available(self, name: str, available: bool) -> bool:
        """Open or close an area; returns whether anything changed."""
        return bool(self.nav.set_area_available(name, available))

    def add_obstacle(self, name: str, polygon: Any) -> None:
        self.nav.add_obstacle(name, polygon)

    def remove_obstacle(self, name: str) -> None:
        self.nav.remove_obstacle(name)

    def to_json(self, base: Path | None = None, sidecar: Path | None = None) -> dict[str, Any] | str:
        """The map for a saved scene.

        A polygon level is written inline, as it stands (doors, added
        obstacles). A plain grid is referenced by the file it was read from;
        a grid built in memory (or one with obstacle polygons added) is
        written to ``sidecar`` (an ``.npz`` beside the state, exact geometry)
        and referenced by that.
        """
        level = self.nav.level
        if level is not None:
            return level.to_json_dict()
        if self.path is not None and not self.nav.obstacle_names:
            target = self.path
        elif sidecar is not None:
            from ..formats import save_grid

            save_grid(self.grid, sidecar)
            target = sidecar
        else:
            raise ConfigError("a grid built in memory (or edited) has no file to reference; "
                              "save the location to a file (its grid goes beside it)", field="navigation")
        p = target.resolve()
        if base is not None:
            try:
                return os.path.relpath(p, base.resolve()).replace("\\", "/")
            except ValueError:
                pass
        return str(p)

    # ------------------------------------------------------ derived data
    def _refresh(self) -> None:
        v = self.version
        if v == self._built_version and self._cells is not None:
            return
        grid = self.grid
        walk = np.ascontiguousarray(grid.walkable, dtype=np.uint8)
        cells = np.zeros((grid.depth + 2, grid.width + 2), dtype=np.uint8)
        cells[1:-1, 1:-1] = walk
        self._cells = cells.ravel()
        labels = np.empty(grid.shape, dtype=np.int32)
        _k.label_components(walk, labels)
        self._labels = labels
        self._built_version = v

    @property
    def pathfinder(self) -> Pathfinder:
        return self.nav.pathfinder

    @property
    def padded_cells(self) -> NDArray[np.uint8]:
        """The static walkable grid with a blocked border, flattened (kernel layout)."""
        self._refresh()
        assert self._cells is not None
        return self._cells

    @property
    def labels(self) -> NDArray[np.int32]:
        """Connected components of the static grid (-1 on blocked cells)."""
        self._refresh()
        assert self._labels is not None
        return self._labels

    def is_walkable(self, x: float, z: float) -> bool:
        """True when world point ``(x, z)`` lies on a walkable cell of the static grid."""
        g = self.grid
        cx, cz = g.world_to_cell(float(x), float(z))
        return g.is_walkable(cx, cz)

    def static_goal(self, start: tuple[float, float], end: tuple[float, float]) -> tuple[int, int] | None:
        """The cell a plan without characters would end in when ``end`` is
        reachable from ``start`` on the static grid, else None."""
        pf = self.pathfinder
        s = pf.snap(start)
        g = pf.snap(end)
        if s is None or g is None:
            return None
        lab = self.labels
        if lab[s[1], s[0]] != lab[g[1], g[0]]:
            return None
        return g

    def find_path(self, start: tuple[float, float], end: tuple[float, float],
                  obstacles: NDArray[np.float64]) -> PathResult:
        """One planning query: path to ``end`` or to the nearest reachable cell.

        A NavMap with a path cache answers cached queries from cell centres;
        the simulation always plans from the exact position (what an
        uncached NavMap does), so a restored state, whose map has no cache,
        plans exactly alike.
        """
        if self.nav.cache.enabled:
            return self.nav.pathfinder.find_path(start, end, nearest=True, obstacles=obstacles)
        return self.nav.find_path_to_nearest(start, end, obstacles=obstacles)


def as_map_view(source: Any, *, path: str | Path | None = None) -> MapView:
    """A :class:`MapView` for ``source`` (returned as is when it already is one)."""
    if isinstance(source, MapView):
        return source
    return MapView(source, path=path)


def obstacle_snapshot(
    pos: NDArray[np.float64],
    radius: NDArray[np.float64],
    solid: NDArray[np.bool_],
    moved: NDArray[np.uint8],
    requester: int,
    promoted: int = -1,
) -> NDArray[np.float64]:
    """The ``(k, 3)`` circles ``(x, z, r)`` a request plans around (seed 000 §6).

    Rows are in slot order, which is stable-ID order. ``radius`` is already
    inflated (see :meth:`MapView.obstacle_radius`).
    """
    mask = solid & (moved == 0)
    mask[requester] = False
    if 0 <= promoted < len(mask) and promoted != requester and solid[promoted]:
        mask[promoted] = True
    idx = np.flatnonzero(mask)
    out = np.empty((len(idx), 3), dtype=np.float64)
    out[:, 0:2] = pos[idx]
    out[:, 2] = radius[idx]
    return out
