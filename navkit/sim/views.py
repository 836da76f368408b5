"""The map a :class:`~navkit.sim.location.Location` plans on, from what it is given.

:func:`as_map_view` turns a Location's ``navigation`` argument into a
:class:`~navkit.sim.simmap.SimMap` (one class: the planner and the movement
guard see grids, meshes and worlds alike). The three constructors below only
build the backend and its options:

* :class:`GridView`: a ``NavMap`` (from a level, a level config or dict, a
  ``NavGrid``, or a ``NavMap`` as given), planned without its path cache;
* :class:`MeshView`: a ``NavMesh`` (given, or built from a level or grid), exact
  or funnel paths, the walls its outer raster;
* :class:`WorldView`: a ``World`` (or a chunk store), bounded plans by default
  (docs/rules.md §14.5), the walls a resident region.

The backend is chosen by what the source is (the contract's protocols and
classes), never by module names; the mesh and world packages load only when used.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ..contract import ExactSpace, LegPlanner
from ..errors import ConfigError, shown
from ..grid import NavGrid
from ..level import LevelConfig, NavLevel, parse_level
from ..query.navmap import NavMap
from .simmap import RESIDENT_CELLS, SimMap

__all__ = ["as_map_view", "GridView", "MeshView", "WorldView", "NAVIGATION_MODES",
           "RESIDENT_CELLS"]

#: Values of ``navigation_mode`` (scene key ``navigationMode``).
NAVIGATION_MODES = ("grid", "mesh")

_GRID_SOURCES = (NavMap, dict, NavLevel, LevelConfig, NavGrid)
_UNBOUNDED = ("none", "unbounded", "long")


@runtime_checkable
class _ChunkStore(Protocol):
    """A world's cells (``navkit.world.store.ChunkStore`` or the same interface)."""

    chunk: int

    def region(self, x0: int, z0: int, x1: int, z1: int) -> Any: ...


class GridView(SimMap):
    """A :class:`SimMap` of a grid or polygon level (a ``NavMap``; the sim's grid mode).

    ``source``: a NavMap (planned without its path cache: every plan starts from
    the character's exact position), a NavLevel, LevelConfig, level dict or
    NavGrid (a NavMap without a cache is built). ``path``: the file a grid came from.
    """

    def __init__(self, source: Any, *, path: str | Path | None = None):
        if isinstance(source, NavMap):
            nav = source
        elif isinstance(source, dict):
            nav = NavMap(NavLevel(source), cache_size=0)
        elif isinstance(source, (NavLevel, LevelConfig, NavGrid)):
            nav = NavMap(source, cache_size=0)
        else:
            raise ConfigError("expected a NavMap, NavLevel, NavGrid, LevelConfig or level dict, "
                              f"got {type(source).__name__}", field="navigation")
        super().__init__(nav, path=path, options={"cache": False})

    @property
    def nav(self) -> NavMap:
        """The NavMap (this view's backend)."""
        return self.backend


class MeshView(SimMap):
    """A :class:`SimMap` of a navigation mesh (the sim's mesh mode).

    ``source``: a NavMesh, or what one is built from: a level (NavLevel,
    LevelConfig, dict), a NavGrid (``NavMesh.from_grid``) or a NavMap (its level,
    else its grid). ``method``: ``"exact"`` (default, the Euclidean optimum) or
    ``"funnel"``. ``wall_cell_size``: the guard's wall grid, metres (default the
    level's or grid's cell size, else 0.25 m; docs/rules.md §15.6).
    """

    def __init__(self, source: Any, *, path: str | Path | None = None, method: str = "exact",
                 wall_cell_size: float | None = None):
        from ..mesh.navmesh import METHODS, NavMesh

        if method not in METHODS:
            raise ConfigError(f"expected one of {', '.join(METHODS)}, got {shown(method)}",
                              field="method")
        if isinstance(source, NavMap):
            source = source.level if source.level is not None else source.grid
        if isinstance(source, dict):
            source = parse_level(source)
        if isinstance(source, NavMesh):
            mesh = source
        elif isinstance(source, (NavLevel, LevelConfig)):
            mesh = NavMesh.from_level(source)
        elif isinstance(source, NavGrid):
            mesh = NavMesh.from_grid(source)
        else:
            raise ConfigError("expected a NavMesh, NavMap, NavLevel, NavGrid, LevelConfig or "
                              f"level dict, got {type(source).__name__}", field="navigation")
        super().__init__(mesh, path=path, options={"algorithm": str(method)},
                         wall_cell_size=wall_cell_size)

    @property
    def mesh(self) -> Any:
        """The NavMesh (this view's backend)."""
        return self.backend

    @property
    def space(self) -> Any:
        """The mesh's free space (shapely), metres."""
        return self.backend.space

    def __repr__(self) -> str:
        return f"MeshView({self.backend!r}, method={self.method!r})"


class WorldView(SimMap):
    """A :class:`SimMap` of a chunked world (docs/rules.md §14.5).

    ``world``: a ``World`` (or a ``ChunkStore``, wrapped in a ``World`` with seed
    costs). ``preset``: ``"bounded"`` (default) or a ``QueryPreset``: every plan is
    a bounded local search, far destinations walked in legs; None (or
    ``"unbounded"``): long queries. ``region``: ``(x0, z0, x1, z1)``, the inclusive
    cell box the characters live in (default the whole world, at most
    :data:`RESIDENT_CELLS` cells). ``agent_radius``: the radius, metres, the
    world's cells were eroded by (a store keeps no such value).
    """

    def __init__(self, world: Any, *, preset: Any = "bounded", region: Any = None,
                 agent_radius: float = 0.0, path: str | Path | None = None):
        from ..world.local import get_preset
        from ..world.world import World

        if not isinstance(world, World):
            if isinstance(world, _ChunkStore):
                world = World(world)
            else:
                raise ConfigError(f"expected a World or a ChunkStore, got {shown(world)}",
                                  field="navigation")
        if isinstance(preset, str) and preset.lower() in _UNBOUNDED:
            preset = None
        ar = agent_radius
        if isinstance(ar, bool) or not isinstance(ar, (int, float)) or not math.isfinite(ar) \
                or ar < 0:
            raise ConfigError(f"expected a finite number >= 0, got {shown(ar)}",
                              field="agent_radius")
        pre = get_preset(preset)
        super().__init__(world, path=path, options={} if pre is None else {"preset": pre},
                         region=region, agent_radius=float(ar))

    @property
    def world(self) -> Any:
        """The World (this view's backend)."""
        return self.backend

    def __repr__(self) -> str:
        p = "unbounded" if self.preset is None else f"window {self.preset.window}, " \
            f"budget {self.preset.budget}"
        return f"WorldView({self.backend!r}, {p}, region={self.region})"


def as_map_view(source: Any, *, path: str | Path | None = None, mode: str = "grid") -> SimMap:
    """The :class:`SimMap` for ``source`` (returned as is when it already is one).

    A world (``World``, ``ChunkStore``) gives a :class:`WorldView`; a ``NavMesh``,
    or ``mode="mesh"``, a :class:`MeshView`; a grid source a :class:`GridView`.
    """
    if isinstance(source, SimMap):
        return source
    if isinstance(source, LegPlanner) or (isinstance(source, _ChunkStore)
                                          and not isinstance(source, _GRID_SOURCES)):
        if mode != "grid":  # a World or a ChunkStore: plans through World.find_path
            raise ConfigError(f"a world is navigated on its cells, not as {mode!r}",
                              field="navigationMode")
        return WorldView(source, path=path)
    if mode not in NAVIGATION_MODES:
        raise ConfigError(f"expected one of {', '.join(NAVIGATION_MODES)}, got {mode!r}",
                          field="navigationMode")
    if mode == "grid" and not isinstance(source, ExactSpace):
        return GridView(source, path=path)
    return MeshView(source, path=path)
