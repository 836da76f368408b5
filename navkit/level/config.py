"""Polygon level configs (docs/rules.md §2.1): parsing, validation, JSON round trip.

A level config is a JSON object::

    {
      "cellSize": 0.4, "agentRadius": 0.45, "objectPadding": 0.25,
      "boundaryPadding": 0.0, "floorY": 0.0, "maxCells": 16000000,
      "areas": [
        {"name": "hall", "available": true, "weight": 1,
         "polygon": [[0, 0], [10, 0], [10, 6], [0, 6]],
         "holes": [[[4, 2], [6, 2], [6, 4], [4, 4]]]}
      ],
      "obstacles": [{"name": "table", "polygon": [[1, 1], [2, 1], [2, 2], [1, 2]]}]
    }

Every parameter is optional (defaults as in docs/rules.md §1.2); ``areas`` must hold
at least one area. Coordinates are world metres ``[x, z]``, finite and within
``+-1e15`` (``navkit._kernels.geometry.MAX_COORD``). ``weight`` is the
terrain cost multiplier of an area (docs/rules.md §1.5: road 1, grass 2, mud 4), an
integer in ``[1, 65535]``; where available areas overlap, the last-listed one's
weight applies (areas paint over earlier ones). A ring may repeat its first point at the end
(GeoJSON style); the repeat is dropped.

Invalid values raise :class:`~navkit.errors.ConfigError` naming the field as a
path such as ``areas[2].polygon[5]``; unknown keys only warn
(:class:`NavkitWarning`), naming the key's path.

This module gathers the public names of two: :mod:`navkit.level.model` (the
dataclasses and their validation) and :mod:`navkit.level.parse` (JSON in).

>>> cfg = parse_level({"areas": [{"name": "a", "polygon": [[0, 0], [4, 0], [4, 3]]}]})
>>> cfg.cell_size, cfg.areas[0].name, cfg.areas[0].weight
(0.4, 'a', 1)
>>> parse_level(cfg.to_json_dict()) == cfg
True
>>> parse_level({"areas": [{"name": "a", "polygon": [[0, 0], [4, 0]]}]})
Traceback (most recent call last):
...
navkit.errors.ConfigError: areas[0].polygon: a polygon needs at least 3 points, got 2
"""


from __future__ import annotations

from .model import (
    DEFAULT_AGENT_RADIUS,
    DEFAULT_BOUNDARY_PADDING,
    DEFAULT_CELL_SIZE,
    DEFAULT_FLOOR_Y,
    DEFAULT_MAX_CELLS,
    DEFAULT_OBJECT_PADDING,
    AreaConfig,
    GridGeometry,
    LevelConfig,
    ObstacleConfig,
    make_obstacle,
)
from .model import Point as Point  # type alias, importable from here as before
from .model import Ring as Ring
from .parse import NavkitWarning, parse_level, read_level

__all__ = [
    "NavkitWarning",
    "AreaConfig",
    "ObstacleConfig",
    "LevelConfig",
    "GridGeometry",
    "parse_level",
    "read_level",
    "make_obstacle",
    "DEFAULT_CELL_SIZE",
    "DEFAULT_AGENT_RADIUS",
    "DEFAULT_OBJECT_PADDING",
    "DEFAULT_BOUNDARY_PADDING",
    "DEFAULT_FLOOR_Y",
    "DEFAULT_MAX_CELLS",
]
