"""Navigation meshes: convex polygons over free space, exact any-angle paths (docs/navmesh.md).

* :class:`~navkit.mesh.navmesh.NavMesh` (also ``navkit.NavMesh``): build from a
  polygon level or a grid, query exact (Polyanya) or funnel paths, raycasts,
  point location; doors and obstacles edit it in place.
* :mod:`navkit.mesh.arrays`: the mesh's arrays, their invariants and the file format.
* :mod:`navkit.mesh.build`, :mod:`navkit.mesh.merge`, :mod:`navkit.mesh.from_grid`,
  :mod:`navkit.mesh.edit`: free space, triangulation, merging, grids, local rebuilds.
* :mod:`navkit.mesh.exact` (Polyanya), :mod:`navkit.mesh.funnel` (A* + funnel),
  :mod:`navkit.mesh.locate` (point location, nearest point, raycast).

Sub-modules load on first use, so ``import navkit.mesh`` is cheap.
"""

from __future__ import annotations

from typing import Any

__all__ = ["NavMesh", "RaycastHit"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import navmesh
        return getattr(navmesh, name)
    raise AttributeError(f"module 'navkit.mesh' has no attribute {name!r}")
