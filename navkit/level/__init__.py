"""Polygon levels: JSON navigation configs -> :class:`~navkit.grid.NavGrid` (docs/rules.md §2).

* :func:`parse_level` / :func:`read_level` validate a config into a
  :class:`LevelConfig` (errors name the field, e.g. ``areas[2].polygon[5]``).
* :func:`rasterize` turns a config into a grid; :func:`load_level` does both
  for a file.
* :class:`NavLevel` holds a level at runtime: open and close areas (doors),
  add and remove obstacles; its :attr:`NavLevel.grid` follows, and
  :attr:`NavLevel.version` counts changes.
"""

from __future__ import annotations

from .config import (
    DEFAULT_AGENT_RADIUS,
    DEFAULT_BOUNDARY_PADDING,
    DEFAULT_CELL_SIZE,
    DEFAULT_FLOOR_Y,
    DEFAULT_MAX_CELLS,
    DEFAULT_OBJECT_PADDING,
    AreaConfig,
    GridGeometry,
    LevelConfig,
    NavkitWarning,
    ObstacleConfig,
    make_obstacle,
    parse_level,
    read_level,
)
from .raster import block_obstacles, cell_centers, rasterize
from .runtime import NavLevel, level_config, load_level, load_level_or_map

__all__ = [
    "LevelConfig",
    "AreaConfig",
    "ObstacleConfig",
    "GridGeometry",
    "NavkitWarning",
    "NavLevel",
    "parse_level",
    "read_level",
    "rasterize",
    "load_level",
    "load_level_or_map",
    "level_config",
    "cell_centers",
    "block_obstacles",
    "make_obstacle",
    "DEFAULT_CELL_SIZE",
    "DEFAULT_AGENT_RADIUS",
    "DEFAULT_OBJECT_PADDING",
    "DEFAULT_BOUNDARY_PADDING",
    "DEFAULT_FLOOR_Y",
    "DEFAULT_MAX_CELLS",
]
