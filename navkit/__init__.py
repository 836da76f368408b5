"""navkit: exact, deterministic navigation for Python games and simulations.

>>> import numpy as np, navkit
>>> grid = navkit.NavGrid(np.ones((4, 4), dtype=bool))
>>> navkit.Pathfinder(grid, costs="exact").find_path_cells((0, 0), (3, 3)).cost
4.242642

The names below are the stable spelling; each loads its module on first use,
so ``import navkit`` stays quick and a game that only plans paths never
imports the simulation, the viewer or the command line. The layers behind
them are described in ``docs/architecture.md``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from . import _compat
from ._version import __version__

_compat.install()

#: Public name -> the module that defines it.
_EXPORTS: dict[str, str] = {
    "NavGrid": "navkit.grid",
    "Pathfinder": "navkit.query.pathfinder",
    "HPAStar": "navkit.query.hpa",
    "NavMap": "navkit.query.navmap",
    "PathCache": "navkit.query.cache",
    "FlowField": "navkit.query.flow",
    "FlowFieldCache": "navkit.query.flow_cache",
    "obstacle_radius": "navkit.query.navmap",
    "NavMesh": "navkit.mesh.navmesh",
    "SpatialHash": "navkit.crowd.spatial_hash",
    "Crowd": "navkit.crowd.crowd",
    "Navigator": "navkit.contract",
    "Agent": "navkit.contract",
    "Place": "navkit.contract",
    "RaycastHit": "navkit.contract",
    "NavResult": "navkit.results",
    "PathResult": "navkit.results",
    "PathBuffer": "navkit.results",
    "MeshPathResult": "navkit.results",
    "BatchResult": "navkit.results",
    "Status": "navkit.results",
    "CostModel": "navkit.costs",
    "SEED": "navkit.costs",
    "EXACT": "navkit.costs",
    "load_grid": "navkit.formats",
    "save_grid": "navkit.formats",
    "read_scenarios": "navkit.formats",
    "NavkitError": "navkit.errors",
    "FormatError": "navkit.errors",
    "ConfigError": "navkit.errors",
    "QueryError": "navkit.errors",
    "Location": "navkit.sim.location",
    "Character": "navkit.sim.character",
    "CharacterKind": "navkit.sim.kinds",
    "World": "navkit.world.world",
    "ChunkStore": "navkit.world.store",
    "FloorMap": "navkit.floors.floormap",
    "Building": "navkit.floors.building",
}

__all__ = [
    "NavGrid", "Pathfinder", "HPAStar", "NavMap", "PathCache", "FlowField", "FlowFieldCache",
    "obstacle_radius", "NavMesh", "SpatialHash", "Crowd", "Navigator", "Agent", "Place",
    "RaycastHit", "NavResult", "PathResult", "PathBuffer",
    "MeshPathResult",
    "BatchResult", "Status", "CostModel", "SEED", "EXACT",
    "load_grid", "save_grid", "read_scenarios", "NavkitError", "FormatError", "ConfigError",
    "QueryError", "Location", "Character", "CharacterKind", "World", "ChunkStore", "FloorMap",
    "Building", "__version__",
]
assert set(__all__) == {*_EXPORTS, "__version__"}


#: Sub-packages reachable as attributes (``navkit.examples.path(...)``), loaded on first use.
_SUBPACKAGES = frozenset({"examples", "formats", "level", "query", "mesh", "crowd", "sim",
                          "render", "render_mesh", "warmup", "viewer", "bench", "cli", "world",
                          "corpus", "distributed", "adapters", "spline", "floors"})


def __getattr__(name: str) -> Any:
    if name in _SUBPACKAGES:
        return importlib.import_module(f"navkit.{name}")
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'navkit' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # the next lookup is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # what the names are, for type checkers and IDEs
    from .contract import Agent, Navigator, Place, RaycastHit
    from .costs import EXACT, SEED, CostModel
    from .crowd.crowd import Crowd
    from .crowd.spatial_hash import SpatialHash
    from .errors import ConfigError, FormatError, NavkitError, QueryError
    from .formats import load_grid, read_scenarios, save_grid
    from .grid import NavGrid
    from .mesh.navmesh import NavMesh
    from .query.cache import PathCache
    from .query.flow import FlowField
    from .query.flow_cache import FlowFieldCache
    from .query.hpa import HPAStar
    from .query.navmap import NavMap, obstacle_radius
    from .query.pathfinder import Pathfinder
    from .results import BatchResult, MeshPathResult, NavResult, PathBuffer, PathResult, Status
    from .sim.character import Character
    from .sim.kinds import CharacterKind
    from .sim.location import Location
    from .world.store import ChunkStore
    from .world.world import World
