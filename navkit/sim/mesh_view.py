"""The simulation on a navigation mesh: :class:`MeshView` (docs/rules.md §7-§10 on a mesh).

A :class:`MeshView` is the :class:`~navkit.sim.planner.MapView` of a
:class:`~navkit.mesh.navmesh.NavMesh`. Plans are mesh queries
(``find_path_to_nearest``, the exact method by default) around the same
obstacle snapshot as on grids (docs/rules.md §7.3, radii of
:meth:`MapView.obstacle_radius`); a character follows the mesh waypoints.

**Walls.** The movement kernel checks steps against a padded walkable grid
(docs/rules.md §9.5). On a mesh that grid is the **outer raster** of the
mesh's free space: a cell is free when its closed square meets the free space
(touching counts; the square is grown by ``1e-6 * cell`` against rounding).
Every point of a mesh path lies in the closure of the free space, so every
cell a step along it crosses is free: the guard never rejects a step of a
mesh path as a wall, and characters keep sliding along the raster as on
grids. Every point of an accepted step lies in a free cell, hence within
``wall_cell * sqrt(2)`` of the free space: a character never comes closer
than ``agentRadius + objectPadding - wall_cell * sqrt(2)`` to an obstacle
polygon, nor closer than ``boundaryPadding - wall_cell * sqrt(2)`` to the
edge of the available areas. ``wall_cell`` is the level's ``cellSize`` by
default; a finer one (``wall_cell_size=``) tightens the bound.

Reachability (partial plans, docs/rules.md §8.4) uses the mesh's connected
regions (``arrays.poly_region``). Edits (doors, obstacle polygons) edit the
mesh, bump :attr:`MeshView.version` and force replans as on grids
(docs/rules.md §10.4): a closure is a part of the old free space the new one
does not cover, an opening the converse.

>>> from navkit.level import parse_level
>>> from navkit.sim import Location
>>> loc = Location(parse_level({"cellSize": 0.25, "agentRadius": 0.3, "objectPadding": 0.0,
...     "areas": [{"name": "a", "polygon": [[0, 0], [10, 0], [10, 6], [0, 6]]}],
...     "obstacles": [{"name": "o", "polygon": [[4, 0], [6, 0], [6, 4], [4, 4]]}]}),
...     navigation_mode="mesh")
>>> a = loc.add_character("a", position=(1.0, 1.0), walk_speed=2.0)
>>> a.set_target((9.0, 1.0))
True
>>> _ = loc.run(200)
>>> [round(v, 1) for v in a.position], loc.stats.arrivals
([9.0, 1.0], 1)
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from numpy.typing import NDArray

from .._kernels import sim as _k
from ..errors import ConfigError, shown
from ..grid import NavGrid
from ..level import LevelConfig, NavLevel, parse_level
from ..mesh.navmesh import METHODS, NavMesh
from ..query.navmap import NavMap
from ..results import MeshPathResult
from .planner import MapView, grid_reference

__all__ = ["MeshView", "outer_raster", "MESH_GOAL_TOLERANCE", "DEFAULT_MESH_CELL_SIZE"]

#: Metres within which a plan's end counts as the static goal (partial plans, §8.4).
MESH_GOAL_TOLERANCE = 1e-6
#: Wall-grid cell size, metres, for a mesh that carries neither a level nor a grid.
DEFAULT_MESH_CELL_SIZE = 0.25
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


def _mesh_of(source: Any) -> tuple[NavMesh, NavGrid | None]:
    """The mesh for ``source`` and the grid it was built from (None: not from a grid)."""
    if isinstance(source, NavMesh):
        return source, None
    if isinstance(source, NavMap):
        source = source.level if source.level is not None else source.grid
    if isinstance(source, dict):
        source = parse_level(source)
    if isinstance(source, (NavLevel, LevelConfig)):
        return NavMesh.from_level(source), None
    if isinstance(source, NavGrid):
        return NavMesh.from_grid(source), source
    raise ConfigError("expected a NavMesh, NavMap, NavLevel, NavGrid, LevelConfig or level "
                      f"dict, got {type(source).__name__}", field="navigation")


class MeshView(MapView):
    """The simulation's window on a :class:`~navkit.mesh.navmesh.NavMesh`.

    Parameters
    ----------
    source
        A NavMesh, or what one is built from: a level (NavLevel, LevelConfig,
        dict), a NavGrid (``NavMesh.from_grid``) or a NavMap (its level, else
        its grid).
    path
        The file a grid came from (lets a saved scene reference it).
    method
        ``"exact"`` (default, the Euclidean optimum) or ``"funnel"``.
    wall_cell_size
        Cell size, metres, of the guard's wall grid (default: the level's or
        grid's ``cellSize``, else 0.25 m).
    """

    mode = "mesh"

    def __init__(self, source: Any, *, path: str | Path | None = None, method: str = "exact",
                 wall_cell_size: float | None = None):
        if method not in METHODS:
            raise ConfigError(f"expected one of {', '.join(METHODS)}, got {shown(method)}",
                              field="method")
        mesh, grid = _mesh_of(source)
        self.mesh = mesh
        self.method = str(method)
        self.path = None if path is None else Path(path)
        self._source_grid = grid
        cfg = mesh.config
        if cfg is not None:
            geo = cfg.grid_geometry()
            cs, agent = float(geo.cell_size), float(cfg.agent_radius)
            bounds = (geo.min_x, geo.min_z, geo.min_x + geo.width * cs,
                      geo.min_z + geo.depth * cs)
        elif grid is not None:
            cs, agent = float(grid.cell_size), float(grid.agent_radius)
            bounds = (grid.min_x, grid.min_z, grid.min_x + grid.width * cs,
                      grid.min_z + grid.depth * cs)
        else:
            cs, agent = DEFAULT_MESH_CELL_SIZE, 0.0
            bounds = mesh.bounds()
        #: Cell size of the obstacle radius formula (docs/rules.md §7.4), metres.
        self._plan_cell = cs
        self._agent = agent
        wc = cs if wall_cell_size is None else wall_cell_size
        if isinstance(wc, bool) or not isinstance(wc, (int, float)) or not math.isfinite(wc) \
                or not 1e-3 <= wc <= 1e3:
            raise ConfigError(f"expected a cell size in [0.001, 1000] metres, got {shown(wc)}",
                              field="wall_cell_size")
        wc = float(wc)
        # the wall grid: one free margin cell around the bounds (an outer raster
        # reaches one cell past the free space), blocked beyond (the kernel's pad)
        self._min_x = math.floor(bounds[0] / wc) * wc - wc
        self._min_z = math.floor(bounds[1] / wc) * wc - wc
        self._width = int(math.ceil((bounds[2] - self._min_x) / wc)) + 1
        self._depth = int(math.ceil((bounds[3] - self._min_z) / wc)) + 1
        self._wall_cell = wc
        self._walk: NDArray[np.bool_] | None = None
        self._raster_space: shapely.Geometry | None = None
        self._grid: NavGrid | None = None
        self._built_version = -1
        self._cells: NDArray[np.uint8] | None = None
        self._labels: NDArray[np.int32] | None = None

    # ------------------------------------------------------------ the map
    @property
    def version(self) -> int:
        return int(self.mesh.version)

    @property
    def wall_cell_size(self) -> float:
        """Cell size of the guard's wall grid, metres."""
        return self._wall_cell

    @property
    def grid(self) -> NavGrid:
        """The guard's wall grid: the outer raster of the free space (see the module)."""
        self._refresh()
        assert self._grid is not None
        return self._grid

    @property
    def level(self) -> NavLevel | None:
        """None: a mesh's level lives in :attr:`mesh` (``mesh.config``)."""
        return None

    @property
    def space(self) -> shapely.Geometry:
        """The mesh's free space (shapely), metres."""
        return self.mesh.space

    @property
    def cell_size(self) -> float:
        """The level's cell size (the obstacle radius formula's), metres."""
        return self._plan_cell

    @property
    def agent_radius(self) -> float:
        return self._agent

    def set_area_available(self, name: str, available: bool) -> bool:
        return bool(self.mesh.set_area_available(name, available))

    def add_obstacle(self, name: str, polygon: Any) -> None:
        self.mesh.add_obstacle(name, polygon)

    def remove_obstacle(self, name: str) -> None:
        self.mesh.remove_obstacle(name)

    def to_json(self, base: Path | None = None,
                sidecar: Path | None = None) -> dict[str, Any] | str:
        """The map for a saved scene: the mesh's level inline (as edited), else
        the grid it was built from (its file, or ``sidecar``)."""
        cfg = self.mesh.config
        if cfg is not None:
            return cfg.to_json_dict()
        grid = self._source_grid
        if grid is None:
            raise ConfigError("a mesh built from neither a level nor a grid cannot be "
                              "saved in a scene", field="navigation")
        return grid_reference(grid, self.path, sidecar, base)

    # ------------------------------------------------------ derived data
    def _refresh(self) -> None:
        v = self.version
        if v == self._built_version and self._cells is not None:
            return
        space = self.mesh.space
        w, d, wc = self._width, self._depth, self._wall_cell
        old = self._raster_space
        if self._walk is None or old is None:
            walk = outer_raster(space, self._min_x, self._min_z, w, d, wc)
        else:
            walk = self._walk.copy()
            diff = shapely.symmetric_difference(old, space)
            if not diff.is_empty:
                x0, z0, x1, z1 = diff.bounds
                win = (int(math.floor((x0 - self._min_x) / wc)) - 2,
                       int(math.floor((x1 - self._min_x) / wc)) + 3,
                       int(math.floor((z0 - self._min_z) / wc)) - 2,
                       int(math.floor((z1 - self._min_z) / wc)) + 3)
                outer_raster(space, self._min_x, self._min_z, w, d, wc, out=walk, window=win)
        self._walk = walk
        self._raster_space = space
        self._grid = NavGrid(walk, cell_size=wc, min_x=self._min_x, min_z=self._min_z,
                             floor_y=self.mesh.floor_y, agent_radius=self._agent,
                             name=self.mesh.name or "")
        cells = np.zeros((d + 2, w + 2), dtype=np.uint8)
        cells[1:-1, 1:-1] = walk
        self._cells = cells.ravel()
        labels = np.empty((d, w), dtype=np.int32)
        _k.label_components(np.ascontiguousarray(walk, dtype=np.uint8), labels)
        self._labels = labels
        self._built_version = v

    def change_token(self) -> Any:
        """The free space (compared by :meth:`changes`)."""
        return self.mesh.space

    def changes(self, old: Any, new: Any) -> tuple[bool, bool]:
        """``(closed, opened)``: the old free space is not covered by the new one /
        the new one is not covered by the old one."""
        if old is new:
            return False, False
        return bool(not shapely.covers(new, old)), bool(not shapely.covers(old, new))

    @property
    def pathfinder(self) -> Any:
        raise ConfigError("a mesh has no grid pathfinder; use MeshView.mesh", field="navigation")

    def is_walkable(self, x: float, z: float) -> bool:
        """True when world point ``(x, z)`` lies on the mesh (edges included)."""
        return bool(self.mesh.is_walkable((float(x), float(z))))

    def _snap(self, p: tuple[float, float]) -> tuple[int, tuple[float, float]] | None:
        """``(region, point)`` of ``p`` on the static mesh (snapped within the snap radius)."""
        mesh = self.mesh
        poly = mesh.locate(p)
        q = p
        if poly < 0:
            near = mesh.nearest_point(p)
            if near is None:
                return None
            q = near
            poly = mesh.locate(q)
            if poly < 0:
                return None
        return int(mesh.arrays.poly_region[poly]), q

    def static_goal(self, start: tuple[float, float],
                    end: tuple[float, float]) -> Any:
        """The point a plan without characters would end at when ``end`` is
        reachable from ``start`` on the static mesh (same region), else None."""
        s = self._snap(start)
        g = self._snap(end)
        if s is None or g is None or s[0] != g[0]:
            return None
        return g[1]

    def ends_at(self, res: Any, goal: Any) -> bool:
        """Whether plan ``res`` ends at ``goal`` (within :data:`MESH_GOAL_TOLERANCE`)."""
        w = res.waypoints
        if not len(w):
            return False
        return bool(math.hypot(float(w[-1, 0]) - goal[0], float(w[-1, 1]) - goal[1])
                    <= MESH_GOAL_TOLERANCE)

    def find_path(self, start: tuple[float, float], end: tuple[float, float],  # type: ignore[override]
                  obstacles: NDArray[np.float64]) -> MeshPathResult:
        """One planning query on the mesh: path to ``end`` or to the nearest reachable point."""
        return self.mesh.find_path_to_nearest(start, end, method=self.method,
                                              obstacles=obstacles)

    def __repr__(self) -> str:
        return f"MeshView({self.mesh!r}, method={self.method!r})"
