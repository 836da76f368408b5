"""World-coordinate navigation for game code: :class:`NavMap` (docs/rules.md §2-§7).

A :class:`NavMap` is the usual ``PathFinder``, in Python: it holds one
navigation map, answers path queries between world points ``(x, z)`` in
metres, and takes the runtime edits a game makes: doors opening and closing
(:meth:`NavMap.set_area_available`), furniture appearing and going
(:meth:`NavMap.add_obstacle`), characters standing still for a while
(:meth:`NavMap.add_occupant`), and each query's snapshot of the characters to
walk around (``obstacles=``). Paths are cached (:mod:`navkit.query.cache`).

>>> from navkit.level import parse_level
>>> nav = NavMap(parse_level({
...     "cellSize": 0.5, "agentRadius": 0.0, "objectPadding": 0.0,
...     "areas": [
...         {"name": "west", "polygon": [[0, 0], [4, 0], [4, 4], [0, 4]]},
...         {"name": "east", "polygon": [[6, 0], [10, 0], [10, 4], [6, 4]]},
...         {"name": "door", "available": False, "polygon": [[4, 1], [6, 1], [6, 3], [4, 3]]},
...     ],
... }))
>>> nav.find_path((1, 2), (9, 2)).status.name
'UNREACHABLE'
>>> nav.set_area_available("door", True), nav.version
(True, 1)
>>> r = nav.find_path((1, 2), (9, 2))
>>> r.status.name, r.waypoints.tolist()
('FOUND', [[9.0, 2.0]])
>>> blocker = Obstacle(5.0, 2.0, nav.obstacle_radius(0.45))
>>> r = nav.find_path_to_nearest((1, 2), (9, 2), obstacles=[blocker])
>>> r.status.name, r.waypoints.tolist()
('NEAREST', [[4.25, 2.75]])

Versions. :attr:`NavMap.version` counts *map* changes: area toggles and
obstacle polygons added or removed (the changes that force replans, docs/rules.md §10.4).
Occupants are dynamic state, not map changes: adding or removing one bumps
:attr:`NavMap.occupancy_version` instead. Both are part of every cache key.

The :class:`~navkit.query.pathfinder.Pathfinder` underneath is made once; on
the first query after a map change it is edited in place
(:meth:`~navkit.query.pathfinder.Pathfinder.set_walkable` / ``set_weights`` of
the cells that differ, docs/edits.md), so its occupants stay, and a flow
field or HPA* following it (``FlowField(nav.pathfinder)``, ``HPAStar.follow``)
catches up on its next use. :meth:`NavMap.set_walkable` and
:meth:`NavMap.set_weights` edit cells directly; such edits override the
level's areas and obstacle polygons on those cells and survive later toggles.
"""

from __future__ import annotations

import itertools
import math
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..contract import (
    Place,
    RaycastHit,
    check_agent,
    deprecated_name,
    goal_of,
    world_pairs,
)
from ..errors import ConfigError, QueryError, shown, unknown_name_message
from ..formats import load_grid, save_grid
from ..grid import NavGrid
from ..level import LevelConfig, NavLevel, block_obstacles, level_config, make_obstacle
from ..level.config import GridGeometry, ObstacleConfig
from ..level.parse import read_level_or_map
from ..recording import as_recorder, grid_fingerprint, options_dict, recorded
from ..results import PathResult, Status, world_waypoints
from .cache import PathCache, obstacle_key
from .cells import Algorithm
from .overlay import as_circles
from .padded import check_budget, world_point
from .pathfinder import FIRST_WAYPOINT_TRIM, SNAP_RADIUS, Costs, Pathfinder
from .serial import serialized

__all__ = ["NavMap", "Obstacle", "obstacle_radius"]

_TOKENS = itertools.count(1)


class Obstacle(NamedTuple):
    """A dynamic obstacle: a circle in world metres (docs/rules.md §7.1)."""

    x: float
    z: float
    radius: float


def obstacle_radius(collision_radius: float, agent_radius: float, cell_size: float) -> float:
    """Radius of a character's dynamic obstacle (docs/rules.md §7.4).

    The character's full ``collision_radius``, inflated by the map's
    ``agent_radius`` and one cell half-diagonal (``cell_size * sqrt(2) / 2``)
    so that stamping by cell centres stays conservative.

    >>> round(obstacle_radius(0.45, 0.45, 0.4), 6)
    1.182843
    """
    vals = []
    for name, v in (("collision_radius", collision_radius), ("agent_radius", agent_radius),
                    ("cell_size", cell_size)):
        try:
            f = float(v)
        except (TypeError, ValueError, OverflowError):
            raise ConfigError(f"expected a number, got {shown(v)}", field=name) from None
        if not math.isfinite(f) or f < 0:
            raise ConfigError(f"expected a finite number >= 0, got {shown(v)}", field=name)
        vals.append(f)
    return vals[0] + vals[1] + vals[2] * math.sqrt(2.0) / 2.0


class _GridLevel:
    """What :class:`NavLevel` offers, for a grid without a polygon level.

    There are no areas. Obstacle polygons can still be added and removed:
    they block cells as the rasterizer does (centre inside, or within
    ``agent_radius + objectPadding`` of an edge; the grid's ``agent_radius``
    and its ``meta["objectPadding"]``, which ``.txt`` grids keep).
    """

    def __init__(self, grid: NavGrid):
        self._base = grid
        self._grid = grid
        self._obstacles: dict[str, ObstacleConfig] = {}
        self._version = 0
        self._geometry = GridGeometry(grid.min_x, grid.min_z, grid.width,
                                      grid.depth, grid.cell_size)
        try:
            padding = float(grid.meta.get("objectPadding", 0.0))
        except (TypeError, ValueError):
            padding = 0.0
        self.clearance = grid.agent_radius + (padding if math.isfinite(padding) and padding > 0
                                              else 0.0)

    @property
    def grid(self) -> NavGrid:
        return self._grid

    @property
    def version(self) -> int:
        return self._version

    @property
    def area_names(self) -> tuple[str, ...]:
        return ()

    @property
    def obstacle_names(self) -> tuple[str, ...]:
        return tuple(self._obstacles)

    def _no_areas(self, name: str) -> ConfigError:
        label = self._base.name or "this map"
        return ConfigError(
            f"no area called {name!r}: {label} is a plain grid without navigation areas; "
            "load the level's .json config to toggle areas",
            field="name",
        )

    def is_area_available(self, name: str) -> bool:
        raise self._no_areas(name)

    def set_area_available(self, name: str, available: bool) -> bool:
        raise self._no_areas(name)

    def add_obstacle(self, name: str, polygon: Sequence[Sequence[float]]) -> None:
        obs = make_obstacle(name, polygon)
        if obs.name in self._obstacles:
            raise ConfigError(f"an obstacle called {name!r} already exists", field="name")
        walk = self._grid.walkable.copy()
        block_obstacles(walk, self._geometry, [obs], self.clearance)
        self._obstacles[obs.name] = obs
        self._set(walk)

    def remove_obstacle(self, name: str) -> None:
        if not isinstance(name, str) or name not in self._obstacles:
            raise ConfigError(unknown_name_message("obstacle", name, tuple(self._obstacles)),
                              field="name")
        walk = self._base.walkable.copy()  # all or nothing: computed before anything changes
        rest = [o for n, o in self._obstacles.items() if n != name]
        block_obstacles(walk, self._geometry, rest, self.clearance)
        del self._obstacles[name]
        self._set(walk)

    def _set(self, walk: NDArray[np.bool_]) -> None:
        self._grid = self._base.with_walkable(walk)
        self._version += 1


def _read(path: str | os.PathLike[str]) -> NavLevel | NavGrid:
    """A ``.json`` file as a polygon level (a scene: the map it names), any
    other map file as a grid."""
    p = Path(path)
    if p.suffix.lower() == ".json":
        level = read_level_or_map(p)
        return load_grid(level) if isinstance(level, Path) else NavLevel(level)
    return load_grid(p)


class NavMap:
    """One navigation map in world coordinates, with runtime edits and a path cache.

    Parameters
    ----------
    source : NavGrid, LevelConfig, NavLevel, dict, str or Path
        The map, in any of the level forms (docs/rules.md §1.6). A
        :class:`~navkit.level.LevelConfig`, a level dict (a decoded JSON level
        config, :func:`~navkit.level.parse_level`) or a
        :class:`~navkit.level.NavLevel` keeps its polygons, so areas can be
        toggled (a NavLevel is shared: edits made to it directly are seen
        too). A NavGrid has no areas. A path is read with :meth:`load` (a
        ``.json`` level or scene keeps its polygons, other formats are grids).
    costs, connectivity, budget, snap_radius
        Passed to the :class:`~navkit.query.pathfinder.Pathfinder` (defaults: the
        ``"seed"`` 10/14 costs, 8-connected, no budget, 8 m snapping).
    cache_size : int
        Paths kept in :attr:`cache` (LRU); ``0`` disables caching.
    record : QueryRecorder, path or text file, optional
        Log every query to a corpus (:mod:`navkit.corpus`, docs/corpora.md),
        with the map's fingerprint at the time and the live occupants.

    Thread safety: one object may be shared by threads; its queries and edits take
    turns under its ``lock`` (:mod:`navkit.query.serial`). For parallel queries give
    each thread its own object, or use ``find_paths_cells`` (all cores).
    """

    def __init__(
        self,
        source: NavGrid | LevelConfig | NavLevel | dict[str, Any] | str | os.PathLike[str],
        *,
        costs: Costs = "seed",
        connectivity: int = 8,
        budget: int | None = None,
        snap_radius: float = SNAP_RADIUS,
        cache_size: int = 1024,
        record: Any = None,
    ):
        level: NavLevel | _GridLevel
        map_path = None
        if isinstance(source, (str, os.PathLike)):
            map_path = source
            source = _read(source)
        if isinstance(source, NavLevel):
            level = source
        elif isinstance(source, (LevelConfig, dict)):
            level = NavLevel(level_config(source, field="source"))
        elif isinstance(source, NavGrid):
            level = _GridLevel(source)
        else:
            raise ConfigError(
                "expected a NavGrid, LevelConfig, NavLevel, level dict or file path, "
                f"got {type(source).__name__}",
                field="source",
            )
        self._level = level
        #: Held by every query and edit (re-entrant; see :mod:`navkit.query.serial`).
        self.lock = threading.RLock()
        self._pf_args: dict[str, Any] = {
            "costs": costs, "connectivity": connectivity, "budget": budget,
            "snap_radius": snap_radius,
        }
        #: The path cache (:class:`~navkit.query.cache.PathCache`); ``cache.stats``
        #: for hits and misses.
        self.cache = PathCache(cache_size)
        self._token = next(_TOKENS)
        self._occupants: dict[int, tuple[float, float, float]] = {}
        self._pf_handles: dict[int, int] = {}
        self._next_handle = 1
        self._occ_version = 0
        self._pf: Pathfinder | None = None
        self._pf_version = -1
        self._cell_edits = 0  # set_walkable / set_weights calls that changed cells
        self._walk_set: NDArray[np.bool_] | None = None  # cells whose walkability was set
        self._walk_val: NDArray[np.bool_] | None = None
        self._w_set: NDArray[np.bool_] | None = None  # cells whose weight was set
        self._w_val: NDArray[np.int32] | None = None
        self._okey_raw: bytes | None = None  # the last obstacle snapshot and its cache key
        self._okey_shape: tuple[int, ...] = ()
        self._okey: Any = None
        self._bypass = False  # find_path(cache=False) under way
        pf = self._pathfinder()  # validates the options now
        #: The :class:`~navkit.corpus.QueryRecorder` every query is logged to, or None.
        self.record: Any = None
        self._record_fp: tuple[int, str] = (-1, "")
        if record is not None:
            self.record = as_recorder(
                record, self.grid, costs=pf.costs, connectivity=pf.connectivity,
                kind="grid" if self.level is None else "level", map_path=map_path)

    @classmethod
    def load(cls, path: str | os.PathLike[str], **kwargs: Any) -> NavMap:
        """Read a map file (any format :func:`~navkit.formats.load_grid` reads).

        A ``.json`` level keeps its polygons (areas can be toggled), so does a
        scene file's level (docs/simulation.md); other formats become a plain
        grid. ``kwargs`` go to the constructor.
        """
        return cls(_read(path), **kwargs)

    # ------------------------------------------------------------ properties
    @property
    def grid(self) -> NavGrid:
        """The current static grid (areas, obstacle polygons and cell edits
        applied; no occupants)."""
        if self._cell_edits:
            return self._pathfinder().grid
        return self._level.grid

    @property
    def level(self) -> NavLevel | None:
        """The polygon level, or None for a plain grid."""
        return self._level if isinstance(self._level, NavLevel) else None

    @property
    def version(self) -> int:
        """Map changes so far: area toggles, obstacle polygons added or removed,
        and cell edits (:meth:`set_walkable`, :meth:`set_weights`) that changed cells."""
        return self._level.version + self._cell_edits

    @property
    def occupancy_version(self) -> int:
        """Occupant changes so far (:meth:`add_occupant` and :meth:`remove_occupant`)."""
        return self._occ_version

    @property
    def cell_size(self) -> float:
        """Cell edge in metres."""
        return self.grid.cell_size

    @property
    def agent_radius(self) -> float:
        """The radius the map was eroded by, metres."""
        return self.grid.agent_radius

    @property
    def floor_y(self) -> float:
        """Height of every waypoint, metres."""
        return self.grid.floor_y

    @property
    def area_names(self) -> tuple[str, ...]:
        """Area names (empty for a plain grid)."""
        return self._level.area_names

    @property
    def obstacle_names(self) -> tuple[str, ...]:
        """Obstacle polygon names."""
        return self._level.obstacle_names

    @property
    def occupants(self) -> dict[int, tuple[float, float, float]]:
        """Live occupants: handle -> ``(x, z, radius)``."""
        return dict(self._occupants)

    @property
    @serialized
    def pathfinder(self) -> Pathfinder:
        """The Pathfinder for the current map version (occupants applied), for
        cell or batch queries."""
        return self._pathfinder()

    def _pathfinder(self) -> Pathfinder:
        version = self._level.version
        if self._pf is None:
            pf = Pathfinder(self._level.grid, **self._pf_args)
            self._pf_handles = {h: pf.add_occupant(*c) for h, c in self._occupants.items()}
            self._pf = pf
            self._pf_version = version
        elif self._pf_version != version:
            self._follow_level(self._pf)
            self.cache.invalidate()  # old entries can never hit again: free them
            self._pf_version = version
        return self._pf

    def _follow_level(self, pf: Pathfinder) -> None:
        """Edit ``pf`` in place to the level's current grid (cell edits kept)."""
        grid = self._level.grid
        walk = grid.walkable
        if self._walk_set is not None and self._walk_val is not None:
            walk = np.where(self._walk_set, self._walk_val, walk)
        pg = pf.engine.padded
        diff = pg.unpad(pg.cells).astype(bool) != walk
        if diff.any():
            pf.set_walkable(diff, walk)
        w = grid.weights if grid.weights is not None else np.ones(grid.shape, dtype=np.int32)
        if self._w_set is not None and self._w_val is not None:
            w = np.where(self._w_set, self._w_val, w)
        cur = pg.unpad(pg.weights) if pg.weighted else np.ones(grid.shape, dtype=np.int32)
        wdiff = cur != w
        if wdiff.any():
            pf.set_weights(wdiff, w)

    # ------------------------------------------------------------- cell edits
    @serialized
    def set_walkable(self, cells: ArrayLike, value: Any) -> int:
        """Make cells walkable or blocked, as
        :meth:`Pathfinder.set_walkable <navkit.query.pathfinder.Pathfinder.set_walkable>`
        (``(k, 2)`` cells or a ``(depth, width)`` bool mask); the edit overrides
        areas and obstacle polygons on those cells from now on. Returns how many
        cells changed; :attr:`version` counts the edit and cached paths drop."""
        pf = self._pathfinder()
        xs, zs, vals = pf.engine.edits.resolve_walkable(cells, value)
        n = pf.set_walkable(np.stack([xs, zs], axis=1), vals.astype(bool))
        if self._walk_set is None or self._walk_val is None:
            self._walk_set = np.zeros(pf.engine.padded.grid.shape, dtype=bool)
            self._walk_val = np.zeros(pf.engine.padded.grid.shape, dtype=bool)
        self._walk_set[zs, xs] = True
        self._walk_val[zs, xs] = vals.astype(bool)
        if n:
            self._cell_edits += 1
            self.cache.invalidate()
        return n

    @serialized
    def set_weights(self, region: Any, values: Any) -> int:
        """Set terrain weights, as
        :meth:`Pathfinder.set_weights <navkit.query.pathfinder.Pathfinder.set_weights>`
        (a box ``(x0, z0, x1, z1)`` or cells); overrides the level's weights on
        those cells from now on. Returns how many cells changed."""
        pf = self._pathfinder()
        xs, zs, vals = pf.engine.edits.resolve_weights(region, values)
        n = pf.set_weights(np.stack([xs, zs], axis=1), vals)
        if self._w_set is None or self._w_val is None:
            self._w_set = np.zeros(pf.engine.padded.grid.shape, dtype=bool)
            self._w_val = np.ones(pf.engine.padded.grid.shape, dtype=np.int32)
        self._w_set[zs, xs] = True
        self._w_val[zs, xs] = vals
        if n:
            self._cell_edits += 1
            self.cache.invalidate()
        return n

    # ------------------------------------------------------------ map edits
    @serialized
    def set_area_available(self, name: str, available: bool) -> bool:
        """Open or close area ``name`` (a door); returns whether anything changed.

        Raises :class:`~navkit.errors.ConfigError` naming ``name`` for an
        unknown area, and always on a plain grid (it has no areas).
        """
        return self._level.set_area_available(name, available)

    def is_area_available(self, name: str) -> bool:
        """Whether area ``name`` is open (ConfigError when unknown)."""
        return self._level.is_area_available(name)

    @serialized
    def add_obstacle(self, name: str, polygon: Sequence[Sequence[float]]) -> None:
        """Add a static obstacle polygon ``[[x, z], ...]``, inflated like the level's obstacles."""
        self._level.add_obstacle(name, polygon)

    @serialized
    def remove_obstacle(self, name: str) -> None:
        """Remove obstacle polygon ``name`` (ConfigError when unknown)."""
        self._level.remove_obstacle(name)

    @serialized
    def add_occupant(self, x: float, z: float, radius: float) -> int:
        """Block the cells whose centres lie within ``radius`` of ``(x, z)`` until
        :meth:`remove_occupant`; returns a handle. Overlapping occupants are
        counted per cell, so removing one never frees a cell another covers."""
        pf = self._pathfinder()
        pf_handle = pf.add_occupant(x, z, radius)
        handle = self._next_handle
        self._next_handle += 1
        self._occupants[handle] = pf.occupants[pf_handle]
        self._pf_handles[handle] = pf_handle
        self._occupancy_changed()
        return handle

    @serialized
    def remove_occupant(self, handle: int) -> None:
        """Undo :meth:`add_occupant` (QueryError for an unknown handle)."""
        if handle not in self._occupants:
            raise QueryError(f"no occupant with handle {handle!r}")
        pf = self._pathfinder()
        pf.remove_occupant(self._pf_handles.pop(handle))
        del self._occupants[handle]
        self._occupancy_changed()

    def _occupancy_changed(self) -> None:
        self._occ_version += 1
        self.cache.invalidate()

    # --------------------------------------------------------------- helpers
    def obstacle_radius(self, collision_radius: float) -> float:
        """A character's obstacle radius on this map (docs/rules.md §7.4): see
        :func:`obstacle_radius`."""
        return obstacle_radius(collision_radius, self.agent_radius, self.cell_size)

    @serialized
    def is_walkable(self, point: Any, z: float | None = None, *, agent: Any = None) -> bool:
        """True when the cell containing world point ``point`` ``(x, z)`` is walkable
        and not occupied (``is_walkable(x, z)`` is the old spelling: DeprecationWarning)."""
        point = _one_point(point, z, "NavMap.is_walkable")
        if agent is not None:
            check_agent(agent, self.agent_radius, "this NavMap's level")
        grid = self.grid
        x, zz = world_point(point, "point")
        cell = grid.world_to_cell(x, zz)
        if not grid.is_walkable(*cell):
            return False
        # snapping returns the point's own cell exactly when that cell is free
        return self._pathfinder().snap((x, zz)) == cell

    @serialized
    def snap(self, point: Any, z: float | None = None) -> tuple[float, float] | None:
        """Centre of the cell a query from ``point`` ``(x, z)`` starts in: the point's
        own cell when free, else the nearest free cell within the snap radius
        (docs/rules.md §4.1); None when there is none (``snap(x, z)``: the old
        spelling, DeprecationWarning). :meth:`place` says more."""
        point = _one_point(point, z, "NavMap.snap")
        cell = self._pathfinder().snap(point)
        return None if cell is None else self.grid.cell_center(*cell)

    # ------------------------------------------------- the contract's points
    #: The scene's ``navigationMode`` for a simulation on this backend.
    navigation_mode = "grid"

    def raster(self, cell_size: float | None = None,
               region: tuple[int, int, int, int] | None = None) -> NavGrid:
        """The static grid (:attr:`grid`: areas, obstacle polygons and cell edits
        applied, no occupants): a grid is its own raster, so ``cell_size`` must be
        its own and ``region`` None."""
        if cell_size is not None and abs(float(cell_size) - self.cell_size) > 1e-12:
            raise ConfigError(f"a grid's walls are its cells ({self.cell_size} m), got "
                              f"{shown(cell_size)}", field="wall_cell_size")
        if region is not None:
            raise ConfigError("a grid map takes no region (all its cells are resident)",
                              field="region")
        return self.grid

    def scene_source(self) -> tuple[str, Any]:
        """``("level", dict)`` for a polygon level (as it stands: doors, added
        obstacles), ``("grid", NavGrid)`` for a plain grid, ``("edited-grid", NavGrid)``
        once obstacle polygons were added to it."""
        level = self.level
        if level is not None:
            return "level", level.to_json_dict()
        return ("edited-grid" if self.obstacle_names else "grid"), self.grid

    @serialized
    def place(self, point: ArrayLike, *, obstacles: Any = None, agent: Any = None
              ) -> Place | None:
        """Where a query from ``point`` starts: :meth:`Pathfinder.place
        <navkit.query.pathfinder.Pathfinder.place>` on this map (its occupants block)."""
        if agent is not None:
            check_agent(agent, self.agent_radius, "this NavMap's level")
        circles = None if obstacles is None else _as_circles(obstacles)
        return self._pathfinder().place(point, obstacles=circles)

    @serialized
    def raycast(self, a: ArrayLike, b: ArrayLike, *, agent: Any = None) -> RaycastHit:
        """:meth:`Pathfinder.raycast <navkit.query.pathfinder.Pathfinder.raycast>` on this
        map (docs/rules.md §15.5)."""
        if agent is not None:
            check_agent(agent, self.agent_radius, "this NavMap's level")
        return self._pathfinder().raycast(a, b)

    @serialized
    def nearest_point(self, point: ArrayLike, radius: float | None = None, *,
                      agent: Any = None) -> tuple[float, float] | None:
        """:meth:`Pathfinder.nearest_point <navkit.query.pathfinder.Pathfinder.nearest_point>`
        on this map."""
        if agent is not None:
            check_agent(agent, self.agent_radius, "this NavMap's level")
        return self._pathfinder().nearest_point(point, radius)

    def find_paths(self, starts: ArrayLike, goals: ArrayLike, *, nearest: bool = False,
                   budget: int | None = None, algorithm: Algorithm = "auto",
                   obstacles: Any = None, smooth: bool = True,
                   agent: Any = None) -> list[PathResult]:
        """:meth:`find_path` for each pair ``starts[i] -> goals[i]`` (world metres,
        ``(n, 2)`` or ``(n, 3)``), in order (the cache and recorder see each)."""
        if agent is not None:
            check_agent(agent, self.agent_radius, "this NavMap's level")
        s, g = world_pairs(starts, goals)
        return [self.find_path(s[i], g[i], nearest=nearest, budget=budget,
                               algorithm=algorithm, obstacles=obstacles, smooth=smooth)
                for i in range(len(s))]

    @serialized
    def last_search(self, since: int | None = None) -> Any:
        """The cells the last A* / Dijkstra search of the map's Pathfinder closed
        (:meth:`Pathfinder.last_search <navkit.query.pathfinder.Pathfinder.last_search>`)."""
        return self._pathfinder().last_search(since)

    @serialized
    def save_grid(self, path: str | os.PathLike[str]) -> None:
        """Write the current static grid (the ``.txt`` grid file of
        docs/rules.md §2.5, or any format :func:`~navkit.formats.save_grid`
        writes)."""
        save_grid(self.grid, path)

    # --------------------------------------------------------------- queries
    def find_path(
        self,
        start: ArrayLike,
        goal: ArrayLike | None = None,
        *,
        obstacles: ArrayLike | Sequence[Obstacle] | None = None,
        smooth: bool = True,
        budget: int | None = None,
        window: Sequence[int] | None = None,
        blocked_cells: ArrayLike | None = None,
        ignore: Any = None,
        algorithm: Algorithm = "auto",
        nearest: bool = False,
        agent: Any = None,
        cache: bool = True,
        **old: Any,
    ) -> PathResult:
        """Path between world points ``(x, z)`` (or ``(x, y, z)``), in metres.

        As :meth:`Pathfinder.find_path <navkit.query.pathfinder.Pathfinder.find_path>`
        (snapping, smoothing, first- and last-waypoint rules of docs/rules.md §4.2-§4.3).
        ``obstacles`` is this query's snapshot of dynamic obstacles: a
        ``(k, 3)`` array of world circles ``(x, z, radius)`` or a sequence of
        :class:`Obstacle`, or a :meth:`Pathfinder.snapshot
        <navkit.query.pathfinder.Pathfinder.snapshot>` of ``nav.pathfinder``.
        An occupied destination snaps to a nearby free cell. ``blocked_cells``
        and ``ignore`` are as in :meth:`Pathfinder.find_path_cells
        <navkit.query.pathfinder.Pathfinder.find_path_cells>` (docs/rules.md §7.6).
        ``algorithm``: as in :meth:`Pathfinder.find_path
        <navkit.query.pathfinder.Pathfinder.find_path>`, default ``"auto"``
        (JPS on an unweighted 8-connected grid, else A*: the same cost);
        cached paths are kept per ``algorithm``. ``cache=False`` skips the path
        cache (plans from the exact points, as a simulation does).
        """
        if old or goal is None:
            goal = goal_of(goal, old, "find_path")
        if agent is not None:
            check_agent(agent, self.agent_radius, "this NavMap's level")
        if (blocked_cells is None and ignore is None and self.record is None
                and (cache or not self.cache.enabled)):  # the plain query, inline
            res = self._query(start, goal, bool(nearest), obstacles, smooth, budget, window,
                              algorithm)
            if not len(res.cells) and res.status >= Status.NO_START:
                self._pathfinder().explain(res, world_point(start, "start"),
                                           world_point(goal, "goal"))
            return res
        return self._find("find_path", start, goal, bool(nearest), obstacles, smooth, budget,
                          window, blocked_cells, ignore, algorithm, cache)

    def find_path_to_nearest(
        self,
        start: ArrayLike,
        goal: ArrayLike | None = None,
        *,
        obstacles: ArrayLike | Sequence[Obstacle] | None = None,
        smooth: bool = True,
        budget: int | None = None,
        window: Sequence[int] | None = None,
        blocked_cells: ArrayLike | None = None,
        ignore: Any = None,
        algorithm: Algorithm = "auto",
        agent: Any = None,
        cache: bool = True,
        **old: Any,
    ) -> PathResult:
        """Like :meth:`find_path`, but an unreachable goal gives the path to the
        reachable cell closest to it (status NEAREST; docs/rules.md §6). One search,
        with the obstacles: it never retries without them. A start with no
        reachable neighbour gives no path. ``algorithm`` as in :meth:`find_path`."""
        if old or goal is None:
            goal = goal_of(goal, old, "find_path_to_nearest")
        if agent is not None:
            check_agent(agent, self.agent_radius, "this NavMap's level")
        if (blocked_cells is None and ignore is None and self.record is None
                and (cache or not self.cache.enabled)):  # the plain query, inline
            res = self._query(start, goal, True, obstacles, smooth, budget, window, algorithm)
            if not len(res.cells) and res.status >= Status.NO_START:
                self._pathfinder().explain(res, world_point(start, "start"),
                                           world_point(goal, "goal"))
            return res
        return self._find("find_path_to_nearest", start, goal, True, obstacles, smooth, budget,
                          window, blocked_cells, ignore, algorithm, cache)

    def _find(self, kind: str, start: ArrayLike, end: ArrayLike, nearest: bool, obstacles: Any,
              smooth: bool, budget: int | None, window: Sequence[int] | None,
              blocked_cells: Any, ignore: Any, algorithm: Algorithm, cache: bool) -> PathResult:
        """The one dispatch of :meth:`find_path` and :meth:`find_path_to_nearest`."""
        if not cache and self.cache.enabled:
            with self.lock:  # (the flag is this object's state: set and reset under its lock)
                self._bypass = True
                try:
                    return self._find(kind, start, end, nearest, obstacles, smooth, budget,
                                      window, blocked_cells, ignore, algorithm, True)
                finally:
                    self._bypass = False
        if blocked_cells is not None or ignore is not None:
            res = self._edited(start, end, nearest, obstacles, smooth, budget, window,
                               blocked_cells, ignore, algorithm)
        elif self.record is not None:
            res = self._recorded(kind, start, end, nearest, obstacles, smooth, budget,
                                 window, algorithm)
        else:
            res = self._query(start, end, nearest, obstacles, smooth, budget, window, algorithm)
        if not len(res.cells) and res.status >= Status.NO_START:
            self._pathfinder().explain(res, world_point(start, "start"), world_point(end, "goal"))
        return res

    def _edited(self, start: ArrayLike, end: ArrayLike, nearest: bool, obstacles: Any,
                smooth: bool, budget: int | None, window: Sequence[int] | None,
                blocked_cells: Any, ignore: Any, algorithm: Algorithm = "auto") -> PathResult:
        """A query with ``blocked_cells`` or ``ignore``: without the cache (and
        the recorder) straight to the Pathfinder, else on the merged circles."""
        from .edits import ObstacleSnapshot

        with self.lock:
            pf = self._pathfinder()
            if (self.cache.enabled and not self._bypass) or self.record is not None:
                obs = obstacles
                if obs is not None and not isinstance(obs, ObstacleSnapshot):
                    obs = _as_circles(obs)
                with pf.lock:
                    circles = pf.engine.edits.merge(obs, blocked_cells, ignore)
                if self.record is not None:
                    return self._recorded("find_path_to_nearest" if nearest else "find_path",
                                          start, end, nearest, circles, smooth, budget, window,
                                          algorithm)
                return self._query(start, end, nearest, circles, smooth, budget, window,
                                   algorithm)
            fn = pf.find_path_to_nearest if nearest else pf.find_path
            obs = obstacles
            if obs is not None and not isinstance(obs, ObstacleSnapshot):
                obs = _as_circles(obs)
            return fn(start, end, smooth=smooth, budget=budget, window=window, obstacles=obs,
                      blocked_cells=blocked_cells, ignore=ignore, algorithm=algorithm)

    def _recorded(self, kind: str, start: ArrayLike, end: ArrayLike, nearest: bool,
                  obstacles: Any, smooth: bool, budget: int | None,
                  window: Sequence[int] | None, algorithm: Algorithm = "auto") -> PathResult:
        """:meth:`_query`, timed and logged to :attr:`record` (a cache hit logs the
        search that filled the entry: its expansions, and ``time`` of the hit), with
        the map's fingerprint at the time and its live occupants."""

        def options() -> dict[str, Any]:
            pf = self._pathfinder()
            occ = [[float(v) for v in self._occupants[h]] for h in sorted(self._occupants)]
            b = pf.budget if budget is None else check_budget(budget)
            return options_dict(pf.costs, pf.connectivity, algorithm=algorithm, smooth=smooth,
                                nearest=nearest, budget=b, window=window,
                                snap_radius=pf.snap_radius, occupants=occ)

        return recorded(
            self.record, kind,
            lambda: self._query(start, end, nearest, obstacles, smooth, budget, window,
                                algorithm),
            start=world_point(start, "start"), goal=world_point(end, "goal"),
            obstacles=None if obstacles is None else _as_circles(obstacles), lock=self.lock,
            options=options, fingerprint=self._fingerprint)

    def _fingerprint(self) -> str:
        """The map's fingerprint now (remembered per :attr:`version`)."""
        version = self.version
        if self._record_fp[0] != version:
            self._record_fp = (version, grid_fingerprint(self.grid))
        return self._record_fp[1]

    def _query(
        self, start: ArrayLike, end: ArrayLike, nearest: bool, obstacles: Any, smooth: bool,
        budget: int | None, window: Sequence[int] | None, algorithm: Algorithm = "auto",
    ) -> PathResult:
        with self.lock:  # (inline, not @serialized: the hot queries save a call)
            pf = self._pf
            if pf is None or self._pf_version != self._level.version:
                pf = self._pathfinder()
            sw, ew = world_point(start, "start"), world_point(end, "end")
            if not self.cache.enabled or self._bypass:
                b = pf.budget if budget is None else check_budget(budget)
                with pf.lock:
                    res = pf.engine.world.query(sw, ew, smooth, nearest, b, window, obstacles,
                                                algorithm)
                if len(res.cells):
                    res.__dict__["_start"] = sw  # (results.started, inline)
                return res
            if algorithm != "auto":
                pf.resolve_algorithm(algorithm)  # (validates the name before the cache)
            grid = pf.engine.padded.grid  # (its geometry: the edited cells are pf's)
            cs = pf.engine.world.cell_of(sw)  # far points clamped: world_to_cell could overflow
            ce = pf.engine.world.cell_of(ew)
            circles = None if obstacles is None else _as_circles(obstacles)
            limits = None
            if budget is not None or window is not None:
                limits = (check_budget(budget),
                          None if window is None else pf.engine.padded.window(window))
            key = (self._token, cs, ce, nearest, bool(smooth), limits,
                   self._level.version + self._cell_edits, self._occ_version,
                   self._obstacle_key(circles), algorithm)
            entry = self.cache.get(key)
            if entry is None:
                # The search depends on the two cells only: plan from their
                # centres, so that every point in them can share the result.
                res = pf.find_path(grid.cell_center(*cs), grid.cell_center(*ce),
                                   smooth=smooth, nearest=nearest, budget=budget, window=window,
                                   obstacles=circles, algorithm=algorithm)
                entry = _Entry(res, grid)
                self.cache.put(key, entry)
            return entry.at(sw, ew, ce, FIRST_WAYPOINT_TRIM * grid.cell_size)

    def _obstacle_key(self, circles: NDArray[np.float64] | None) -> Any:
        """:func:`~navkit.query.cache.obstacle_key`, remembered for the last snapshot (the
        same characters are asked about many times per tick; the raw bytes
        compare in a fraction of the sort the key needs)."""
        if circles is None:
            return None
        raw = circles.tobytes()
        if raw == self._okey_raw and circles.shape == self._okey_shape:
            return self._okey
        key = obstacle_key(circles)
        self._okey_raw, self._okey_shape, self._okey = raw, circles.shape, key
        return key

    def __repr__(self) -> str:
        return (
            f"NavMap({self.grid!r}, version={self.version}, occupants={len(self._occupants)}, "
            f"cache={self.cache!r})"
        )


def _one_point(point: Any, z: Any, owner: str) -> Any:
    """``point``, or ``(point, z)`` for the old two-number spelling (DeprecationWarning)."""
    if z is None:
        return point
    deprecated_name(f"{owner}(x, z)", f"{owner}((x, z))", stacklevel=5)
    return (point, z)


def _as_circles(obstacles: Any) -> NDArray[np.float64]:
    """An obstacle snapshot as float64 (validated later, by the query itself)."""
    try:
        return np.asarray(obstacles, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        return as_circles(obstacles)  # raises the QueryError that explains


class _Entry:
    """A cached result planned between two cell centres, reusable for any points in those cells.

    ``kept`` holds the waypoints before the exact-point rules of
    docs/rules.md §4.2-§4.3: planned from the start cell's centre, the first
    waypoint was dropped exactly when it was that centre and more followed
    (distance 0), so it is put back here.
    """

    __slots__ = ("res", "kept", "x0", "z0")

    def __init__(self, res: PathResult, grid: NavGrid):
        res.cells.setflags(write=False)
        self.res = res
        self.kept: NDArray[np.float64] | None = None
        self.x0 = self.z0 = 0.0
        if not res.has_path or res.start_cell is None:
            return
        pts = res.waypoints
        first = grid.cell_center(*res.start_cell)
        if (float(pts[0, 0]), float(pts[0, 1])) != first:
            kept = np.empty((len(pts) + 1, 2), dtype=np.float64)
            kept[0] = first
            kept[1:] = pts
            kept.setflags(write=False)
            pts = kept
        self.kept = pts
        self.x0, self.z0 = first

    def at(self, sw: tuple[float, float], ew: tuple[float, float], ce: tuple[int, int],
           trim: float) -> PathResult:
        """The result for start ``sw`` and end ``ew`` (in cell ``ce``): the
        last waypoint (the exact end when its cell is the end cell, docs/rules.md
        §4.3) and first waypoint (dropped within ``trim`` metres of the start,
        §4.2) rules."""
        res = self.res
        pts = self.kept
        if pts is None:
            return res
        return world_waypoints(res, sw, ew, ce, trim, pts)
