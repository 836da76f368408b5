"""Buildings: floors on one shared grid frame joined by links (docs/floors.md,
docs/rules.md §16)."""

from __future__ import annotations

from .building import Building, building_config, building_from_object, read_building
from .floormap import FloorMap, FloorPathResult, FloorPlace, LinkStep
from .model import LINK_KINDS, BuildingConfig, LinkConfig, LinkEnd, parse_building
from .search import CellPath, FloorSearch, link_cost_int


def warm_up() -> None:
    """Compile (or load) the floors kernels: a small building's queries, fields,
    obstacles and nearest-reachable (the ``floors`` group of ``navkit warmup``)."""
    from .examples import two_floors

    fm = FloorMap(two_floors(), warm=False)
    fm.find_path((1.0, 0.0, 4.0), (19.0, 3.5, 4.0))
    fm.find_path((1.0, 0.0, 4.0), (19.0, 3.5, 4.0), algorithm="dijkstra",
                 obstacles=[[5.0, 5.0, 1.0, 0]])
    fm.find_path_to_nearest((1.0, 0.0, 4.0), (30.0, 3.5, 4.0))
    fm.distance_field([(0, 2, 2)])


_LAZY = {"BuildingSim": "navkit.floors.sim", "FloorMesh": "navkit.floors.mesh",
         "read_tiled_building": "navkit.floors.maps", "read_ldtk_building": "navkit.floors.maps",
         "FloorWorld": "navkit.floors.world", "bake_building": "navkit.floors.world",
         "FloorHPA": "navkit.floors.hpa"}


def __getattr__(name: str) -> object:
    """``BuildingSim``, ``FloorMesh``, ``FloorWorld`` and the tile-map readers load
    their modules (the simulation, the meshes, the worlds) on first use, so path
    queries load none of them."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'navkit.floors' has no attribute {name!r}")


__all__ = ["BuildingSim", "FloorMesh", "FloorWorld", "FloorHPA", "bake_building",
           "read_tiled_building", "read_ldtk_building", "warm_up",
           "Building", "BuildingConfig", "LinkConfig", "LinkEnd", "LINK_KINDS",
           "parse_building", "read_building", "building_config", "building_from_object",
           "FloorSearch", "CellPath",
           "link_cost_int", "FloorMap", "FloorPathResult", "FloorPlace", "LinkStep"]
