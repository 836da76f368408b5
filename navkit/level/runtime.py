"""Mutable levels: toggle areas (doors), add and remove obstacles at runtime.

>>> cfg = parse_level({
...     "cellSize": 0.5, "agentRadius": 0.0, "objectPadding": 0.0,
...     "areas": [
...         {"name": "room", "polygon": [[0, 0], [4, 0], [4, 4], [0, 4]]},
...         {"name": "door", "available": False, "polygon": [[4, 1], [6, 1], [6, 3], [4, 3]]},
...     ],
... })
>>> level = NavLevel(cfg)
>>> level.version, int(level.grid.walkable.sum())
(0, 64)
>>> level.set_area_available("door", True)
True
>>> level.version, int(level.grid.walkable.sum())
(1, 80)
>>> level.areas_at(4.0, 2.0)
['room', 'door']
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from numpy.typing import NDArray

from ..errors import ConfigError, QueryError, shown
from ..grid import NavGrid
from .model import LevelConfig
from .parse import (
    check_reader_limit,
    grid_scene_error,
    parse_level,
    read_level,
    read_level_or_map,
)
from .raster import PreparedLevel, rasterize

__all__ = ["NavLevel", "load_level", "load_level_or_map", "level_config"]

# fraction of the grid above which pending windows are replaced by a full rebuild
_FULL_REBUILD_FRACTION = 0.5
_MAX_PENDING_WINDOWS = 16

_Window = tuple[int, int, int, int]  # x0, x1, z0, z1 (half-open cell ranges)


class NavLevel:
    """A level whose areas and obstacles can change; :attr:`grid` follows.

    ``version`` starts at 0 and increases by one on every change
    (:meth:`set_area_available` that changes something, :meth:`add_obstacle`,
    :meth:`remove_obstacle`); planners can compare it to know when to replan.
    The grid geometry (corner, size) never changes: it depends on the bounds
    of all areas, available or not.

    Every change is all-or-nothing: it is validated and its effect computed
    before the config, version and grid change, so an edit that raises leaves
    the level as it was.

    The grid is rebuilt lazily on the next :attr:`grid` access. Only the cells
    near a change are re-rasterized (the changed polygon's bounding box grown
    by ``boundaryPadding`` for areas, ``agentRadius + objectPadding`` for
    obstacles); the result is identical to :func:`rasterize` of :attr:`config`.
    """

    def __init__(self, config: LevelConfig | dict[str, Any]):
        if isinstance(config, dict):
            config = parse_level(config)
        if not isinstance(config, LevelConfig):
            raise TypeError(f"expected a LevelConfig, got {type(config).__name__}")
        self._config = config
        self._version = 0
        self._grid: NavGrid | None = None
        self._walk: NDArray[np.bool_] | None = None
        self._weight: NDArray[np.int32] | None = None
        self._pending: list[_Window] | None = None  # None: full rebuild needed
        self._prep: PreparedLevel | None = None

    @classmethod
    def from_file(cls, path: str | Path, *, max_cells: int | None = None) -> NavLevel:
        """Read a JSON level file (see :func:`~navkit.level.read_level`)."""
        return cls(read_level(path, max_cells=max_cells))

    # ------------------------------------------------------------ properties
    @property
    def config(self) -> LevelConfig:
        """The current configuration (immutable; changes replace it)."""
        return self._config

    @property
    def version(self) -> int:
        """Change counter: +1 on every change to areas or obstacles."""
        return self._version

    @property
    def area_names(self) -> tuple[str, ...]:
        """Area names in config order."""
        return self._config.area_names

    @property
    def obstacle_names(self) -> tuple[str, ...]:
        """Obstacle names in config order (added ones last)."""
        return self._config.obstacle_names

    @property
    def grid(self) -> NavGrid:
        """The current grid, rebuilt if something changed since the last access."""
        if self._grid is None:
            self._rebuild()
        assert self._grid is not None
        return self._grid

    def is_area_available(self, name: str) -> bool:
        """Whether area ``name`` is available (ConfigError when unknown)."""
        return self._config.area(name).available

    # ---------------------------------------------------------------- changes
    def set_area_available(self, name: str, available: bool) -> bool:
        """Open or close area ``name``; returns whether anything changed.

        Raises :class:`~navkit.errors.ConfigError` (field ``name``) for an
        unknown area. Setting the current state again is a no-op: no version
        bump, no rebuild.
        """
        area = self._config.area(name)
        if not isinstance(available, (bool, np.bool_)):
            raise ConfigError(f"expected True or False, got {shown(available)}",
                              field="available")
        available = bool(available)
        if area.available == available:
            return False
        new = self._config.with_area_available(name, available)
        self._change(new, area.geometry.bounds, self._config.boundary_padding)
        return True

    def add_obstacle(self, name: str, polygon: Sequence[Sequence[float]]) -> None:
        """Add an obstacle polygon ``[[x, z], ...]`` (validated like the config).

        Raises :class:`~navkit.errors.ConfigError` naming ``name`` (duplicate or
        empty) or ``polygon[j]`` / ``polygon`` (bad point, too few points,
        self-intersection).
        """
        new = self._config.with_obstacle(name, polygon)
        obs = new.obstacles[-1]
        self._change(new, obs.geometry.bounds, self._config.obstacle_radius)

    def remove_obstacle(self, name: str) -> None:
        """Remove obstacle ``name`` (ConfigError, field ``name``, when unknown)."""
        obs = self._config.obstacle(name)
        new = self._config.without_obstacle(name)
        self._change(new, obs.geometry.bounds, self._config.obstacle_radius)

    # ---------------------------------------------------------------- queries
    def areas_at(self, x: float, z: float, *, available_only: bool = False) -> list[str]:
        """Names of the areas whose polygon covers world point ``(x, z)`` (edges count).

        Holes are not part of an area. With ``available_only`` only available
        areas are listed. Config order.
        """
        try:
            fx, fz = float(x), float(z)
        except (TypeError, ValueError, OverflowError):
            raise QueryError(f"expected world coordinates, got ({shown(x)}, {shown(z)})") from None
        if not (math.isfinite(fx) and math.isfinite(fz)):
            raise QueryError(f"world coordinates must be finite, got ({x}, {z})")
        areas = [a for a in self._config.areas if a.available or not available_only]
        if not areas:
            return []
        hits = shapely.intersects_xy(np.array([a.geometry for a in areas], dtype=object), fx, fz)
        return [a.name for a, hit in zip(areas, hits, strict=True) if hit]

    def to_json_dict(self) -> dict[str, Any]:
        """The current configuration as a JSON-ready dict."""
        return self._config.to_json_dict()

    def __repr__(self) -> str:
        cfg = self._config
        opened = sum(a.available for a in cfg.areas)
        return (
            f"NavLevel({cfg.name or 'unnamed'}: {len(cfg.areas)} areas ({opened} available), "
            f"{len(cfg.obstacles)} obstacles, version {self._version})"
        )

    # --------------------------------------------------------------- internals
    def _change(
        self, new: LevelConfig, bounds: tuple[float, float, float, float], reach: float
    ) -> None:
        """Commit ``new`` (one version step), once the cells to redo are known."""
        pending = self._pending
        if pending is not None and self._walk is not None:
            geo = new.grid_geometry()
            cs = geo.cell_size
            x0, z0, x1, z1 = bounds
            # one extra cell each side absorbs rounding; the window is recomputed exactly
            grow = reach + cs
            win = (
                _clamp(math.floor((x0 - grow - geo.min_x) / cs), geo.width),
                _clamp(math.ceil((x1 + grow - geo.min_x) / cs) + 1, geo.width),
                _clamp(math.floor((z0 - grow - geo.min_z) / cs), geo.depth),
                _clamp(math.ceil((z1 + grow - geo.min_z) / cs) + 1, geo.depth),
            )
            pending = [*pending, win]
            cells = sum((w[1] - w[0]) * (w[3] - w[2]) for w in pending)
            if len(pending) > _MAX_PENDING_WINDOWS or cells > _FULL_REBUILD_FRACTION * geo.size:
                pending = None
        self._config = new
        self._pending = pending
        self._version += 1
        self._grid = None
        self._prep = None

    def _rebuild(self) -> None:
        prep = PreparedLevel.build(self._config)
        geo = prep.geometry
        pending = self._pending
        if (
            pending is None
            or self._walk is None
            or (self._weight is not None) != prep.weighted
            or self._walk.shape != (geo.depth, geo.width)
        ):
            walk, weight = prep.raster_window(0, geo.width, 0, geo.depth)
            self._walk, self._weight = walk, weight
        else:
            for x0, x1, z0, z1 in pending:
                if x0 >= x1 or z0 >= z1:
                    continue
                w, wt = prep.raster_window(x0, x1, z0, z1)
                self._walk[z0:z1, x0:x1] = w
                if self._weight is not None and wt is not None:
                    self._weight[z0:z1, x0:x1] = wt
        self._pending = []
        self._prep = prep
        self._grid = prep.make_grid(
            self._walk.copy(), None if self._weight is None else self._weight.copy()
        )


def _clamp(v: int, n: int) -> int:
    return max(0, min(n, int(v)))


_OPTIONS = {
    "cell_size",
    "agent_radius",
    "object_padding",
    "boundary_padding",
    "floor_y",
}


def load_level(path: str | Path, *, max_cells: int | None = None, **options: Any) -> NavGrid:
    """Read a JSON level file and rasterize it.

    Keyword options override the file's parameters: ``cell_size``,
    ``agent_radius``, ``object_padding``, ``boundary_padding``, ``floor_y``
    and ``max_cells`` (which also lifts the reader limit, see
    :func:`~navkit.level.parse_level`); ``name`` overrides the grid's label
    (default: file stem). Overrides are validated like the file's values; an
    unknown option raises :class:`~navkit.errors.ConfigError` naming it. The
    grid's size is checked before it is allocated. A scene file gives the
    level it holds or names (:func:`~navkit.level.read_level`).
    """
    grid = load_level_or_map(path, max_cells=max_cells, **options)
    if isinstance(grid, Path):
        raise grid_scene_error(path, grid)
    return grid


def load_level_or_map(path: str | Path, *, max_cells: int | None = None,
                      **options: Any) -> NavGrid | Path:
    """:func:`load_level`, except that a scene whose map is a grid file (not
    ``.json``) gives that file's path, for ``navkit.load_grid`` (used by it for
    ``.json``); such a file takes no options (ConfigError naming the first).
    """
    name = options.pop("name", None)
    unknown = sorted(set(options) - _OPTIONS)
    if unknown:
        raise ConfigError(
            f"unknown level option(s) {', '.join(unknown)}; "
            f"expected some of {', '.join(sorted(_OPTIONS | {'max_cells', 'name'}))}",
            field=unknown[0],
        )
    config = read_level_or_map(path, max_cells=max_cells)
    if isinstance(config, Path):
        given = sorted(options) + (["name"] if name is not None else [])
        if given:
            raise ConfigError(f"level options do not apply to the scene's grid file "
                              f"{str(config)!r}", field=given[0], path=path)
        return config
    if options:
        config = replace(config, **options)
        check_reader_limit(config, max_cells)
    return rasterize(config, name=name)


def level_config(level: Any, *, field: str = "level") -> LevelConfig:
    """The :class:`LevelConfig` of a level in any of its forms: a LevelConfig, a
    :class:`NavLevel` (its current config), a level dict (:func:`parse_level`) or
    the path of a level file or a scene naming one (:func:`read_level`).
    Anything else raises :class:`~navkit.errors.ConfigError` naming ``field``.
    """
    if isinstance(level, LevelConfig):
        return level
    if isinstance(level, NavLevel):
        return level.config
    if isinstance(level, dict):
        return parse_level(level)
    if isinstance(level, (str, Path)):
        return read_level(level)
    raise ConfigError(f"expected a LevelConfig, NavLevel, level dict or path, got "
                      f"{type(level).__name__}", field=field)
