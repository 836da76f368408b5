"""Buildings from tile maps: Tiled (one group layer per floor) and LDtk (one
level per floor), with link objects / entities (docs/tiled.md, "Floors and links").

>>> import navkit
>>> b = read_tiled_building(navkit.examples.path("dungeon.tmj"))  # no groups: one floor
>>> b.floor_names
('ground',)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..formats.ldtk import read_ldtk_floors
from ..formats.tiled import read_tiled_floors
from .building import Building

__all__ = ["read_tiled_building", "read_ldtk_building", "read_map_building"]


def read_tiled_building(path: str | Path, mapping: Any = None, **options: Any) -> Building:
    """A :class:`Building` from a Tiled map (``.tmj`` / ``.tmx``): each top-level
    group layer a floor, ``link`` objects its links; ``options`` as
    :func:`navkit.formats.read_tiled_floors` (``floors=``, ``max_cells=``, ...)."""
    return read_tiled_floors(path, mapping, **options).build(Building.from_grids)


def read_ldtk_building(path: str | Path, **options: Any) -> Building:
    """A :class:`Building` from an LDtk project: each level a floor, ``Link``
    entities its links; ``options`` as :func:`navkit.formats.read_ldtk_floors`."""
    return read_ldtk_floors(path, **options).build(Building.from_grids)


def read_map_building(path: str | Path) -> Building | None:
    """A Tiled or LDtk file's building (by its extension), or None for another file."""
    ext = Path(path).suffix.lower()
    if ext in (".tmj", ".tmx"):
        return read_tiled_building(path)
    if ext == ".ldtk":
        return read_ldtk_building(path)
    return None
