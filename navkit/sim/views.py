"""Which map view a :class:`~navkit.sim.location.Location` gets: grid or mesh.

:func:`as_map_view` picks :class:`~navkit.sim.planner.MapView` (grids, the
default) or :class:`~navkit.sim.mesh_view.MeshView` (``navigationMode
"mesh"``, or a :class:`~navkit.mesh.navmesh.NavMesh` source). The mesh
package is imported only when a mesh is used.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..grid import NavGrid
from ..level import LevelConfig, NavLevel
from ..query.navmap import NavMap
from .planner import MapView

__all__ = ["as_map_view", "NAVIGATION_MODES"]

#: Values of ``navigation_mode`` (scene key ``navigationMode``).
NAVIGATION_MODES = ("grid", "mesh")

_GRID_SOURCES = (NavMap, dict, NavLevel, LevelConfig, NavGrid)


def as_map_view(source: Any, *, path: str | Path | None = None, mode: str = "grid") -> MapView:
    """A :class:`MapView` for ``source`` (returned as is when it already is one).

    ``mode="mesh"`` (or a :class:`~navkit.mesh.navmesh.NavMesh` source) gives a
    :class:`~navkit.sim.mesh_view.MeshView`: plans on a navigation mesh built
    from ``source``.
    """
    if isinstance(source, MapView):
        return source
    if type(source).__module__ in ("navkit.world.world", "navkit.world.store"):
        if mode != "grid":  # a World or a ChunkStore: plans through World.find_path
            raise ConfigError(f"a world is navigated on its cells, not as {mode!r}",
                              field="navigationMode")
        from .world_view import WorldView  # (navkit.world is imported only for a world)

        return WorldView(source, path=path)
    if mode not in NAVIGATION_MODES:
        raise ConfigError(f"expected one of {', '.join(NAVIGATION_MODES)}, got {mode!r}",
                          field="navigationMode")
    if mode == "grid":
        if isinstance(source, _GRID_SOURCES):
            return MapView(source, path=path)
        try:  # the mesh package is imported only when a mesh is used
            from ..mesh.navmesh import NavMesh
        except ImportError:  # pragma: no cover - a broken install: the grid error below
            return MapView(source, path=path)
        if not isinstance(source, NavMesh):
            return MapView(source, path=path)  # raises, naming the types accepted
    from .mesh_view import MeshView

    return MeshView(source, path=path)
