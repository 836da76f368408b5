"""The navigation mesh a game queries: :class:`NavMesh` (docs/navmesh.md).

A mesh tiles a level's free space with convex polygons. ``find_path`` returns
the **exact** Euclidean shortest path (Polyanya, :mod:`navkit.mesh.exact`);
``method="funnel"`` gives the Detour-style fast path (A* over polygons, then
the funnel; :mod:`navkit.mesh.funnel`), never shorter.

>>> from navkit.level import parse_level
>>> mesh = NavMesh.from_level(parse_level({
...     "agentRadius": 0.0, "objectPadding": 0.0,
...     "areas": [{"name": "a", "polygon": [[0, 0], [10, 0], [10, 10], [0, 10]]}],
...     "obstacles": [{"name": "wall", "polygon": [[4, 0], [6, 0], [6, 8], [4, 8]]}]}))
>>> r = mesh.find_path((1, 1), (9, 1))
>>> r.status.name, [list(map(float, p)) for p in r.waypoints]
('FOUND', [[1.0, 1.0], [4.0, 8.0], [6.0, 8.0], [9.0, 1.0]])
>>> round(r.length, 6) == round(2 * (3 ** 2 + 7 ** 2) ** 0.5 + 2, 6)
True
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from numpy.typing import ArrayLike, NDArray

from ..contract import (
    Place,
    RaycastHit,
    check_agent,
    check_radius,
    renamed_keywords,
    world_pairs,
)
from ..errors import ConfigError, QueryError, shown
from ..grid import NavGrid
from ..level import LevelConfig, NavLevel, level_config
from ..query.cache import LRUCache, obstacle_key
from ..query.fanout import fan_out, max_threads
from ..query.obstacles import circles_without
from ..query.overlay import as_circles
from ..query.padded import world_point
from ..query.serial import serialized
from ..results import MeshPathResult, Status, explained
from . import locate as loc
from .arrays import MeshArrays
from .build import DEFAULT_CHORD_ERROR, build_mesh
from .edit import cut_circles, rebuild_region
from .exact import ExactSearch
from .from_grid import mesh_from_grid
from .funnel import FunnelSearch
from .outcome import SearchOutcome
from .raster import MeshRaster

__all__ = ["NavMesh", "RaycastHit", "METHODS", "DEFAULT_SNAP_RADIUS"]

#: ``find_path`` algorithms (``"auto"`` is ``"exact"``).
METHODS = ("exact", "funnel")
#: Old keyword names the queries still take for one minor version.
_RENAMED = {"end": "goal", "ends": "goals", "method": "algorithm", "max_nodes": "budget"}
#: Wall-grid cell size, metres, for a mesh that carries neither a level nor a grid.
DEFAULT_MESH_CELL_SIZE = 0.25
#: Metres within which an off-mesh point snaps onto the mesh (as on grids, docs/rules.md §4.1).
DEFAULT_SNAP_RADIUS = 8.0
#: Largest node budget a query may ask for.
MAX_NODES = 1 << 30
_MAX_COORD = 1e15
#: Meshes cut by an obstacle snapshot kept per NavMesh (one snapshot per tick is typical).
_CUT_CACHE = 16


def _point(value: Any, name: str) -> tuple[float, float]:
    x, z = world_point(value, name)
    if abs(x) > _MAX_COORD or abs(z) > _MAX_COORD:
        raise QueryError(f"{name} must lie within +-1e15 m, got {shown(value)}")
    return x, z


def _passes_inside(points: NDArray[np.float64], circles: NDArray[np.float64]) -> NDArray[np.bool_]:
    """For each circle ``(k, 3)``: whether the polyline ``points`` ``(m, 2)`` comes
    closer to its centre than its radius (less one part in 1e12)."""
    c = circles[:, None, :2]
    if len(points) == 1:
        d2 = ((points[None, 0, :] - circles[:, :2]) ** 2).sum(axis=1)
        return d2 < (circles[:, 2] * (1 - 1e-12)) ** 2
    p0 = points[None, :-1, :]
    seg = points[None, 1:, :] - p0
    ll = (seg ** 2).sum(axis=2)
    t = np.clip(((c - p0) * seg).sum(axis=2) / np.where(ll > 0, ll, 1.0), 0.0, 1.0)
    near = p0 + t[:, :, None] * seg
    d2 = ((near - c) ** 2).sum(axis=2).min(axis=1)
    return d2 < (circles[:, 2] * (1 - 1e-12)) ** 2


class NavMesh:
    """A navigation mesh over a level's free space, with exact path queries.

    Build one with :meth:`from_level` (JSON polygon levels, docs/levels.md),
    :meth:`from_grid` (any :class:`~navkit.NavGrid`, e.g. a Moving AI map) or
    :meth:`load`. Thread-safe: each query object holds a lock (``mesh.lock``);
    :meth:`find_paths` runs a batch over all cores.

    Parameters
    ----------
    arrays : MeshArrays
        The polygons (see :mod:`navkit.mesh.arrays`).
    space : shapely geometry, optional
        The free space the polygons tile (kept for edits and obstacle cuts).
    config : LevelConfig, optional
        The level it came from (doors and obstacles can then be edited).
    floor_y : float
        Height of every waypoint, metres.
    snap_radius : float
        Metres within which an off-mesh start or end snaps to the nearest
        point of the mesh.
    chord_error : float
        Largest distance, metres, between a round inflation corner and its
        polygon arc (docs/navmesh.md §1.2).
    """

    def __init__(self, arrays: MeshArrays, *, space: shapely.Geometry | None = None,
                 config: LevelConfig | None = None, floor_y: float = 0.0,
                 snap_radius: float = DEFAULT_SNAP_RADIUS,
                 chord_error: float = DEFAULT_CHORD_ERROR, name: str | None = None,
                 weights: str = "raise"):
        if not isinstance(arrays, MeshArrays):
            raise ConfigError(f"expected MeshArrays, got {type(arrays).__name__}", field="arrays")
        for value, fld in ((snap_radius, "snap_radius"), (floor_y, "floor_y"),
                           (chord_error, "chord_error")):
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not math.isfinite(value):
                raise ConfigError(f"expected a finite number, got {shown(value)}", field=fld)
        if snap_radius < 0:
            raise ConfigError(f"must be >= 0, got {snap_radius!r}", field="snap_radius")
        if not 1e-6 <= chord_error <= 1.0:
            raise ConfigError(f"must lie in [1e-6, 1] metres, got {chord_error!r}",
                              field="chord_error")
        self.lock = threading.RLock()
        self._arrays = arrays
        self._space = space
        self._config = config
        self._weights = weights
        self.floor_y = float(floor_y)
        self.snap_radius = float(snap_radius)
        self.chord_error = float(chord_error)
        self.name = name
        self._version = 0
        self._searches: dict[str, Any] = {}
        self._cuts: LRUCache[NavMesh] = LRUCache(_CUT_CACHE)
        #: The grid a mesh was built from (:meth:`from_grid`; None: not one).
        self._source_grid: NavGrid | None = None
        self._rasters: dict[float, MeshRaster] = {}

    # ------------------------------------------------------------ building
    @classmethod
    def from_level(cls, level: LevelConfig | NavLevel | dict[str, Any] | str | Path, *,
                   chord_error: float = DEFAULT_CHORD_ERROR, merge: bool = True,
                   weights: str = "raise", snap_radius: float = DEFAULT_SNAP_RADIUS) -> NavMesh:
        """A mesh of a polygon level's free space (docs/navmesh.md §1.1).

        ``weights="raise"`` (default) refuses an available area with a weight
        other than 1 (exact weighted-region paths are out of scope); with
        ``"ignore"`` weights are treated as 1.
        """
        cfg = level_config(level)
        arrays, space = build_mesh(cfg, chord_error=chord_error, merge=merge, weights=weights)
        return cls(arrays, space=space, config=cfg, floor_y=cfg.floor_y,
                   snap_radius=snap_radius, chord_error=chord_error, name=cfg.name,
                   weights=weights)

    @classmethod
    def from_grid(cls, grid: NavGrid, *, snap_radius: float | None = None) -> NavMesh:
        """A mesh of a grid's walkable cells (their union; cell corners are vertices).

        Cells that touch only at a corner are not connected, as on the grid.
        ``snap_radius`` defaults to 8 m or two cells, whichever is larger.
        """
        if not isinstance(grid, NavGrid):
            raise ConfigError(f"expected a NavGrid, got {type(grid).__name__}", field="grid")
        arrays, space = mesh_from_grid(grid)
        if snap_radius is None:
            snap_radius = max(DEFAULT_SNAP_RADIUS, 2.0 * grid.cell_size)
        mesh = cls(arrays, space=space, floor_y=grid.floor_y, snap_radius=snap_radius,
                   name=grid.name)
        mesh._source_grid = grid
        return mesh

    @classmethod
    def load(cls, path: str | Path) -> NavMesh:
        """A mesh saved by :meth:`save` (checked on load; FormatError names the file)."""
        arrays, meta = MeshArrays.load(path)
        floor_y = meta.get("floorY", 0.0)
        snap = meta.get("snapRadius", DEFAULT_SNAP_RADIUS)
        name = meta.get("name")
        ok = (isinstance(floor_y, (int, float)) and isinstance(snap, (int, float))
              and math.isfinite(floor_y) and math.isfinite(snap) and snap >= 0)
        if not ok:
            from ..errors import FormatError
            raise FormatError("mesh meta floorY / snapRadius must be finite numbers",
                              path=str(path))
        return cls(arrays, floor_y=float(floor_y), snap_radius=float(snap),
                   name=name if isinstance(name, str) else None)

    def save(self, path: str | Path) -> None:
        """Write the polygons to ``path`` (``.npz``, docs/navmesh.md §5)."""
        self._arrays.save(path, meta={"floorY": self.floor_y, "snapRadius": self.snap_radius,
                                      "name": self.name})

    # ------------------------------------------------------------ properties
    @property
    def arrays(self) -> MeshArrays:
        """The mesh's arrays (read them, do not write)."""
        return self._arrays

    @property
    def space(self) -> shapely.Geometry:
        """The free space as a shapely geometry (the union of the polygons)."""
        if self._space is None:
            self._space = shapely.union_all([shapely.Polygon(p) for p in self._arrays.polygons()])
        return self._space

    @property
    def config(self) -> LevelConfig | None:
        """The level config the mesh was built from (None for grids and loaded meshes)."""
        return self._config

    @property
    def version(self) -> int:
        """Bumped by every edit (doors, obstacles); cached paths of an older version are stale."""
        return self._version

    @property
    def cell_size(self) -> float:
        """The level's cell size, metres (the grid's for a mesh of a grid, else
        :data:`DEFAULT_MESH_CELL_SIZE`): what the obstacle-radius formula of
        docs/rules.md §7.4 and a simulation's wall grid use."""
        if self._config is not None:
            return float(self._config.grid_geometry().cell_size)
        if self._source_grid is not None:
            return float(self._source_grid.cell_size)
        return DEFAULT_MESH_CELL_SIZE

    @property
    def agent_radius(self) -> float:
        """The agent radius, metres, the free space was built for (the level's or
        grid's; 0 for a loaded mesh)."""
        if self._config is not None:
            return float(self._config.agent_radius)
        if self._source_grid is not None:
            return float(self._source_grid.agent_radius)
        return 0.0

    #: The scene's ``navigationMode`` for a simulation on this backend.
    navigation_mode = "mesh"

    def _raster_bounds(self) -> tuple[float, float, float, float]:
        """What :meth:`raster` covers: the level's grid, the source grid, else the polygons."""
        if self._config is not None:
            geo = self._config.grid_geometry()
            cs = float(geo.cell_size)
            return (geo.min_x, geo.min_z, geo.min_x + geo.width * cs, geo.min_z + geo.depth * cs)
        g = self._source_grid
        if g is not None:
            cs = float(g.cell_size)
            return (g.min_x, g.min_z, g.min_x + g.width * cs, g.min_z + g.depth * cs)
        return self.bounds()

    @serialized
    def raster(self, cell_size: float | None = None,
               region: tuple[int, int, int, int] | None = None) -> NavGrid:
        """The free space's outer raster at ``cell_size`` metres (default
        :attr:`cell_size`): a cell is walkable when its closed square meets the free
        space (:mod:`navkit.mesh.raster`, docs/rules.md §15.6). Kept per cell size
        and updated where an edit changed the space. ``region`` must be None."""
        if region is not None:
            raise ConfigError("a mesh takes no region", field="region")
        wc = self.cell_size if cell_size is None else cell_size
        if isinstance(wc, bool) or not isinstance(wc, (int, float)) or not math.isfinite(wc) \
                or not 1e-3 <= wc <= 1e3:
            raise ConfigError(f"expected a cell size in [0.001, 1000] metres, got {shown(wc)}",
                              field="wall_cell_size")
        r = self._rasters.get(float(wc))
        if r is None:
            r = self._rasters[float(wc)] = MeshRaster(self._raster_bounds(), float(wc),
                                                      self.floor_y, self.agent_radius,
                                                      self.name or "")
        return r.grid(self.space)

    def space_token(self) -> shapely.Geometry:
        """The free space now (edits replace it; :meth:`space_changes` compares two)."""
        return self.space

    @staticmethod
    def space_changes(old: shapely.Geometry, new: shapely.Geometry) -> tuple[bool, bool]:
        """``(closed, opened)``: the old free space is not covered by the new one /
        the new one is not covered by the old one."""
        if old is new:
            return False, False
        return bool(not shapely.covers(new, old)), bool(not shapely.covers(old, new))

    def scene_source(self) -> tuple[str, Any]:
        """``("level", dict)`` for a mesh of a level (as edited), ``("grid", NavGrid)``
        for a mesh of a grid; ConfigError for a mesh of neither (a loaded file)."""
        if self._config is not None:
            return "level", self._config.to_json_dict()
        if self._source_grid is not None:
            return "grid", self._source_grid
        raise ConfigError("a mesh built from neither a level nor a grid cannot be "
                          "saved in a scene", field="navigation")

    @property
    def n_polygons(self) -> int:
        return self._arrays.n_polygons

    @property
    def n_vertices(self) -> int:
        return self._arrays.n_vertices

    def bounds(self) -> tuple[float, float, float, float]:
        """``(min_x, min_z, max_x, max_z)``, metres."""
        return self._arrays.bounds()

    def nbytes(self) -> int:
        """Bytes held by the mesh's arrays."""
        return self._arrays.nbytes()

    def __repr__(self) -> str:
        return (f"NavMesh({self.name or 'unnamed'}: {self.n_polygons} polygons, "
                f"{self.n_vertices} vertices, version {self._version})")

    # ------------------------------------------------------------ point queries
    @serialized
    def locate(self, p: ArrayLike) -> int:
        """The polygon containing world point ``p`` (x, z), or -1 off the mesh."""
        x, z = _point(p, "p")
        return loc.locate(self._arrays, x, z)

    def is_walkable(self, p: ArrayLike, *, agent: Any = None) -> bool:
        """True when ``p`` lies on the mesh (edges included)."""
        if agent is not None:
            check_agent(agent, self.agent_radius, "this NavMesh")
        return self.locate(p) >= 0

    @serialized
    def place(self, point: ArrayLike, *, obstacles: Any = None, agent: Any = None
              ) -> Place | None:
        """Where a query from ``point`` starts (the navigation contract): the point
        itself on the mesh, else the nearest mesh point within :attr:`snap_radius`
        (as the queries snap, docs/navmesh.md), with its polygon and region
        (``arrays.poly_region``); None when nothing lies within the radius. With
        ``obstacles`` (circles) the mesh cut around them answers."""
        if agent is not None:
            check_agent(agent, self.agent_radius, "this NavMesh")
        p = _point(point, "point")
        target = self._with_obstacles(obstacles) if obstacles is not None else self
        with target.lock:
            poly, x, z = target._snap(p)
        if poly < 0:
            return None
        return Place((float(x), float(z)), region=int(target.arrays.poly_region[poly]),
                     polygon=int(poly), y=self.floor_y)

    @serialized
    def nearest_point(self, p: ArrayLike, radius: float | None = None, *,
                      agent: Any = None) -> tuple[float, float] | None:
        """The nearest point of the mesh to ``p`` within ``radius`` metres
        (default: the snap radius), or None."""
        if agent is not None:
            check_agent(agent, self.agent_radius, "this NavMesh")
        x, z = _point(p, "p")
        r = self.snap_radius if radius is None else self._radius(radius)
        poly, px, pz = loc.nearest_point(self._arrays, x, z, r)
        return None if poly < 0 else (px, pz)

    @serialized
    def raycast(self, a: ArrayLike, b: ArrayLike, *, agent: Any = None) -> RaycastHit:
        """Walk the segment ``a -> b`` over the mesh: the first wall it meets.

        ``a`` must lie on the mesh (QueryError otherwise).
        """
        if agent is not None:
            check_agent(agent, self.agent_radius, "this NavMesh")
        ax, az = _point(a, "a")
        bx, bz = _point(b, "b")
        start = loc.locate(self._arrays, ax, az)
        if start < 0:
            raise QueryError(f"a = {shown(a)} is not on the mesh")
        hit, frac, hx, hz, poly = loc.raycast(self._arrays, ax, az, start, bx, bz)
        return RaycastHit(bool(hit), float(frac), (float(hx), float(hz)), int(poly))

    @staticmethod
    def _radius(radius: Any) -> float:
        return check_radius(radius)

    # ------------------------------------------------------------ paths
    def find_path(self, start: ArrayLike, goal: ArrayLike | None = None, *,
                  algorithm: str = "auto", obstacles: Any = None, budget: int | None = None,
                  nearest: bool = False, ignore: Any = None, agent: Any = None,
                  **old: Any) -> MeshPathResult:
        """The shortest path between world points ``start`` and ``goal`` (x, z), metres.

        ``algorithm="exact"`` (Polyanya; ``"auto"``, the default, is ``"exact"``) is
        the Euclidean optimum; ``"funnel"`` is A* over polygons with string pulling
        (faster, up to a few percent longer). Off-mesh points snap to the nearest
        mesh point within :attr:`snap_radius` (``NO_START`` / ``NO_GOAL`` beyond
        it). ``obstacles`` is a snapshot of circles ``(k, 3)`` = ``(x, z, radius)``
        (or an ObstacleSnapshot, less the ids in ``ignore``) the path keeps out of
        (the mesh is cut around them, docs/navmesh.md §3). ``budget`` caps the
        search nodes expanded (``BUDGET_EXHAUSTED``). ``nearest=True`` is
        :meth:`find_path_to_nearest`. Old keyword names (``end``, ``method``,
        ``max_nodes``) still work, with a DeprecationWarning.
        """
        if old:
            goal, algorithm, budget = self._renamed(old, "find_path", goal, algorithm, budget)
        if agent is not None:
            check_agent(agent, self.agent_radius, "this NavMesh")
        if ignore is not None or (obstacles is not None and hasattr(obstacles, "ids")):
            obstacles = circles_without(obstacles, ignore)
        return self._query(start, goal, bool(nearest), algorithm, obstacles, budget)

    def find_path_to_nearest(self, start: ArrayLike, goal: ArrayLike | None = None, *,
                             algorithm: str = "auto", obstacles: Any = None,
                             budget: int | None = None, ignore: Any = None, agent: Any = None,
                             **old: Any) -> MeshPathResult:
        """Like :meth:`find_path`, but when ``goal`` cannot be reached the path
        leads to the reachable point closest to it (status ``NEAREST``)."""
        if old:
            goal, algorithm, budget = self._renamed(old, "find_path_to_nearest", goal,
                                                    algorithm, budget)
        if agent is not None:
            check_agent(agent, self.agent_radius, "this NavMesh")
        if ignore is not None or (obstacles is not None and hasattr(obstacles, "ids")):
            obstacles = circles_without(obstacles, ignore)
        return self._query(start, goal, True, algorithm, obstacles, budget)

    @staticmethod
    def _renamed(old: dict[str, Any], owner: str, goal: Any, algorithm: str,
                 budget: Any) -> tuple[Any, str, Any]:
        """The new keywords' values, the old names' (``_RENAMED``) taken over with a warning."""
        new = renamed_keywords(old, _RENAMED, f"NavMesh.{owner}",
                               {"goal": goal, "goals": goal, "budget": budget}, stacklevel=5)
        return (new.get("goal", new.get("goals", goal)), new.get("algorithm", algorithm),
                new.get("budget", budget))

    def find_paths(self, starts: ArrayLike, goals: ArrayLike | None = None, *,
                   algorithm: str = "auto", obstacles: Any = None, budget: int | None = None,
                   nearest: bool = False, threads: int | None = None, agent: Any = None,
                   **old: Any) -> list[MeshPathResult]:
        """Many queries at once over all cores: ``starts``, ``goals`` are ``(n, 2)``
        (or ``(n, 3)``) metres.

        Answers equal those of :meth:`find_path` (or :meth:`find_path_to_nearest`
        with ``nearest=True``) one by one, in order.
        """
        if old:
            goals, algorithm, budget = self._renamed(old, "find_paths", goals, algorithm,
                                                     budget)
        if agent is not None:
            check_agent(agent, self.agent_radius, "this NavMesh")
        if goals is None:
            raise QueryError("NavMesh.find_paths: missing the goals (an (n, 2) array)")
        s, e = world_pairs(starts, goals)
        for arr, name in ((s, "starts"), (e, "goals")):
            if arr.size and np.abs(arr).max() > _MAX_COORD:
                raise QueryError(f"{name} must lie within +-1e15 m")
        method = self._method(algorithm)
        budget = self._budget(budget)
        with self.lock:
            target = self._with_obstacles(obstacles)
        n = len(s)
        nthreads = max(1, min(threads if threads else max_threads(), n, max_threads()))
        out: list[MeshPathResult | None] = [None] * n
        workers = [target._worker(method) for _ in range(nthreads)]

        def work(t: int) -> None:
            search = workers[t]
            for i in range(t, n, nthreads):
                out[i] = target._answer(search, (float(s[i, 0]), float(s[i, 1])),
                                        (float(e[i, 0]), float(e[i, 1])), nearest, method, budget)

        fan_out(nthreads, n, work)
        return [r for r in out if r is not None]

    @staticmethod
    def _method(method: Any) -> str:
        if isinstance(method, str) and method == "auto":
            return "exact"
        if not isinstance(method, str) or method not in METHODS:
            raise QueryError(f"algorithm (formerly method) must be one of auto, "
                             f"{', '.join(METHODS)}, got {shown(method)}")
        return str(method)

    @staticmethod
    def _budget(budget: Any) -> int:
        if budget is None:
            return MAX_NODES
        if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) \
                or not 1 <= int(budget) <= MAX_NODES:
            raise QueryError(f"budget (formerly max_nodes) must be an int in [1, {MAX_NODES}], "
                             f"got {shown(budget)}")
        return int(budget)

    @serialized
    def last_search(self, algorithm: str = "exact", **old: Any) -> NDArray[np.int32]:
        """The polygons the last single query with ``method`` searched, sorted
        (int32; empty before any). For the exact search these are the polygons
        its intervals opened onto, for the funnel the polygons A* closed. After a
        query with ``obstacles=`` they belong to the cut mesh, not to this one,
        so only queries without obstacles are recorded here (for drawing)."""
        if old:
            algorithm = renamed_keywords(old, {"method": "algorithm"}, "NavMesh.last_search",
                                         stacklevel=5).get("algorithm", algorithm)
        method = self._method(algorithm)
        search = self._searches.get(method)
        if search is None:
            return np.zeros(0, dtype=np.int32)
        return search.searched_polygons()

    def _worker(self, method: str) -> ExactSearch | FunnelSearch:
        """A fresh search object with its own buffers (one per thread)."""
        if method == "exact":
            return ExactSearch(self._arrays)
        return FunnelSearch(self._arrays)

    def _search(self, method: str) -> ExactSearch | FunnelSearch:
        s = self._searches.get(method)
        if s is None:
            s = self._searches[method] = self._worker(method)
        return s

    @serialized
    def _query(self, start: ArrayLike, end: ArrayLike | None, nearest: bool, method: str,
               obstacles: Any, max_nodes: Any) -> MeshPathResult:
        if end is None:
            raise QueryError("missing the goal (a world point (x, z))")
        a = _point(start, "start")
        b = _point(end, "goal")
        method = self._method(method)
        budget = self._budget(max_nodes)
        if obstacles is None:
            return self._answer(self._search(method), a, b, nearest, method, budget)
        circles = as_circles(obstacles)
        if not len(circles):
            return self._answer(self._search(method), a, b, nearest, method, budget)
        return self._lazy_cuts(circles, a, b, nearest, method, budget)

    def _lazy_cuts(self, circles: NDArray[np.float64], a: tuple[float, float],
                   b: tuple[float, float], nearest: bool, method: str,
                   budget: int) -> MeshPathResult:
        """A query around obstacle circles, cutting only the circles that matter.

        Start with the circles holding ``a`` or ``b`` cut out of the mesh, search,
        and add every circle the path passes closer to than its radius; repeat
        until the path clears them all (at most ``k + 1`` rounds). The answer is
        the one on the mesh cut by every circle: a path that avoids the cut
        circles and clears the others is feasible for all, and no path avoiding
        all of them is shorter than the optimum avoiding a subset
        (docs/navmesh.md §3).
        """
        cx, cz, r = circles[:, 0], circles[:, 1], circles[:, 2]
        active = np.zeros(len(circles), dtype=bool)
        for px, pz in (a, b):
            active |= (cx - px) ** 2 + (cz - pz) ** 2 < r * r
        res = None
        for _ in range(len(circles) + 1):
            try:
                target = self._with_obstacles(circles[active]) if active.any() else self
            except QueryError:  # the circles cover the whole free space
                return MeshPathResult(Status.NO_START, floor_y=self.floor_y, method=method)
            with target.lock:
                res = target._answer(target._search(method), a, b, nearest, method, budget)
            if not res.has_path:
                return res
            hit = ~active & _passes_inside(res.waypoints, circles)
            if not hit.any():
                return res
            active |= hit
        assert res is not None
        return res

    def _answer(self, search: ExactSearch | FunnelSearch, a: tuple[float, float],
                b: tuple[float, float], nearest: bool, method: str,
                budget: int) -> MeshPathResult:
        """One query on this mesh with ``search``'s buffers (validated points)."""
        arrays = self._arrays
        fy = self.floor_y
        sp, sx, sz = self._snap(a)
        if sp < 0:
            return explained(MeshPathResult(Status.NO_START, floor_y=fy, method=method),
                             "start", a, self.bounds(), self.snap_radius)
        gp, gx, gz = self._snap(b)
        status_if_found = Status.FOUND
        if gp < 0 or arrays.poly_region[gp] != arrays.poly_region[sp]:
            if not nearest:
                if gp < 0:
                    return explained(MeshPathResult(Status.NO_GOAL, floor_y=fy, method=method),
                                     "goal", b, self.bounds(), self.snap_radius)
                return MeshPathResult(Status.UNREACHABLE, start_polygon=sp, floor_y=fy,
                                      method=method)
            gp, gx, gz = self._settle(*loc.nearest_point_in_region(
                arrays, b[0], b[1], int(arrays.poly_region[sp])))
            if gp < 0:
                return MeshPathResult(Status.NEAREST, start_polygon=sp, floor_y=fy,
                                      method=method)
            status_if_found = Status.NEAREST
            if (gx, gz) == (sx, sz):
                return MeshPathResult(Status.NEAREST, start_polygon=sp, floor_y=fy,
                                      method=method)
        out: SearchOutcome = search.find(sx, sz, sp, gx, gz, gp, budget)
        if out.status == 0:
            return MeshPathResult(status_if_found, out.waypoints, float(out.length),
                                  int(out.expanded), int(out.generated), sp, gp, fy, method)
        status = Status.BUDGET_EXHAUSTED if out.status == 2 else Status.UNREACHABLE
        return MeshPathResult(status, expanded=int(out.expanded), generated=int(out.generated),
                              start_polygon=sp, floor_y=fy, method=method)

    def _snap(self, p: tuple[float, float]) -> tuple[int, float, float]:
        """``(polygon, x, z)`` of ``p`` itself on the mesh, else its nearest mesh
        point within the snap radius; polygon -1 when there is none."""
        poly = loc.locate(self._arrays, p[0], p[1])
        if poly >= 0:
            return poly, p[0], p[1]
        if self.snap_radius <= 0:
            return -1, math.nan, math.nan
        poly, x, z = loc.nearest_point(self._arrays, p[0], p[1], self.snap_radius)
        return self._settle(poly, x, z)

    def _settle(self, poly: int, x: float, z: float) -> tuple[int, float, float]:
        """A point found on polygon ``poly``'s boundary, made to lie in the mesh for
        the exact predicates too: the projection can round a hair outside, so it is
        moved toward the polygon's centre by 1e-12, 1e-9, ... of the way until
        :func:`~navkit.mesh.locate.locate` finds it (never more than 1e-6)."""
        if poly < 0:
            return poly, x, z
        q = loc.locate(self._arrays, x, z)
        if q >= 0:
            return q, x, z
        cx, cz = self._arrays.polygon(poly).mean(axis=0)
        for t in (1e-12, 1e-10, 1e-8, 1e-6):
            nx, nz = x + (float(cx) - x) * t, z + (float(cz) - z) * t
            q = loc.locate(self._arrays, nx, nz)
            if q >= 0:
                return q, nx, nz
        return -1, math.nan, math.nan

    # ------------------------------------------------------------ obstacles
    def _with_obstacles(self, obstacles: Any) -> NavMesh:
        """This mesh, or a copy cut around an obstacle snapshot (cached per snapshot)."""
        if obstacles is None:
            return self
        circles = as_circles(obstacles)
        okey = obstacle_key(circles)
        if okey is None:
            return self
        key = (self._version, okey)
        cut = self._cuts.get(key)
        if cut is None:
            arrays = cut_circles(self._arrays, self.space, circles, self.chord_error)
            cut = NavMesh(arrays, floor_y=self.floor_y, snap_radius=self.snap_radius,
                          chord_error=self.chord_error, name=self.name)
            self._cuts.put(key, cut)
        return cut

    # ------------------------------------------------------------ level edits
    def _require_level(self) -> LevelConfig:
        if self._config is None:
            raise ConfigError("this mesh was not built from a polygon level: it has no areas "
                              "or obstacles to edit", field="level")
        return self._config

    @serialized
    def set_area_available(self, name: str, available: bool) -> bool:
        """Open or close an area (a door); rebuilds only the polygons near it.

        Returns True when something changed (and :attr:`version` went up).
        """
        cfg = self._require_level()
        area = cfg.area(name)
        if bool(available) == area.available:
            return False
        new = cfg.with_area_available(name, bool(available))
        self._apply(new, area.geometry)
        return True

    @serialized
    def add_obstacle(self, name: str, polygon: Sequence[Sequence[float]]) -> None:
        """Add an obstacle polygon (inflated by the level's obstacle radius)."""
        cfg = self._require_level()
        new = cfg.with_obstacle(name, polygon)
        self._apply(new, new.obstacle(name).geometry.buffer(cfg.obstacle_radius))

    @serialized
    def remove_obstacle(self, name: str) -> None:
        """Remove an obstacle polygon by name."""
        cfg = self._require_level()
        geom = cfg.obstacle(name).geometry.buffer(cfg.obstacle_radius)
        self._apply(cfg.without_obstacle(name), geom)

    def _apply(self, new: LevelConfig, touched: shapely.Geometry) -> None:
        from .build import free_space
        space = free_space(new, chord_error=self.chord_error, weights=self._weights)
        margin = new.boundary_padding + new.obstacle_radius + 1e-6
        self._arrays = rebuild_region(self._arrays, space, touched.buffer(margin))
        self._space = space
        self._config = new
        self._version += 1
        self._searches.clear()
        self._cuts.invalidate()
