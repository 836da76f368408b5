"""Buildings: floors on one shared grid frame joined by links (docs/floors.md,
docs/rules.md §16)."""

from __future__ import annotations

from .building import Building, building_config, read_building
from .floormap import FloorMap, FloorPathResult, FloorPlace, LinkStep
from .model import LINK_KINDS, BuildingConfig, LinkConfig, LinkEnd, parse_building
from .search import CellPath, FloorSearch, link_cost_int

__all__ = ["Building", "BuildingConfig", "LinkConfig", "LinkEnd", "LINK_KINDS", "parse_building",
           "read_building", "building_config", "FloorSearch", "CellPath", "link_cost_int",
           "FloorMap", "FloorPathResult", "FloorPlace", "LinkStep"]
