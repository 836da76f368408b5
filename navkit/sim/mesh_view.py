"""The simulation on a navigation mesh: :class:`MeshView` (docs/rules.md §7-§10 on a mesh).

A :class:`MeshView` is the :class:`~navkit.sim.simmap.SimMap` of a
:class:`~navkit.mesh.navmesh.NavMesh` (:mod:`navkit.sim.views` builds it). Plans are mesh queries
(``find_path_to_nearest``, the exact method by default) around the same
obstacle snapshot as on grids (docs/rules.md §7.3, radii of
:meth:`SimMap.obstacle_radius <navkit.sim.simmap.SimMap.obstacle_radius>`); a character
follows the mesh waypoints.

**Walls.** The movement kernel checks steps against a padded walkable grid
(docs/rules.md §9.5). On a mesh that grid is the **outer raster** of the
mesh's free space (:meth:`NavMesh.raster <navkit.mesh.navmesh.NavMesh.raster>`,
:mod:`navkit.mesh.raster`): a cell is free when its closed square meets the free space
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
mesh, bump its ``version`` and force replans as on grids
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

from ..mesh.navmesh import DEFAULT_MESH_CELL_SIZE
from ..mesh.raster import outer_raster
from ..results import MESH_GOAL_TOLERANCE
from .views import MeshView

__all__ = ["MeshView", "outer_raster", "MESH_GOAL_TOLERANCE", "DEFAULT_MESH_CELL_SIZE"]
