"""Layer 3, queries: objects that validate input, own reusable workspaces,
call the kernels and wrap their answers (``docs/architecture.md``).

:class:`Pathfinder` answers cell and world queries on one grid (A*, JPS,
Dijkstra, distance fields, batches); :class:`HPAStar` answers them on a
cluster hierarchy; :class:`FlowField` gives every cell its cost and
direction to the nearest goal; :class:`NavMap` is the world-coordinate
facade with doors, obstacle polygons, occupants and a path cache.
"""

from __future__ import annotations

from .cache import PathCache, obstacle_key
from .edits import ObstacleSnapshot
from .flow import FlowField
from .flow_cache import FlowFieldCache
from .hpa import HPAStar
from .navmap import NavMap, Obstacle, obstacle_radius
from .pathfinder import Pathfinder

__all__ = [
    "Pathfinder",
    "HPAStar",
    "FlowField",
    "FlowFieldCache",
    "NavMap",
    "Obstacle",
    "obstacle_radius",
    "PathCache",
    "obstacle_key",
    "ObstacleSnapshot",
]
