"""The simulation's one map: :class:`SimMap`, a navigation backend as a Location sees it.

A :class:`~navkit.sim.location.Location` plans and moves its characters on a
:class:`SimMap`, which holds one backend of the navigation contract
(:class:`~navkit.contract.SimulationSpace`: a ``NavMap`` for grids and levels,
a ``NavMesh``, a ``World``) and asks it only what the contract says:

* **plans** are ``backend.find_path(start, goal, nearest=True, obstacles=...,
  ignore=...)`` around the obstacle characters (docs/rules.md §7.3), with the
  query options the map was made with (a mesh's ``algorithm``, a world's
  ``preset`` and ``bounds``, ``cache=False`` on a NavMap with a path cache);
* **walls**: the movement guard checks steps against ``backend.raster()``
  (docs/rules.md §9.5): a grid's own cells, a mesh's outer raster (§15.6), a
  world's resident region;
* **reachability** (partial plans, §8.4): two points are connected when their
  :meth:`~navkit.contract.Navigator.place` regions agree; a backend without
  global regions (a world) is read on the raster's connected components;
* **edits** (doors, obstacle polygons, cells) go to the backend; its
  ``version`` tells the planner to replan (§10.4), and the raster, or a finer
  ``space_token`` (a mesh), says whether the edit closed or opened the space.

Grid, mesh and world simulations differ only in the backend a SimMap holds.
:func:`navkit.sim.views.as_map_view` builds one from whatever a Location is given.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._kernels import sim as _k
from ..contract import ExactSpace, LegPlanner, Place, SimulationSpace
from ..errors import ConfigError, shown
from ..grid import NavGrid

__all__ = ["SimMap", "RESIDENT_CELLS", "grid_reference"]

#: The most cells a world may have to be made resident whole (the default region).
RESIDENT_CELLS = 1 << 22


def _check_region(region: Any, width: int, depth: int) -> tuple[int, int, int, int]:
    try:
        vals = [int(v) for v in region]
        ok = len(vals) == 4 and all(float(v) == int(v) for v in region)
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        raise ConfigError(f"expected four integer cells (x0, z0, x1, z1), got {shown(region)}",
                          field="region")
    x0, z0, x1, z1 = vals
    if not (0 <= x0 <= x1 < width and 0 <= z0 <= z1 < depth):
        raise ConfigError(f"expected 0 <= x0 <= x1 < {width} and 0 <= z0 <= z1 < {depth}, "
                          f"got {tuple(vals)}", field="region")
    if (x1 - x0 + 1) * (z1 - z0 + 1) > RESIDENT_CELLS:
        raise ConfigError(f"a region of at most {RESIDENT_CELLS:,} cells, got "
                          f"{(x1 - x0 + 1) * (z1 - z0 + 1):,}", field="region")
    return x0, z0, x1, z1


class SimMap:
    """A navigation backend as a simulation sees it (see the module docstring).

    Parameters
    ----------
    backend
        A :class:`~navkit.contract.SimulationSpace`: ``NavMap``, ``NavMesh`` or ``World``.
    path
        The file a grid came from (lets a saved scene reference it).
    options
        Keywords every plan passes to ``backend.find_path`` (a mesh's
        ``algorithm``; a world's ``preset``, which also makes plans bounded legs,
        docs/rules.md §14.5).
    wall_cell_size
        Cell size, metres, of the guard's wall grid (default: the backend's
        ``cell_size``; a mesh may take a finer one).
    region
        ``(x0, z0, x1, z1)``: the inclusive cell box of a world the characters live
        in (the guard's walls; plans never leave it). Default: the whole world,
        which must then have at most :data:`RESIDENT_CELLS` cells.
    agent_radius
        The radius, metres, of the obstacle-radius formula (docs/rules.md §7.4);
        default the backend's ``agent_radius``.
    """

    @property
    def record(self) -> Any:
        """The :class:`~navkit.corpus.QueryRecorder` plans are logged to, or None: the
        backend's own ``record`` (docs/corpora.md)."""
        return getattr(self.backend, "record", None)

    @record.setter
    def record(self, value: Any) -> None:
        if not hasattr(self.backend, "record"):
            raise ConfigError(f"a {type(self.backend).__name__} keeps no query corpus",
                              field="record")
        self.backend.record = value

    def __init__(self, backend: Any, *, path: str | Path | None = None,
                 options: dict[str, Any] | None = None, wall_cell_size: float | None = None,
                 region: Any = None, agent_radius: float | None = None):
        if not isinstance(backend, SimulationSpace):
            raise ConfigError("expected a navigation backend a simulation can run on "
                              "(NavMap, NavMesh or World), got "
                              f"{type(backend).__name__}", field="navigation")
        #: The navigation backend (the contract's :class:`~navkit.contract.SimulationSpace`).
        self.backend: Any = backend
        #: The scene's ``navigationMode``.
        self.mode = str(backend.navigation_mode)
        #: File the map was read from (a static grid file), for saving scenes.
        self.path = None if path is None else Path(path)
        self.options: dict[str, Any] = dict(options or {})
        self.preset = self.options.get("preset")
        if self.preset is not None and not isinstance(backend, LegPlanner):
            raise ConfigError(f"a {type(backend).__name__} plans whole paths; a preset "
                              "applies to worlds", field="preset")
        if agent_radius is None:
            agent_radius = backend.agent_radius
        ar = agent_radius
        if isinstance(ar, bool) or not isinstance(ar, (int, float)) or not math.isfinite(ar) \
                or ar < 0:
            raise ConfigError(f"expected a finite number >= 0, got {shown(ar)}",
                              field="agent_radius")
        self._agent = float(ar)
        self._wall_cell = wall_cell_size
        self._region: tuple[int, int, int, int] | None = None
        self._bounds: tuple[int, int, int, int] | None = None
        world: Any = backend
        if world.navigation_mode == "world":
            depth, width = world.shape
            if region is None:
                if width * depth > RESIDENT_CELLS:
                    raise ConfigError(f"a {width}x{depth}-cell world is too large to "
                                      f"keep resident (at most {RESIDENT_CELLS:,} cells): give "
                                      "the characters' region=(x0, z0, x1, z1)", field="region")
                self._region = (0, 0, width - 1, depth - 1)
            else:
                box = _check_region(region, width, depth)
                self._region = box
                if box != (0, 0, width - 1, depth - 1):
                    self._bounds = box
                    self.options["bounds"] = box
        elif region is not None:
            raise ConfigError(f"a {type(backend).__name__} takes no region", field="region")
        if wall_cell_size is not None:
            backend.raster(cell_size=wall_cell_size)  # validates it now
        self._built_version = -1
        self._grid: NavGrid | None = None
        self._cells: NDArray[np.uint8] | None = None
        self._labels: NDArray[np.int32] | None = None

    # ------------------------------------------------------------ the map
    @property
    def version(self) -> int:
        """Change counter of the backend (its ``version``)."""
        return int(self.backend.version)

    @property
    def grid(self) -> NavGrid:
        """The guard's walls: the backend's raster (see the module docstring)."""
        self._refresh()
        assert self._grid is not None
        return self._grid

    @property
    def level(self) -> Any:
        """The polygon level of a grid map, else None."""
        return getattr(self.backend, "level", None)

    @property
    def region(self) -> tuple[int, int, int, int] | None:
        """A world's active region, inclusive cells ``(x0, z0, x1, z1)`` (None elsewhere)."""
        return self._region

    @property
    def cell_size(self) -> float:
        """The backend's cell size (the obstacle radius formula's), metres."""
        return float(self.backend.cell_size)

    @property
    def wall_cell_size(self) -> float:
        """Cell size of the guard's wall grid, metres."""
        return float(self.grid.cell_size)

    @property
    def agent_radius(self) -> float:
        return self._agent

    @property
    def method(self) -> str:
        """A mesh's search (``"exact"`` or ``"funnel"``)."""
        algorithm = self.options.get("algorithm", "auto")
        return "exact" if algorithm == "auto" else str(algorithm)

    def obstacle_radius(self, collision_radius: ArrayLike) -> NDArray[np.float64]:
        """Collision radius + agent radius + half a cell diagonal (docs/rules.md §7.4),
        over arrays."""
        r = np.asarray(collision_radius, dtype=np.float64)
        return r + self.agent_radius + self.cell_size * math.sqrt(2.0) / 2.0

    # ------------------------------------------------------------ edits
    def set_area_available(self, name: str, available: bool) -> bool:
        """Open or close an area; returns whether anything changed."""
        return bool(self.backend.set_area_available(name, available))

    def add_obstacle(self, name: str, polygon: Any) -> None:
        self.backend.add_obstacle(name, polygon)

    def remove_obstacle(self, name: str) -> None:
        self.backend.remove_obstacle(name)

    def set_cells(self, cells: Any, values: Any) -> Any:
        """Edit cells of a world (``World.set_cells``); affected characters replan at
        the next tick (docs/rules.md §10.4)."""
        fn = getattr(self.backend, "set_cells", None)
        if fn is None:
            raise ConfigError(f"a {type(self.backend).__name__} has no set_cells; edit its "
                              "areas and obstacles", field="navigation")
        return fn(cells, values)

    def change_token(self) -> Any:
        """What :meth:`changes` compares across versions: a mesh's free space, else
        the walls."""
        if isinstance(self.backend, ExactSpace):
            return self.backend.space_token()
        return self.grid.walkable

    def changes(self, old: Any, new: Any) -> tuple[bool, bool]:
        """``(closed, opened)`` between two :meth:`change_token` values."""
        if isinstance(self.backend, ExactSpace):
            return self.backend.space_changes(old, new)
        if old.shape != new.shape:
            return True, True
        return bool(np.any(old & ~new)), bool(np.any(new & ~old))

    def to_json(self, base: Path | None = None,
                sidecar: Path | None = None) -> dict[str, Any] | str:
        """The map for a saved scene: a level inline, a grid by its file (or, built
        in memory or edited, written to ``sidecar`` and referenced)."""
        kind, value = self.backend.scene_source()
        if kind == "level":
            return dict(value)
        return grid_reference(value, self.path if kind == "grid" else None, sidecar, base)

    # ------------------------------------------------------ derived data
    def _refresh(self) -> None:
        v = self.version
        if v == self._built_version and self._cells is not None:
            return
        if self._region is not None:
            grid = self.backend.raster(region=self._region)
        else:
            grid = self.backend.raster(cell_size=self._wall_cell)
        walk = np.ascontiguousarray(grid.walkable, dtype=np.uint8)
        cells = np.zeros((grid.depth + 2, grid.width + 2), dtype=np.uint8)
        cells[1:-1, 1:-1] = walk
        labels = np.empty(grid.shape, dtype=np.int32)
        _k.label_components(walk, labels)
        self._grid, self._cells, self._labels = grid, cells.ravel(), labels
        self._built_version = v

    @property
    def padded_cells(self) -> NDArray[np.uint8]:
        """The walls with a blocked border, flattened (the kernel's layout)."""
        self._refresh()
        assert self._cells is not None
        return self._cells

    @property
    def labels(self) -> NDArray[np.int32]:
        """Connected components of the walls (-1 on blocked cells)."""
        self._refresh()
        assert self._labels is not None
        return self._labels

    @property
    def pathfinder(self) -> Any:
        """A grid map's Pathfinder (ConfigError on a mesh or a world)."""
        pf = getattr(self.backend, "pathfinder", None)
        if pf is None:
            raise ConfigError(f"a {type(self.backend).__name__} has no grid pathfinder; use "
                              "SimMap.backend", field="navigation")
        return pf

    def is_walkable(self, x: float, z: float) -> bool:
        """True when world point ``(x, z)`` lies on the navigable space."""
        return bool(self.backend.is_walkable((float(x), float(z))))

    def in_wall(self, x: float, z: float) -> bool:
        """True when world point ``(x, z)`` lies on a blocked cell of the guard's
        walls (:attr:`grid`) or outside them (docs/rules.md §9.5, §9.7)."""
        g = self.grid
        return not g.is_walkable(*g.world_to_cell(float(x), float(z)))

    # ------------------------------------------------------------ plans
    def _inside(self, cell: tuple[int, int] | None) -> tuple[int, int] | None:
        """``cell`` (a backend cell) as a cell of the walls, None outside them."""
        if cell is None:
            return None
        x0, z0 = (0, 0) if self._region is None else self._region[:2]
        g = self.grid
        x, z = cell[0] - x0, cell[1] - z0
        return (x, z) if 0 <= x < g.width and 0 <= z < g.depth else None

    def _region_of(self, place: Place) -> int:
        """``place``'s connected region: the backend's, else the walls' component."""
        if place.region >= 0:
            return place.region
        c = self._inside(place.cell)
        return -1 if c is None else int(self.labels[c[1], c[0]])

    def static_goal(self, start: tuple[float, float], end: tuple[float, float]) -> Place | None:
        """Where a plan without characters would end when ``end`` is reachable from
        ``start`` on the static space (docs/rules.md §8.4), else None."""
        s = self.backend.place(start)
        g = self.backend.place(end)
        if s is None or g is None:
            return None
        rs = self._region_of(s)
        if rs < 0 or rs != self._region_of(g):
            return None
        return g

    def ends_at(self, res: Any, goal: Place) -> bool:
        """Whether plan ``res`` ends at ``goal`` (a :meth:`static_goal` value)."""
        return bool(res.ends_at(goal))

    def is_leg(self, start: tuple[float, float], end: tuple[float, float], res: Any) -> bool:
        """Whether partial plan ``res`` is one bounded leg of a longer walk, to be
        continued from its end (docs/rules.md §14.5): a world with a preset."""
        if self.preset is None:
            return False
        return bool(self.backend.is_leg(start, end, res, self.preset))

    def find_path(self, start: tuple[float, float], end: tuple[float, float],
                  obstacles: Any, ignore: Any = None) -> Any:
        """One planning query: the path to ``end`` or to the nearest reachable point,
        around ``obstacles`` (circles ``(k, 3)`` or an ObstacleSnapshot, less the ids
        in ``ignore``; docs/rules.md §7.6)."""
        if self._bounds is not None and self._inside(self.backend.cell_of(start)) is None:
            raise ConfigError(f"a character at ({start[0]:.3f}, {start[1]:.3f}) is outside "
                              f"the active region {self._region}", field="region")
        goal = end
        if self.preset is not None:
            goal = self.backend.leg_goal(start, end, self.preset)
        return self.backend.find_path_to_nearest(start, goal, obstacles=obstacles,
                                                 ignore=ignore, **self.options)

    def __repr__(self) -> str:
        extra = ""
        if self.preset is not None:
            extra = f", window {self.preset.window}, budget {self.preset.budget}"
        if self._region is not None:
            extra += f", region={self._region}"
        return f"SimMap({self.backend!r}{extra})"


def grid_reference(grid: NavGrid, path: Path | None, sidecar: Path | None,
                   base: Path | None) -> str:
    """How a saved scene names a grid map: the file it came from (``path``), else
    ``sidecar`` after writing the grid there (``.npz``, exact geometry); relative
    to ``base`` when one is given. ConfigError when there is neither."""
    if path is not None:
        target = path
    elif sidecar is not None:
        from ..formats import save_grid

        save_grid(grid, sidecar)
        target = sidecar
    else:
        raise ConfigError("a grid built in memory (or edited) has no file to reference; "
                          "save the location to a file (its grid goes beside it)",
                          field="navigation")
    p = target.resolve()
    if base is not None:
        try:
            return os.path.relpath(p, base.resolve()).replace("\\", "/")
        except ValueError:
            pass
    return str(p)
