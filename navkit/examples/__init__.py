"""Example maps and levels that ship inside the package (wheel included).

========================  ======================================================
file                      what it is
========================  ======================================================
``den520d.map`` (.scen)   a Moving AI map (Dragon Age: Origins, 256 x 257) and its
                          scenario file with optimal lengths
``arena.map`` (.scen)     a small Moving AI map and its scenarios
``interior.json``         a polygon level: rooms, doors as areas, furniture
``outdoor.json``          a polygon level with terrain weights (road, grass, mud)
``bench80.json``          the 80 x 80-cell level of the reference benchmark
``dungeon.tmj``           a Tiled map (JSON, tileset embedded) with two doors
                          (docs/tiled.md)
========================  ======================================================

The Moving AI files are copied byte for byte from the Moving AI benchmarks
(see ``SOURCES.md`` beside them for their origin and licence).

>>> path("den520d.map").name
'den520d.map'
>>> "interior.json" in names()
True
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from ..errors import ConfigError, unknown_name_message

__all__ = ["path", "names"]


def names() -> list[str]:
    """The bundled example files, sorted."""
    root = resources.files(__name__)
    kinds = (".map", ".scen", ".json", ".tmj")
    return sorted(p.name for p in root.iterdir() if p.name.endswith(kinds))


def path(name: str) -> Path:
    """The file system path of bundled example ``name`` (ConfigError naming the known ones)."""
    if name not in names():
        raise ConfigError(unknown_name_message("example", name, names()), field="name")
    return Path(str(resources.files(__name__) / name))
